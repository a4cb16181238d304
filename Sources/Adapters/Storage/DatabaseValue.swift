internal import CSQLite
import CairnCore
import Foundation

/// SQLite's "copy the bytes now" destructor. It does not import into Swift (PLATFORM.md), so it is rebuilt
/// from its C definition `((sqlite3_destructor_type)-1)`. Defined here, never in a `main.swift`.
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// One value as SQLite stores it: its five storage classes.
public enum DatabaseValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)
}

/// A Swift type that can be bound to a statement parameter and read back from a result column.
public protocol DatabaseValueConvertible {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
    /// The Swift value for a stored value, or nil when the stored value has another type (or is NULL).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension String: DatabaseValueConvertible {
    /// Stored as TEXT.
    public var databaseValue: DatabaseValue { .text(self) }
    /// Reads TEXT only.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let s) = value { return s }
        return nil
    }
}

extension Int64: DatabaseValueConvertible {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { .integer(self) }
    /// Reads INTEGER only.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        if case .integer(let i) = value { return i }
        return nil
    }
}

extension Int: DatabaseValueConvertible {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    /// Reads INTEGER only.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        if case .integer(let i) = value { return Int(exactly: i) }
        return nil
    }
}

extension Double: DatabaseValueConvertible {
    /// Stored as REAL.
    public var databaseValue: DatabaseValue { .real(self) }
    /// Reads REAL, and INTEGER widened to Double (SQLite may store a whole REAL as INTEGER in some columns).
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    /// Stored as BLOB.
    public var databaseValue: DatabaseValue { .blob(self) }
    /// Reads BLOB only.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        if case .blob(let d) = value { return d }
        return nil
    }
}

extension Bool: DatabaseValueConvertible {
    /// Stored as INTEGER 0 or 1.
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    /// Reads INTEGER 0 as false and 1 as true; any other value is not a Bool.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(0): return false
        case .integer(1): return true
        default: return nil
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// Itself.
    public var databaseValue: DatabaseValue { self }
    /// Itself; never nil.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Date: DatabaseValueConvertible {
    /// Stored as `Timestamp` text (UTC ISO 8601 with milliseconds): the one stored format of an instant.
    public var databaseValue: DatabaseValue { .text(Timestamp.string(from: self)) }
    /// Reads `Timestamp` text only (read without a formatter).
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        if case .text(let s) = value { return Timestamp.date(from: s) }
        return nil
    }
}

extension LocalDay: DatabaseValueConvertible {
    /// Stored as "2026-03-01" text.
    public var databaseValue: DatabaseValue { .text(description) }
    /// Reads "YYYY-MM-DD" text of a day that exists only.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> LocalDay? {
        if case .text(let s) = value { return LocalDay(parsing: s) }
        return nil
    }
}

extension Decimal: DatabaseValueConvertible {
    /// Stored as its plain text ("2.5"), never as REAL: a dose or a count read back is the exact value saved.
    public var databaseValue: DatabaseValue { .text("\(self)") }
    /// Reads that text only (POSIX digits and point).
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Decimal? {
        if case .text(let s) = value { return Decimal(string: s, locale: posixLocale) }
        return nil
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")
