import CairnCore
import Foundation
import Testing

@testable import Storage

private func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("t.sqlite").path)
    defer { database.close() }
    try database.write { try $0.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, f INTEGER)") }
    return try body(database)
}

@Test func bindsAndReadsBackEveryTypedValue() throws {
    try withDatabase { database throws in
        let blob = Data([0, 1, 2, 255])
        try database.write { db throws in
            try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", Int64.max, 2.5, "héllo\twörld", blob, true)
            try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", nil, nil, "", Data(), false)
        }
        let rows = try database.read { try $0.query("SELECT * FROM t ORDER BY rowid") }
        #expect(rows.count == 2)
        #expect(try rows[0].get("i", as: Int64.self) == Int64.max)
        #expect(try rows[0].get("r", as: Double.self) == 2.5)
        #expect(try rows[0].get("s", as: String.self) == "héllo\twörld")
        #expect(try rows[0].get("b", as: Data.self) == blob)
        #expect(try rows[0].get("f", as: Bool.self) == true)
        #expect(try rows[1].optional("i", as: Int.self) == nil)
        #expect(try rows[1].get("s", as: String.self) == "")
        #expect(try rows[1].get("b", as: Data.self) == Data())
        #expect(try rows[1].get(at: 4, as: Bool.self) == false)
        #expect(rows[0]["missing"] == nil)
    }
}

@Test func textWithANulByteIsNeverStored() throws {
    try withDatabase { database throws in
        #expect(throws: DatabaseError.self) {
            try database.write { try $0.execute("INSERT INTO t (s) VALUES (?)", "héllo\u{0}wörld") }
        }
        #expect(try database.read { try $0.scalar("SELECT count(*) FROM t", as: Int.self) } == 0)
    }
}

@Test func queryOnAnEmptyTableReturnsNoRowsAndScalarNil() throws {
    try withDatabase { database throws in
        try database.read { db throws in
            #expect(try db.query("SELECT * FROM t").isEmpty)
            #expect(try db.queryFirst("SELECT * FROM t") == nil)
            #expect(try db.scalar("SELECT i FROM t", as: Int.self) == nil)
            #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 0)
        }
    }
}

@Test func reportsChangesAndLastInsertRowID() throws {
    try withDatabase { database throws in
        try database.write { db throws in
            try db.execute("INSERT INTO t (i) VALUES (?)", 1)
            #expect(db.lastInsertRowID == 1)
            try db.execute("INSERT INTO t (i) VALUES (?)", 2)
            try db.execute("UPDATE t SET s = ?", "x")
            #expect(db.changes == 2)
        }
    }
}

@Test func rowAccessFailsOnMissingColumnNullOrWrongType() throws {
    try withDatabase { database throws in
        try database.write { try $0.execute("INSERT INTO t (i, s) VALUES (?, ?)", 7, "seven") }
        let row = try #require(try database.read { try $0.queryFirst("SELECT i, s, r FROM t") })
        #expect(throws: DatabaseError.self) { try row.get("nope", as: Int.self) }
        #expect(throws: DatabaseError.self) { try row.get("r", as: Double.self) }
        #expect(throws: DatabaseError.self) { try row.get("s", as: Int.self) }
        #expect(throws: DatabaseError.self) { try row.get(at: 9, as: Int.self) }
        #expect(try row.get("i", as: Double.self) == 7)
    }
}

@Test func refusesAWrongArgumentCountAndSeveralStatementsInOne() throws {
    try withDatabase { database throws in
        try database.write { db throws in
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (i) VALUES (?)") }
            #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (i) VALUES (?)", 1, 2) }
            #expect(throws: DatabaseError.self) { try db.execute("SELECT 1; SELECT 2") }
            #expect(throws: DatabaseError.misuse("empty statement")) { try db.execute("  -- nothing") }
            try db.executeScript("INSERT INTO t (i) VALUES (1); INSERT INTO t (i) VALUES (2);")
            #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 2)
        }
    }
}

@Test func aSyntaxErrorIsASQLiteErrorWithTheStatementText() throws {
    try withDatabase { database throws in
        let error = try #require(throws: DatabaseError.self) {
            try database.read { try $0.query("SELEC nothing") }
        }
        guard case .sqlite(let failure) = error else {
            Issue.record("expected .sqlite, got \(error)")
            return
        }
        #expect(failure.sql == "SELEC nothing")
        #expect(error.description.contains("syntax error"))
    }
}

@Test func valueConversionsRefuseOtherTypes() {
    #expect(Bool.fromDatabaseValue(.integer(2)) == nil)
    #expect(Bool.fromDatabaseValue(.text("true")) == nil)
    #expect(String.fromDatabaseValue(.integer(1)) == nil)
    #expect(Int64.fromDatabaseValue(.real(1.5)) == nil)
    #expect(Data.fromDatabaseValue(.text("x")) == nil)
    #expect(Double.fromDatabaseValue(.integer(3)) == 3)
    #expect(Int.fromDatabaseValue(.null) == nil)
}

@Test func instantsAndDaysAreBoundAndReadAsTheirStoredText() throws {
    try withDatabase { database throws in
        let instant = Date(timeIntervalSince1970: 1_772_438_700.25)
        let day = LocalDay(year: 2026, month: 3, day: 2)!
        try database.write { db throws in
            try db.execute("INSERT INTO t (s) VALUES (?)", instant)
            try db.execute("INSERT INTO t (s) VALUES (?)", day)
            try db.execute("INSERT INTO t (s) VALUES (?)", "2026-02-30")
        }
        let rows = try database.read { try $0.query("SELECT s FROM t ORDER BY rowid") }
        #expect(try rows[0].get("s", as: String.self) == "2026-03-02T08:05:00.250Z")
        #expect(try rows[0].get("s", as: Date.self) == instant)
        #expect(try rows[1].get("s", as: String.self) == "2026-03-02")
        #expect(try rows[1].get("s", as: LocalDay.self) == day)
        #expect(throws: DatabaseError.self, "a day that does not exist") { try rows[2].get("s", as: LocalDay.self) }
        #expect(throws: DatabaseError.self, "a day is no instant") { try rows[1].get("s", as: Date.self) }
    }
}
