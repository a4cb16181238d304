internal import CSQLite
import Encryption
import Foundation

/// The one façade over a SQLite file in WAL mode with foreign keys on and a busy timeout, used only through
/// `read { }` and `write { }` transactions. Safe to share between threads and between processes (WAL + busy
/// timeout + `BEGIN IMMEDIATE` for writes).
///
/// Decision (concurrency): one writer connection, its transactions serialised by a lock, and a small pool of
/// reader connections (`maximumReaders`, opened on demand, `query_only`), so page reads on the server's threads
/// run side by side instead of queueing behind each other or behind a write: WAL gives each read transaction a
/// consistent snapshot of the last commit. Transactions never nest on one thread, whatever their kind: a read
/// inside a write would see the snapshot before the write, so it is refused as before.
public final class Database: @unchecked Sendable {
    /// Where the database file is.
    public let path: String
    /// How long a call waits for another process's lock before failing with `DatabaseError.busy`.
    public let busyTimeout: Duration
    /// Who may write the vault this database belongs to; every write transaction asks it first (nil for a
    /// database outside a vault).
    public let vaultLock: VaultLock?
    /// The page cipher when the database is encrypted (opened with a vault key), nil for a plain one.
    let cipher: CipherVFS?
    /// Whether the database file and its WAL are encrypted with a vault key.
    public var isEncrypted: Bool { cipher != nil }
    /// The vault key the database was opened with (nil for a plain one): the photo files' key comes from it too.
    var vaultKey: SecretKey? { cipher?.key }
    /// Read transactions that may run at once (each on its own connection); more wait for a free one.
    public static let maximumReaders = 4
    private let lock = NSRecursiveLock()
    private var connection: Connection?
    private var inTransaction = false
    /// Guards the reader pool and `closed`/`reopening`.
    private let pool = NSCondition()
    private var idleReaders: [Connection] = []
    private var openReaders = 0
    private var busyReaders = 0
    private var closed = false
    private var reopening = false
    /// The key under which a thread records that it is inside one of this database's transactions.
    private let threadKey = "cairn.database.transaction.\(UUID().uuidString)"
    /// The key under which a thread keeps the connection of its `snapshot { }`.
    private let snapshotKey = "cairn.database.snapshot.\(UUID().uuidString)"

