internal import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The loopback HTTP server behind `cairn serve`: a thin libmicrohttpd adapter around `WebApplication`.
///
/// Decision: the server opens its own listening socket bound to 127.0.0.1 and hands it to libmicrohttpd
/// (`MHD_OPTION_LISTEN_SOCKET`). That makes the loopback bind explicit and lets `port` report the real port
/// when 0 was asked for (`MHD_get_daemon_info` is variadic and not callable from Swift).
/// Connections are served one thread each, so a slow page (an import, a comparison) never blocks another, and
/// a client that trickles its headers holds only its own thread.
///
/// Limits (decisions; all clients of a loopback server share 127.0.0.1, so the cap per client is the total cap:
/// `MHD_OPTION_PER_IP_CONNECTION_LIMIT` is not set, because libmicrohttpd closes a connection over the per-address
/// cap at once, while one over the total cap waits in the listen queue):
/// - a client has `headerTimeoutSeconds` of silence to finish its headers, then `bodyTimeoutSeconds` of silence
///   between body bytes; none while the application works on the request;
/// - at most `maximumConnections` at once, from one client as from all; beyond that, new connections wait in
///   the kernel's listen queue (`listenBacklog`) rather than being reset. Cairn accepts them itself
///   (`AcceptLoop`), only while a slot is free, and hands each to libmicrohttpd: libmicrohttpd's own listener
///   accepted past its cap in a burst and closed what it could not serve.
public final class WebServer: @unchecked Sendable {
    /// Seconds of silence allowed before the headers are complete (also between keep-alive requests).
    public static let headerTimeoutSeconds: UInt32 = 5
    /// Seconds of silence allowed between body bytes, and while a response is being read.
    public static let bodyTimeoutSeconds: UInt32 = 30
    /// Connections served at once (one thread each).
    public static let maximumConnections: UInt32 = 256
    /// Connections the kernel queues while `maximumConnections` are being served.
    public static let listenBacklog: Int32 = 4096
    /// libmicrohttpd's own cap is this much above `maximumConnections`, so it never closes one Cairn accepted.
    static let connectionLimitSlack: UInt32 = 64

    /// The configuration the server was created with.
    public let configuration: WebConfiguration
    private let gate: VaultGate
    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var context: Unmanaged<ServerContext>?
    private var boundPort: UInt16?
    private var acceptLoop: AcceptLoop?

    /// Creates a server; nothing is bound until `start()`. The configuration has already refused any
    /// non-loopback host.
    public convenience init(configuration: WebConfiguration, services: WebServices) throws {
        try self.init(configuration: configuration, gate: VaultGate(open: services))
    }

    /// A server whose pages `gate` opens and closes (a vault with a lock: see `VaultGate`).
    public init(configuration: WebConfiguration, gate: VaultGate) throws {
        guard WebConfiguration.isAcceptedHost(configuration.host) else { throw WebConfigurationError.hostNotLoopback }
        self.configuration = configuration
        self.gate = gate
    }

    deinit { stop() }

    /// The bound port once started (the configured port before that).
    public var port: UInt16 { lock.withLock { boundPort ?? configuration.port } }

    /// The server's clean address, `http://127.0.0.1:PORT/`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The address to open in a browser: it carries the secret once and is exchanged for a cookie.
    public var loginURL: String { "http://127.0.0.1:\(port)/?key=\(configuration.secret)" }

    /// The line `cairn serve` prints first: `Cairn is running at http://127.0.0.1:PORT/?key=SECRET`.
    public var startupLine: String { "Cairn is running at \(loginURL)" }

