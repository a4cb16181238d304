import CairnCore
import Foundation
import Testing

@testable import Storage

private let secret = "my-private-note-7c1f"

private func violation(
    _ sql: String, _ arguments: [(any DatabaseValueConvertible)?],
    setup: String
) throws -> DatabaseError {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = try Database(path: dir.url.appendingPathComponent("e.sqlite").path)
    defer { database.close() }
    try database.write { try $0.executeScript(setup) }
    return try #require(throws: DatabaseError.self) {
        try database.write { try $0.execute(sql, arguments: arguments) }
    }
}

private let schema = """
    CREATE TABLE parent (id TEXT PRIMARY KEY);
    CREATE TABLE note (id TEXT PRIMARY KEY, body TEXT NOT NULL UNIQUE CHECK (length(body) < 30),
                       parent TEXT REFERENCES parent(id));
    INSERT INTO note (id, body) VALUES ('a', 'my-private-note-7c1f');
    """

@Test func classifiesEachConstraintKind() throws {
    #expect(try violation("INSERT INTO note (id, body) VALUES (?, ?)", ["b", secret], setup: schema).constraintKind == .unique)
    #expect(try violation("INSERT INTO note (id, body) VALUES (?, ?)", ["a", "x"], setup: schema).constraintKind == .unique)
    #expect(try violation("INSERT INTO note (id, body) VALUES (?, ?)", ["b", nil], setup: schema).constraintKind == .notNull)
    #expect(
        try violation(
            "INSERT INTO note (id, body) VALUES (?, ?)", ["b", String(repeating: secret, count: 3)],
            setup: schema
        ).constraintKind == .check)
    #expect(
        try violation(
            "INSERT INTO note (id, body, parent) VALUES (?, ?, ?)", ["b", "y", secret],
            setup: schema
        ).constraintKind == .foreignKey)
}

@Test func errorTextNeverContainsBoundValues() throws {
    let errors = [
        try violation("INSERT INTO note (id, body) VALUES (?, ?)", ["b", secret], setup: schema),
        try violation("INSERT INTO note (id, body) VALUES (?, ?)", [secret, String(repeating: secret, count: 3)], setup: schema),
        try violation("INSERT INTO note (id, body, parent) VALUES (?, ?, ?)", ["b", "y", secret], setup: schema),
        try violation("INSERT INTO note (id, body) VALUES (?, ?)", [secret, nil], setup: schema),
    ]
    for error in errors {
        for text in [
            error.description, error.debugDescription, error.userMessage, String(describing: error),
            String(reflecting: error), "\(error)", error.localizedDescription,
        ] {
            #expect(!text.contains(secret), "leaked a bound value: \(text)")
        }
        #expect(error.description.contains("SQLite error 19"))
        #expect(error.description.contains("constraint failed"))
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
    }
}

@Test func busyAndMisuseHavePlainMessages() {
    let failure = SQLiteFailure(code: 5, extendedCode: 5, message: "database is locked", sql: "BEGIN IMMEDIATE")
    #expect(DatabaseError.busy(failure).userMessage.contains("another Cairn"))
    #expect(DatabaseError.busy(failure).description.contains("database is locked"))
    #expect(DatabaseError.misuse("x").userMessage.contains("not saved"))
}
