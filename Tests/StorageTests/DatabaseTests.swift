import Foundation
import Testing

@testable import Storage

@Test func opensInWALModeWithForeignKeysOnAndPrivateFiles() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("d.sqlite").path
    let database = try Database(path: path)
    defer { database.close() }
    try database.write {
        try $0.execute("CREATE TABLE x (v TEXT)")
        try $0.execute("INSERT INTO x VALUES ('a')")
    }
    try database.read { db throws in
        #expect(try db.scalar("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try db.scalar("PRAGMA foreign_keys", as: Int.self) == 1)
    }
    for suffix in ["", "-wal", "-shm"] {
        #expect(FileModes.permissions(atPath: path + suffix) == 0o600, "mode of \(suffix.isEmpty ? "db" : suffix)")
    }
}

@Test func writeRollsBackEverythingWhenTheBodyThrows() throws {
    struct Boom: Error {}
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    #expect(throws: Boom.self) {
        try database.write { db throws in
            try db.execute("INSERT INTO x VALUES (?)", "a")
            throw Boom()
        }
    }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 0)
    try database.write { try $0.execute("INSERT INTO x VALUES (?)", "b") }
    #expect(try database.read { try $0.scalar("SELECT v FROM x", as: String.self) } == "b")
}

@Test func commitAndRollbackActionsRunOnlyOnTheirOutcome() throws {
    struct Boom: Error {}
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    var log: [String] = []
    try database.write { db throws in
        db.afterCommit { log.append("commit1") }
        db.onRollback { log.append("rollback1") }
    }
    _ = try? database.write { db in
        db.afterCommit { log.append("commit2") }
        db.onRollback { log.append("rollback2") }
        throw Boom()
    }
    #expect(log == ["commit1", "rollback2"])
}

@Test func refusesNestedTransactionsAndUseAfterClose() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    #expect(throws: DatabaseError.self) { try database.write { _ in try database.read { _ in } } }
    #expect(throws: DatabaseError.self) { try database.read { _ in try database.write { _ in } } }
    try database.read { db in #expect(!db.isInWriteTransaction) }
    try database.write { db in #expect(db.isInWriteTransaction) }
    database.close()
    database.close()
    #expect(throws: DatabaseError.self) { try database.read { _ in } }
}

@Test func opensAFileThatIsNotADatabaseWithACorruptError() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("junk.sqlite").path
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
    let error = try #require(throws: DatabaseError.self) { _ = try Database(path: path) }
    guard case .corrupt = error else {
        Issue.record("expected .corrupt, got \(error)")
        return
    }
}

@Test func cannotOpenInAMissingDirectory() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let error = try #require(throws: DatabaseError.self) {
        _ = try Database(path: dir.url.appendingPathComponent("no/such/d.sqlite").path)
    }
    #expect(!error.description.contains(dir.path))
    #expect(error.userMessage.contains("data folder"))
}

@Test func aWriterWaitsForAnotherConnectionsLockThenReportsBusy() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("d.sqlite").path
    let holder = try Database(path: path)
    let waiter = try Database(path: path, busyTimeout: .milliseconds(50))
    #expect(waiter.busyTimeout == .milliseconds(50))
    try holder.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    try holder.write { _ in
        let error = try #require(throws: DatabaseError.self) { try waiter.write { try $0.execute("INSERT INTO x VALUES ('w')") } }
        guard case .busy = error else {
            Issue.record("expected .busy, got \(error)")
            return
        }
        // Readers are not blocked by a writer in WAL mode.
        #expect(try waiter.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 0)
    }
    try waiter.write { try $0.execute("INSERT INTO x VALUES ('w')") }
    #expect(try holder.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 1)
}

@Test func serialisesWritesFromManyThreads() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE n (v INTEGER)") }
    await withTaskGroup(of: Void.self) { group in
        for i in 0..<8 {
            group.addTask {
                for j in 0..<25 { try? database.write { try $0.execute("INSERT INTO n VALUES (?)", i * 100 + j) } }
            }
        }
    }
    #expect(try database.read { try $0.scalar("SELECT count(DISTINCT v) FROM n", as: Int.self) } == 200)
}

@Test func twoProcessesWriteTheSameFileAndUniqueKeepsEachKeyOnce() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("shared.sqlite").path
    let database = try Database(path: path)
    try database.write { try $0.execute("CREATE TABLE checkin (key TEXT PRIMARY KEY, writer TEXT NOT NULL)") }
    let child = try ChildProcess.launch(role: "checkins", directory: dir.url, extra: ["CAIRN_WRITER": "child"])
    // Start together: the child opens the database, says it is ready, and waits for "go".
    #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("ready").path, process: child))
    _ = FileManager.default.createFile(atPath: dir.url.appendingPathComponent("go").path, contents: Data())
    let parentLanded = try insertCheckins(database: database, writer: "parent")
    child.waitUntilExit()
    #expect(child.terminationStatus == 0)
    let childLanded = try #require(Int(try String(contentsOf: dir.url.appendingPathComponent("child-landed"), encoding: .utf8)))
    try database.read { db throws in
        #expect(try db.scalar("SELECT count(*) FROM checkin", as: Int.self) == checkinCount)
        #expect(try db.scalar("SELECT count(*) FROM checkin WHERE writer = 'parent'", as: Int.self) == parentLanded)
    }
    #expect(parentLanded + childLanded == checkinCount)
    print("two-process check-ins: parent landed \(parentLanded), child landed \(childLanded) of \(checkinCount)")
}

