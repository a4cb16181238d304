/// Cairn's schema: the ordered, append-only list of every migration that has landed.
///
/// To change the schema, APPEND a migration with a new dated ID (never edit or reorder one that landed) and
/// add its fixture: `CAIRN_WRITE_FIXTURE=1 swift test --filter StorageTests.FixtureTests` writes
/// `Tests/StorageTests/Fixtures/<id>.sqlite` (see the README there).
public enum CairnSchema {
    /// Every migration, oldest first.
    public static let migrations: [Migration] = [
        foundation, smile, regimen, skin, outcomes, health, insights, skinNotes, insightInputs, intakeImportRuns, intakeUndo, reminders,
        photoReminders, scheduleZones, productArchive, healthConnectKinds, productBarcodes,
    ]

    /// The ID of the newest migration: what "today's schema" means.
    public static var currentID: String { migrations.last!.id }

    /// Vault-wide settings and the photo files the vault holds.
    static let foundation = Migration(id: "2026-11-30.foundation") { db in
        try db.executeScript(
            """
            CREATE TABLE settings (
                key   TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            CREATE TABLE photos (
                id            TEXT PRIMARY KEY,
                relative_path TEXT NOT NULL UNIQUE,
                purpose       TEXT NOT NULL CHECK (length(purpose) > 0),
                media_type    TEXT NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png', 'image/heic', 'image/webp')),
                width         INTEGER NOT NULL CHECK (width > 0),
                height        INTEGER NOT NULL CHECK (height > 0),
                byte_count    INTEGER NOT NULL CHECK (byte_count > 0),
                sha256        TEXT NOT NULL CHECK (length(sha256) = 64),
                created_at    TEXT NOT NULL
            );
            """)
    }
}
