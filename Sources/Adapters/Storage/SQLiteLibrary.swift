internal import CSQLite

/// Process-wide SQLite settings, applied once before SQLite is first initialised (`sqlite3_config` is refused
/// afterwards). Everything that may be first to touch SQLite in this module reads `prepared` first: opening a
/// connection (`Database.connect`) and registering a cipher VFS (`CipherVFS`).
enum SQLiteLibrary {
    /// Whether the settings took: false only if something outside this module initialised SQLite first (the
    /// settings are then SQLite's defaults, which work the same, a little slower).
    static let prepared: Bool = {
        // Memory statistics take a global mutex on every allocation; an import makes millions of them.
        cairn_sqlite_config_no_memory_statistics() == SQLITE_OK
    }()
}
