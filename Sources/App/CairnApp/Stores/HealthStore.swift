import CairnCore
import Foundation
import HealthExport
import Storage

/// The Apple Health journal's SQL: imports, sources and samples. A store holds no rule: `HealthService` decides
/// what is imported and how the batches run, and the store works on the connection it is handed inside them.
///
/// A sample counts only once its import is finished: its `health_imports` row has its totals (`file_bytes` > 0,
/// a real export is never empty).
struct HealthStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: imports

    /// The ids an import starts from: its own row's and the first sample and source ids it may use (what a
    /// rollback of an unfinished import removes from).
    struct ImportStart {
        let importID: Int64
        let firstSample: Int64
        let firstSource: Int64
    }

    /// Records an import as running (it reads as unfinished until `finishImport`).
    func beginImport(at now: Date) throws -> ImportStart {
        let firstSample = (try db.scalar("SELECT max(id) FROM health_samples", as: Int64.self) ?? 0) + 1
        let firstSource = (try db.scalar("SELECT max(id) FROM health_sources", as: Int64.self) ?? 0) + 1
        try db.execute(
            """
            INSERT INTO health_imports (imported_at, file_bytes, records_read, added, already_present, skipped, warnings)
            VALUES (?, 0, 0, 0, 0, 0, 0)
            """, now)
        return ImportStart(importID: db.lastInsertRowID, firstSample: firstSample, firstSource: firstSource)
    }

    /// Writes an import's totals, which makes its samples count.
    func finishImport(
        _ id: Int64, fileBytes: Int64, recordsRead: Int, added: Int, alreadyPresent: Int, skipped: Int,
        warnings: Int
    ) throws {
        try db.execute(
            """
            UPDATE health_imports SET file_bytes = ?, records_read = ?, added = ?, already_present = ?, skipped = ?,
                warnings = ? WHERE id = ?
            """, max(fileBytes, 1), recordsRead, added, alreadyPresent, skipped, warnings, id)
    }

    /// Removes an unfinished import: the samples recorded under it, its row, and the sources from `start` on that
    /// no sample uses. A finished import is left as it is.
    func removeUnfinishedImport(_ start: ImportStart) throws {
        try db.execute(
            "DELETE FROM health_samples WHERE id >= ? AND import_id = ? AND import_id IN (SELECT id FROM health_imports WHERE file_bytes = 0)",
            start.firstSample, start.importID)
        try db.execute("DELETE FROM health_imports WHERE id = ? AND file_bytes = 0", start.importID)
        try db.execute(
            """
            DELETE FROM health_sources WHERE id >= ? AND NOT EXISTS
            (SELECT 1 FROM health_samples s WHERE s.id >= ? AND s.source_id = health_sources.id)
            """, start.firstSource, start.firstSample)
    }

    /// The number of finished imports.
    func importCount() throws -> Int {
        try db.scalar("SELECT count(*) FROM health_imports WHERE file_bytes > 0") ?? 0
    }

    // MARK: sources and samples

    /// The id of a source (app, version, device), saved on first sight.
    func sourceID(name: String, version: String, device: String) throws -> Int64 {
        try db.execute(
            "INSERT INTO health_sources (name, version, device) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            name, version, device)
        guard
            let id: Int64 = try db.scalar(
                "SELECT id FROM health_sources WHERE name = ? AND version = ? AND device = ?",
                name, version, device)
        else {
            throw DatabaseError.misuse("a health source row vanished inside its transaction")
        }
        return id
    }

    /// Saves a record of the import `importID` unless a record with the same fields is stored; returns whether it
    /// was saved.
    func insertSample(_ record: HealthRecord, importID: Int64, sourceID: Int64) throws -> Bool {
        try db.execute(
            """
            INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, created_at, created_offset,
                start_at, start_offset, end_at, end_offset, time_zone)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (start_at, fingerprint) DO NOTHING
            """, HealthFingerprint.of(record.identityBytes), importID, record.kind.rawValue, sourceID, record.unit,
            record.value, record.creationDate?.utcSeconds, record.creationDate.map { Int64($0.offsetSeconds) },
            record.startDate.utcSeconds, Int64(record.startDate.offsetSeconds), record.endDate.utcSeconds,
            Int64(record.endDate.offsetSeconds), record.timeZoneIdentifier)
        return db.changes == 1
    }

    /// Every source by id, in id order.
    func sources() throws -> [(id: Int64, source: HealthSource)] {
        try db.query("SELECT id, name, device FROM health_sources ORDER BY id").map { row in
            (try row.get("id"), HealthSource(name: try row.get("name"), device: try row.get("device")))
        }
    }

    /// A stored sample as the daily values read it; nil fields are values this build cannot read (a kind it
    /// does not know, an impossible instant), which the reader skips.
    struct StoredSample {
        let kind: HealthRecordKind?
        let sourceID: Int64
        let unit: String
        let value: Double
        let start: HealthTimestamp?
        let end: HealthTimestamp?
        let timeZone: String?
    }

    /// At most `limit` samples of finished imports with an id above `id`, in id order, and the last id read (nil
    /// past the end).
    func finishedSamples(after id: Int64, limit: Int) throws -> (samples: [StoredSample], lastID: Int64?) {
        let page = try db.query(
            """
            SELECT id, kind, source_id, unit, value, start_at, start_offset, end_at, end_offset, time_zone
            FROM health_samples WHERE id > ? AND import_id IN (\(Self.finishedImports)) ORDER BY id LIMIT ?
            """, id, limit)
        let samples = try page.map { row in
            StoredSample(
                kind: HealthRecordKind(rawValue: try row.get("kind")), sourceID: try row.get("source_id"),
                unit: try row.get("unit"), value: try row.get("value"),
                start: HealthTimestamp(
                    utcSeconds: try row.get("start_at"),
                    offsetSeconds: Int32(try row.get("start_offset", as: Int64.self))),
                end: HealthTimestamp(
                    utcSeconds: try row.get("end_at"),
                    offsetSeconds: Int32(try row.get("end_offset", as: Int64.self))),
                timeZone: try row.optional("time_zone"))
        }
        return (samples, try page.last?.get("id", as: Int64.self))
    }

    /// How many samples of finished imports are stored, per kind this build knows.
    func sampleCounts() throws -> [HealthRecordKind: Int] {
        var counts: [HealthRecordKind: Int] = [:]
        for row in try db.query("SELECT kind, count(*) AS n FROM health_samples WHERE import_id IN (\(Self.finishedImports)) GROUP BY kind") {
            if let kind = HealthRecordKind(rawValue: try row.get("kind")) { counts[kind] = try row.get("n") }
        }
        return counts
    }

    /// The imports whose samples count: finished ones (a running import's samples are not read until it ends).
    private static let finishedImports = "SELECT id FROM health_imports WHERE file_bytes > 0"
}
