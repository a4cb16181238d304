import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import WebApp

#if canImport(Glibc)
    import Glibc
#endif

/// Fixed tokens, so tests can build cookies and forms.
enum Keys {
    static let secret = String(repeating: "s", count: 43)
    static let csrf = String(repeating: "c", count: 43)
}

/// A fresh vault with every service, served (optionally) by an in-process server on a free loopback port.
final class ServedVault: @unchecked Sendable {
    let scratch: Scratch
    let app: CairnApplication
    private(set) var server: WebServer?
    var directory: String { app.vault.directory.path }

    init(serve: Bool = true, maximumBodyBytes: Int = WebConfiguration.defaultMaximumBodyBytes) throws {
        scratch = try Scratch()
        app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:])
        guard serve else { return }
        try app.claimVaultForServing()
        let services = WebServices(app)
        let configuration = try WebConfiguration(
            port: 0, secret: Keys.secret, csrfToken: Keys.csrf,
            maximumBodyBytes: maximumBodyBytes)
        let server = try WebServer(configuration: configuration, services: services)
        try server.start()
        self.server = server
    }

    var port: UInt16 { server?.port ?? 0 }

    /// Another "process" on the same vault: a second application with its own database connection and lock file
    /// descriptor (flock locks through two descriptors conflict as between two processes).
    func openAgain() throws -> CairnApplication {
        try CairnApplication.open(dataDirectory: directory, environment: [:])
    }

    deinit {
        server?.stop()
        app.releaseVault()
        scratch.remove()
    }
}

enum HTTP {
    /// The request bytes: `Host` is this server, the session cookie unless `cookie` is false.
    static func raw(
        _ method: String, _ target: String, port: UInt16, cookie: Bool = true, headers: [String] = [],
        body: Data = Data()
    ) -> Data {
        LoopbackHTTP.raw(method, target, port: port, session: cookie ? Keys.secret : nil, headers: headers, body: body)
    }

    /// Sends one request and reads its response.
    static func request(
        _ method: String, _ target: String, port: UInt16, cookie: Bool = true, headers: [String] = [],
        body: Data = Data()
    ) throws -> RawResponse {
        let socket = try LoopbackSocket(port: port)
        socket.send(raw(method, target, port: port, cookie: cookie, headers: headers, body: body))
        return try socket.receive()
    }

    /// A url-encoded form post carrying the CSRF token.
    static func post(_ target: String, port: UInt16, form: [String: String]) throws -> RawResponse {
        var fields = form
        fields["csrf"] = Keys.csrf
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        return try request(
            "POST", target, port: port, headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: Data(body.utf8))
    }

    /// A multipart body with the CSRF field and one file field of `size` bytes.
    static func multipart(fileBytes size: Int) -> (header: String, body: Data) {
        LoopbackHTTP.multipart(csrf: Keys.csrf, fileBytes: size)
    }
}

/// A small JPEG photo (a smooth gradient), readable by the photo pipeline.
enum Photos {
    static func jpeg(width: Int = 320, height: Int = 240, seed: UInt8 = 0) throws -> Data {
        var image = RGBImage(width: width, height: height, red: 180, green: 140, blue: 120)
        for y in 0..<height {
            for x in 0..<width {
                let o = image.offset(x: x, y: y)
                image.pixels[o] = UInt8((x + Int(seed)) % 256)
                image.pixels[o + 1] = UInt8((y * 2) % 256)
                image.pixels[o + 2] = UInt8(((x + y) / 2 + Int(seed)) % 256)
            }
        }
        return try ImagePipeline().encodeJPEG(image)
    }
}

/// The built `cairn` executable (it sits beside the test bundle in the build folder), run as a separate process.
enum CairnProcess {
    static var executable: URL {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("cairn")
    }

    /// Starts `cairn ARGS` with its output in pipes.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

}