    /// Binds 127.0.0.1 on the configured port and starts serving on background threads.
    /// Throws `WebConfigurationError.cannotListen` when the port is taken. Calling it twice is a no-op.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard daemon == nil else { return }
        let (fd, port) = try WebServer.listenOnLoopback(port: configuration.port)
        let application = buildApplication(configuration: configuration, gate: gate, port: port)
        let context = Unmanaged.passRetained(ServerContext(application: application,
                                                           maximumBodyBytes: configuration.maximumBodyBytes,
                                                           bodyTimeoutSeconds: Self.bodyTimeoutSeconds,
                                                           maximumConnections: Int(Self.maximumConnections)))
        // Cairn accepts (see `AcceptLoop`); libmicrohttpd serves what it is handed, one thread each.
        let flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ERROR_LOG.rawValue
        let completed: MHD_RequestCompletedCallback = webRequestCompleted
        let notified: MHD_NotifyConnectionCallback = webConnectionNotified
        let options: [CVarArg] = [
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completed, to: OpaquePointer.self), Int(0),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(notified, to: OpaquePointer.self), Int(bitPattern: context.toOpaque()),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, Self.headerTimeoutSeconds,
            // Above Cairn's own cap: a connection gives its slot back a moment before libmicrohttpd forgets it.
            MHD_OPTION.CONNECTION_LIMIT.rawValue, Self.maximumConnections + Self.connectionLimitSlack,
            MHD_OPTION.END.rawValue,
        ]
        let started = withVaList(options) { va in
            MHD_start_daemon_va(flags, 0, nil, nil, webAccessHandler, context.toOpaque(), va)
        }
        guard let started else {
            close(fd)
            context.release()
            throw WebConfigurationError.serverDidNotStart
        }
        daemon = started
        self.context = context
        acceptLoop = AcceptLoop(listening: fd, daemon: started, slots: context.takeUnretainedValue().connectionSlots)
        boundPort = port
    }

    /// Stops accepting, closes the listening socket, then stops serving. Safe to call more than once.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        acceptLoop?.stop()
        acceptLoop = nil
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        context?.release()
        context = nil
    }

    /// Opens a TCP socket bound to 127.0.0.1:`port` and listening; returns it with the bound port.
    private static func listenOnLoopback(port: UInt16) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WebConfigurationError.cannotListen(port: port) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1, never INADDR_ANY
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, listenBacklog) == 0 else {
            close(fd)
            throw WebConfigurationError.cannotListen(port: port)
        }
        var actual = sockaddr_in()
        var actualLength = length
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            close(fd)
            throw WebConfigurationError.cannotListen(port: port)
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }
}

/// Accepts connections on the listening socket only while fewer than `WebServer.maximumConnections` are being
/// served (a slot of `slots` each), and hands each to libmicrohttpd, which closes it and gives the slot back
/// through `webConnectionNotified`. The others wait in the kernel's listen queue.
final class AcceptLoop: @unchecked Sendable {
    private let listening: Int32
    private let daemon: OpaquePointer
    private let slots: DispatchSemaphore
    private let finished = DispatchSemaphore(value: 0)
    private let state = NSLock()
    private var stopping = false

    init(listening: Int32, daemon: OpaquePointer, slots: DispatchSemaphore) {
        self.listening = listening
        self.daemon = daemon
        self.slots = slots
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "cairn-accept"
        thread.start()
    }

    private var isStopping: Bool { state.withLock { stopping } }

    private func run() {
        while true {
            slots.wait()
            if isStopping { slots.signal(); return }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listening, $0, &length) }
            }
            guard client >= 0 else {
                let failure = errno
                slots.signal()
                if isStopping { return }
                if failure != EINTR, failure != ECONNABORTED { usleep(10_000) }  // out of descriptors: wait, do not spin
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let added = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, client, $0, length) }
            }
            // Refused: libmicrohttpd closed the socket and never started the connection, so no slot comes back.
            if added != .YES { slots.signal() }
        }
    }

    /// Wakes the loop (a blocked `accept` returns once the socket is shut down), waits for it, closes the socket.
    func stop() {
        state.withLock { stopping = true }
        _ = shutdown(listening, Int32(SHUT_RDWR))
        slots.signal()
        finished.wait()
        close(listening)
    }
}
