internal import CSQLite
import Encryption
import Foundation

/// How to read the file a `Database.snapshot` wrote as the plain SQLite database it holds. A snapshot of an
/// encrypted database is sealed page by page like the vault's own (`CipherVFS`), under a random key that lives
/// only in this value: the copy on disk is never readable, even for the moment it exists or after a crash.
public struct SnapshotPages {
    /// The key the copy's pages are sealed with; nil when the copy is plain (of a plain database).
    let cipher: PageCipher?

    /// Whether the file on disk is sealed.
    public var isSealed: Bool { cipher != nil }

    /// The bytes of the plain database, from `read` giving the snapshot file's bytes in order: each page opened
    /// and its nonce and tag handed on as zeros (as SQLite left them, docs/ENCRYPTION.md). A page that does not
    /// open, or a file cut inside a page, is `DatabaseError.unreadable`.
    public func plainBytes(from read: @escaping ByteSource) -> ByteSource {
        guard let cipher else { return read }
        let size = CipherVFS.pageSize
        var page = [UInt8](repeating: 0, count: size)
        var pageNumber: UInt32 = 0
        var offset = size
        var filled = size
        return { buffer in
            if offset == filled {
                // The next page, whole.
                filled = 0
                while filled < size {
                    let n = try page.withUnsafeMutableBytes { raw in try read(UnsafeMutableRawBufferPointer(rebasing: raw[filled...])) }
                    if n == 0 { break }
                    filled += n
                }
                if filled == 0 { return 0 }
                pageNumber += 1
                let associatedData = CipherVFS.associatedData(pageNumber: pageNumber)
                let opened =
                    filled == size
                    && page.withUnsafeMutableBufferPointer { bytes in
                        cipher.open(
                            page: bytes.baseAddress!, count: size, associatedData: associatedData,
                            associatedDataCount: associatedData.count)
                    }
                guard opened else {
                    throw DatabaseError.unreadable(
                        SQLiteFailure(
                            code: SQLITE_IOERR, extendedCode: SQLITE_IOERR | (32 << 8),
                            message: "snapshot page \(pageNumber) does not open", sql: nil))
                }
                for i in (size - Int(CipherVFS.reservedBytes))..<size { page[i] = 0 }
                offset = 0
            }
            let take = min(buffer.count, filled - offset)
            page.withUnsafeBytes { raw in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + take])) }
            offset += take
            return take
        }
    }
}

