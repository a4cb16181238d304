import Foundation
import Storage

/// The `settings` table's SQL: one text value per key. A store holds no rule: `SettingsService` names the keys
/// and what their values mean.
struct SettingsStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    /// The value of `key`, or nil when it was never set.
    func value(for key: String) throws -> String? {
        try db.scalar("SELECT value FROM settings WHERE key = ?", key)
    }

    /// Sets `key`, replacing its value.
    func set(_ key: String, to value: String) throws {
        try db.execute("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
    }

    /// Sets `key` only when it was never set (its first value stays).
    func setIfAbsent(_ key: String, to value: String) throws {
        try db.execute("INSERT OR IGNORE INTO settings(key, value) VALUES (?, ?)", key, value)
    }
}
