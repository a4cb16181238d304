import Encryption
import Foundation
import Testing

@testable import Storage

/// A text that must never be found on disk in an encrypted vault.
private let secretText = "Isotretinoin 20 mg, patch on the left cheek"

/// An encrypted database at `dir/v.sqlite` with `rows` rows holding `secretText` (enough for several pages),
/// closed (so its WAL is checkpointed into the file), and the key it was made with.
private func makeEncryptedDatabase(in dir: TemporaryDirectory, rows: Int = 200) throws -> (path: String, key: SecretKey) {
    let path = dir.url.appendingPathComponent("v.sqlite").path
    let key = SecretKey.random()
    let database = try Database(path: path, key: key)
    try database.write { db in
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute("CREATE INDEX notes_body ON notes (body)")
        for i in 0..<rows { try db.execute("INSERT INTO notes (body) VALUES (?)", "\(secretText) #\(i)") }
    }
    database.close()
    return (path, key)
}

/// Reads every page of every table and index (an integrity check) and the rows; throws what SQLite throws.
private func readEverything(_ path: String, key: SecretKey?) throws -> Int {
    let database = try Database(path: path, key: key)
    defer { database.close() }
    return try database.read { db in
        let check: String? = try db.scalar("PRAGMA integrity_check")
        guard check == "ok" else { throw DatabaseError.misuse("integrity_check: \(check ?? "nil")") }
        return try db.scalar("SELECT count(*) FROM notes", as: Int.self) ?? 0
    }
}

private func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

/// Whether `error` is the page cipher's "wrong key or damaged" error.
private func isUnreadable(_ error: any Error) -> Bool {
    if case .unreadable = error as? DatabaseError { return true }
    return false
}

@Test func anEncryptedDatabaseRoundTripsAndItsFileHoldsNoPlaintext() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    #expect(try readEverything(path, key: key) == 200)
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(file.count % CipherVFS.pageSize == 0 && file.count >= 4 * CipherVFS.pageSize)
    #expect(!contains(file, secretText))
    #expect(!contains(file, "SQLite format 3"))
    #expect(!contains(file, "CREATE TABLE"))
    // Reopened and written again: still one database, nothing but it and its WAL beside it.
    let database = try Database(path: path, key: key)
    try database.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "later") }
    #expect(try database.read { try $0.scalar("SELECT body FROM notes ORDER BY id DESC LIMIT 1", as: String.self) } == "later")
    #expect(database.isEncrypted)
    database.close()
    #expect(filesUnder(dir.url).allSatisfy { $0.hasPrefix("v.sqlite") && !$0.hasSuffix("-journal") })
}

@Test func theWALOfAnEncryptedDatabaseHoldsNoPlaintextWhileAPlainOnesDoes() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    for key in [SecretKey.random(), nil] {
        let path = dir.url.appendingPathComponent(key == nil ? "plain.sqlite" : "vault.sqlite").path
        let database = try Database(path: path, key: key)
        try database.write { db in
            try db.execute("CREATE TABLE notes (body TEXT)")
            for i in 0..<50 { try db.execute("INSERT INTO notes VALUES (?)", "\(secretText) #\(i)") }
        }
        // Still open: the rows are in the WAL, not yet in the database file.
        let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(wal.count > 32)
        #expect(contains(wal, secretText) == (key == nil), "WAL of the \(key == nil ? "plain" : "encrypted") database")
        #expect(try database.read { try $0.scalar("SELECT count(*) FROM notes", as: Int.self) } == 50)
        database.close()
    }
}

@Test func aWrongKeyIsAClearErrorAndChangesNothing() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect { try readEverything(path, key: SecretKey.random()) } throws: { isUnreadable($0) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try readEverything(path, key: key) == 200)
    // Without a key the file is no SQLite database at all; a plain database opened with a key does not open.
    #expect { try readEverything(path, key: nil) } throws: { error in
        if case .corrupt = error as? DatabaseError { return true }
        return false
    }
    let plain = dir.url.appendingPathComponent("plain.sqlite").path
    let database = try Database(path: plain)
    try database.write { try $0.execute("CREATE TABLE notes (body TEXT)") }
    database.close()
    #expect { try readEverything(plain, key: key) } throws: { isUnreadable($0) }
    #expect(
        DatabaseError.unreadable(SQLiteFailure(code: 10, extendedCode: 8202, message: "", sql: nil)).userMessage
            == "The journal database cannot be read: the passphrase is wrong, or the file is damaged or was altered. Nothing was changed.")
}

