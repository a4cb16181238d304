internal import CSQLite
import Foundation

/// The one façade over a SQLite file: a single connection in WAL mode with foreign keys on and a busy
/// timeout, used only through `read { }` and `write { }` transactions. Safe to share between threads (calls
/// are serialised by a lock) and between processes (WAL + busy timeout + `BEGIN IMMEDIATE` for writes).
public final class Database: @unchecked Sendable {
    /// Where the database file is.
    public let path: String
    /// How long a call waits for another process's lock before failing with `DatabaseError.busy`.
    public let busyTimeout: Duration
    private let lock = NSRecursiveLock()
    private var connection: Connection?
    private var inTransaction = false

    /// Opens (creating if needed) the database at `path`. A new file is created with mode 0600, and so are
    /// its `-wal` and `-shm` files. Does not run migrations (see `Migrator`, `Vault.openDatabase`).
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        connection = try Self.open(path: path, busyTimeout: busyTimeout)
    }

    deinit { close() }

    /// Runs `body` in a read transaction (a consistent snapshot; other processes may write meanwhile).
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try transaction(.read, body)
    }

    /// Runs `body` in a write transaction: `BEGIN IMMEDIATE` (waiting up to the busy timeout for other
    /// writers), `COMMIT` when `body` returns, `ROLLBACK` when it throws (and the error is rethrown).
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try transaction(.write, body)
    }

    /// Runs `body` with the connection outside any transaction (for statements SQLite refuses inside one,
    /// such as `VACUUM` or some pragmas). Prefer `read`/`write`.
    public func withoutTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !inTransaction else { throw DatabaseError.misuse("withoutTransaction called inside a transaction") }
        inTransaction = true
        defer { inTransaction = false }
        return try body(try openConnection())
    }

    /// Closes the connection. Later calls fail with `DatabaseError.misuse`. Idempotent.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        if let connection {
            connection.finalizeStatements()
            sqlite3_close_v2(connection.handle)
            self.connection = nil
        }
    }

    /// Closes the connection, runs `body` (which may remove or replace the files), then reopens `path`.
    func reopen(after body: () throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !inTransaction else { throw DatabaseError.misuse("cannot reopen inside a transaction") }
        close()
        try body()
        connection = try Self.open(path: path, busyTimeout: busyTimeout)
    }

    // MARK: internals

    private func openConnection() throws -> Connection {
        guard let connection else { throw DatabaseError.misuse("the database is closed") }
        return connection
    }

    private func transaction<T>(_ kind: TransactionKind, _ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !inTransaction else {
            throw DatabaseError.misuse("nested transaction: pass the Connection you already have instead")
        }
        let connection = try openConnection()
        inTransaction = true
        defer { inTransaction = false }
        try connection.execute(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        connection.transaction = kind
        connection.commitActions = []
        connection.rollbackActions = []
        defer {
            connection.transaction = .none
            connection.commitActions = []
            connection.rollbackActions = []
        }
        let result: T
        do {
            result = try body(connection)
            try connection.execute("COMMIT")
        } catch {
            if sqlite3_get_autocommit(connection.handle) == 0 { try? connection.execute("ROLLBACK") }
            for action in connection.rollbackActions.reversed() { action() }
            throw error
        }
        for action in connection.commitActions { action() }
        return result
    }

    private static func open(path: String, busyTimeout: Duration) throws -> Connection {
        do {
            try FileModes.createPrivateFile(atPath: path)
        } catch let failure as FileModes.SystemCallFailure {
            throw DatabaseError.sqlite(SQLiteFailure(code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN,
                                                     message: failure.description, sql: nil))
        }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let error = DatabaseError.from(code: rc, db: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        let connection = Connection(handle: handle)
        do {
            let (seconds, attoseconds) = busyTimeout.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            // SQLite's own busy_timeout backs off to 100 ms sleeps, so a waiting process keeps losing the lock to
            // one that writes in a loop. Polling every millisecond shares the lock far more evenly.
            sqlite3_busy_handler(handle, pollingBusyHandler, UnsafeMutableRawPointer(bitPattern: Int(max(1, milliseconds))))
            // WAL lets readers and one writer work at once, across processes. Checked, not assumed.
            let mode: String? = try connection.scalar("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError.misuse("the database could not switch to WAL journaling")
            }
            try connection.execute("PRAGMA foreign_keys = ON")
            // FULL: a commit that returned is on disk even after a power cut, not only after a crash.
            try connection.execute("PRAGMA synchronous = FULL")
            try FileModes.restrictSidecars(ofDatabaseAt: path)
        } catch {
            connection.finalizeStatements()
            sqlite3_close_v2(handle)
            throw error
        }
        return connection
    }
}

/// Waits 1 ms per call until `context` (the timeout in milliseconds, stored as the pointer's bit pattern) calls
/// have been made; returning 0 makes SQLite fail with SQLITE_BUSY. A C callback, so it captures nothing.
private let pollingBusyHandler: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, calls in
    let limit = Int(bitPattern: context)
    guard Int(calls) < limit else { return 0 }
    usleep(1000)
    return 1
}
