import CairnCore
import Foundation

/// How a phone session is opened: `cairn serve --phone-address ADDR --phone-port N --phone-minutes N`.
public struct PhoneOptions: Sendable, Equatable {
    /// The default port of the phone listener: stable, so the phone's browser finds its certificate exception again.
    public static let defaultPort: UInt16 = 8738
    /// How long a session lasts, counted from opening or renewing.
    public static let defaultMinutes = 15
    /// The minutes a session may be opened for.
    public static let minuteRange = 1...60

    /// The address asked for (`--phone-address`), nil for the default route's private address (`PhoneNetwork.choose`).
    public var address: String?
    /// The port (0 picks a free one: tests).
    public var port: UInt16
    /// Minutes from opening (or renewing) to the end.
    public var minutes: Int

    /// Options; `minutes` must be within `minuteRange`.
    public init(address: String? = nil, port: UInt16 = PhoneOptions.defaultPort, minutes: Int = PhoneOptions.defaultMinutes) {
        precondition(Self.minuteRange.contains(minutes))
        self.address = address
        self.port = port
        self.minutes = minutes
    }
}

/// Why a phone session could not be opened or used.
public enum PhoneSessionError: CairnError, Equatable {
    /// The vault is locked: its key (and so the phone's certificate key) is not open.
    case vaultLocked
    /// This server was started without phone options (an in-process test).
    case notOffered
    /// The phone port could not be bound.
    case cannotListen(address: String, port: UInt16)
    /// libmicrohttpd did not start the TLS listener.
    case listenerDidNotStart
    /// No join request or phone has this identifier (answered already, or the session ended).
    case unknown

    public var userMessage: String {
        switch self {
        case .vaultLocked: return "Unlock the vault first: the phone session opens only while it is unlocked."
        case .notOffered: return "Use your phone is available while Cairn runs with 'cairn serve'."
        case .cannotListen(let address, let port):
            return "Cairn could not listen on \(address) port \(port). Another program may be using it; try another --phone-port."
        case .listenerDidNotStart: return "The phone listener could not start."
        case .unknown: return "That phone is no longer waiting or connected."
        }
    }

    public var errorKind: ErrorKind {
        switch self {
        case .vaultLocked, .notOffered: return .unavailable
        case .cannotListen: return .conflict
        case .listenerDidNotStart: return .failure
        case .unknown: return .notFound
        }
    }
}

/// The browser a phone's `User-Agent` names, in a few plain words ("Chrome on Android"), from a short list; never the
/// header's own text.
enum BrowserName {
    static func describe(_ userAgent: String?) -> String {
        let agent = userAgent ?? ""
        let system: String
        if agent.contains("iPhone") {
            system = "iPhone"
        } else if agent.contains("iPad") {
            system = "iPad"
        } else if agent.contains("Android") {
            system = "Android"
        } else if agent.contains("Windows") {
            system = "Windows"
        } else if agent.contains("Mac OS X") {
            system = "a Mac"
        } else if agent.contains("Linux") {
            system = "Linux"
        } else {
            system = ""
        }
        let browser: String
        if agent.contains("SamsungBrowser") {
            browser = "Samsung Internet"
        } else if agent.contains("Firefox") || agent.contains("FxiOS") {
            browser = "Firefox"
        } else if agent.contains("Edg") {
            browser = "Edge"
        } else if agent.contains("CriOS") || agent.contains("Chrome") {
            browser = "Chrome"
        } else if agent.contains("Safari") {
            browser = "Safari"
        } else if agent.contains("curl") {
            browser = "curl"
        } else {
            browser = "A browser"
        }
        return system.isEmpty ? browser : "\(browser) on \(system)"
    }
}