@Test func aFlippedBitInAnyPageIsAClearError() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    let pages = original.count / CipherVFS.pageSize
    let copy = dir.url.appendingPathComponent("copy.sqlite").path
    for page in 0..<pages {
        // One bit in the page's body, and one in its nonce or tag, each in a copy of its own.
        for offsetInPage in [Int.random(in: 0..<(CipherVFS.pageSize - 40)), CipherVFS.pageSize - Int.random(in: 1...40)] {
            var damaged = original
            damaged[page * CipherVFS.pageSize + offsetInPage] ^= UInt8(1 << Int.random(in: 0..<8))
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
            try damaged.write(to: URL(fileURLWithPath: copy))
            #expect("page \(page + 1), byte \(offsetInPage)") { try readEverything(copy, key: key) } throws: { isUnreadable($0) }
        }
    }
}

@Test func swappedPagesAreAClearError() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    var file = try Data(contentsOf: URL(fileURLWithPath: path))
    let size = CipherVFS.pageSize
    let second = file.subdata(in: size..<(2 * size))
    file.replaceSubrange(size..<(2 * size), with: file.subdata(in: (2 * size)..<(3 * size)))
    file.replaceSubrange((2 * size)..<(3 * size), with: second)
    try file.write(to: URL(fileURLWithPath: path))
    #expect { try readEverything(path, key: key) } throws: { isUnreadable($0) }
}

@Test func aTruncatedFileIsAClearError() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    // Cut inside the last page: that page is damaged.
    try original.prefix(original.count - 1000).write(to: URL(fileURLWithPath: path))
    #expect { try readEverything(path, key: key) } throws: { isUnreadable($0) }
    // Whole pages cut off the end: SQLite's header names more pages than the file has.
    try original.prefix(original.count - 2 * CipherVFS.pageSize).write(to: URL(fileURLWithPath: path))
    #expect(throws: DatabaseError.self) { try readEverything(path, key: key) }
}

@Test func theFirstPageDecryptsByTheDocumentedLayoutAlone() throws {
    // An independent reader: only Encryption's AEAD and the layout of docs/ENCRYPTION.md, not the VFS.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    for pageNumber in [1, 2] {
        let page = Array(file[((pageNumber - 1) * 4096)..<(pageNumber * 4096)])
        let nonce = Array(page[4056..<4080])
        let sealed = Array(page[0..<4056] + page[4080..<4096])
        var associatedData = [UInt8](repeating: 0, count: 16)
        associatedData[0] = 1
        associatedData[7] = UInt8(pageNumber)
        #expect(CipherVFS.associatedData(pageNumber: UInt32(pageNumber)) == associatedData)
        let plain = try #require(AEAD.open(sealed, key: key, nonce: nonce, associatedData: associatedData))
        if pageNumber == 1 {
            #expect(Array(plain[0..<16]) == Array("SQLite format 3\0".utf8))
            #expect(plain[16] == 0x10 && plain[17] == 0x00, "4096-byte pages")
            #expect(plain[20] == 40, "40 reserved bytes")
        }
        // The page number is bound: the same bytes do not open as another page.
        associatedData[7] = UInt8(pageNumber + 1)
        #expect(AEAD.open(sealed, key: key, nonce: nonce, associatedData: associatedData) == nil)
    }
}

@Test func anEncryptedDatabaseWritesNoJournalOrTemporaryFile() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let database = try Database(path: path, key: key)
    defer { database.close() }
    // A sort too big for memory and a temporary table would use temporary files with temp_store = FILE.
    try database.write { db in
        try db.execute("CREATE TEMP TABLE scratch AS SELECT * FROM notes")
        _ = try db.query("SELECT body FROM notes ORDER BY random()")
    }
    try database.withoutTransaction { try $0.execute("VACUUM") }
    #expect(try readEverything(path, key: key) == 200)
    #expect(Set(filesUnder(dir.url)).isSubset(of: ["v.sqlite", "v.sqlite-wal", "v.sqlite-shm"]))
}

