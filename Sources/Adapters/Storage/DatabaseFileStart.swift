import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the first bytes of a database file without ever dropping SQLite's locks on it.
///
/// Closing any descriptor of a file drops every POSIX lock the process holds on that file, SQLite's among them
/// (see `FileModes.createPrivateFile`): a process with the database open that opened and closed the file to read its
/// header let another process take the live database for unused, checkpoint it and remove its WAL under the open
/// connection ("database disk image is malformed"; `cairn-bench reliability` found it). So the descriptor used here
/// stays open for as long as its file is the one at that path, and is closed only once the path names another file
/// or none (a lock change renamed a new database over it, the vault was deleted): nobody can reach the old file by
/// its path any more, so no lock on it matters.
enum DatabaseFileStart {
    private struct Opened {
        let descriptor: Int32
        let device: dev_t
        let inode: ino_t
    }

    private static let guardLock = NSLock()
    nonisolated(unsafe) private static var opened: [String: Opened] = [:]

    /// Up to `count` bytes from the start of the file at `path`; nil when it cannot be opened or read.
    static func read(_ path: String, count: Int) -> [UInt8]? {
        guardLock.withLock {
            for (other, entry) in opened where !names(other, entry) {
                close(entry.descriptor)
                opened[other] = nil
            }
            let entry: Opened
            if let known = opened[path] {
                entry = known
            } else {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return nil }
                var info = stat()
                fstat(fd, &info)
                entry = Opened(descriptor: fd, device: info.st_dev, inode: info.st_ino)
                opened[path] = entry
            }
            var buffer = [UInt8](repeating: 0, count: count)
            let n = pread(entry.descriptor, &buffer, count, 0)
            return n < 0 ? nil : Array(buffer.prefix(n))
        }
    }

    /// Whether `path` still names the file `entry` has open.
    private static func names(_ path: String, _ entry: Opened) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_dev == entry.device && info.st_ino == entry.inode
    }
}
