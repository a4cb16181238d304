internal import CSQLite
import Foundation

/// A plain SQLite file that is built once, whole, and afterwards only read (the label database: public data kept
/// beside the vault, never in it). Unlike the vault's `Database` it never uses WAL: a newer build replaces the file
/// by a rename, and a reader that still has the old file open goes on reading that one (its inode) with no `-wal`
/// or `-shm` file beside the name to mix up with the new one.
///
/// - `build(at:_:)` writes a new file at a temporary path in one transaction, with no journal (a build that fails
///   or is cut off is removed whole by its caller, never used), then syncs it.
/// - `replace(_:with:)` renames the built file over the current one and syncs the folder: the one commit point.
/// - `BuiltDatabase(readingAt:)` opens a file read-only; `read { }` gives its one connection to one caller at a time.
public final class BuiltDatabase: @unchecked Sendable {
    /// The file read.
    public let path: String
    private let lock = NSLock()
    private var connection: Connection?

    /// Opens `path` read-only. Throws `DatabaseError` when it is missing or not an SQLite file.
    public init(readingAt path: String) throws {
        self.path = path
        guard access(path, R_OK) == 0 else {
            throw DatabaseError.sqlite(SQLiteFailure(code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN, message: "no file", sql: nil))
        }
        connection = try Database.connect(
            path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, busyTimeout: .seconds(1), vfs: nil
        ) { connection in
            try connection.execute("PRAGMA query_only = ON")
            // Any read checks the header: a file that is not a database fails here, not at the first search.
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master", as: Int.self)
        }
    }

    deinit { close() }

    /// Runs `body` with the file's connection (one caller at a time).
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { throw DatabaseError.misuse("the database is closed") }
        return try body(connection)
    }

    /// Closes the file. Idempotent.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        if let connection {
            connection.finalizeStatements()
            sqlite3_close_v2(connection.handle)
        }
        connection = nil
    }

    /// Builds a new database at `path` (a file that must not exist yet; created 0600): `body` writes it inside one
    /// transaction, with no journal and no syncing until the end, then the file is synced and closed. When `body`
    /// throws, the file is left for the caller to remove.
    public static func build(at path: String, _ body: (Connection) throws -> Void) throws {
        guard access(path, F_OK) != 0 else { throw DatabaseError.misuse("a database is built only at a new path") }
        try FileModes.createPrivateFile(atPath: path)
        let connection = try Database.connect(
            path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, busyTimeout: .seconds(1), vfs: nil
        ) { connection in
            _ = try connection.query("PRAGMA journal_mode = OFF")
            try connection.execute("PRAGMA synchronous = OFF")
            try connection.execute("PRAGMA cache_size = -32768")
            try connection.execute("PRAGMA temp_store = MEMORY")
        }
        defer {
            connection.finalizeStatements()
            sqlite3_close_v2(connection.handle)
        }
        try connection.execute("BEGIN")
        connection.transaction = .write
        defer { connection.transaction = .none }
        try body(connection)
        try connection.execute("COMMIT")
        // A file read later in rollback-journal mode; readers then never make a `-wal` beside it.
        _ = try connection.query("PRAGMA journal_mode = DELETE")
        try FileModes.syncFile(atPath: path)
    }

    /// Makes the built file at `built` the database at `path`, replacing any there (a rename: readers of the old
    /// file keep it until they close), and syncs the folder.
    public static func replace(_ path: String, with built: String) throws {
        guard rename(built, path) == 0 else {
            throw DatabaseError.sqlite(SQLiteFailure(code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN, message: "rename failed", sql: nil))
        }
        try FileModes.syncDirectory(atPath: (path as NSString).deletingLastPathComponent)
    }
}
