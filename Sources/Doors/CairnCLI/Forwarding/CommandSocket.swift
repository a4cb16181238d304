import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The unix socket in the vault folder through which `cairn` commands reach a running `cairn serve`
/// (`CommandForwarding` says what travels over it). A local socket only: no address, no port, nothing leaves the
/// computer.
///
/// Decisions:
/// - It is `<vault>/serve.sock`, mode 0600 in the vault's 0700 folder, and each end checks the other's user with
///   `SO_PEERCRED` (`admits`): a process of any other user is refused, root included, like ssh-agent.
/// - Only the process that owns the vault (`owner.lock`, `VaultLock`) makes it, so a socket found there at start is
///   always a stale one from a server that was killed: it is removed and made again (never a live server's).
///   The mode is set before `listen`, so no connection is taken before it is 0600. A stopping server removes it
///   while it still owns the vault.
/// - Paths go through the vault folder's descriptor (`/proc/self/fd/N/serve.sock`), so a vault path longer than
///   a socket address can hold (108 bytes) works, and the name cannot be swapped for another folder's on the way.
enum CommandSocket {
    /// The socket's name in the vault folder.
    static let fileName = "serve.sock"

    /// Whether a peer running as `peer` may talk to this process, running as `own`: the same user only.
    static func admits(peer: uid_t, own: uid_t) -> Bool { peer == own }