@Test func aChangedPageInTheWALOfAnOpenDatabaseIsAClearError() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("v.sqlite").path
    let key = SecretKey.random()
    let database = try Database(path: path, key: key)
    defer { database.close() }
    try database.write { db in
        try db.execute("CREATE TABLE notes (body TEXT)")
        for i in 0..<50 { try db.execute("INSERT INTO notes VALUES (?)", "\(secretText) #\(i)") }
    }
    // One bit of the first frame's page, while the WAL index says the frame is committed.
    let wal = try FileHandle(forUpdating: URL(fileURLWithPath: path + "-wal"))
    try wal.seek(toOffset: 32 + 24 + 100)
    var byte = try #require(try wal.read(upToCount: 1))
    byte[0] ^= 0x04
    try wal.seek(toOffset: 32 + 24 + 100)
    try wal.write(contentsOf: byte)
    try wal.close()
    // Another Database (its cache empty) reads the page from the WAL: opening it or reading fails, clearly.
    #expect {
        let other = try Database(path: path, key: key)
        defer { other.close() }
        _ = try other.read { try $0.query("SELECT * FROM notes") }
    } throws: { isUnreadable($0) }
}

@Test func aSnapshotOfAnEncryptedDatabaseIsSealedOnDiskAndReadsBackAsAPlainDatabase() throws {
    // `cairn backup create` copies the database with the backup API, then streams it into its own encrypted
    // stream: the copy on disk, which exists for the length of the backup, holds nothing in the clear.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, key) = try makeEncryptedDatabase(in: dir)
    let database = try Database(path: path, key: key)
    defer { database.close() }
    let copy = dir.url.appendingPathComponent(".snapshot").path
    let (count, pages) = try database.snapshot(to: copy) { try $0.scalar("SELECT count(*) FROM notes", as: Int.self) }
    #expect(count == 200)
    #expect(pages.isSealed)
    let sealed = try Data(contentsOf: URL(fileURLWithPath: copy))
    #expect(!contains(sealed, "SQLite format 3"))
    #expect(!contains(sealed, "Isotretinoin"))
    #expect(!FileManager.default.fileExists(atPath: copy + "-journal") && !FileManager.default.fileExists(atPath: copy + "-wal"))
    // Read through the snapshot's pages, it is the plain database, whole, in rollback mode (one file).
    let plain = try readAll(pages.plainBytes(from: byteSource(sealed)))
    #expect(plain.count == sealed.count)
    #expect(plain.prefix(16) == Data("SQLite format 3\0".utf8))
    #expect(plain[18] == 1 && plain[19] == 1)
    let plainPath = dir.url.appendingPathComponent("plain.sqlite").path
    try plain.write(to: URL(fileURLWithPath: plainPath))
    #expect(try readEverything(plainPath, key: nil) == 200)
    // A changed bit in the sealed copy is an error, not garbage in the backup.
    var flipped = sealed
    flipped[5000] ^= 0x01
    #expect { _ = try readAll(pages.plainBytes(from: byteSource(flipped))) } throws: { isUnreadable($0) }
}

@Test func aSnapshotOfAPlainDatabaseIsAPlainRollbackModeCopy() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("p.sqlite").path
    let database = try Database(path: path)
    defer { database.close() }
    try database.write { db in
        try db.execute("CREATE TABLE notes (body TEXT)")
        for i in 0..<200 { try db.execute("INSERT INTO notes VALUES (?)", "\(secretText) #\(i)") }
    }
    let copy = dir.url.appendingPathComponent(".snapshot").path
    let (count, pages) = try database.snapshot(to: copy) { try $0.scalar("SELECT count(*) FROM notes", as: Int.self) }
    #expect(count == 200)
    #expect(!pages.isSealed)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
    #expect(try readAll(pages.plainBytes(from: byteSource(bytes))) == bytes)
    #expect(bytes[18] == 1 && bytes[19] == 1)
    #expect(try readEverything(copy, key: nil) == 200)
}

/// Everything `source` gives, read in pieces smaller than a page and not dividing it.
private func readAll(_ source: ByteSource) throws -> Data {
    var out = Data()
    var buffer = [UInt8](repeating: 0, count: 1000)
    while true {
        let n = try buffer.withUnsafeMutableBytes { try source($0) }
        if n == 0 { return out }
        out.append(contentsOf: buffer[0..<n])
    }
}

@Test func aTransactionLargerThanThePageCacheThenSmallOnesReadBackWhole() throws {
    // The shape of a batch check-in: one transaction far larger than SQLite's page cache (pages spill into the
    // WAL and are rewritten there), an automatic checkpoint, then small writes and reads on the reader pool.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("v.sqlite").path
    let key = SecretKey.random()
    let database = try Database(path: path, key: key)
    defer { database.close() }
    try database.write { db in
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, n INTEGER)")
        try db.execute("CREATE INDEX notes_n ON notes (n)")
        for i in 0..<60_000 { try db.execute("INSERT INTO notes (body, n) VALUES (?, ?)", "\(secretText) #\(i)", (i * 7919) % 60_000) }
    }
    for round in 0..<200 {
        try database.write { try $0.execute("UPDATE notes SET body = ? WHERE id = ?", "corrected \(round)", round * 250 + 1) }
        let body = try database.read { try $0.scalar("SELECT body FROM notes WHERE id = ?", round * 250 + 1, as: String.self) }
        #expect(body == "corrected \(round)")
    }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM notes WHERE n >= 0", as: Int.self) } == 60_000)
}

