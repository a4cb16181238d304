import CairnCore
import Foundation

/// How `cairn serve` runs: where it listens and the per-launch secret that every request must carry.
///
/// Decision: only IPv4 loopback is served. `host` may be `127.0.0.1` or `localhost` (both bind 127.0.0.1);
/// `::1` and every other address are refused, so that the printed address, the Host check and the cookie all
/// name one origin, `http://127.0.0.1:PORT`.
public struct WebConfiguration: Sendable {
    /// The default port of `cairn serve`.
    public static let defaultPort: UInt16 = 8737
    /// The largest request body accepted (bytes).
    public static let defaultMaximumBodyBytes = 64 * 1024 * 1024

    /// The host as given (`127.0.0.1` or `localhost`); the server always binds 127.0.0.1.
    public let host: String
    /// The port to bind; 0 asks the system for a free one (tests). The server reports the bound port.
    public let port: UInt16
    /// The per-launch secret carried by the login address and then by the session cookie.
    public let secret: String
    /// The per-launch token embedded in forms and checked on every state-changing request.
    public let csrfToken: String
    /// The largest request body accepted, in bytes.
    public let maximumBodyBytes: Int
    /// Where a phone session listens when one is opened (`cairn serve` sets it; nil: "Use your phone" is not offered).
    public var phone: PhoneOptions?

    /// Creates a configuration, refusing anything but a loopback host and secrets that are short or unsafe
    /// in a cookie. Secrets default to 32 random bytes from `/dev/urandom`, base64url-encoded.
    public init(
        host: String = "127.0.0.1", port: UInt16 = WebConfiguration.defaultPort,
        secret: String? = nil, csrfToken: String? = nil,
        maximumBodyBytes: Int = WebConfiguration.defaultMaximumBodyBytes
    ) throws {
        guard WebConfiguration.isAcceptedHost(host) else { throw WebConfigurationError.hostNotLoopback }
        let secret = try secret ?? WebConfiguration.randomToken()
        let csrf = try csrfToken ?? WebConfiguration.randomToken()
        guard WebConfiguration.isWellFormedToken(secret), WebConfiguration.isWellFormedToken(csrf) else {
            throw WebConfigurationError.weakSecret
        }
        guard maximumBodyBytes > 0 else { throw WebConfigurationError.invalidBodyLimit }
        self.host = host
        self.port = port
        self.secret = secret
        self.csrfToken = csrf
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Whether `host` is one the server agrees to serve on (`127.0.0.1` or `localhost`).
    public static func isAcceptedHost(_ host: String) -> Bool {
        host == "127.0.0.1" || host.lowercased() == "localhost"
    }

    /// 32 random bytes from `/dev/urandom`, base64url without padding (43 characters).
    public static func randomToken() throws -> String {
        guard let handle = FileHandle(forReadingAtPath: "/dev/urandom") else { throw WebConfigurationError.noRandomness }
        defer { try? handle.close() }
        guard let bytes = try handle.read(upToCount: 32), bytes.count == 32 else { throw WebConfigurationError.noRandomness }
        return bytes.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// At least 32 characters, all from the base64url alphabet (safe in a cookie and in a URL).
    static func isWellFormedToken(_ token: String) -> Bool {
        token.utf8.count >= 32
            && token.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
            }
    }
}

/// Why a `WebConfiguration` or a `WebServer` could not be set up.
public enum WebConfigurationError: CairnError, Equatable {
    /// `--host` named something other than this computer's IPv4 loopback.
    case hostNotLoopback
    /// A secret or CSRF token given explicitly was too short or had characters unsafe in a cookie.
    case weakSecret
    /// The body limit was zero or negative.
    case invalidBodyLimit
    /// `/dev/urandom` could not be read.
    case noRandomness
    /// The port could not be bound (in use, or not permitted).
    case cannotListen(port: UInt16)
    /// libmicrohttpd refused to start.
    case serverDidNotStart

    public var userMessage: String {
        switch self {
        case .hostNotLoopback:
            return "Cairn serves only on this computer (127.0.0.1). Remove --host or use --host 127.0.0.1."
        case .weakSecret:
            return "The access secret must be at least 32 characters of letters, digits, '-' or '_'."
        case .invalidBodyLimit:
            return "The largest accepted upload must be more than zero bytes."
        case .noRandomness:
            return "Cairn could not read the system's random source (/dev/urandom) to make a private access key."
        case .cannotListen(let port):
            return "Cairn could not listen on 127.0.0.1 port \(port). Another program may be using it; try another --port."
        case .serverDidNotStart:
            return "The web server could not start."
        }
    }
}

extension WebConfigurationError {
    public var errorKind: ErrorKind {
        switch self {
        case .hostNotLoopback, .weakSecret, .invalidBodyLimit: return .refusedInput
        case .cannotListen: return .conflict
        case .noRandomness, .serverDidNotStart: return .failure
        }
    }
}
