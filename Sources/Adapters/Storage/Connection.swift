internal import CSQLite
import Foundation

/// One row of a query result: its column names and values, read by name or by index.
public struct Row: Sendable, Equatable {
    /// The column names, in result order.
    public let columnNames: [String]
    /// The values, in result order.
    public let values: [DatabaseValue]

    /// Creates a row (results are normally built by `Connection.query`).
    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The raw value of a column, or nil when the result has no such column.
    public subscript(_ column: String) -> DatabaseValue? {
        columnNames.firstIndex(of: column).map { values[$0] }
    }

    /// The value of a column as `T`. Throws `DatabaseError.misuse` when the column is missing, NULL, or of
    /// another type (the message names the column, never the value).
    public func get<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let value = try optional(column, as: type) else {
            throw DatabaseError.misuse("column \(column) is NULL, expected \(T.self)")
        }
        return value
    }

    /// The value of a column as `T`, nil for NULL. Throws when the column is missing or of another type.
    public func optional<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws -> T? {
        guard let index = columnNames.firstIndex(of: column) else {
            throw DatabaseError.misuse("no column named \(column) in the result")
        }
        return try optional(at: index, as: type)
    }

    /// The value at a column index as `T`. Throws when out of range, NULL, or of another type.
    public func get<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard let value = try optional(at: index, as: type) else {
            throw DatabaseError.misuse("column \(index) is NULL, expected \(T.self)")
        }
        return value
    }

    /// The value at a column index as `T`, nil for NULL. Throws when out of range or of another type.
    public func optional<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T? {
        guard values.indices.contains(index) else {
            throw DatabaseError.misuse("column index \(index) is out of range (\(values.count) columns)")
        }
        let value = values[index]
        if value == .null { return nil }
        guard let converted = T.fromDatabaseValue(value) else {
            throw DatabaseError.misuse("column \(columnNames[index]) does not hold a \(T.self)")
        }
        return converted
    }
}

/// The kind of transaction a connection is in.
enum TransactionKind { case none, read, write }

/// An open SQLite connection. You get one only inside `Database.read { }` / `Database.write { }`; do not keep
/// it beyond the closure. Statements are prepared once per SQL text and cached.
public final class Connection {
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    var transaction: TransactionKind = .none
    var commitActions: [() -> Void] = []
    var rollbackActions: [() -> Void] = []

    init(handle: OpaquePointer) { self.handle = handle }

