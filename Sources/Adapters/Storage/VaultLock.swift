import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An advisory lock on one private file (`flock`), held through an open descriptor and let go by the kernel when
/// the process ends, however it ends (a `kill -9` leaves no stale lock). Locks taken through two `FileLock`s
/// conflict even inside one process.
public final class FileLock: @unchecked Sendable {
    /// The lock file.
    public let path: String
    private let fd: Int32

    /// Opens (creating, mode 0600, unless `create` is false) the lock file at `path`. Takes no lock.
    public init(path: String, create: Bool = true) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), FileModes.privateFile)
        try FileModes.check(fd, "open lock file")
        _ = fchmod(fd, FileModes.privateFile)
    }

    deinit { close(fd) }

    /// Takes the lock shared (`exclusive` false) or exclusive without waiting; false when another holder stops it.
    /// Changing a held lock from one kind to the other is allowed (not atomically: a failed change may lose the
    /// lock held before).
    public func tryLock(exclusive: Bool) -> Bool {
        flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0
    }

    /// Lets go of the lock.
    public func unlock() { _ = flock(fd, LOCK_UN) }

    /// Whether the file this lock has open is still the one named `path` (not removed or replaced since).
    public var isStillNamed: Bool {
        var held = stat()
        var named = stat()
        guard fstat(fd, &held) == 0, stat(path, &named) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// Replaces the file's content with `text` (an owner's pid, an import's ids).
    public func write(_ text: String) {
        _ = ftruncate(fd, 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// The file's content (its first 4 KiB), as far as it reads as text.
    public func read() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }
}

/// Who may change a vault: one lock file, `<vault>/owner.lock`.
///
/// Decisions:
/// - `cairn serve` owns the vault for as long as it runs (an exclusive lock, its pid written in the file): while
///   it runs, only it changes data, so the pages it shows are never stale and "Delete all data" from the web
///   removes everything the server holds. A command that would change data then refuses with a message naming
///   the server's pid; reading commands still work (SQLite's WAL lets them read beside the server).
/// - A command that changes data takes the lock shared at its first write and keeps it until it exits, so
///   several commands may write at once (SQLite orders their transactions) while no server can start under them.
/// - "Delete all data" takes the lock exclusively, waiting briefly for other commands to finish.
/// - A read never takes it.
public final class VaultLock: @unchecked Sendable {
    /// The lock file's name inside the vault.
    public static let fileName = "owner.lock"
    private let file: FileLock
    private let mutex = NSLock()
    private var held: Held = .none

    private enum Held { case none, shared, exclusive }

    /// A lock over the vault directory `directory`; nothing is held yet.
    public init(directory: URL) throws {
        do {
            file = try FileLock(path: directory.appendingPathComponent(Self.fileName).path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.directoryUnusable(failure.description)
        }
    }

    /// Whether this process may change data now; takes the lock shared on the first call. Throws
    /// `VaultError.servedElsewhere` while a server in another process owns the vault.
    public func ensureWriter() throws {
        try mutex.withLock {
            guard held == .none else { return }
            guard file.tryLock(exclusive: false) else { throw VaultError.servedElsewhere(pid: ownerPID()) }
            held = .shared
        }
    }

    /// Makes this process the vault's only writer (`cairn serve`, "Delete all data"), waiting up to `patience`
    /// for other commands to finish their writes. Throws `VaultError.servedElsewhere` when a server in another
    /// process owns it, `VaultError.busyElsewhere` when other commands are still writing.
    public func claimExclusive(patience: Duration = .seconds(3)) throws {
        try mutex.withLock {
            guard held != .exclusive else { return }
            let deadline = ContinuousClock.now + patience
            while !file.tryLock(exclusive: true) {
                if held == .shared, !file.tryLock(exclusive: false) { held = .none }  // a failed change may drop it
                if ContinuousClock.now >= deadline {
                    // A second descriptor tells an exclusive owner (a server) from shared writers (commands).
                    let probe = try? FileLock(path: file.path)
                    if let probe, !probe.tryLock(exclusive: false) { throw VaultError.servedElsewhere(pid: ownerPID()) }
                    throw VaultError.busyElsewhere
                }
                usleep(10_000)
            }
            held = .exclusive
            file.write("\(getpid())\n")
        }
    }

    /// Whether this process holds the vault exclusively.
    public var isExclusive: Bool { mutex.withLock { held == .exclusive } }

    /// Lets go of a shared hold between writes, so a long-running writer (the reminder loop of `cairn remind`)
    /// does not keep a server from starting; an exclusive hold is kept. Its next write takes the lock again (or
    /// is refused while a server owns the vault). Call it only between writes.
    public func releaseShared() {
        mutex.withLock {
            guard held == .shared else { return }
            file.unlock()
            held = .none
        }
    }

    /// Lets go of any hold (a server that stops). Idempotent.
    public func release() {
        mutex.withLock {
            if held == .exclusive { file.write("") }
            if held != .none { file.unlock() }
            held = .none
        }
    }

    private func ownerPID() -> Int32? {
        Int32(file.read().trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
