internal import CSQLite
import CairnCore

/// Which schema invariant a write broke.
public enum ConstraintKind: Sendable, Equatable {
    /// A UNIQUE or PRIMARY KEY constraint: the row already exists. Idempotent writes catch this one.
    case unique
    /// A FOREIGN KEY constraint: the row points at nothing, or something still points at it.
    case foreignKey
    /// A CHECK constraint.
    case check
    /// A NOT NULL constraint.
    case notNull
    /// Any other constraint (a trigger's RAISE, ...).
    case other
}

/// What SQLite said about a failed call: its result codes, its message, and the SQL text with its `?`
/// placeholders. Bound values are never captured, so they can never be printed.
public struct SQLiteFailure: Sendable, Equatable {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...).
    public let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, ...).
    public let extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure (it names columns, never bound values).
    public let message: String
    /// The statement text as written by the developer, with placeholders; nil for connection-level failures.
    public let sql: String?

    /// Creates a failure record.
    public init(code: Int32, extendedCode: Int32, message: String, sql: String?) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }
}

/// A failure of the database layer. Its `description` names the SQLite code and message for developers;
/// its `userMessage` is plain English. Neither ever contains a bound value.
public enum DatabaseError: CairnError, Equatable, CustomDebugStringConvertible {
    /// A write broke a schema invariant.
    case constraint(ConstraintKind, SQLiteFailure)
    /// Another process held the database for longer than the busy timeout.
    case busy(SQLiteFailure)
    /// The file is damaged or is not a SQLite database.
    case corrupt(SQLiteFailure)
    /// A page of an encrypted database did not open: the key is not the database's (a wrong passphrase), or a
    /// page was changed, swapped with another or cut short (SQLITE_IOERR_DATA from the page cipher).
    case unreadable(SQLiteFailure)
    /// Any other SQLite failure.
    case sqlite(SQLiteFailure)
    /// The API was used in a way it does not support (nested transaction, missing column, wrong type, ...).
    case misuse(String)

    /// Plain English for the person; never contains user content or SQL.
    public var userMessage: String {
        switch self {
        case .constraint(.unique, _): return "That record is already saved."
        case .constraint: return "The change was not saved because it would leave the journal inconsistent."
        case .busy: return "The journal is busy in another Cairn window or command. Try again in a moment."
        case .corrupt: return "The journal database is damaged or is not a Cairn database."
        case .unreadable:
            return "The journal database cannot be read: the passphrase is wrong, or the file is damaged or was altered. Nothing was changed."
        case .sqlite(let f) where f.code == SQLITE_FULL: return "The disk is full, so the change was not saved."
        case .sqlite(let f) where f.code == SQLITE_READONLY || f.code == SQLITE_CANTOPEN || f.code == SQLITE_PERM:
            return "Cairn cannot write to its data folder. Check that the folder exists and belongs to you."
        case .sqlite, .misuse: return "The journal database reported an error, so the change was not saved."
        }
    }

    /// For developers: the kind, the SQLite result codes and message, and the SQL text (placeholders only).
    public var description: String {
        switch self {
        case .constraint(let kind, let f): return "DatabaseError.constraint(\(kind)): \(Self.describe(f))"
        case .busy(let f): return "DatabaseError.busy: \(Self.describe(f))"
        case .corrupt(let f): return "DatabaseError.corrupt: \(Self.describe(f))"
        case .unreadable(let f): return "DatabaseError.unreadable: \(Self.describe(f))"
        case .sqlite(let f): return "DatabaseError.sqlite: \(Self.describe(f))"
        case .misuse(let what): return "DatabaseError.misuse: \(what)"
        }
    }

    /// Same as `description`: there is nothing more (and nothing private) to show.
    public var debugDescription: String { description }

    /// The constraint kind when this is a constraint violation.
    public var constraintKind: ConstraintKind? {
        if case .constraint(let kind, _) = self { return kind }
        return nil
    }

    private static func describe(_ f: SQLiteFailure) -> String {
        var text = "SQLite error \(f.code) (extended \(f.extendedCode)): \(f.message)"
        if let sql = f.sql { text += " [in: \(sql)]" }
        return text
    }

    /// Classifies a failed result code on `db` (the message is read from the connection immediately).
    static func from(code extended: Int32, db: OpaquePointer?, sql: String?) -> DatabaseError {
        let message =
            db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(extended))
        let primary = extended & 0xFF
        let failure = SQLiteFailure(code: primary, extendedCode: extended, message: message, sql: sql)
        switch primary {
        case SQLITE_CONSTRAINT:
            let kind: ConstraintKind
            switch extended {
            // Extended codes are `SQLITE_CONSTRAINT | (n << 8)`; the macros do not import into Swift.
            case SQLITE_CONSTRAINT | (8 << 8), SQLITE_CONSTRAINT | (6 << 8): kind = .unique  // UNIQUE, PRIMARYKEY
            case SQLITE_CONSTRAINT | (3 << 8): kind = .foreignKey
            case SQLITE_CONSTRAINT | (1 << 8): kind = .check
            case SQLITE_CONSTRAINT | (5 << 8): kind = .notNull
            default: kind = .other
            }
            return .constraint(kind, failure)
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(failure)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(failure)
        case SQLITE_IOERR where extended == SQLITE_IOERR | (32 << 8): return .unreadable(failure)  // IOERR_DATA
        default: return .sqlite(failure)
        }
    }
}

extension DatabaseError {
    public var errorKind: ErrorKind {
        switch self {
        case .constraint: return .conflict
        case .busy: return .conflict
        case .corrupt, .unreadable, .sqlite, .misuse: return .failure
        }
    }
}