    /// Whether the process at the other end of the connected socket `fd` is this process's user (`SO_PEERCRED`,
    /// the credentials it had when it connected). False when the kernel does not say.
    static func peerIsThisUser(_ fd: Int32) -> Bool {
        // `struct ucred` (pid, uid, gid: three 32-bit fields), which Glibc's Swift module does not export.
        var credentials: [UInt32] = [0, 0, 0]
        var size = socklen_t(MemoryLayout<UInt32>.size * 3)
        let read = credentials.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &size) }
        guard read == 0, size == socklen_t(MemoryLayout<UInt32>.size * 3) else { return false }
        return admits(peer: credentials[1], own: geteuid())
    }

    /// Connects to the server socket of the vault folder `directory`, or nil when none answers there (no server,
    /// a stale socket, another user's process).
    static func connect(toVaultAt directory: URL) -> FramedConnection? {
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        defer { close(folder) }
        guard faccessat(folder, fileName, F_OK, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withAddress(of: folder) { address, length in Glibc.connect(fd, address, length) == 0 }
        guard connected == true, peerIsThisUser(fd) else {
            close(fd)
            return nil
        }
        return FramedConnection(fd)
    }

    /// Runs `body` with the socket address of `serve.sock` in the folder open as `folder`.
    fileprivate static func withAddress<T>(of folder: Int32, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array("/proc/self/fd/\(folder)/\(fileName)".utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Why the server socket could not be made (the server then runs without it; commands run on their own).
struct CommandSocketUnavailable: Error, CustomStringConvertible {
    let step: String
    let code: Int32
    var description: String { "\(step) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// The listening end, owned by `cairn serve`: accepts connections of this user and hands each to `handle` on its
/// own thread, at most `maximumConnections` at a time (more wait in the kernel's queue).
final class CommandListener: @unchecked Sendable {
    /// Connections handled at once.
    static let maximumConnections = 8
    private let folder: Int32
    private let fd: Int32
    private let slots = DispatchSemaphore(value: CommandListener.maximumConnections)
    private let stopped = NSLock()
    private var isStopped = false
    private var acceptor: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// Makes `serve.sock` in the vault folder `directory` (replacing a stale one: call it only while this process
    /// owns the vault) and listens on it.
    init(directory: URL) throws {
        folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw CommandSocketUnavailable(step: "open vault folder", code: errno) }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            let code = errno
            close(folder)
            throw CommandSocketUnavailable(step: "make socket", code: code)
        }
        do {
            if unlinkat(folder, CommandSocket.fileName, 0) != 0, errno != ENOENT {
                throw CommandSocketUnavailable(step: "remove stale socket", code: errno)
            }
            let (folder, fd) = (folder, fd)
            guard let bound = CommandSocket.withAddress(of: folder, { bind(fd, $0, $1) == 0 }) else {
                throw CommandSocketUnavailable(step: "name socket", code: ENAMETOOLONG)
            }
            guard bound else { throw CommandSocketUnavailable(step: "bind socket", code: errno) }
            guard fchmodat(folder, CommandSocket.fileName, 0o600, 0) == 0 else {
                throw CommandSocketUnavailable(step: "set socket mode", code: errno)
            }
            guard listen(fd, 64) == 0 else { throw CommandSocketUnavailable(step: "listen", code: errno) }
        } catch {
            unlinkat(folder, CommandSocket.fileName, 0)
            close(fd)
            close(folder)
            throw error
        }
    }

    /// Starts accepting on a thread of its own; `handle` runs on a new thread per connection and owns it.
    func start(_ handle: @escaping @Sendable (FramedConnection) -> Void) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            while true {
                slots.wait()
                let client = accept(fd, nil, nil)
                if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
                if stopped.withLock({ isStopped }) {
                    if client >= 0 { close(client) }
                    slots.signal()
                    return
                }
                guard client >= 0 else {
                    slots.signal()
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    usleep(10_000)  // EMFILE and the like: let the moment pass
                    continue
                }
                guard CommandSocket.peerIsThisUser(client) else {
                    close(client)
                    slots.signal()
                    continue
                }
                let connection = FramedConnection(client)
                let slots = slots
                let worker = Thread {
                    defer { slots.signal() }
                    handle(connection)
                }
                worker.name = "cairn-command"
                worker.start()
            }
        }
        thread.name = "cairn-command-socket"
        acceptor = thread
        thread.start()
    }

    /// Stops accepting and removes the socket (connections under way finish on their threads). Call it while
    /// this process still owns the vault. Idempotent.
    func stop() {
        let first = stopped.withLock { () -> Bool in
            defer { isStopped = true }
            return !isStopped
        }
        guard first else { return }
        unlinkat(folder, CommandSocket.fileName, 0)
        shutdown(fd, Int32(SHUT_RDWR))  // wakes the blocked accept
        if acceptor != nil { finished.wait() }
        close(fd)
        close(folder)
    }
}

/// One connection, as a sequence of frames: a kind byte, a 4-byte big-endian length, then the payload. Sending
/// is safe from several threads (a command may print from more than one); receiving is for one thread.
final class FramedConnection: @unchecked Sendable {
    private let fd: Int32
    private let sending = NSLock()

    init(_ fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// Sends one frame; false when the other end is gone.
    @discardableResult
    func send(_ kind: UInt8, _ payload: Data = Data()) -> Bool {
        var frame = Data([kind])
        let length = UInt32(payload.count).bigEndian
        withUnsafeBytes(of: length) { frame.append(contentsOf: $0) }
        frame.append(payload)
        return sending.withLock {
            frame.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if sent < 0, errno == EINTR { continue }
                    guard sent > 0 else { return false }
                    offset += sent
                }
                return true
            }
        }
    }

    /// The next frame, or nil when the other end closed, the connection failed, a read waited past the timeout
    /// (`setReceiveTimeout`) or the payload would exceed `limit` bytes.
    func receive(limit: Int) -> (kind: UInt8, payload: Data)? {
        guard let head = read(exactly: 5) else { return nil }
        let length = Int(UInt32(head[1]) << 24 | UInt32(head[2]) << 16 | UInt32(head[3]) << 8 | UInt32(head[4]))
        guard length <= limit else { return nil }
        guard let payload = read(exactly: length) else { return nil }
        return (head[0], payload)
    }

    /// Makes each later read give up after `seconds` without data (0: wait for ever).
    func setReceiveTimeout(seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private func read(exactly count: Int) -> Data? {
        var data = Data(count: count)
        var offset = 0
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            while offset < count {
                let got = recv(fd, raw.baseAddress! + offset, count - offset, 0)
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                offset += got
            }
            return true
        }
        return complete ? data : nil
    }
}
