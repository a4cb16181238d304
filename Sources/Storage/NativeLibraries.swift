internal import CSQLite
internal import CSodium
import CairnCore

/// The native libraries Storage links, as `cairn doctor` reports them.
public enum StorageLibraries {
    /// SQLite and libsodium, with the versions that loaded.
    public static func statuses() -> [ComponentStatus] {
        [
            ComponentStatus(name: "SQLite", role: "storage", present: true, version: String(cString: sqlite3_libversion())),
            ComponentStatus(name: "libsodium", role: "hashing", present: sodium_init() >= 0,
                            version: String(cString: sodium_version_string())),
        ]
    }
}