let checkinCount = 200

/// Inserts keys 0..<checkinCount, treating a UNIQUE violation as "already checked in"; returns how many landed.
func insertCheckins(database: Database, writer: String) throws -> Int {
    var landed = 0
    for i in 0..<checkinCount {
        do {
            try database.write { try $0.execute("INSERT INTO checkin (key, writer) VALUES (?, ?)", "dose-\(i)", writer) }
            landed += 1
        } catch let error as DatabaseError where error.constraintKind == .unique {
            continue
        }
    }
    return landed
}

@Test func twoProcessesOpeningANewVaultAtOnceBothReachTodaysSchema() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let child = try ChildProcess.launch(role: "open-vault", directory: dir.url)
    #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("ready").path, process: child))
    _ = FileManager.default.createFile(atPath: dir.url.appendingPathComponent("go").path, contents: Data())
    let database = try Vault(directory: dir.url.appendingPathComponent("vault")).openDatabase()
    defer { database.close() }
    child.waitUntilExit()
    #expect(child.terminationStatus == 0)
    #expect(try Migrator(CairnSchema.migrations).appliedIDs(in: database) == CairnSchema.migrations.map(\.id))
}

/// A second connection opened in a process must not drop the POSIX locks the first one holds (closing any
/// descriptor of a file drops all of a process's locks on it): else another process closing its connection takes
/// itself for the last one and checkpoints and removes the WAL under the live connection, which then reads a
/// "malformed" database (seen in `cairn-bench reliability`'s kill loops).
@Test func openingASecondConnectionKeepsTheFirstOnesLocksSoAnotherProcessLeavesTheWALAlone() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.url.appendingPathComponent("shared.sqlite").path
    let first = try Database(path: path)
    try first.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
    try first.write { try $0.execute("INSERT INTO t VALUES (1)") }
    let second = try Database(path: path)
    second.close()
    let child = try ChildProcess.launch(role: "open-close", directory: dir.url)
    child.waitUntilExit()
    #expect(child.terminationStatus == 0)
    #expect(FileManager.default.fileExists(atPath: path + "-wal"), "another process removed the WAL while this one had it open")
    try first.write { try $0.execute("INSERT INTO t VALUES (2)") }
    #expect(try first.read { try $0.scalar("SELECT count(*) FROM t", as: Int.self) } == 2)
    #expect(try first.read { try $0.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
}

@Test func aReadRunsOnItsOwnConnectionWhileThisProcessHoldsAWriteAndSeesTheLastCommit() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    let inside = DispatchSemaphore(value: 0)
    let readDone = DispatchSemaphore(value: 0)
    let writerEnded = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var writerSawTheRead = false
    let writer = Thread {
        try? database.write { db in
            try db.execute("INSERT INTO x VALUES ('uncommitted')")
            inside.signal()
            // The write stays open until the read is done: a read that waited for it would find it committed.
            writerSawTheRead = readDone.wait(timeout: .now() + 30) == .success
        }
        writerEnded.signal()
    }
    writer.start()
    #expect(inside.wait(timeout: .now() + 10) == .success)
    let seen = try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) }
    readDone.signal()
    #expect(writerEnded.wait(timeout: .now() + 60) == .success)
    #expect(writerSawTheRead, "the read ended while the write transaction was still open")
    #expect(seen == 0)
    while writer.isExecuting { usleep(1000) }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 1)
}

@Test func readsOnSeveralThreadsRunSideBySide() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    // Each read waits inside its transaction for the other to be inside its own: only readers on their own
    // connections, not queued behind one lock, can both get there.
    let a = DispatchSemaphore(value: 0)
    let b = DispatchSemaphore(value: 0)
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var met: Set<Int> = []
        func record(_ index: Int) { lock.withLock { _ = met.insert(index) } }
        var both: Bool { lock.withLock { met == [0, 1] } }
    }
    let outcome = Outcome()
    let group = DispatchGroup()
    for (index, (mine, other)) in [(a, b), (b, a)].enumerated() {
        group.enter()
        Thread {
            _ = try? database.read { db -> Void in
                _ = try db.scalar("SELECT count(*) FROM x", as: Int.self)
                mine.signal()
                if other.wait(timeout: .now() + 5) == .success { outcome.record(index) }
            }
            group.leave()
        }.start()
    }
    #expect(group.wait(timeout: .now() + 20) == .success)
    #expect(outcome.both)
}

@Test func aReadTransactionCannotWrite() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    #expect(throws: DatabaseError.self) { try database.read { try $0.execute("INSERT INTO x VALUES ('r')") } }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 0)
    try database.write { try $0.execute("INSERT INTO x VALUES ('w')") }
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 1)
}

@Test func readsInsideASnapshotSeeOneCommitAndAWriteInsideItIsRefused() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("d.sqlite").path)
    try database.write { try $0.execute("CREATE TABLE x (v TEXT)") }
    let counts: [Int?] = try database.snapshot {
        let before = try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) }
        // Another thread commits a row between the two reads of the snapshot.
        let committed = DispatchSemaphore(value: 0)
        Thread {
            try? database.write { try $0.execute("INSERT INTO x VALUES ('later')") }
            committed.signal()
        }.start()
        #expect(committed.wait(timeout: .now() + 30) == .success)
        let after = try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) }
        #expect(throws: DatabaseError.self) { try database.write { try $0.execute("INSERT INTO x VALUES ('inside')") } }
        return [before, after]
    }
    #expect(counts == [0, 0])
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM x", as: Int.self) } == 1)
}