extension Database {
    /// Copies the database, as one consistent moment, to a new file at `path` (0600) with SQLite's online backup
    /// API, through a connection of its own: this connection and other processes (a running `cairn serve`) go on
    /// reading and writing meanwhile. The copy is left in rollback-journal mode (its journal in memory when sealed),
    /// so it is one self-contained file.
    /// The copy of an encrypted database is sealed under a key of its own (`SnapshotPages`), never written in the
    /// clear. Returns what `inspect` read from the copy before it was closed, and how to read the copy's file as a
    /// plain database. On failure the file is removed.
    public func snapshot<T>(to path: String, inspect: (Connection) throws -> T) throws -> (T, SnapshotPages) {
        do {
            try FileModes.createPrivateFile(atPath: path)
        } catch let failure as FileModes.SystemCallFailure {
            throw DatabaseError.misuse("snapshot file: \(failure.description)")
        }
        var source: OpaquePointer?
        var target: OpaquePointer?
        // The copy's own cipher; it must outlive the connection through it (closed by the defer below).
        let sealer = try cipher.map { _ in try CipherVFS(key: .random()) }
        defer {
            sqlite3_close_v2(source)
            sqlite3_close_v2(target)
            withExtendedLifetime(sealer) {}
        }
        do {
            guard sqlite3_open_v2(self.path, &source, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, cipher?.name) == SQLITE_OK,
                let source
            else { throw DatabaseError.from(code: SQLITE_CANTOPEN, db: source, sql: nil) }
            sqlite3_busy_timeout(source, Int32(busyTimeout.components.seconds * 1000))
            guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, sealer?.name) == SQLITE_OK,
                let target
            else { throw DatabaseError.from(code: SQLITE_CANTOPEN, db: target, sql: nil) }
            sqlite3_extended_result_codes(target, 1)
            let copy = Connection(handle: target)
            defer { copy.finalizeStatements() }
            // No journal file: the cipher refuses one, and a plain copy needs none (a failed copy is removed).
            _ = try copy.query("PRAGMA journal_mode = MEMORY")
            if sealer != nil {
                try copy.execute("PRAGMA temp_store = MEMORY")
                try Self.reservePageCipherSpace(on: copy)
            }
            guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
                throw DatabaseError.from(code: sqlite3_extended_errcode(target), db: target, sql: nil)
            }
            // All pages in one step: the copy is of one read transaction, never a mix of two moments.
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw DatabaseError.from(code: step == SQLITE_DONE ? finish : step, db: target, sql: nil)
            }
            // The copy's first page still names the source's WAL: the copy keeps its journal in memory (a plain
            // one may use a rollback journal), so it stays one self-contained file.
            _ = try copy.query("PRAGMA journal_mode = \(sealer == nil ? "DELETE" : "MEMORY")")
            let result = try inspect(copy)
            copy.finalizeStatements()
            return (result, SnapshotPages(cipher: sealer.map { PageCipher(key: $0.key) }))
        } catch {
            sqlite3_close_v2(target)
            target = nil
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileModes.removeFile(atPath: path + suffix) }
            throw error
        }
    }

    /// Copies every page of this database, as one consistent moment (all pages in one backup step, through a
    /// connection of its own), over the content of `target`, a database just created and not in use. Both must
    /// have the same page size and the same reserved bytes per page (`reserveCipherSpaceInPlace` first, for a
    /// plain database made before the lock existed); the cipher VFS refuses any other first page.
    func copyPages(into target: Database) throws {
        var source: OpaquePointer?
        defer { sqlite3_close_v2(source) }
        guard sqlite3_open_v2(path, &source, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, cipher?.name) == SQLITE_OK,
            let source
        else { throw DatabaseError.from(code: SQLITE_CANTOPEN, db: source, sql: nil) }
        sqlite3_extended_result_codes(source, 1)
        sqlite3_busy_timeout(source, Int32(busyTimeout.components.seconds * 1000))
        try target.withoutTransaction { connection in
            guard let backup = sqlite3_backup_init(connection.handle, "main", source, "main") else {
                throw DatabaseError.from(code: sqlite3_extended_errcode(connection.handle), db: connection.handle, sql: nil)
            }
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw DatabaseError.from(code: step == SQLITE_DONE ? finish : step, db: connection.handle, sql: nil)
            }
        }
    }

    /// The bytes SQLite leaves unused at the end of every page (40 in an encrypted database, 0 in a plain one made
    /// before the vault lock existed).
    func reservedBytesPerPage() throws -> Int32 {
        try withoutTransaction { connection in
            var value: Int32 = -1
            let rc = sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
            guard rc == SQLITE_OK else { throw DatabaseError.from(code: rc, db: connection.handle, sql: nil) }
            return value
        }
    }

    /// Gives a plain database the page cipher's layout (4,096-byte pages, 40 bytes free at the end of each), so
    /// its pages can be copied into an encrypted database: `VACUUM` rebuilds it in place, in one SQLite
    /// transaction (a crash leaves the old file or the new one, both plain and whole). Nothing to do when it has it.
    func reserveCipherSpaceInPlace() throws {
        guard try reservedBytesPerPage() != CipherVFS.reservedBytes else { return }
        try withoutTransaction { connection in
            guard try connection.scalar("PRAGMA page_size", as: Int.self) == CipherVFS.pageSize else {
                throw DatabaseError.misuse("the database's pages are not \(CipherVFS.pageSize) bytes")
            }
            var reserve = CipherVFS.reservedBytes
            let rc = sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
            guard rc == SQLITE_OK else { throw DatabaseError.from(code: rc, db: connection.handle, sql: nil) }
            try connection.execute("VACUUM")
        }
        guard try reservedBytesPerPage() == CipherVFS.reservedBytes else {
            throw DatabaseError.misuse("VACUUM did not make room for the page cipher")
        }
    }
}
