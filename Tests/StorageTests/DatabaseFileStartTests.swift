import Foundation
import Testing

@testable import Storage

/// Whether another process could take an exclusive POSIX lock on SQLite's SHARED byte range of the file at `path`
/// (what the last connection to close takes before it checkpoints the database and removes its WAL).
private func anotherProcessCouldLockExclusively(_ path: String) throws -> Bool {
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = [
        "-c",
        """
        import fcntl, sys
        f = open(sys.argv[1], 'rb+')
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002, 0)
            print('free')
        except OSError:
            print('held')
        """, path,
    ]
    let out = Pipe()
    python.standardOutput = out
    try python.run()
    python.waitUntilExit()
    return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("free")
}

@Test func readingWhetherTheDatabaseIsEncryptedKeepsThisProcesssLocksOnIt() throws {
    // A connection in WAL mode holds a SHARED lock on the database file for as long as it is open. Reading the
    // file's first bytes with a descriptor that is then closed dropped it: another process could then take the
    // database for unused, checkpoint it and remove its WAL under the open connection.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(dataDir: dir.url.path, environment: [:])
    let database = try vault.openDatabase()
    defer { database.close() }
    _ = try database.read { try $0.scalar("SELECT count(*) FROM sqlite_master", as: Int.self) }
    #expect(try !anotherProcessCouldLockExclusively(vault.databaseURL.path), "the open connection holds its lock")
    for _ in 0..<3 { #expect(!vault.databaseIsEncrypted) }
    #expect(try !anotherProcessCouldLockExclusively(vault.databaseURL.path), "and still holds it")
}

@Test func theFirstBytesFollowTheFileAPathNamesNow() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("f").path
    try Data("first".utf8).write(to: URL(fileURLWithPath: path))
    #expect(DatabaseFileStart.read(path, count: 3) == Array("fir".utf8))
    // Replaced by a rename (as a lock change swaps in a new database), then removed.
    try Data("second".utf8).write(to: URL(fileURLWithPath: path + ".new"))
    #expect(rename(path + ".new", path) == 0)
    #expect(DatabaseFileStart.read(path, count: 16) == Array("second".utf8))
    try FileManager.default.removeItem(atPath: path)
    #expect(DatabaseFileStart.read(path, count: 16) == nil)
}