@Test func aBulkImportWhosePagesSpillTwiceReadsBackWholeThroughCheckpointsAndAnOpenReader() throws {
    // `cairn-bench vault --days 1000` failed with `.unreadable` on WAL frames: in a transaction that writes a
    // page the cache already spilled into the WAL, SQLite rewrites that frame in place and writes every later
    // frame's header with zero salts, filling them in only at commit. Pages sealed under the salts of the frame
    // header then no longer opened. A bulk import of that shape: rows in random order under three indexes, much
    // larger than the page cache, with automatic checkpoints between batches and a pooled reader open.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("v.sqlite").path
    let key = SecretKey.random()
    let database = try Database(path: path, key: key)
    defer { database.close() }
    try database.write { db in
        try db.execute("CREATE TABLE doses (id INTEGER PRIMARY KEY, body TEXT NOT NULL, a INTEGER, b TEXT, c INTEGER)")
        try db.execute("CREATE INDEX doses_a ON doses (a)")
        try db.execute("CREATE INDEX doses_b ON doses (b)")
        try db.execute("CREATE INDEX doses_c ON doses (c, a)")
    }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM doses", as: Int.self) } == 0)
    let batches = 3
    let rowsPerBatch = 30_000
    for batch in 0..<batches {
        try database.write { db in
            for row in 0..<rowsPerBatch {
                let i = batch * rowsPerBatch + row
                let scrambled = (i * 7919) % (batches * rowsPerBatch)
                try db.execute(
                    "INSERT INTO doses (body, a, b, c) VALUES (?, ?, ?, ?)", "\(secretText) #\(i)",
                    scrambled, "k\((i * 104_729) % 99_991)", (i * 31) % 1_009)
            }
        }
        // The reader pool reads between batches (while the next batch's frames overwrite a restarted log).
        #expect(
            try database.read { try $0.scalar("SELECT count(*) FROM doses WHERE a >= 0", as: Int.self) }
                == (batch + 1) * rowsPerBatch)
    }
    #expect(try database.read { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
    // Another database object, its cache empty, reads every page from the WAL and the file.
    let other = try Database(path: path, key: key)
    defer { other.close() }
    #expect(try other.read { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
    #expect(try other.read { try $0.scalar("SELECT count(DISTINCT b) FROM doses", as: Int.self) } ?? 0 > 0)
}

@Test func aCrashBeforeACheckpointLosesNoCommittedTransaction() throws {
    // After a crash SQLite recovers the WAL by its frame checksums, computed over the page it was given; the
    // page read back must be that page exactly (its nonce and tag bytes read as the zeros SQLite left there),
    // or recovery ends the log at the first frame and committed transactions are lost. Copying the database
    // and its WAL (not the index) while the connection is open is what a kill -9 leaves behind.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("v.sqlite").path
    let key = SecretKey.random()
    let database = try Database(path: path, key: key)
    defer { database.close() }
    try database.withoutTransaction { try $0.execute("PRAGMA wal_autocheckpoint = 0") }
    try database.write { db in
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        for i in 0..<300 { try db.execute("INSERT INTO notes (body) VALUES (?)", "\(secretText) #\(i)") }
    }
    try database.withoutTransaction { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    for i in 0..<40 {
        try database.write { try $0.execute("UPDATE notes SET body = ? WHERE id = ?", "changed \(i)", i * 7 + 1) }
    }
    try database.write { db in
        for i in 0..<500 { try db.execute("INSERT INTO notes (body) VALUES (?)", "after the checkpoint #\(i)") }
    }
    let copy = dir.url.appendingPathComponent("crashed.sqlite").path
    for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "-wal")).count > 10 * CipherVFS.pageSize)
    let recovered = try Database(path: copy, key: key)
    defer { recovered.close() }
    #expect(try recovered.read { try $0.scalar("SELECT count(*) FROM notes", as: Int.self) } == 800)
    #expect(try recovered.read { try $0.scalar("SELECT body FROM notes WHERE id = ?", 39 * 7 + 1, as: String.self) } == "changed 39")
    #expect(try recovered.read { try $0.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
}