    /// Runs one statement (no result rows expected; any rows are stepped through and dropped).
    public func execute(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws {
        try execute(sql, arguments: arguments)
    }

    /// Runs one statement with an array of arguments.
    public func execute(_ sql: String, arguments: [(any DatabaseValueConvertible)?]) throws {
        try withStatement(sql, arguments) { stmt in
            while try step(stmt, sql) {}
        }
    }

    /// Runs one statement with values already as stored (worked out ahead, on another thread, say): binds them
    /// without converting each (an import runs this for every line).
    public func execute(_ sql: String, values: [DatabaseValue]) throws {
        try withStatement(
            sql, count: values.count, value: { values[$0] },
            { stmt in
                while try step(stmt, sql) {}
            })
    }

    /// Runs several statements separated by semicolons, without arguments (schema scripts, pragmas).
    public func executeScript(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        sqlite3_free(errorMessage)
        if rc != SQLITE_OK { throw DatabaseError.from(code: sqlite3_extended_errcode(handle), db: handle, sql: sql) }
    }

    /// Runs a query and returns every row.
    /// - Complexity: O(rows x columns); every row is copied out of SQLite.
    public func query(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> [Row] {
        try query(sql, arguments: arguments)
    }

    /// Runs a query with an array of arguments and returns every row.
    public func query(_ sql: String, arguments: [(any DatabaseValueConvertible)?]) throws -> [Row] {
        try withStatement(sql, arguments) { stmt in
            let count = Int(sqlite3_column_count(stmt))
            var names: [String]?  // read at the first row: a query that finds nothing costs no strings
            var rows: [Row] = []
            while try step(stmt, sql) {
                let columnNames = names ?? (0..<count).map { String(cString: sqlite3_column_name(stmt, Int32($0))) }
                names = columnNames
                rows.append(Row(columnNames: columnNames, values: (0..<count).map { column(stmt, Int32($0)) }))
            }
            return rows
        }
    }

    /// The first row of a query, or nil when it returns none.
    public func queryFirst(_ sql: String, _ arguments: (any DatabaseValueConvertible)?...) throws -> Row? {
        try query(sql, arguments: arguments).first
    }

    /// The first column of the first row as `T`; nil when there is no row or the value is NULL.
    public func scalar<T: DatabaseValueConvertible>(
        _ sql: String, _ arguments: (any DatabaseValueConvertible)?..., as type: T.Type = T.self
    ) throws -> T? {
        guard let row = try query(sql, arguments: arguments).first else { return nil }
        return try row.optional(at: 0, as: type)
    }

    /// The first column of the first row as `T`, with an array of arguments; nil for no row or NULL.
    public func scalar<T: DatabaseValueConvertible>(
        _ sql: String, arguments: [(any DatabaseValueConvertible)?], as type: T.Type = T.self
    ) throws -> T? {
        guard let row = try query(sql, arguments: arguments).first else { return nil }
        return try row.optional(at: 0, as: type)
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a `write { }` transaction is open on this connection.
    public var isInWriteTransaction: Bool { transaction == .write }

    /// Registers work to run after the current write transaction commits (e.g. removing a deleted photo's file).
    func afterCommit(_ action: @escaping () -> Void) { commitActions.append(action) }

    /// Registers work to run if the current write transaction rolls back (e.g. removing a photo file it wrote).
    func onRollback(_ action: @escaping () -> Void) { rollbackActions.append(action) }

    // MARK: internals

    private func withStatement<T>(
        _ sql: String, _ arguments: [(any DatabaseValueConvertible)?],
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        try withStatement(sql, count: arguments.count, value: { arguments[$0]?.databaseValue ?? .null }, body)
    }

    /// Prepares (or takes from the cache) `sql`, binds `count` arguments (`value(i)` for the i-th, from 0), runs
    /// `body` and resets the statement.
    private func withStatement<T>(
        _ sql: String, count: Int, value: (Int) -> DatabaseValue,
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        let stmt = try prepared(sql)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        let expected = Int(sqlite3_bind_parameter_count(stmt))
        guard expected == count else {
            throw DatabaseError.misuse("statement expects \(expected) arguments, got \(count) [in: \(sql)]")
        }
        for i in 0..<count {
            try bind(value(i), at: Int32(i + 1), stmt, sql)
        }
        return try body(stmt)
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var stmt: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let rc = sql.withCString { text in
            let rc = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, &tail)
            if rc == SQLITE_OK, let tail, tail.pointee != 0,
                !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" })
            {
                return SQLITE_MISUSE
            }
            return rc
        }
        if rc == SQLITE_MISUSE, let stmt {
            sqlite3_finalize(stmt)
            throw DatabaseError.misuse("one statement at a time; use executeScript for several [in: \(sql)]")
        }
        if rc == SQLITE_OK, stmt == nil { throw DatabaseError.misuse("empty statement") }
        guard rc == SQLITE_OK, let stmt else {
            throw DatabaseError.from(code: sqlite3_extended_errcode(handle), db: handle, sql: sql)
        }
        statements[sql] = stmt
        return stmt
    }

    private func bind(_ value: DatabaseValue, at index: Int32, _ stmt: OpaquePointer, _ sql: String) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(stmt, index)
        case .integer(let i): rc = sqlite3_bind_int64(stmt, index, i)
        case .real(let d): rc = sqlite3_bind_double(stmt, index, d)
        case .text(let s):
            // A NUL byte is never stored (the services refuse it with a message naming the field, `TextInput`;
            // this is the last guard): SQLite's own functions would cut the text at it.
            let count = s.utf8.count
            var hasNUL = false
            rc = s.withCString { text in
                // The C string ends at the first NUL: shorter than the text means the text holds one.
                hasNUL = strlen(text) != count
                return hasNUL
                    ? SQLITE_OK
                    : sqlite3_bind_text64(
                        stmt, index, text, sqlite3_uint64(count), sqliteTransient,
                        UInt8(SQLITE_UTF8))
            }
            guard !hasNUL else { throw DatabaseError.misuse("text with a NUL byte is never stored [in: \(sql)]") }
        case .blob(let data):
            rc = data.withUnsafeBytes { raw in
                // A zero-length blob still needs a non-NULL pointer, or SQLite stores NULL.
                sqlite3_bind_blob64(
                    stmt, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(raw.count), sqliteTransient)
            }
        }
        if rc != SQLITE_OK { throw DatabaseError.from(code: rc, db: handle, sql: sql) }
    }

    private func step(_ stmt: OpaquePointer, _ sql: String) throws -> Bool {
        switch sqlite3_step(stmt) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // With sqlite3_prepare_v3 the step result is already the error; read the extended code.
            throw DatabaseError.from(code: sqlite3_extended_errcode(handle), db: handle, sql: sql)
        }
    }

    private func column(_ stmt: OpaquePointer, _ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(stmt, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(stmt, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(stmt, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(stmt, index))
            guard count > 0, let text = sqlite3_column_text(stmt, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(stmt, index))
            guard count > 0, let bytes = sqlite3_column_blob(stmt, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    func finalizeStatements() {
        for stmt in statements.values { sqlite3_finalize(stmt) }
        statements.removeAll()
    }
}
