internal import CSQLite
import CairnCore
import Encryption

/// The native libraries Storage links, as `cairn doctor` reports them.
public enum StorageLibraries {
    /// SQLite and libsodium (through `Encryption`), with the versions that loaded.
    public static func statuses() -> [ComponentStatus] {
        [ComponentStatus(name: "SQLite", role: "storage", present: true, version: String(cString: sqlite3_libversion()))]
            + EncryptionLibraries.statuses()
    }
}
