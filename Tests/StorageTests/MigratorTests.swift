import CairnCore
import Foundation
import Testing

@testable import Storage

private let first = Migration(id: "1-first") { try $0.execute("CREATE TABLE a (id TEXT PRIMARY KEY)") }
private let second = Migration(id: "2-second") { try $0.execute("CREATE TABLE b (id TEXT PRIMARY KEY, a TEXT NOT NULL REFERENCES a(id))") }

private func withDatabase(_ body: (Database) throws -> Void) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("m.sqlite").path)
    defer { database.close() }
    try body(database)
}

@Test func appliesPendingMigrationsInOrderAndRecordsTheirIDs() throws {
    try withDatabase { database throws in
        let migrator = Migrator([first, second], clock: fixedClock)
        #expect(try migrator.appliedIDs(in: database) == [])
        #expect(try migrator.pendingIDs(in: database) == ["1-first", "2-second"])
        #expect(try migrator.migrate(database) == ["1-first", "2-second"])
        #expect(try migrator.appliedIDs(in: database) == ["1-first", "2-second"])
        #expect(try migrator.migrate(database) == [])
        let appliedAt = try database.read { try $0.scalar("SELECT applied_at FROM schema_migrations LIMIT 1", as: String.self) }
        #expect(appliedAt == "2026-11-30T12:00:00.000Z")
        #expect(try database.read { try $0.scalar("PRAGMA foreign_keys", as: Int.self) } == 1)
    }
}

@Test func anEmptyListCreatesOnlyTheMigrationsTable() throws {
    try withDatabase { database throws in
        #expect(try Migrator([]).migrate(database) == [])
        let tables = try database.read { try $0.query("SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(try tables.map { try $0.get("name", as: String.self) } == ["schema_migrations"])
    }
}

@Test func migratesUpToAGivenIDAndLaterAppendsTheRest() throws {
    try withDatabase { database throws in
        #expect(try Migrator([first, second]).migrate(database, upTo: "1-first") == ["1-first"])
        #expect(try Migrator([first, second]).migrate(database) == ["2-second"])
        #expect(throws: MigrationError.noSuchMigration("nope")) { try Migrator([first]).migrate(database, upTo: "nope") }
    }
}

@Test func rollsBackAMigrationThatFailsAndKeepsEarlierOnes() throws {
    let broken = Migration(id: "3-broken") { db in
        try db.execute("CREATE TABLE c (id TEXT)")
        try db.execute("INSERT INTO nowhere VALUES (1)")
    }
    try withDatabase { database throws in
        let error = try #require(throws: MigrationError.self) { try Migrator([first, broken]).migrate(database) }
        guard case .failed(id: "3-broken", _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(try Migrator([first, broken]).appliedIDs(in: database) == ["1-first"])
        let c = try database.read { try $0.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'c'", as: Int.self) }
        #expect(c == 0)
        #expect(try database.read { try $0.scalar("PRAGMA foreign_keys", as: Int.self) } == 1)
    }
}

@Test func refusesADatabaseFromANewerCairnWithoutChangingIt() throws {
    try withDatabase { database throws in
        try Migrator([first, second]).migrate(database)
        let error = try #require(throws: MigrationError.self) { try Migrator([first]).migrate(database) }
        #expect(error == .unknownMigrations(["2-second"]))
        #expect(error.userMessage.contains("newer version of Cairn"))
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
    }
}

@Test func refusesDuplicateIDsBeforeTouchingTheDatabase() throws {
    try withDatabase { database throws in
        #expect(throws: MigrationError.duplicateID("1-first")) { try Migrator([first, first]).migrate(database) }
        let count = try database.read { try $0.scalar("SELECT count(*) FROM sqlite_master", as: Int.self) }
        #expect(count == 0)
    }
}

@Test func aMigrationMayRebuildATableButMustLeaveForeignKeysConsistent() throws {
    let rebuild = Migration(id: "3-rebuild") { db in
        try db.executeScript(
            """
            CREATE TABLE a_new (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT '');
            INSERT INTO a_new (id) SELECT id FROM a;
            DROP TABLE a;
            ALTER TABLE a_new RENAME TO a;
            """)
    }
    let dangling = Migration(id: "4-dangling") { try $0.execute("INSERT INTO b VALUES ('b2', 'missing')") }
    try withDatabase { database throws in
        try Migrator([first, second]).migrate(database)
        try database.write {
            try $0.execute("INSERT INTO a VALUES ('a1')")
            try $0.execute("INSERT INTO b VALUES ('b1', 'a1')")
        }
        try Migrator([first, second, rebuild]).migrate(database)
        #expect(try database.read { try $0.scalar("SELECT a FROM b", as: String.self) } == "a1")
        #expect(throws: MigrationError.foreignKeyViolations(id: "4-dangling", count: 1)) {
            try Migrator([first, second, rebuild, dangling]).migrate(database)
        }
        #expect(try database.read { try $0.scalar("SELECT count(*) FROM b", as: Int.self) } == 1)
    }
}