    /// Opens (creating if needed) the database at `path`. A new file is created with mode 0600, and so are
    /// its `-wal` and `-shm` files. Does not run migrations (see `Migrator`, `Vault.openDatabase`).
    ///
    /// With a `key` (the vault key) the database is encrypted at rest: every page of the file and of its WAL is
    /// sealed with it (`CipherVFS`; docs/ENCRYPTION.md), no rollback journal or temporary file is ever written
    /// (WAL, `temp_store = MEMORY`), and a page that does not open (a wrong key, a changed, swapped or cut page)
    /// is `DatabaseError.unreadable`, here or at the first read that meets it. Without one it opens plain.
    public init(
        path: String, busyTimeout: Duration = .seconds(5), vaultLock: VaultLock? = nil,
        key: SecretKey? = nil
    ) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        self.vaultLock = vaultLock
        cipher = try key.map { try CipherVFS(key: $0) }
        connection = try Self.open(path: path, busyTimeout: busyTimeout, vfs: cipher?.name)
    }

    deinit { close() }

    /// Runs `body` in a read transaction (a consistent snapshot; other processes may write meanwhile). Inside
    /// `snapshot { }` on this thread it runs in the snapshot's transaction.
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        if let shared = Thread.current.threadDictionary[snapshotKey] as? Connection { return try body(shared) }
        try enterTransaction()
        defer { leaveTransaction() }
        let reader = try checkOutReader()
        var healthy = true
        defer { checkIn(reader, healthy: healthy) }
        do {
            try reader.execute("BEGIN DEFERRED")
        } catch {
            healthy = false
            throw error
        }
        reader.transaction = .read
        defer { reader.transaction = .none }
        let result: T
        do {
            result = try body(reader)
            try reader.execute("COMMIT")
        } catch {
            if sqlite3_get_autocommit(reader.handle) == 0 { try? reader.execute("ROLLBACK") }
            healthy = sqlite3_get_autocommit(reader.handle) != 0
            throw error
        }
        return result
    }

    /// Runs `body` in ONE read transaction that every `read { }` of this database on this thread joins until it
    /// returns, so a screen assembled from several service calls (a report) sees one commit throughout. A write
    /// inside it is refused like any nested transaction.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try read { connection in
            Thread.current.threadDictionary[snapshotKey] = connection
            defer { Thread.current.threadDictionary.removeObject(forKey: snapshotKey) }
            return try body()
        }
    }

    /// Runs `body` in a write transaction: `BEGIN IMMEDIATE` (waiting up to the busy timeout for other
    /// writers), `COMMIT` when `body` returns, `ROLLBACK` when it throws (and the error is rethrown).
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try transaction(.write, body)
    }

    /// Like `write`, but waits at most `patience` for another process's write lock (`.zero`: only tries), so
    /// housekeeping can give way to a busy vault. Throws `DatabaseError.busy` when it could not start.
    public func write<T>(waitingAtMost patience: Duration, _ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let connection = try openConnection()
        Self.setBusyTimeout(patience, on: connection)
        defer { Self.setBusyTimeout(busyTimeout, on: connection) }
        return try transaction(.write, body)
    }

    /// Runs a long write as a series of short transactions, so readers and other writers (threads of this
    /// process and other processes) wait at most about `interval` for it. `body` gets a `BatchedWrite` and makes
    /// each change through `BatchedWrite.write`; a batch commits once it is `interval` old. When `body` throws,
    /// the open batch rolls back and the error is rethrown: batches already committed stay, so the caller must
    /// record what they belong to and remove it (see `HealthService`).
    public func writeInBatches<T>(interval: Duration = .milliseconds(100), _ body: (BatchedWrite) throws -> T) throws -> T {
        let batch = BatchedWrite(database: self, interval: interval)
        do {
            let result = try body(batch)
            try batch.commit()
            return result
        } catch {
            batch.rollBack()
            throw error
        }
    }
    /// Runs `body` with the connection outside any transaction (for statements SQLite refuses inside one,
    /// such as `VACUUM` or some pragmas). Prefer `read`/`write`. The idle readers are closed first: some of those
    /// statements (leaving WAL mode) need the only connection to the file.
    public func withoutTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !inTransaction, !isInTransactionOnThisThread else {
            throw DatabaseError.misuse("withoutTransaction called inside a transaction")
        }
        closeReaders()
        inTransaction = true
        defer { inTransaction = false }
        return try body(try openConnection())
    }

    /// Closes the connection. Later calls fail with `DatabaseError.misuse`. Idempotent.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        pool.lock()
        closed = true
        pool.unlock()
        closeReaders()
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
        guard !inTransaction, !isInTransactionOnThisThread else { throw DatabaseError.misuse("cannot reopen inside a transaction") }
        // New reads wait, and reads under way finish on the old file, before it is closed and removed.
        pool.lock()
        reopening = true
        pool.unlock()
        defer {
            pool.lock()
            reopening = false
            pool.broadcast()
            pool.unlock()
        }
        close()
        try body()
        connection = try Self.open(path: path, busyTimeout: busyTimeout, vfs: cipher?.name)
        pool.lock()
        closed = false
        pool.unlock()
    }

    // MARK: readers

    /// Whether this thread is inside one of this database's transactions.
    private var isInTransactionOnThisThread: Bool { Thread.current.threadDictionary[threadKey] != nil }

    /// Marks this thread as inside a transaction; refuses a nested one.
    private func enterTransaction() throws {
        guard !isInTransactionOnThisThread else {
            throw DatabaseError.misuse("nested transaction: pass the Connection you already have instead")
        }
        Thread.current.threadDictionary[threadKey] = true
    }

    private func leaveTransaction() { Thread.current.threadDictionary.removeObject(forKey: threadKey) }

    /// An idle reader, a new one while fewer than `maximumReaders` are open, else waits for one.
    private func checkOutReader() throws -> Connection {
        pool.lock()
        defer { pool.unlock() }
        while true {
            if reopening {
                pool.wait()
                continue
            }
            if closed { throw DatabaseError.misuse("the database is closed") }
            if let reader = idleReaders.popLast() {
                busyReaders += 1
                return reader
            }
            if openReaders < Self.maximumReaders {
                openReaders += 1
                busyReaders += 1
                pool.unlock()
                let opened = Result { try Self.openReader(path: path, busyTimeout: busyTimeout, vfs: cipher?.name) }
                pool.lock()
                switch opened {
                case .success(let reader): return reader
                case .failure(let error):
                    openReaders -= 1
                    busyReaders -= 1
                    pool.broadcast()
                    throw error
                }
            }
            pool.wait()
        }
    }

    /// Gives a reader back (closing it when it is unhealthy or the database closed meanwhile).
    private func checkIn(_ reader: Connection, healthy: Bool) {
        pool.lock()
        defer { pool.unlock() }
        busyReaders -= 1
        if healthy, !closed {
            idleReaders.append(reader)
        } else {
            reader.finalizeStatements()
            sqlite3_close_v2(reader.handle)
            openReaders -= 1
        }
        pool.broadcast()
    }

    /// Waits for reads under way to finish, then closes every reader.
    private func closeReaders() {
        pool.lock()
        while busyReaders > 0 { pool.wait() }
        let readers = idleReaders
        idleReaders = []
        openReaders = 0
        pool.unlock()
        for reader in readers {
            reader.finalizeStatements()
            sqlite3_close_v2(reader.handle)
        }
    }

    // MARK: batches (see `writeInBatches`)

    /// Starts a batch: takes the lock (held until `endBatch`) and begins a write transaction.
    fileprivate func beginBatch() throws -> Connection {
        lock.lock()
        do {
            guard !inTransaction, !isInTransactionOnThisThread else {
                throw DatabaseError.misuse("nested transaction: a batched write inside another transaction")
            }
            try vaultLock?.ensureWriter()
            let connection = try openConnection()
            try connection.execute("BEGIN IMMEDIATE")
            inTransaction = true
            Thread.current.threadDictionary[threadKey] = true
            connection.transaction = .write
            connection.commitActions = []
            connection.rollbackActions = []
            return connection
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Ends a batch with COMMIT (or ROLLBACK when `commit` is false or the commit fails) and lets go of the lock.
    fileprivate func endBatch(_ connection: Connection, commit: Bool) throws {
        defer {
            inTransaction = false
            leaveTransaction()
            connection.transaction = .none
            connection.commitActions = []
            connection.rollbackActions = []
            lock.unlock()
        }
        if commit {
            do {
                try connection.execute("COMMIT")
            } catch {
                Self.rollBack(connection)
                throw error
            }
            for action in connection.commitActions { action() }
        } else {
            Self.rollBack(connection)
        }
    }

    /// Rolls back the open transaction, if SQLite has not already, and runs its rollback actions.
    private static func rollBack(_ connection: Connection) {
        if sqlite3_get_autocommit(connection.handle) == 0 { try? connection.execute("ROLLBACK") }
        for action in connection.rollbackActions.reversed() { action() }
    }

    // MARK: internals

    private static func setBusyTimeout(_ timeout: Duration, on connection: Connection) {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        // SQLite's own busy_timeout backs off to 100 ms sleeps, so a waiting process keeps losing the lock to
        // one that writes in a loop. Polling every millisecond shares the lock far more evenly.
        sqlite3_busy_handler(connection.handle, pollingBusyHandler, UnsafeMutableRawPointer(bitPattern: Int(milliseconds)))
    }

    private func openConnection() throws -> Connection {
        guard let connection else { throw DatabaseError.misuse("the database is closed") }
        return connection
    }

    private func transaction<T>(_ kind: TransactionKind, _ body: (Connection) throws -> T) throws -> T {
        try enterTransaction()
        defer { leaveTransaction() }
        lock.lock()
        defer { lock.unlock() }
        guard !inTransaction else {
            throw DatabaseError.misuse("nested transaction: pass the Connection you already have instead")
        }
        let connection = try openConnection()
        if kind == .write { try vaultLock?.ensureWriter() }
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
            Self.rollBack(connection)
            throw error
        }
        for action in connection.commitActions { action() }
        return result
    }

    /// A reader: the same file, `query_only` (SQLite refuses any write on it), no file created.
    private static func openReader(path: String, busyTimeout: Duration, vfs: String?) throws -> Connection {
        try connect(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, busyTimeout: busyTimeout, vfs: vfs) { connection in
            try connection.execute("PRAGMA foreign_keys = ON")
            try connection.execute("PRAGMA query_only = ON")
        }
    }

    /// Opens a connection with `flags` and the busy handler (through the VFS named `vfs`, nil for the default),
    /// then runs `configure`; closes it if anything fails. Through a cipher VFS, temporary tables and indices stay
    /// in memory (the VFS refuses temporary files: they would hold pages in the clear).
    static func connect(
        path: String, flags: Int32, busyTimeout: Duration, vfs: String?,
        configure: (Connection) throws -> Void
    ) throws -> Connection {
        _ = SQLiteLibrary.prepared
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, vfs)
        guard rc == SQLITE_OK, let handle else {
            // The open's own result keeps only the primary code; the connection holds the extended one (a page
            // that does not open is SQLITE_IOERR_DATA, read while opening).
            let error = DatabaseError.from(code: handle.map { sqlite3_extended_errcode($0) } ?? rc, db: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        let connection = Connection(handle: handle)
        do {
            Self.setBusyTimeout(max(busyTimeout, .milliseconds(1)), on: connection)
            if vfs != nil {
                try connection.execute("PRAGMA temp_store = MEMORY")
                // A freed page is written (zeroed) instead of skipped: SQLite otherwise leaves never-written holes
                // in the file, which read as zeros, and the cipher takes an all-zero page for a damaged one.
                try connection.execute("PRAGMA secure_delete = ON")
                // A page read from the file costs a decryption, so decrypted pages are kept longer: 16 MiB of page
                // cache per connection instead of SQLite's 2 MiB (filled only as pages are read). Without it a
                // Ledger page five years back in a 1,000-day vault re-read its ~1,000 pages each time (3.3x plain).
                try connection.execute("PRAGMA cache_size = -16384")
            }
            try configure(connection)
        } catch {
            connection.finalizeStatements()
            sqlite3_close_v2(handle)
            throw error
        }
        return connection
    }

    private static func open(path: String, busyTimeout: Duration, vfs: String?) throws -> Connection {
        do {
            try FileModes.createPrivateFile(atPath: path)
        } catch let failure as FileModes.SystemCallFailure {
            throw DatabaseError.sqlite(
                SQLiteFailure(
                    code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN,
                    message: failure.description, sql: nil))
        }
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        return try connect(path: path, flags: flags, busyTimeout: busyTimeout, vfs: vfs) { connection in
            // A new encrypted database gets 4096-byte pages with room for each page's nonce and tag (an existing
            // one keeps what it has; the VFS refuses to write a first page that says otherwise).
            if vfs != nil {
                try reservePageCipherSpace(on: connection)
                // Switching a new database to WAL writes its first page through the rollback journal, which the
                // cipher VFS refuses: that one write goes through a journal held in memory instead.
                if try connection.scalar("PRAGMA page_count", as: Int.self) == 0 {
                    _ = try connection.query("PRAGMA journal_mode = MEMORY")
                }
            }
            // WAL lets readers and one writer work at once, across processes. Checked, not assumed.
            let mode: String? = try connection.scalar("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError.misuse("the database could not switch to WAL journaling")
            }
            try connection.execute("PRAGMA foreign_keys = ON")
            // FULL: a commit that returned is on disk even after a power cut, not only after a crash.
            try connection.execute("PRAGMA synchronous = FULL")
            try FileModes.restrictSidecars(ofDatabaseAt: path)
        }
    }
}

extension Database {
    /// Asks SQLite for 4096-byte pages with `CipherVFS.reservedBytes` reserved at the end of each: takes effect
    /// on an empty database (and in a `VACUUM INTO` from this connection).
    static func reservePageCipherSpace(on connection: Connection) throws {
        var reserve = CipherVFS.reservedBytes
        let rc = sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        if rc != SQLITE_OK { throw DatabaseError.from(code: rc, db: connection.handle, sql: nil) }
        try connection.execute("PRAGMA page_size = \(CipherVFS.pageSize)")
    }
}

/// Waits 1 ms per call until `context` (the timeout in milliseconds, stored as the pointer's bit pattern) calls
/// have been made; returning 0 makes SQLite fail with SQLITE_BUSY. A C callback, so it captures nothing.
/// (A nil context, a timeout of zero, fails at once.)
private let pollingBusyHandler: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, calls in
    let limit = Int(bitPattern: context)
    guard Int(calls) < limit else { return 0 }
    usleep(1000)
    return 1
}

