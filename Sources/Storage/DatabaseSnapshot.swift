internal import CSQLite
import Foundation

extension Database {
    /// Copies the database, as one consistent moment, to a new file at `path` (0600) with SQLite's online backup
    /// API, through a connection of its own: this connection and other processes (a running `cairn serve`) go on
    /// reading and writing meanwhile. The copy is left in rollback-journal mode, so it is one self-contained file.
    /// Returns what `inspect` read from the copy before it was closed. On failure the file is removed.
    public func snapshot<T>(to path: String, inspect: (Connection) throws -> T) throws -> T {
        do {
            try FileModes.createPrivateFile(atPath: path)
        } catch let failure as FileModes.SystemCallFailure {
            throw DatabaseError.misuse("snapshot file: \(failure.description)")
        }
        var source: OpaquePointer?
        var target: OpaquePointer?
        defer {
            sqlite3_close_v2(source)
            sqlite3_close_v2(target)
        }
        do {
            guard sqlite3_open_v2(self.path, &source, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, cipher?.name) == SQLITE_OK,
                  let source else { throw DatabaseError.from(code: SQLITE_CANTOPEN, db: source, sql: nil) }
            sqlite3_busy_timeout(source, Int32(busyTimeout.components.seconds * 1000))
            guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                  let target else { throw DatabaseError.from(code: SQLITE_CANTOPEN, db: target, sql: nil) }
            guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
                throw DatabaseError.from(code: sqlite3_extended_errcode(target), db: target, sql: nil)
            }
            // All pages in one step: the copy is of one read transaction, never a mix of two moments.
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw DatabaseError.from(code: step == SQLITE_DONE ? finish : step, db: target, sql: nil)
            }
            let copy = Connection(handle: target)
            defer { copy.finalizeStatements() }
            _ = try copy.query("PRAGMA journal_mode = DELETE")
            let result = try inspect(copy)
            copy.finalizeStatements()
            return result
        } catch {
            sqlite3_close_v2(target)
            target = nil
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileModes.removeFile(atPath: path + suffix) }
            throw error
        }
    }
}
