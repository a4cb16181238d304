internal import CMicroHTTPD
import CairnApp
import Foundation
import PhoneLink

#if canImport(Glibc)
    import Glibc
#endif

/// The phone session's listener: a second libmicrohttpd daemon, TLS only (`MHD_USE_TLS`, the vault's key and the
/// session's certificate), on one address of this computer. Built like `WebServer`: Cairn binds and accepts
/// (`AcceptLoop`, which refuses clients outside the address's network before libmicrohttpd sees them), one thread per
/// connection, the same timeouts and connection bounds (`ConnectionTable`: a connection that has not passed the
/// security checks within `WebServer.headerDeadlineSeconds` is closed; pairing counts as passing them only once the
/// phone holds its session). It answers with `PhoneApplication`. `stop()` closes the socket: nothing listens after it.
final class PhoneServer: @unchecked Sendable {
    /// Connections at once: a phone or two, with the few connections a browser opens each.
    static let maximumConnections: UInt32 = 32

    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var context: Unmanaged<ServerContext>?
    private var acceptLoop: AcceptLoop?
    /// The PEM texts libmicrohttpd reads (NUL-terminated), kept until the daemon stops.
    private var pem: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)?
    /// The bound port.
    let port: UInt16

    /// Binds `network.address` on `port` (0: a free one) and starts serving TLS with `identity`.
    init(network: PhoneNetwork, port: UInt16, identity: PhoneIdentity, sessions: PhoneSessions) throws {
        let (fd, bound) = try Self.listen(on: network.address, port: port)
        self.port = bound
        let application = PhoneApplication(sessions: sessions, address: network.address, port: bound)
        let context = Unmanaged.passRetained(
            ServerContext(
                application: application, maximumBodyBytes: WebConfiguration.defaultMaximumBodyBytes,
                bodyTimeoutSeconds: WebServer.bodyTimeoutSeconds, maximumConnections: Int(Self.maximumConnections)))
        let key = strdup(identity.key.pem)!
        let certificate = strdup(identity.certificate.pem)!
        let started = WebServer.startDaemon(
            context: context, connectionLimit: Self.maximumConnections + WebServer.connectionLimitSlack, tls: (key, certificate))
        guard let started else {
            close(fd)
            context.release()
            free(key)
            free(certificate)
            throw PhoneSessionError.listenerDidNotStart
        }
        daemon = started
        self.context = context
        pem = (key, certificate)
        acceptLoop = AcceptLoop(
            listening: fd, daemon: started, slots: context.takeUnretainedValue().connectionSlots,
            connections: context.takeUnretainedValue().connections, admits: { network.admits($0) })
    }

    deinit { stop() }

    /// True on a thread answering a phone request (set by `PhoneApplication.handle`).
    @TaskLocal static var answering = false

    /// Stops accepting and closes the listening socket (nothing listens once it returns), then stops serving (open
    /// connections are closed). Safe to call more than once. Called while answering a phone request (a phone route
    /// whose service call locks the vault, and so ends the session), libmicrohttpd is stopped on another thread: it
    /// waits for its connection threads, that one included.
    func stop() {
        let (loop, daemon, context, pem) = lock.withLock {
            defer {
                acceptLoop = nil
                self.daemon = nil
                self.context = nil
                self.pem = nil
            }
            return (acceptLoop, self.daemon, self.context, self.pem)
        }
        loop?.stop()
        let rest = Remainder(daemon: daemon, context: context, pem: pem)
        if Self.answering { Thread.detachNewThread { rest.stop() } } else { rest.stop() }
    }

    /// What `stop` lets go of after the socket is closed.
    private struct Remainder: @unchecked Sendable {
        let daemon: OpaquePointer?
        let context: Unmanaged<ServerContext>?
        let pem: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)?
        func stop() {
            if let daemon { MHD_stop_daemon(daemon) }
            context?.release()
            if let pem {
                free(pem.key)
                free(pem.certificate)
            }
        }
    }

    /// A TCP socket bound to `address`:`port` and listening, with the bound port.
    private static func listen(on address: IPAddress, port: UInt16) throws -> (Int32, UInt16) {
        let family = address.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let refusal = PhoneSessionError.cannotListen(address: address.description, port: port)
        guard fd >= 0 else { throw refusal }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length: socklen_t
        if address.isIPv4 {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: v4) { Array($0) }) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: v6) { Array($0) }) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw refusal
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            close(fd)
            throw refusal
        }
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        let boundPort = withUnsafeBytes(of: actual) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
        return (fd, boundPort)
    }
}
