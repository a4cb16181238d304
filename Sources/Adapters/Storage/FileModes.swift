import CairnCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// POSIX file helpers for the vault: private modes (0700 directories, 0600 files) and durable writes.
public enum FileModes {
    static let privateFile: mode_t = 0o600
    static let privateDirectory: mode_t = 0o700

    /// A failed system call, as an `errno` plus which step failed (never a path).
    struct SystemCallFailure: Error, CustomStringConvertible {
        let step: String
        let code: Int32
        var description: String { "\(step) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    static func check(_ result: Int32, _ step: String) throws {
        if result < 0 { throw SystemCallFailure(step: step, code: errno) }
    }

    /// Creates `path` as an empty 0600 file if it does not exist, and tightens an existing file to 0600.
    ///
    /// An existing file is never opened here: closing any descriptor of a file drops every POSIX lock this
    /// process holds on it, SQLite's among them, and another process could then take a live database for unused
    /// and checkpoint and remove its WAL (a "malformed" database for the connection still using it).
    static func createPrivateFile(atPath path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, privateFile)
        guard fd >= 0 else {
            guard errno == EEXIST else { throw SystemCallFailure(step: "create database file", code: errno) }
            try check(chmod(path, privateFile), "set database file mode")
            return
        }
        defer { close(fd) }
        try check(fchmod(fd, privateFile), "set database file mode")
    }

    /// Tightens SQLite's `-wal` and `-shm` files to 0600 when they exist.
    static func restrictSidecars(ofDatabaseAt path: String) throws {
        for suffix in ["-wal", "-shm", "-journal"] where access(path + suffix, F_OK) == 0 {
            try check(chmod(path + suffix, privateFile), "set database sidecar mode")
        }
    }

    /// Creates `path` (and missing parents) as 0700 directories; an existing directory with looser
    /// permissions is tightened to 0700. A symlink to a directory is followed (a vault moved to another disk).
    static func ensurePrivateDirectory(atPath path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw SystemCallFailure(step: "use data directory (it is not a directory)", code: ENOTDIR)
            }
            if info.st_mode & 0o077 != 0 { try check(chmod(path, privateDirectory), "set directory mode") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, access(parent, F_OK) != 0 {
            try ensurePrivateDirectory(atPath: parent)
        }
        if mkdir(path, privateDirectory) != 0, errno != EEXIST { throw SystemCallFailure(step: "create directory", code: errno) }
        try check(chmod(path, privateDirectory), "set directory mode")
    }

    /// fsyncs a file (a database written by another connection, before it is renamed into place).
    static func syncFile(atPath path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open file for sync")
        defer { close(fd) }
        try check(fsync(fd), "sync file")
    }

    /// fsyncs a directory so a rename or unlink inside it is durable.
    static func syncDirectory(atPath path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try check(fd, "open directory for sync")
        defer { close(fd) }
        try check(fsync(fd), "sync directory")
    }

    /// Writes `bytes` to a new 0600 file at `path` (which must not exist) and fsyncs it.
    public static func writeNewFile(_ bytes: Data, atPath path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, privateFile)
        try check(fd, "create photo file")
        defer { close(fd) }
        try check(fchmod(fd, privateFile), "set photo file mode")
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SystemCallFailure(step: "write photo file", code: errno)
                }
                offset += n
            }
        }
        try check(fsync(fd), "sync photo file")
    }

    /// Reads a whole file.
    static func readFile(atPath path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open photo file")
        defer { close(fd) }
        do {
            return try WholeFile.read(descriptor: fd)
        } catch {
            throw SystemCallFailure(step: "read photo file", code: error.code)
        }
    }

    /// Removes a file; a file that is already gone is not an error.
    static func removeFile(atPath path: String) throws {
        if unlink(path) != 0, errno != ENOENT { throw SystemCallFailure(step: "remove file", code: errno) }
    }

    /// The permission bits of `path`, or nil when it does not exist.
    static func permissions(atPath path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}
