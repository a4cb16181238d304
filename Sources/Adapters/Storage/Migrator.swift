import CairnCore
import Foundation

/// One schema change, identified by a string ID that never changes. Once a migration has landed it is never
/// edited: fix mistakes with a new migration. A migration uses only SQL, never app types.
public struct Migration: Sendable {
    /// The stable ID, e.g. `"2026-11-30.foundation"`; recorded in `schema_migrations` once applied.
    public let id: String
    /// The change, run inside its own write transaction.
    public let apply: @Sendable (Connection) throws -> Void

    /// Creates a migration.
    public init(id: String, apply: @escaping @Sendable (Connection) throws -> Void) {
        self.id = id
        self.apply = apply
    }
}

/// Why migrating failed.
public enum MigrationError: CairnError, Equatable {
    /// The database has migrations this build does not know: it was last opened by a newer Cairn.
    case unknownMigrations([String])
    /// Two migrations in the list share an ID (a programming error caught before touching the database).
    case duplicateID(String)
    /// `migrate(upTo:)` named an ID that is not in the list.
    case noSuchMigration(String)
    /// A migration failed; its transaction was rolled back and nothing of it remains.
    case failed(id: String, DatabaseError)
    /// A migration left rows pointing at nothing (`PRAGMA foreign_key_check` found violations).
    case foreignKeyViolations(id: String, count: Int)

    /// Plain English for the person.
    public var userMessage: String {
        switch self {
        case .unknownMigrations:
            return "This data folder was last used by a newer version of Cairn. Update Cairn to open it."
        case .duplicateID, .noSuchMigration, .failed, .foreignKeyViolations:
            return "Cairn could not update its database to this version. Nothing was changed."
        }
    }

    /// For developers: which migration and why (IDs and SQLite messages only).
    public var description: String {
        switch self {
        case .unknownMigrations(let ids): return "MigrationError.unknownMigrations(\(ids))"
        case .duplicateID(let id): return "MigrationError.duplicateID(\(id))"
        case .noSuchMigration(let id): return "MigrationError.noSuchMigration(\(id))"
        case .failed(let id, let error): return "MigrationError.failed(\(id)): \(error.description)"
        case .foreignKeyViolations(let id, let count): return "MigrationError.foreignKeyViolations(\(id), \(count))"
        }
    }
}

/// Applies an ordered, append-only list of migrations, each in its own transaction, and records applied IDs
/// in `schema_migrations(id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.
///
/// Foreign-key enforcement is switched off while migrating (so a migration may rebuild a table, as the
/// SQLite documentation recommends) and every migration is checked with `PRAGMA foreign_key_check` before
/// its commit; enforcement is switched back on afterwards.
public struct Migrator: Sendable {
    /// The migrations, in the order they are applied.
    public let migrations: [Migration]
    private let clock: any Clock

    /// Creates a migrator for an ordered list.
    public init(_ migrations: [Migration], clock: any Clock = SystemClock()) {
        self.migrations = migrations
        self.clock = clock
    }

    /// The IDs recorded in `database`, in the order they were applied (empty for a new database).
    public func appliedIDs(in database: Database) throws -> [String] {
        try database.read { try Self.appliedIDs($0) }
    }

    /// The IDs of this list not yet applied to `database`, in list order.
    public func pendingIDs(in database: Database) throws -> [String] {
        let applied = Set(try appliedIDs(in: database))
        return migrations.map(\.id).filter { !applied.contains($0) }
    }

    /// Applies every pending migration up to and including `lastID` (default: all), and returns the IDs
    /// applied now. Throws `MigrationError.unknownMigrations` before changing anything when the database
    /// records IDs this list lacks.
    @discardableResult
    public func migrate(_ database: Database, upTo lastID: String? = nil) throws -> [String] {
        var seen = Set<String>()
        for migration in migrations where !seen.insert(migration.id).inserted {
            throw MigrationError.duplicateID(migration.id)
        }
        var wanted = migrations
        if let lastID {
            guard let index = migrations.firstIndex(where: { $0.id == lastID }) else {
                throw MigrationError.noSuchMigration(lastID)
            }
            wanted = Array(migrations[...index])
        }
        // Only a database that needs it is written: a vault already at today's schema opens with reads alone
        // (a reading command never waits for, or takes, the write lock).
        let hasTable: Int64? = try database.read { db in
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        }
        if hasTable != 1 {
            try database.write { db in
                try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            }
        }
        let applied = try appliedIDs(in: database)
        let unknown = applied.filter { !seen.contains($0) }
        guard unknown.isEmpty else { throw MigrationError.unknownMigrations(unknown) }
        let pending = wanted.filter { !applied.contains($0.id) }
        guard !pending.isEmpty else { return [] }

        try database.withoutTransaction { try $0.execute("PRAGMA foreign_keys = OFF") }
        defer { _ = try? database.withoutTransaction { try $0.execute("PRAGMA foreign_keys = ON") } }
        var done: [String] = []
        for migration in pending {
            do {
                let applied: Bool = try database.write { db in
                    // Another process may have applied it while this one waited for the write lock.
                    let already: Int64? = try db.scalar("SELECT count(*) FROM schema_migrations WHERE id = ?", migration.id)
                    if already == 1 { return false }
                    try migration.apply(db)
                    let violations = try db.query("PRAGMA foreign_key_check")
                    if !violations.isEmpty {
                        throw MigrationError.foreignKeyViolations(id: migration.id, count: violations.count)
                    }
                    try db.execute(
                        "INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)",
                        migration.id, Timestamp.string(from: clock.now()))
                    return true
                }
                if applied { done.append(migration.id) }
            } catch let error as DatabaseError {
                throw MigrationError.failed(id: migration.id, error)
            }
        }
        return done
    }

    private static func appliedIDs(_ db: Connection) throws -> [String] {
        let exists: Int64? = try db.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        guard exists == 1 else { return [] }
        return try db.query("SELECT id FROM schema_migrations ORDER BY rowid").map { try $0.get("id") }
    }
}

extension MigrationError {
    public var errorKind: ErrorKind {
        if case .unknownMigrations = self { return .unavailable }  // a newer Cairn wrote this database
        return .failure
    }
}
