internal import CMicroHTTPD
import Foundation
import PhoneLink

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
/// - nobody without the key can starve those who have it (issue 36): a connection has `headerDeadlineSeconds`
///   in all from its accept to a request that passes the security checks (a client trickling a header byte a second
///   is closed then, whatever the per-byte timeout), and when every slot is taken the oldest connection that has
///   not passed them yet (and has had `AcceptLoop.evictionGrace`) is closed to make room (`ConnectionTable`).
///   A request refused on its headers is answered with `Connection: close`.
public final class WebServer: @unchecked Sendable {
    /// Seconds of silence allowed before the headers are complete (also between keep-alive requests).
    public static let headerTimeoutSeconds: UInt32 = 5
    /// Seconds of silence allowed between body bytes, and while a response is being read.
    public static let bodyTimeoutSeconds: UInt32 = 30
    /// Seconds in all from a connection's accept to its first request that passes the security checks.
    public static let headerDeadlineSeconds = 10
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
    /// The phone session (Settings → Use your phone, `cairn serve --phone`), nil when the configuration offers none.
    /// It ends when the server stops.
    public let phone: PhoneSessions?

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
        phone = configuration.phone.map { PhoneSessions(options: $0, gate: gate) }
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

    /// Starts a libmicrohttpd daemon that serves only the connections Cairn hands it (`AcceptLoop` accepts), one
    /// thread each, answering through `context`'s application; TLS with `tls` (NUL-terminated PEM strings: the phone
    /// listener), plain HTTP without. The one place both listeners' daemon flags and options are set.
    static func startDaemon(
        context: Unmanaged<ServerContext>, connectionLimit: UInt32,
        tls: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)? = nil
    ) -> OpaquePointer? {
        let flags =
            (tls == nil ? 0 : MHD_USE_TLS.rawValue) | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ERROR_LOG.rawValue
        let completed: MHD_RequestCompletedCallback = webRequestCompleted
        let notified: MHD_NotifyConnectionCallback = webConnectionNotified
        var options: [CVarArg] = []
        if let tls { options += [MHD_OPTION.HTTPS_MEM_KEY.rawValue, tls.key, MHD_OPTION.HTTPS_MEM_CERT.rawValue, tls.certificate] }
        options += [
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completed, to: OpaquePointer.self), Int(0),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(notified, to: OpaquePointer.self), Int(bitPattern: context.toOpaque()),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, Self.headerTimeoutSeconds,
            // Above Cairn's own cap: a connection gives its slot back a moment before libmicrohttpd forgets it.
            MHD_OPTION.CONNECTION_LIMIT.rawValue, connectionLimit,
            MHD_OPTION.END.rawValue,
        ]
        return withVaList(options) { va in
            MHD_start_daemon_va(flags, 0, nil, nil, webAccessHandler, context.toOpaque(), va)
        }
    }

    /// Binds 127.0.0.1 on the configured port and starts serving on background threads.
    /// Throws `WebConfigurationError.cannotListen` when the port is taken. Calling it twice is a no-op.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard daemon == nil else { return }
        let (fd, port) = try WebServer.listenOnLoopback(port: configuration.port)
        let application = buildApplication(configuration: configuration, gate: gate, port: port, phone: phone)
        let context = Unmanaged.passRetained(
            ServerContext(
                application: application,
                maximumBodyBytes: configuration.maximumBodyBytes,
                bodyTimeoutSeconds: Self.bodyTimeoutSeconds,
                maximumConnections: Int(Self.maximumConnections)))
        // Cairn accepts (see `AcceptLoop`); libmicrohttpd serves what it is handed, one thread each.
        let started = Self.startDaemon(context: context, connectionLimit: Self.maximumConnections + Self.connectionLimitSlack)
        guard let started else {
            close(fd)
            context.release()
            throw WebConfigurationError.serverDidNotStart
        }
        daemon = started
        self.context = context
        acceptLoop = AcceptLoop(
            listening: fd, daemon: started, slots: context.takeUnretainedValue().connectionSlots,
            connections: context.takeUnretainedValue().connections)
        boundPort = port
    }

    /// Stops accepting, closes the listening socket, then stops serving. Safe to call more than once.
    public func stop() {
        phone?.end(.serverStopped)
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

/// The connections being served, by socket: when each was accepted and whether a request on it has passed the
/// security checks (Host, the key or the session cookie). Closing one is `shutdown(2)` on its socket, under the
/// table's lock: libmicrohttpd then sees the end of the stream, closes it and tells `closed` (before it closes the
/// socket, so a number is never shut down after it was given to another connection).
final class ConnectionTable: @unchecked Sendable {
    private struct Entry {
        let acceptedAt: ContinuousClock.Instant
        var authorised = false
        var shutDown = false
    }
    private let lock = NSLock()
    private var entries: [Int32: Entry] = [:]
    /// The total time a connection has to pass the security checks.
    let headerDeadline: Duration

    init(headerDeadline: Duration) { self.headerDeadline = headerDeadline }

    func accepted(_ fd: Int32, at instant: ContinuousClock.Instant = .now) {
        lock.withLock { entries[fd] = Entry(acceptedAt: instant) }
    }

    /// A request on `fd` passed the security checks: the connection is no longer closed to make room or on time.
    func authorised(_ fd: Int32) { lock.withLock { entries[fd]?.authorised = true } }

    func closed(_ fd: Int32) { _ = lock.withLock { entries.removeValue(forKey: fd) } }

    /// Closes up to `count` of the oldest connections that have not passed the security checks within `grace` of
    /// their accept (and are not closing already); returns how many. The grace keeps a burst of real clients, which
    /// connect first and send a moment later, from closing each other.
    @discardableResult
    func closeOldestUnauthorised(count: Int, olderThan grace: Duration, now: ContinuousClock.Instant = .now) -> Int {
        lock.withLock {
            let oldest = entries.filter { !$0.value.authorised && !$0.value.shutDown && now - $0.value.acceptedAt >= grace }
                .sorted { $0.value.acceptedAt < $1.value.acceptedAt }.prefix(count).map(\.key)
            for fd in oldest { shutDown(fd) }
            return oldest.count
        }
    }

    /// Closes every connection that has not passed the security checks within `headerDeadline` of its accept;
    /// returns how many.
    @discardableResult
    func closeOverdue(now: ContinuousClock.Instant = .now) -> Int {
        lock.withLock {
            let overdue = entries.filter { !$0.value.authorised && !$0.value.shutDown && now - $0.value.acceptedAt >= headerDeadline }
            for fd in overdue.keys { shutDown(fd) }
            return overdue.count
        }
    }

    /// How many connections are open, and how many of them passed the security checks (for tests).
    var counts: (open: Int, authorised: Int) {
        lock.withLock { (entries.count, entries.values.filter(\.authorised).count) }
    }

    private func shutDown(_ fd: Int32) {
        entries[fd]?.shutDown = true
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }
}

/// Accepts connections on the listening socket only while fewer than `WebServer.maximumConnections` are being
/// served (a slot of `slots` each), and hands each to libmicrohttpd, which closes it and gives the slot back
/// through `webConnectionNotified`. When every slot is taken, the oldest connection that has not passed the
/// security checks is closed to make room; the others wait in the kernel's listen queue. A second thread closes,
/// once a second, the connections past their header deadline (`ConnectionTable`).
final class AcceptLoop: @unchecked Sendable {
    private let listening: Int32
    private let daemon: OpaquePointer
    private let slots: DispatchSemaphore
    private let connections: ConnectionTable
    private let finished = DispatchSemaphore(value: 0)
    private let reaperFinished = DispatchSemaphore(value: 0)
    private let wake = DispatchSemaphore(value: 0)
    private let state = NSLock()
    private var stopping = false

    /// Whether a client at an address may connect at all (the phone listener admits its network only); nil: all.
    private let admits: (@Sendable (IPAddress) -> Bool)?

    init(
        listening: Int32, daemon: OpaquePointer, slots: DispatchSemaphore, connections: ConnectionTable,
        admits: (@Sendable (IPAddress) -> Bool)? = nil
    ) {
        self.admits = admits
        self.listening = listening
        self.daemon = daemon
        self.slots = slots
        self.connections = connections
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "cairn-accept"
        thread.start()
        let reaper = Thread { [self] in
            while wake.wait(timeout: .now() + .seconds(1)) == .timedOut { connections.closeOverdue() }
            reaperFinished.signal()
        }
        reaper.name = "cairn-header-deadline"
        reaper.start()
    }

    private var isStopping: Bool { state.withLock { stopping } }

    /// How long a connection may wait for its first request before it may be closed to make room.
    /// Short enough that a request with the key waits at most about this long behind any number of silent
    /// connections; long enough that a burst of real clients, which connect and then send, never closes its own.
    static let evictionGrace: Duration = .milliseconds(500)

    private func run() {
        while true {
            // Every slot taken: make room by closing the oldest connections without the key, if some have had their
            // grace; the slots come back as libmicrohttpd closes them.
            if slots.wait(timeout: .now()) == .timedOut {
                repeat {
                    if isStopping { return }
                    connections.closeOldestUnauthorised(count: 32, olderThan: Self.evictionGrace)
                } while slots.wait(timeout: .now() + .milliseconds(20)) == .timedOut
            }
            if isStopping {
                slots.signal()
                return
            }
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
            if let admits {
                let peer = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) } }
                guard let peer, admits(peer) else {
                    close(client)
                    slots.signal()
                    continue
                }
            }
            connections.accepted(client)
            let added = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, client, $0, length) }
            }
            // Refused: libmicrohttpd closed the socket and never started the connection, so no slot comes back.
            if added != .YES {
                connections.closed(client)
                slots.signal()
            }
        }
    }

    /// Wakes the loop (a blocked `accept` returns once the socket is shut down), waits for it, closes the socket.
    func stop() {
        state.withLock { stopping = true }
        _ = shutdown(listening, Int32(SHUT_RDWR))
        slots.signal()
        finished.wait()
        wake.signal()
        reaperFinished.wait()
        close(listening)
    }
}
