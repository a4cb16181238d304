import Encryption
import Foundation

extension CairnSchema {
    /// Apple Health samples read from exports (read-only copies: Cairn never writes health data back).
    ///
    /// - `health_imports`: one row per import, with its counts.
    /// - `health_sources`: the apps and devices that wrote samples (name, version, device; "" when absent), each
    ///   stored once.
    /// - `health_samples`: one row per kept record. Exports have no record UUID, so a record is identified by the
    ///   tuple of its fields; `fingerprint` is the first 16 bytes of the SHA-256 of that tuple (see
    ///   `HealthFingerprint`), and (start_at, fingerprint) is UNIQUE, so re-importing a newer export adds only
    ///   records not seen before. The start leads the index because an export lists each type in time order:
    ///   inserts then sweep the index in order instead of landing on random pages.
    ///   Instants are UTC seconds with the `±HHMM` offset the export wrote (in seconds) and the record's
    ///   `HKTimeZone` metadata; `value` is as exported in `unit` ("" for sleep, whose value is the category number).
    static let health = Migration(id: "2026-11-30.health") { db in
        try db.executeScript(
            """
            CREATE TABLE health_imports (
                id              INTEGER PRIMARY KEY,
                imported_at     TEXT NOT NULL,
                file_bytes      INTEGER NOT NULL CHECK (file_bytes >= 0),
                records_read    INTEGER NOT NULL CHECK (records_read >= 0),
                added           INTEGER NOT NULL CHECK (added >= 0),
                already_present INTEGER NOT NULL CHECK (already_present >= 0),
                skipped         INTEGER NOT NULL CHECK (skipped >= 0),
                warnings        INTEGER NOT NULL CHECK (warnings >= 0)
            );
            CREATE TABLE health_sources (
                id      INTEGER PRIMARY KEY,
                name    TEXT NOT NULL,
                version TEXT NOT NULL,
                device  TEXT NOT NULL,
                UNIQUE (name, version, device)
            );
            CREATE TABLE health_samples (
                id             INTEGER PRIMARY KEY,
                fingerprint    BLOB NOT NULL CHECK (length(fingerprint) = 16),
                import_id      INTEGER NOT NULL REFERENCES health_imports(id),
                kind           TEXT NOT NULL CHECK (kind IN ('resting_heart_rate', 'hrv_sdnn', 'step_count', 'body_mass',
                                   'sleep_analysis')),
                source_id      INTEGER NOT NULL REFERENCES health_sources(id),
                unit           TEXT NOT NULL,
                value          REAL NOT NULL,
                created_at     INTEGER,
                created_offset INTEGER CHECK (created_offset BETWEEN -64800 AND 64800),
                start_at       INTEGER NOT NULL,
                start_offset   INTEGER NOT NULL CHECK (start_offset BETWEEN -64800 AND 64800),
                end_at         INTEGER NOT NULL,
                end_offset     INTEGER NOT NULL CHECK (end_offset BETWEEN -64800 AND 64800),
                time_zone      TEXT,
                CHECK (end_at >= start_at),
                CHECK ((created_at IS NULL) = (created_offset IS NULL))
            );
            CREATE UNIQUE INDEX health_samples_identity ON health_samples (start_at, fingerprint);
            """)
    }
}

extension CairnSchema {
    /// Health Connect's kinds (issue 41): `health_samples.kind` also takes `heart_rate`,
    /// `blood_pressure_systolic` and `blood_pressure_diastolic`. SQLite cannot change a CHECK, so the table is
    /// made again with the wider one and its rows copied over (same columns, same ids, same index).
    static let healthConnectKinds = Migration(id: "2026-12-08.health-connect-kinds") { db in
        try db.executeScript(
            """
            CREATE TABLE health_samples_wider (
                id             INTEGER PRIMARY KEY,
                fingerprint    BLOB NOT NULL CHECK (length(fingerprint) = 16),
                import_id      INTEGER NOT NULL REFERENCES health_imports(id),
                kind           TEXT NOT NULL CHECK (kind IN ('resting_heart_rate', 'hrv_sdnn', 'step_count', 'body_mass',
                                   'sleep_analysis', 'heart_rate', 'blood_pressure_systolic', 'blood_pressure_diastolic')),
                source_id      INTEGER NOT NULL REFERENCES health_sources(id),
                unit           TEXT NOT NULL,
                value          REAL NOT NULL,
                created_at     INTEGER,
                created_offset INTEGER CHECK (created_offset BETWEEN -64800 AND 64800),
                start_at       INTEGER NOT NULL,
                start_offset   INTEGER NOT NULL CHECK (start_offset BETWEEN -64800 AND 64800),
                end_at         INTEGER NOT NULL,
                end_offset     INTEGER NOT NULL CHECK (end_offset BETWEEN -64800 AND 64800),
                time_zone      TEXT,
                CHECK (end_at >= start_at),
                CHECK ((created_at IS NULL) = (created_offset IS NULL))
            );
            INSERT INTO health_samples_wider (id, fingerprint, import_id, kind, source_id, unit, value, created_at,
                created_offset, start_at, start_offset, end_at, end_offset, time_zone)
            SELECT id, fingerprint, import_id, kind, source_id, unit, value, created_at, created_offset, start_at,
                start_offset, end_at, end_offset, time_zone FROM health_samples;
            DROP TABLE health_samples;
            ALTER TABLE health_samples_wider RENAME TO health_samples;
            CREATE UNIQUE INDEX health_samples_identity ON health_samples (start_at, fingerprint);
            """)
    }
}

/// The identity of a health record in storage: the first 16 bytes of the SHA-256 of its identity bytes (the
/// length-prefixed tuple of its fields). 128 bits: a chance collision among billions of records is negligible.
public enum HealthFingerprint {
    /// The fingerprint of `identityBytes`.
    public static func of(_ identityBytes: [UInt8]) -> Data {
        Data(identityBytes.withUnsafeBytes { SHA256.digest($0) }.prefix(16))
    }
}