/// A long write cut into short transactions (`Database.writeInBatches`). Used by one thread at a time.
public final class BatchedWrite {
    private let database: Database
    private let interval: Duration
    private var connection: Connection?
    private var started = ContinuousClock.now
    /// How many batches have begun so far; a caller caching row ids across batches compares it.
    public private(set) var batchesStarted = 0

    fileprivate init(database: Database, interval: Duration) {
        self.database = database
        self.interval = interval
    }

    /// Runs `body` inside the current batch (beginning one when none is open); when the batch is `interval` old
    /// afterwards, it commits and lets others in. A throw rolls back the open batch only.
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        let db: Connection
        if let connection {
            db = connection
        } else {
            db = try database.beginBatch()
            connection = db
            started = ContinuousClock.now
            batchesStarted += 1
        }
        let result = try body(db)
        if ContinuousClock.now - started >= interval { try commit() }
        return result
    }

    /// Commits the open batch, if any.
    public func commit() throws {
        guard let open = connection else { return }
        connection = nil
        try database.endBatch(open, commit: true)
        // A moment with the lock free, so another process polling for it gets its turn.
        usleep(1000)
    }

    fileprivate func rollBack() {
        guard let open = connection else { return }
        connection = nil
        try? database.endBatch(open, commit: false)
    }
}
