import CairnCore
import Foundation
import Skin
import Storage

/// The Skin journal's SQL: areas, entries with their note versions and comparison data, and the stored
/// comparisons, each row mapped to its record type. A store holds no rule: `SkinService` decides what may be
/// written (names, baselines, revisions) and owns the transaction, and the store works on the connection it is
/// handed inside it. An area's baseline is its oldest entry: `ORDER BY captured_at, created_at, id`, here only.
struct SkinStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: areas

    /// Every area with its entry count and newest entry, by name.
    func areaSummaries() throws -> [SkinAreaSummary] {
        try db.query(
            """
            SELECT a.*, (SELECT count(*) FROM skin_entries e WHERE e.area_id = a.id) AS entry_count,
            (SELECT e.id FROM skin_entries e WHERE e.area_id = a.id ORDER BY e.captured_at DESC, e.created_at DESC, e.id DESC LIMIT 1) AS latest_entry,
            (SELECT max(e.captured_at) FROM skin_entries e WHERE e.area_id = a.id) AS latest_at
            FROM skin_areas a ORDER BY a.name COLLATE NOCASE, a.id
            """
        ).map { row in
            SkinAreaSummary(
                area: try TrackingArea(row: row), entryCount: try row.get("entry_count"),
                latestEntry: try row.optional("latest_entry", as: String.self).map(EntryID.init),
                latestCapture: try row.optional("latest_at", as: String.self).flatMap(Timestamp.date(from:)))
        }
    }

    /// The area with that identifier, or nil.
    func area(_ id: AreaID) throws -> TrackingArea? {
        try db.queryFirst("SELECT * FROM skin_areas WHERE id = ?", id.rawValue).map(TrackingArea.init(row:))
    }

    /// The area whose identifier is `text`, else whose name is `text` ignoring case and outer spaces; or nil.
    func area(named text: String) throws -> TrackingArea? {
        let row =
            try db.queryFirst("SELECT * FROM skin_areas WHERE id = ?", text)
            ?? db.queryFirst("SELECT * FROM skin_areas WHERE name = ? COLLATE NOCASE", text.trimmingCharacters(in: .whitespaces))
        return try row.map(TrackingArea.init(row:))
    }

    /// Whether an area other than `id` has the name (ignoring case).
    func isNameTaken(_ name: String, except id: AreaID?) throws -> Bool {
        (try db.scalar(
            "SELECT count(*) FROM skin_areas WHERE name = ? COLLATE NOCASE AND id IS NOT ?",
            arguments: [name, id?.rawValue], as: Int.self) ?? 0) > 0
    }

    func insert(_ area: TrackingArea) throws {
        try db.execute(
            "INSERT INTO skin_areas (id, name, body_location, guidance, created_at) VALUES (?, ?, ?, ?, ?)",
            area.id.rawValue, area.name, area.bodyLocation, area.guidance, area.createdAt)
    }

    func rename(_ id: AreaID, to name: String) throws {
        try db.execute("UPDATE skin_areas SET name = ? WHERE id = ?", name, id.rawValue)
    }

    /// Deletes an area with its entries, notes and comparisons (the schema cascades); returns the photo files its
    /// entries used (photo and thumbnail of each), which the caller removes.
    func deleteArea(_ id: AreaID) throws -> [PhotoID] {
        let photos = try db.query("SELECT photo_id, thumbnail_id FROM skin_entries WHERE area_id = ?", id.rawValue).flatMap { row in
            [PhotoID(try row.get("photo_id")), PhotoID(try row.get("thumbnail_id"))]
        }
        try db.execute("DELETE FROM skin_areas WHERE id = ?", id.rawValue)
        return photos
    }

    // MARK: entries

    /// Saves an entry with its comparison data (its note goes in `appendNote`).
    func insert(_ entry: TrackingEntry, fingerprint: ComparisonFingerprint, at now: Date) throws {
        let q = entry.quality
        try db.execute(
            """
            INSERT INTO skin_entries (id, area_id, captured_at, time_zone, photo_id, thumbnail_id, note, brightness, dark_clipped,
            bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, entry.id.rawValue, entry.areaID.rawValue, entry.capturedAt, entry.timeZone,
            entry.photoID.rawValue, entry.thumbnailID.rawValue, "", q.meanLuminance, q.darkClippedFraction,
            q.brightClippedFraction, q.sharpness, FingerprintCoding.encode(fingerprint), fingerprint.revision.number, now)
    }

    /// The entry `id` of `area`, or nil (also for another area's entry).
    func entry(_ id: EntryID, in area: AreaID) throws -> TrackingEntry? {
        try db.queryFirst(
            "SELECT \(Self.entryColumns) FROM skin_entries e WHERE e.id = ? AND e.area_id = ?",
            id.rawValue, area.rawValue
        ).map(TrackingEntry.init(row:))
    }

    /// The area's oldest entries, at most `limit`: the first is the baseline.
    func oldestEntries(of area: AreaID, limit: Int) throws -> [TrackingEntry] {
        try db.query(
            "SELECT \(Self.entryColumns) FROM skin_entries e WHERE e.area_id = ? \(Self.oldestFirst) LIMIT ?",
            area.rawValue, limit
        ).map(TrackingEntry.init(row:))
    }

    /// The id of the area's baseline, or nil for an empty area.
    func baselineID(of area: AreaID) throws -> String? {
        try db.scalar("SELECT e.id FROM skin_entries e WHERE e.area_id = ? \(Self.oldestFirst) LIMIT 1", area.rawValue)
    }

    func entryCount(of area: AreaID) throws -> Int {
        try db.scalar("SELECT count(*) FROM skin_entries WHERE area_id = ?", area.rawValue) ?? 0
    }

    func deleteEntry(_ id: EntryID, in area: AreaID) throws {
        try db.execute("DELETE FROM skin_entries WHERE id = ? AND area_id = ?", id.rawValue, area.rawValue)
    }

    /// The area's entries oldest first, each with its stored comparison with `baselineID` of `revision` (nil when
    /// there is none).
    func timeline(of area: AreaID, baselineID: String?, revision: Int) throws -> [(entry: TrackingEntry, comparison: StoredComparison?)] {
        let rows = try db.query(
            """
            SELECT \(Self.entryColumns), c.baseline_id, c.revision, c.comparable, c.similarity, c.raw_score, c.reason
            FROM skin_entries e
            LEFT JOIN skin_comparisons c ON c.entry_id = e.id AND c.baseline_id = ? AND c.revision = ?
            WHERE e.area_id = ? \(Self.oldestFirst)
            """, baselineID, revision, area.rawValue)
        return try rows.map { row in
            let entry = try TrackingEntry(row: row)
            let comparison = try row.optional("baseline_id", as: String.self) == nil ? nil : StoredComparison(row: row, entryID: entry.id)
            return (entry, comparison)
        }
    }

    // MARK: notes

    /// Every version of an entry's note, oldest first.
    func noteVersions(of entry: EntryID) throws -> [SkinNoteVersion] {
        try db.query("SELECT version, text, recorded_at FROM skin_entry_notes WHERE entry_id = ? ORDER BY version", entry.rawValue)
            .map { row in
                SkinNoteVersion(
                    version: try row.get("version"), text: try row.get("text"),
                    recordedAt: Self.storedInstant(try row.get("recorded_at")))
            }
    }

    /// Appends a version of an entry's note (one more than its newest).
    func appendNote(_ text: String, to entry: EntryID, at instant: Date) throws {
        try db.execute(
            """
            INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at)
            SELECT ?1, coalesce(max(version), 0) + 1, ?2, ?3 FROM skin_entry_notes WHERE entry_id = ?1
            """, entry.rawValue, text, instant)
    }

    // MARK: comparisons

    /// A stored comparison with everything the compare page shows.
    struct ComparisonRow {
        let comparison: StoredComparison
        let details: ComparisonDetails?
        let changeMap: ChangeMap?
    }

    /// The stored comparison of `entry` with `baseline` in `area` of `revision`, or nil.
    func comparison(of entry: EntryID, baseline: EntryID, in area: AreaID, revision: Int) throws -> ComparisonRow? {
        guard
            let row = try db.queryFirst(
                """
                SELECT * FROM skin_comparisons WHERE entry_id = ? AND baseline_id = ? AND area_id = ? AND revision = ?
                """, entry.rawValue, baseline.rawValue, area.rawValue, revision)
        else { return nil }
        let details = try? JSONDecoder().decode(ComparisonDetails.self, from: Data(try row.get("details", as: String.self).utf8))
        let side = SkinComparator.changeMapSide
        let map = ChangeMap(width: side, height: side, bytes: [UInt8](try row.get("change_map", as: Data.self)))
        return ComparisonRow(comparison: try StoredComparison(row: row, entryID: entry), details: details, changeMap: map)
    }

    /// Areas with an entry other than the baseline that has no comparison of `revision`.
    func areasMissingComparisons(revision: Int) throws -> [AreaID] {
        try db.query(
            """
            SELECT DISTINCT e.area_id FROM skin_entries e WHERE e.id <> (SELECT b.id FROM skin_entries b
            WHERE b.area_id = e.area_id ORDER BY b.captured_at, b.created_at, b.id LIMIT 1) AND NOT EXISTS
            (SELECT 1 FROM skin_comparisons c WHERE c.entry_id = e.id AND c.revision = ?)
            """, revision
        ).map { AreaID(try $0.get("area_id", as: String.self)) }
    }

    /// Removes the area's comparisons with another baseline or of another revision.
    func removeComparisons(in area: AreaID, otherThan baselineID: String, revision: Int) throws {
        try db.execute(
            "DELETE FROM skin_comparisons WHERE area_id = ? AND (baseline_id <> ? OR revision <> ?)",
            area.rawValue, baselineID, revision)
    }

    /// The ids of the area's entries other than `baselineID` with no comparison with it of `revision`, oldest first.
    func entriesMissingComparison(in area: AreaID, baselineID: String, revision: Int) throws -> [String] {
        try db.query(
            """
            SELECT e.id FROM skin_entries e WHERE e.area_id = ? AND e.id <> ? AND NOT EXISTS
            (SELECT 1 FROM skin_comparisons c WHERE c.entry_id = e.id AND c.baseline_id = ? AND c.revision = ?)
            \(Self.oldestFirst)
            """, area.rawValue, baselineID, baselineID, revision
        ).map { try $0.get("id", as: String.self) }
    }

    /// Saves a comparison: `similarity` nil for photos that are not comparable, with `reason`.
    func insertComparison(
        entryID: String, baselineID: String, area: AreaID, result: SkinComparisonResult, similarity: Double?,
        reason: NotComparableReason?, changeMap: Data, details: String
    ) throws {
        try db.execute(
            """
            INSERT INTO skin_comparisons (entry_id, baseline_id, area_id, revision, comparable, similarity, raw_score, reason,
            change_map, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, entryID, baselineID, area.rawValue, result.revision.number, similarity != nil, similarity, result.rawScore,
            reason?.rawValue, changeMap, details)
    }

    /// An entry's stored comparison data: the encoded fingerprint, the revision that made it, and its photo.
    func comparisonData(of id: String) throws -> (fingerprint: Data?, revision: Int, photoID: PhotoID)? {
        try db.queryFirst("SELECT fingerprint, fingerprint_revision, photo_id FROM skin_entries WHERE id = ?", id).map { row in
            (try? row.get("fingerprint", as: Data.self), try row.get("fingerprint_revision"), PhotoID(try row.get("photo_id")))
        }
    }

    /// Replaces an entry's comparison data.
    func updateComparisonData(of id: String, fingerprint: ComparisonFingerprint) throws {
        try db.execute(
            "UPDATE skin_entries SET fingerprint = ?, fingerprint_revision = ? WHERE id = ?",
            FingerprintCoding.encode(fingerprint), fingerprint.revision.number, id)
    }

    // MARK: demo data

    /// Adds `copies` copies of `entry`'s stored rows to its area, one an hour after it, each with a copy of its
    /// comparison row and a similarity of 40 to 99 from `step`; the copies share the entry's photo files.
    func storeCopies(of entry: TrackingEntry, count copies: Int, step: Int) throws {
        try db.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO skin_entries (id, area_id, captured_at, time_zone, photo_id, thumbnail_id, note, brightness,
            dark_clipped, bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at)
            SELECT substr(e.id, 1, 24) || printf('%012x', i), e.area_id,
            strftime('%Y-%m-%dT%H:%M:%S.000Z', e.captured_at, '+' || i || ' hours'), e.time_zone, e.photo_id, e.thumbnail_id,
            e.note, e.brightness, e.dark_clipped, e.bright_clipped, e.sharpness, e.fingerprint, e.fingerprint_revision, e.created_at
            FROM skin_entries e, n WHERE e.id = ?
            """, copies, entry.id.rawValue)
        try db.execute(
            """
            INSERT INTO skin_comparisons (entry_id, baseline_id, area_id, revision, comparable, similarity, raw_score, reason,
            change_map, details)
            SELECT e.id, c.baseline_id, c.area_id, c.revision, 1, 40 + (e.rowid * ?3 % 60), c.raw_score, NULL, c.change_map, c.details
            FROM skin_entries e JOIN skin_comparisons c ON c.entry_id = ?1
            WHERE e.area_id = ?2 AND e.id <> ?1 AND substr(e.id, 1, 24) = substr(?1, 1, 24)
            """, entry.id.rawValue, entry.areaID.rawValue, step)
    }

    // MARK: rows

    private static let oldestFirst = "ORDER BY e.captured_at, e.created_at, e.id"

    /// The columns `TrackingEntry(row:)` reads, from `skin_entries e`; `note` is the entry's current note (its
    /// newest version in `skin_entry_notes`, empty when it has none).
    static let entryColumns = """
        e.id, e.area_id, e.captured_at, e.time_zone, e.photo_id, e.thumbnail_id, e.brightness, e.dark_clipped, e.bright_clipped, \
        e.sharpness, coalesce((SELECT n.text FROM skin_entry_notes n WHERE n.entry_id = e.id ORDER BY n.version DESC LIMIT 1), '') AS note
        """

    /// A stored instant of the Skin journal (`Timestamp.date(from:)`); the epoch for unreadable text, so one bad
    /// row never hides an area's photos.
    static func storedInstant(_ text: String) -> Date {
        Timestamp.date(from: text) ?? Date(timeIntervalSince1970: 0)
    }
}

// MARK: rows to records

extension TrackingArea {
    /// A `skin_areas` row.
    init(row: Row) throws {
        self.init(
            id: AreaID(try row.get("id")), name: try row.get("name"), bodyLocation: try row.optional("body_location"),
            guidance: try row.get("guidance"), createdAt: SkinStore.storedInstant(try row.get("created_at")))
    }
}

extension TrackingEntry {
    /// A row of `SkinStore.entryColumns`.
    init(row: Row) throws {
        let quality = CaptureQuality(
            meanLuminance: try row.get("brightness"), darkClippedFraction: try row.get("dark_clipped"),
            brightClippedFraction: try row.get("bright_clipped"), sharpness: try row.get("sharpness"))
        self.init(
            id: EntryID(try row.get("id")), areaID: AreaID(try row.get("area_id")),
            capturedAt: SkinStore.storedInstant(try row.get("captured_at")),
            timeZone: try row.get("time_zone"), photoID: PhotoID(try row.get("photo_id")),
            thumbnailID: PhotoID(try row.get("thumbnail_id")), note: try row.get("note"), quality: quality)
    }
}

extension StoredComparison {
    /// The comparison columns of a `skin_comparisons` row (or of the timeline's join) for `entryID`.
    init(row: Row, entryID: EntryID) throws {
        self.init(
            entryID: entryID, baselineID: EntryID(try row.get("baseline_id")),
            revision: ComparisonRevision(try row.get("revision")), comparable: try row.get("comparable"),
            similarityPercent: try row.optional("similarity"), rawScore: try row.get("raw_score"),
            reasonNotComparable: try row.optional("reason", as: String.self).flatMap(NotComparableReason.init(rawValue:)))
    }
}
