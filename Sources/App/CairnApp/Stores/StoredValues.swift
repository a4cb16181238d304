import Storage

extension Row {
    /// A column holding the raw value of one of the journals' enumerations (a kind, a status, a unit, an origin).
    /// Throws `DatabaseError.misuse` for a value this build does not know.
    func stored<T: RawRepresentable>(_ column: String, as type: T.Type = T.self) throws -> T where T.RawValue == String {
        try Self.storedValue(get(column), as: type)
    }

    /// `text` as one of the journals' enumerations; `DatabaseError.misuse` for a value this build does not know.
    static func storedValue<T: RawRepresentable>(_ text: String, as type: T.Type) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw DatabaseError.misuse("unknown stored \(T.self) \(text)") }
        return value
    }
}
