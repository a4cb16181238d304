/// The Skin journal's tables: areas, their photo entries, and the stored comparison of each entry with its
/// area's baseline.
///
/// A comparison row names its entry and its baseline together with ONE `area_id`, and both composite
/// foreign keys `(entry, area)` and `(baseline, area)` point at `skin_entries(id, area_id)`: a row comparing
/// photos of two different areas cannot be stored.
extension CairnSchema {
    /// Skin areas, entries and comparisons.
    static let skin = Migration(id: "2026-11-30.skin") { db in
        try db.executeScript(
            """
            CREATE TABLE skin_areas (
                id            TEXT PRIMARY KEY,
                name          TEXT NOT NULL CHECK (length(trim(name)) > 0),
                body_location TEXT,
                guidance      TEXT NOT NULL DEFAULT '',
                created_at    TEXT NOT NULL
            );
            CREATE TABLE skin_entries (
                id                   TEXT PRIMARY KEY,
                area_id              TEXT NOT NULL REFERENCES skin_areas(id) ON DELETE CASCADE,
                captured_at          TEXT NOT NULL,
                time_zone            TEXT NOT NULL,
                photo_id             TEXT NOT NULL REFERENCES photos(id),
                thumbnail_id         TEXT NOT NULL REFERENCES photos(id),
                note                 TEXT NOT NULL DEFAULT '',
                brightness           REAL NOT NULL,
                dark_clipped         REAL NOT NULL,
                bright_clipped       REAL NOT NULL,
                sharpness            REAL NOT NULL,
                fingerprint          BLOB NOT NULL,
                fingerprint_revision INTEGER NOT NULL,
                created_at           TEXT NOT NULL,
                UNIQUE (id, area_id)
            );
            CREATE INDEX skin_entries_by_area_time ON skin_entries (area_id, captured_at, created_at, id);
            CREATE TABLE skin_comparisons (
                entry_id    TEXT NOT NULL,
                baseline_id TEXT NOT NULL,
                area_id     TEXT NOT NULL,
                revision    INTEGER NOT NULL,
                comparable  INTEGER NOT NULL CHECK (comparable IN (0, 1)),
                similarity  REAL CHECK ((comparable = 1 AND similarity BETWEEN 0 AND 100) OR (comparable = 0 AND similarity IS NULL)),
                raw_score   REAL NOT NULL,
                reason      TEXT CHECK ((comparable = 1) = (reason IS NULL)),
                change_map  BLOB NOT NULL,
                details     TEXT NOT NULL,
                PRIMARY KEY (entry_id, baseline_id, revision),
                CHECK (entry_id <> baseline_id),
                FOREIGN KEY (entry_id, area_id) REFERENCES skin_entries (id, area_id) ON DELETE CASCADE,
                FOREIGN KEY (baseline_id, area_id) REFERENCES skin_entries (id, area_id) ON DELETE CASCADE
            );
            CREATE INDEX skin_comparisons_by_baseline ON skin_comparisons (baseline_id, revision);
            """)
    }
}

extension CairnSchema {
    /// Skin notes, append-only (issue 18): every version of an entry's note is a row `(entry_id, version)`,
    /// version 1 first; the highest version is the current note and an empty text means the note was removed.
    /// A later note supersedes an earlier one, which stays recorded; deleting the entry deletes its notes.
    ///
    /// Notes given before this migration move here as version 1, recorded at their entry's `created_at`. From
    /// now on `skin_entries.note` is not written or read (a landed table keeps its columns).
    static let skinNotes = Migration(id: "2026-12-01.skin-notes") { db in
        try db.executeScript(
            """
            CREATE TABLE skin_entry_notes (
                entry_id    TEXT NOT NULL REFERENCES skin_entries(id) ON DELETE CASCADE,
                version     INTEGER NOT NULL CHECK (version >= 1),
                text        TEXT NOT NULL CHECK (version > 1 OR length(text) > 0),
                recorded_at TEXT NOT NULL,
                PRIMARY KEY (entry_id, version)
            ) WITHOUT ROWID;
            INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at)
                SELECT id, 1, note, created_at FROM skin_entries WHERE length(trim(note)) > 0;
            CREATE TRIGGER skin_entry_notes_are_append_only BEFORE UPDATE ON skin_entry_notes
                BEGIN SELECT RAISE(ABORT, 'skin notes are append-only'); END;
            """)
    }
}
