import CairnCore
import Foundation
import Imaging
import PhotoMetadata
import Skin
import Storage

/// Why a Skin journal action could not be done. Messages never repeat names, notes or paths.
public enum SkinJournalError: CairnError, Equatable {
    /// No area with that identifier (or name).
    case areaNotFound
    /// No entry with that identifier in the given area.
    case entryNotFound
    /// An area needs a name.
    case emptyName
    /// Another area already has that name.
    case nameTaken
    /// The photo could not be read (not an image, corrupt, too large): the imaging layer's message.
    case unreadablePhoto(String)

    public var namesNoRecord: Bool { self == .areaNotFound || self == .entryNotFound }

    /// Plain English.
    public var userMessage: String {
        switch self {
        case .areaNotFound: return "There is no such area in this journal."
        case .entryNotFound: return "There is no such photo in this area."
        case .emptyName: return "Give the area a name."
        case .nameTaken: return "Another area already has this name. Choose a different one."
        case .unreadablePhoto(let message): return message
        }
    }
}

/// One area with what its card shows.
public struct SkinAreaSummary: Sendable, Equatable {
    /// The area.
    public let area: TrackingArea
    /// How many photos it holds.
    public let entryCount: Int
    /// The newest photo (by capture time), if any: its thumbnail is the card's picture.
    public let latestEntry: EntryID?
    /// When the newest photo was taken.
    public let latestCapture: Date?
}

/// One row of the timeline: an entry, whether it is the baseline, and its stored comparison with it.
public struct SkinTimelineItem: Sendable, Equatable {
    /// The entry.
    public let entry: TrackingEntry
    /// True for the area's oldest entry, the one every other is compared with.
    public let isBaseline: Bool
    /// The stored comparison with the baseline (nil for the baseline itself).
    public let comparison: StoredComparison?
}

/// An area's photos, oldest first.
public struct SkinTimeline: Sendable, Equatable {
    /// The area.
    public let area: TrackingArea
    /// Every entry, oldest (the baseline) first.
    public let items: [SkinTimelineItem]
    /// The baseline entry (the oldest), nil when the area is empty.
    public var baseline: TrackingEntry? { items.first?.entry }
}

/// What the compare page shows: the baseline, the selected entry, and their stored comparison.
public struct SkinComparisonView: Sendable, Equatable {
    /// The area both photos belong to.
    public let area: TrackingArea
    /// The area's oldest entry.
    public let baseline: TrackingEntry
    /// The selected entry (equal to `baseline` when the baseline itself is selected).
    public let entry: TrackingEntry
    /// The stored comparison (nil when the selected entry is the baseline).
    public let comparison: StoredComparison?
    /// The alignment and secondary figures behind it.
    public let details: ComparisonDetails?
    /// Where the photos differ (nil when the selected entry is the baseline).
    public let changeMap: ChangeMap?
    /// True when the selected entry is the baseline.
    public var isBaseline: Bool { entry.id == baseline.id }
}

/// What deleting an entry does to the area's comparisons.
public struct SkinDeletionConsequence: Sendable, Equatable {
    /// True when the entry is the baseline.
    public let isBaseline: Bool
    /// The entry that becomes the baseline (nil when the area would be empty or the entry is not the baseline).
    public let nextBaseline: TrackingEntry?
    /// How many other photos will be compared again.
    public let recomparedCount: Int

    /// The sentence shown before deleting.
    public var message: String {
        guard isBaseline else { return "This photo and its comparison will be removed. The other photos are not affected. This cannot be undone." }
        guard nextBaseline != nil else { return "This is the only photo of this area. It will be removed. This cannot be undone." }
        return "This is the first photo of this area, the one every other photo is compared with. After it is removed, the next-oldest photo becomes the first one and \(recomparedCount) other photo\(recomparedCount == 1 ? " is" : "s are") compared with it again. This cannot be undone."
    }
}

/// The Skin journal: areas, photo entries, and each entry's stored comparison with its area's baseline (the
/// oldest entry). Comparisons are computed when data changes and stored; views only read them. No call takes
/// two entries: a comparison is always asked for as an entry *in an area*, and the baseline is found in that
/// same area, so photos of two different areas cannot be compared (the schema refuses such rows too).
public final class SkinService: @unchecked Sendable {
    private let database: Database
    private let photoStore: PhotoFileStore
    private let intake: PhotoIntake
    private let pipeline: ImagePipeline
    private let clock: any Clock

    /// The photo purpose for Skin photos.
    public static let photoPurpose = "skin"
    /// Longest side photos are decoded to for quality scores and comparison data.
    static let analysisSide = 800

    /// A service over an opened vault's database and photo store.
    public init(database: Database, photoStore: PhotoFileStore, intake: PhotoIntake, pipeline: ImagePipeline = ImagePipeline(),
                clock: any Clock) {
        self.database = database
        self.photoStore = photoStore
        self.intake = intake
        self.pipeline = pipeline
        self.clock = clock
    }

    // MARK: areas

    /// Every area, by name.
    public func areas() throws -> [SkinAreaSummary] {
        try database.read { db in
            try db.query("""
                SELECT a.*, (SELECT count(*) FROM skin_entries e WHERE e.area_id = a.id) AS entry_count,
                (SELECT e.id FROM skin_entries e WHERE e.area_id = a.id ORDER BY e.captured_at DESC, e.created_at DESC, e.id DESC LIMIT 1) AS latest_entry,
                (SELECT max(e.captured_at) FROM skin_entries e WHERE e.area_id = a.id) AS latest_at
                FROM skin_areas a ORDER BY a.name COLLATE NOCASE, a.id
                """).map { row in
                SkinAreaSummary(area: try Self.area(row), entryCount: try row.get("entry_count"),
                                latestEntry: try row.optional("latest_entry", as: String.self).map(EntryID.init),
                                latestCapture: try row.optional("latest_at", as: String.self).flatMap(Timestamp.date(from:)))
            }
        }
    }

    /// The area with `id`. Throws `areaNotFound`.
    public func area(_ id: AreaID) throws -> TrackingArea {
        try database.read { db in try Self.area(id, in: db) }
    }

    /// The area whose identifier or (case-insensitive) name is `text`. Throws `areaNotFound`.
    public func area(named text: String) throws -> TrackingArea {
        try database.read { db in
            let row = try db.queryFirst("SELECT * FROM skin_areas WHERE id = ?", text)
                ?? db.queryFirst("SELECT * FROM skin_areas WHERE name = ? COLLATE NOCASE", text.trimmingCharacters(in: .whitespaces))
            guard let row else { throw SkinJournalError.areaNotFound }
            return try Self.area(row)
        }
    }

    /// Adds an area. Throws `emptyName`, `nameTaken`.
    @discardableResult
    public func addArea(name: String, bodyLocation: String? = nil, guidance: String = "") throws -> TrackingArea {
        let clean = try Self.cleanName(name)
        let location = try bodyLocation.map { try TextInput.name($0, field: "body location") }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let guidance = try TextInput.note(guidance, field: "guidance")
        let area = TrackingArea(id: .random(), name: clean, bodyLocation: (location?.isEmpty ?? true) ? nil : location,
                                guidance: guidance, createdAt: clock.now())
        try database.write { db in
            try Self.checkNameFree(clean, except: nil, in: db)
            try db.execute("INSERT INTO skin_areas (id, name, body_location, guidance, created_at) VALUES (?, ?, ?, ?, ?)",
                           area.id.rawValue, area.name, area.bodyLocation, area.guidance, Timestamp.string(from: area.createdAt))
        }
        return area
    }

    /// Renames an area. Throws `areaNotFound`, `emptyName`, `nameTaken`.
    public func renameArea(_ id: AreaID, to name: String) throws {
        let clean = try Self.cleanName(name)
        try database.write { db in
            _ = try Self.area(id, in: db)
            try Self.checkNameFree(clean, except: id, in: db)
            try db.execute("UPDATE skin_areas SET name = ? WHERE id = ?", clean, id.rawValue)
        }
    }

    /// Deletes an area with every photo of it. Throws `areaNotFound`.
    public func deleteArea(_ id: AreaID) throws {
        try database.write { db in
            _ = try Self.area(id, in: db)
            let photos = try db.query("SELECT photo_id, thumbnail_id FROM skin_entries WHERE area_id = ?", id.rawValue)
            try db.execute("DELETE FROM skin_areas WHERE id = ?", id.rawValue)
            for row in photos {
                try photoStore.delete(PhotoID(try row.get("photo_id")), in: db)
                try photoStore.delete(PhotoID(try row.get("thumbnail_id")), in: db)
            }
        }
    }

    // MARK: entries

    /// Logs a photo of `area`: stores the photo and thumbnail through `PhotoIntake`, its capture-quality
    /// scores and comparison data, and its comparison with the area's baseline, all in one transaction.
    /// `capturedAt` defaults to the camera's date, else now. A file that is not a readable image throws
    /// `unreadablePhoto` and stores nothing.
    @discardableResult
    public func log(photo data: Data, in area: AreaID, note: String = "", capturedAt: Date? = nil,
                    timeZone: TimeZone? = nil) throws -> TrackingEntry {
        // Everything that can fail on bad input happens before the vault is touched.
        let note = try TextInput.note(note, field: "note")
        // The analysis copy keeps libvips' shrink-on-load, which the comparator was calibrated on; the intake's
        // encoding happens before the write transaction, which then only stores the files and rows.
        let image: RGBImage
        do {
            image = try pipeline.decodeRGB(data, maxSide: Self.analysisSide)
        } catch let error as CairnError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        let processed: IngestedPhoto
        do {
            processed = try intake.process(data)
        } catch let error as ImagingError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        let quality = CaptureQualityAnalyzer.analyze(image)
        let fingerprint: ComparisonFingerprint
        do {
            fingerprint = try SkinComparator.prepare(image).fingerprint
        } catch let error as CairnError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        return try database.write { db in
            _ = try Self.area(area, in: db)
            let photo = try intake.save(processed, purpose: Self.photoPurpose, in: db)
            let instant = capturedAt ?? photo.captureDate?.instant ?? clock.now()
            let zone = timeZone ?? photo.captureDate?.utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? TimeZone.current
            let entry = TrackingEntry(id: .random(), areaID: area, capturedAt: instant, timeZone: zone.identifier,
                                      photoID: photo.full.id, thumbnailID: photo.thumbnail.id,
                                      note: note, quality: quality)
            try insert(entry, fingerprint: fingerprint, in: db)
            if !note.isEmpty { try Self.appendNote(note, to: entry.id, in: db, at: clock.now()) }
            try reanchor(area, in: db)
            return entry
        }
    }

    /// The area's entries oldest first, each with its stored comparison with the baseline. Reads stored rows
    /// only (no photo or comparison data is loaded). Throws `areaNotFound`.
    public func timeline(of areaID: AreaID) throws -> SkinTimeline {
        try database.read { db in
            let area = try Self.area(areaID, in: db)
            let baselineID = try db.queryFirst("SELECT id FROM skin_entries WHERE area_id = ? ORDER BY captured_at, created_at, id LIMIT 1",
                                               areaID.rawValue)?.get("id", as: String.self)
            let rows = try db.query("""
                SELECT \(Self.entryColumns), c.baseline_id, c.revision, c.comparable, c.similarity, c.raw_score, c.reason
                FROM skin_entries e
                LEFT JOIN skin_comparisons c ON c.entry_id = e.id AND c.baseline_id = ? AND c.revision = ?
                WHERE e.area_id = ? ORDER BY e.captured_at, e.created_at, e.id
                """, baselineID, ComparisonRevision.current.number, areaID.rawValue)
            var items: [SkinTimelineItem] = []
            items.reserveCapacity(rows.count)
            for (index, row) in rows.enumerated() {
                let entry = try Self.entry(row)
                let comparison = try row.optional("baseline_id", as: String.self) == nil ? nil : Self.comparison(row, entryID: entry.id)
                items.append(SkinTimelineItem(entry: entry, isBaseline: index == 0, comparison: comparison))
            }
            return SkinTimeline(area: area, items: items)
        }
    }

    /// The entry `id` of `area`. Throws `entryNotFound` (also for another area's entry).
    public func entry(_ id: EntryID, in areaID: AreaID) throws -> TrackingEntry {
        try database.read { db in try Self.entry(id, in: areaID, db: db) }
    }

    /// The comparison of `entry` with the baseline of `area`, as stored. There is no way to ask for a
    /// comparison across areas: the entry must belong to `area` (else `entryNotFound`).
    public func comparison(of entryID: EntryID, in areaID: AreaID) throws -> SkinComparisonView {
        try database.read { db in
            let area = try Self.area(areaID, in: db)
            let entry = try Self.entry(entryID, in: areaID, db: db)
            guard let baselineRow = try db.queryFirst("""
                SELECT \(Self.entryColumns) FROM skin_entries e WHERE e.area_id = ? ORDER BY e.captured_at, e.created_at, e.id LIMIT 1
                """, areaID.rawValue) else { throw SkinJournalError.entryNotFound }
            let baseline = try Self.entry(baselineRow)
            guard baseline.id != entry.id else {
                return SkinComparisonView(area: area, baseline: baseline, entry: entry, comparison: nil, details: nil, changeMap: nil)
            }
            guard let row = try db.queryFirst("""
                SELECT * FROM skin_comparisons WHERE entry_id = ? AND baseline_id = ? AND area_id = ? AND revision = ?
                """, entry.id.rawValue, baseline.id.rawValue, areaID.rawValue, ComparisonRevision.current.number) else {
                return SkinComparisonView(area: area, baseline: baseline, entry: entry, comparison: nil, details: nil, changeMap: nil)
            }
            let details = try? JSONDecoder().decode(ComparisonDetails.self, from: Data(try row.get("details", as: String.self).utf8))
            let blob = try row.get("change_map", as: Data.self)
            let side = SkinComparator.changeMapSide
            let map = ChangeMap(width: side, height: side, bytes: [UInt8](blob))
            return SkinComparisonView(area: area, baseline: baseline, entry: entry, comparison: try Self.comparison(row, entryID: entry.id),
                                      details: details, changeMap: map)
        }
    }

    /// What deleting `entry` would do (for the confirmation). Throws `entryNotFound`.
    public func deletionConsequence(of entryID: EntryID, in areaID: AreaID) throws -> SkinDeletionConsequence {
        try database.read { db in
            _ = try Self.entry(entryID, in: areaID, db: db)
            let ids = try db.query("""
                SELECT \(Self.entryColumns) FROM skin_entries e WHERE e.area_id = ? ORDER BY e.captured_at, e.created_at, e.id LIMIT 2
                """, areaID.rawValue)
            let isBaseline = try ids.first?.get("id", as: String.self) == entryID.rawValue
            guard isBaseline else { return SkinDeletionConsequence(isBaseline: false, nextBaseline: nil, recomparedCount: 0) }
            let count = try db.scalar("SELECT count(*) FROM skin_entries WHERE area_id = ?", areaID.rawValue, as: Int.self) ?? 1
            let next = try ids.count > 1 ? Self.entry(ids[1]) : nil
            return SkinDeletionConsequence(isBaseline: true, nextBaseline: next, recomparedCount: max(0, count - 2))
        }
    }

    /// Deletes an entry, its photo and thumbnail. When it was the baseline, every other entry is compared
    /// with the next-oldest one in the same transaction. Throws `entryNotFound`.
    public func deleteEntry(_ entryID: EntryID, in areaID: AreaID) throws {
        try database.write { db in
            let entry = try Self.entry(entryID, in: areaID, db: db)
            try db.execute("DELETE FROM skin_entries WHERE id = ? AND area_id = ?", entryID.rawValue, areaID.rawValue)
            try photoStore.delete(entry.photoID, in: db)
            try photoStore.delete(entry.thumbnailID, in: db)
            try reanchor(areaID, in: db)
        }
    }

    /// The JPEG bytes of an entry's photo or thumbnail. Throws `entryNotFound`.
    public func photoData(of entryID: EntryID, in areaID: AreaID, thumbnail: Bool) throws -> Data {
        let entry = try database.read { db in try Self.entry(entryID, in: areaID, db: db) }
        return try photoStore.data(for: thumbnail ? entry.thumbnailID : entry.photoID)
    }

    /// The change map as a picture the size of the baseline's thumbnail: black where nothing changed, a warm
    /// tint where it did, over the central square the comparison covers. Nil for the baseline itself or when
    /// the photos were not comparable.
    public func changeMapJPEG(of entryID: EntryID, in areaID: AreaID) throws -> Data? {
        let view = try comparison(of: entryID, in: areaID)
        guard let map = view.changeMap, view.comparison?.comparable == true,
              let thumb = try photoStore.photo(view.baseline.thumbnailID) else { return nil }
        return try pipeline.encodeJPEG(SkinChangeMapImage.render(map, width: thumb.width, height: thumb.height), quality: 85)
    }

    // MARK: notes

    /// Every version of an entry's note, oldest first (the last one is the current note; an empty text
    /// means the note was removed then). Throws `entryNotFound`.
    public func noteHistory(of entryID: EntryID, in areaID: AreaID) throws -> [SkinNoteVersion] {
        try database.read { db in
            _ = try Self.entry(entryID, in: areaID, db: db)
            return try db.query("SELECT version, text, recorded_at FROM skin_entry_notes WHERE entry_id = ? ORDER BY version",
                                entryID.rawValue).map { row in
                SkinNoteVersion(version: try row.get("version"), text: try row.get("text"),
                                recordedAt: Self.instant(try row.get("recorded_at")))
            }
        }
    }

    /// Records `text` as the entry's note: a new version that supersedes the current one, which stays in the
    /// history. An empty text removes the note (recorded too, when there was one). Writing the current note
    /// again records nothing. Returns whether a version was added. Throws `entryNotFound`, `TextInputError` (see
    /// `TextInput.note`); nothing is written then.
    @discardableResult
    public func setNote(_ text: String, of entryID: EntryID, in areaID: AreaID) throws -> Bool {
        let clean = try TextInput.note(text, field: "note")
        return try database.write { db in
            let entry = try Self.entry(entryID, in: areaID, db: db)
            guard entry.note != clean else { return false }
            try Self.appendNote(clean, to: entryID, in: db, at: clock.now())
            return true
        }
    }

    static func appendNote(_ text: String, to entryID: EntryID, in db: Connection, at instant: Date) throws {
        try db.execute("""
            INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at)
            SELECT ?1, coalesce(max(version), 0) + 1, ?2, ?3 FROM skin_entry_notes WHERE entry_id = ?1
            """, entryID.rawValue, text, Timestamp.string(from: instant))
    }

    /// Brightness and sharpness of one live camera frame (the guided capture page posts a small frame every
    /// few hundred milliseconds), scored by the same analyzer as stored photos, and, given the page's previous
    /// frame, how much the camera moved between the two. Nothing is stored. Throws `unreadablePhoto` for a
    /// frame that is not an image; a previous frame that cannot be read gives no steadiness.
    public func liveScores(frame: Data, previous: Data? = nil) throws -> LiveFrameScores {
        let image: RGBImage
        do {
            image = try pipeline.decodeRGB(frame, maxSide: Self.liveSide)
        } catch let error as CairnError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        let before = previous.flatMap { try? pipeline.decodeRGB($0, maxSide: Self.liveSide) }
        return LiveFrameScores(quality: CaptureQualityAnalyzer.analyze(image),
                               steadiness: before.map { CaptureQualityAnalyzer.steadiness(previous: $0, current: image) })
    }

    /// Longest side live frames are decoded to.
    static let liveSide = 480

    // MARK: comparing files (nothing stored)

    /// Compares two image files directly, storing nothing (`cairn skin compare-batch`). Throws
    /// `unreadablePhoto` for a file that is not a readable image.
    public func compareFiles(baseline: Data, probe: Data) throws -> SkinComparisonResult {
        func decode(_ data: Data) throws -> PreparedPhoto {
            do {
                return try SkinComparator.prepare(pipeline.decodeRGB(data, maxSide: Self.analysisSide))
            } catch let error as CairnError {
                throw SkinJournalError.unreadablePhoto(error.userMessage)
            }
        }
        return try SkinComparator.compare(baseline: decode(baseline), probe: decode(probe))
    }

    // MARK: storage

    func insert(_ entry: TrackingEntry, fingerprint: ComparisonFingerprint, in db: Connection) throws {
        let q = entry.quality
        try db.execute("""
            INSERT INTO skin_entries (id, area_id, captured_at, time_zone, photo_id, thumbnail_id, note, brightness, dark_clipped,
            bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, entry.id.rawValue, entry.areaID.rawValue, Timestamp.string(from: entry.capturedAt), entry.timeZone,
            entry.photoID.rawValue, entry.thumbnailID.rawValue, "", q.meanLuminance, q.darkClippedFraction,
            q.brightClippedFraction, q.sharpness, FingerprintCoding.encode(fingerprint), fingerprint.revision.number,
            Timestamp.string(from: clock.now()))
    }

    /// Recomputes the stored comparisons of every area that has entries without a comparison of this build's
    /// revision (after an upgrade to a new comparison revision, old rows are never shown or mixed, so these
    /// entries read "Not compared yet" until then). Returns how many areas were brought up to date. Views never
    /// call this; run it once after opening the application (it re-reads photos of outdated comparison data).
    @discardableResult
    public func recompareOutdatedAreas() throws -> Int {
        let revision = ComparisonRevision.current.number
        let outdated = try database.read { db in
            try db.query("""
                SELECT DISTINCT e.area_id FROM skin_entries e WHERE e.id <> (SELECT b.id FROM skin_entries b
                WHERE b.area_id = e.area_id ORDER BY b.captured_at, b.created_at, b.id LIMIT 1) AND NOT EXISTS
                (SELECT 1 FROM skin_comparisons c WHERE c.entry_id = e.id AND c.revision = ?)
                """, revision).map { AreaID(try $0.get("area_id", as: String.self)) }
        }
        for area in outdated { try database.write { db in try reanchor(area, in: db) } }
        return outdated.count
    }

    /// Makes the stored comparisons of `area` match its current baseline and this build's revision: rows for
    /// other baselines or revisions are removed, missing rows computed from stored comparison data.
    func reanchor(_ area: AreaID, in db: Connection) throws {
        guard let baselineID = try db.queryFirst(
            "SELECT id FROM skin_entries WHERE area_id = ? ORDER BY captured_at, created_at, id LIMIT 1", area.rawValue)?
            .get("id", as: String.self) else { return }
        let revision = ComparisonRevision.current.number
        try db.execute("DELETE FROM skin_comparisons WHERE area_id = ? AND (baseline_id <> ? OR revision <> ?)",
                       area.rawValue, baselineID, revision)
        let missing = try db.query("""
            SELECT e.id FROM skin_entries e WHERE e.area_id = ? AND e.id <> ? AND NOT EXISTS
            (SELECT 1 FROM skin_comparisons c WHERE c.entry_id = e.id AND c.baseline_id = ? AND c.revision = ?)
            ORDER BY e.captured_at, e.created_at, e.id
            """, area.rawValue, baselineID, baselineID, revision).map { try $0.get("id", as: String.self) }
        guard !missing.isEmpty else { return }
        let baseline = try prepared(baselineID, in: db)
        let encoder = JSONEncoder()
        for id in missing {
            let result = try SkinComparator.compare(baseline: baseline, probe: prepared(id, in: db))
            let mapBytes = Data(result.changeMap.values.map { UInt8(min(max($0, 0), 1) * 255 + 0.5) })
            let details = String(decoding: try encoder.encode(ComparisonDetails(alignment: result.alignment,
                                                                                diagnostics: result.diagnostics)), as: UTF8.self)
            let similarity = result.comparable ? result.similarityPercent.map { min(max($0, 0), 100) } : nil
            try db.execute("""
                INSERT INTO skin_comparisons (entry_id, baseline_id, area_id, revision, comparable, similarity, raw_score, reason,
                change_map, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id, baselineID, area.rawValue, result.revision.number, similarity != nil, similarity, result.rawScore,
                similarity == nil ? (result.reasonNotComparable ?? .alignmentFailed).rawValue : nil, mapBytes, details)
        }
    }

    /// An entry prepared for comparison from its stored data; re-extracted from its stored photo (and saved)
    /// when the stored data was made by another revision or cannot be read.
    func prepared(_ id: String, in db: Connection) throws -> PreparedPhoto {
        guard let row = try db.queryFirst("SELECT fingerprint, fingerprint_revision, photo_id FROM skin_entries WHERE id = ?", id) else {
            throw SkinJournalError.entryNotFound
        }
        if try row.get("fingerprint_revision", as: Int.self) == ComparisonRevision.current.number,
           let fingerprint = try? FingerprintCoding.decode(row.get("fingerprint", as: Data.self)),
           let photo = try? SkinComparator.prepare(fingerprint) {
            return photo
        }
        // Inside the caller's transaction: read the file through the row this connection sees.
        guard let stored = try photoStore.photo(PhotoID(try row.get("photo_id")), in: db),
              let data = FileManager.default.contents(atPath: photoStore.vault.directory.appendingPathComponent(stored.relativePath).path) else {
            throw PhotoStoreError.notFound
        }
        let fresh = try SkinComparator.prepare(pipeline.decodeRGB(data, maxSide: Self.analysisSide)).fingerprint
        try db.execute("UPDATE skin_entries SET fingerprint = ?, fingerprint_revision = ? WHERE id = ?",
                       FingerprintCoding.encode(fresh), fresh.revision.number, id)
        return try SkinComparator.prepare(fresh)
    }

    // MARK: rows

    static func cleanName(_ name: String) throws -> String {
        let clean = try TextInput.name(name, field: "area name").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !clean.isEmpty else { throw SkinJournalError.emptyName }
        return clean
    }

    static func checkNameFree(_ name: String, except id: AreaID?, in db: Connection) throws {
        let taken = try db.scalar("SELECT count(*) FROM skin_areas WHERE name = ? COLLATE NOCASE AND id IS NOT ?",
                                  arguments: [name, id?.rawValue], as: Int.self) ?? 0
        if taken > 0 { throw SkinJournalError.nameTaken }
    }

    static func area(_ id: AreaID, in db: Connection) throws -> TrackingArea {
        guard let row = try db.queryFirst("SELECT * FROM skin_areas WHERE id = ?", id.rawValue) else {
            throw SkinJournalError.areaNotFound
        }
        return try area(row)
    }

    static func area(_ row: Row) throws -> TrackingArea {
        TrackingArea(id: AreaID(try row.get("id")), name: try row.get("name"), bodyLocation: try row.optional("body_location"),
                     guidance: try row.get("guidance"),
                     createdAt: Timestamp.date(from: try row.get("created_at")) ?? Date(timeIntervalSince1970: 0))
    }

    static func entry(_ id: EntryID, in area: AreaID, db: Connection) throws -> TrackingEntry {
        guard let row = try db.queryFirst("SELECT \(entryColumns) FROM skin_entries e WHERE e.id = ? AND e.area_id = ?",
                                          id.rawValue, area.rawValue) else {
            throw SkinJournalError.entryNotFound
        }
        return try entry(row)
    }

    /// The columns `entry(_:)` reads, from `skin_entries e`; `note` is the entry's current note (its newest
    /// version in `skin_entry_notes`, empty when it has none).
    static let entryColumns = """
        e.id, e.area_id, e.captured_at, e.time_zone, e.photo_id, e.thumbnail_id, e.brightness, e.dark_clipped, e.bright_clipped, \
        e.sharpness, coalesce((SELECT n.text FROM skin_entry_notes n WHERE n.entry_id = e.id ORDER BY n.version DESC LIMIT 1), '') AS note
        """

    static func entry(_ row: Row) throws -> TrackingEntry {
        let quality = CaptureQuality(meanLuminance: try row.get("brightness"), darkClippedFraction: try row.get("dark_clipped"),
                                     brightClippedFraction: try row.get("bright_clipped"), sharpness: try row.get("sharpness"))
        return TrackingEntry(id: EntryID(try row.get("id")), areaID: AreaID(try row.get("area_id")),
                             capturedAt: try instant(row.get("captured_at")),
                             timeZone: try row.get("time_zone"), photoID: PhotoID(try row.get("photo_id")),
                             thumbnailID: PhotoID(try row.get("thumbnail_id")), note: try row.get("note"), quality: quality)
    }

    /// `instant(_:)`, for tests.
    public static func instantForTesting(_ text: String) -> Date { instant(text) }

    /// Reads a stored instant (`Timestamp.date(from:)`, integer arithmetic for the stored format); the epoch
    /// for unreadable text.
    static func instant(_ text: String) -> Date {
        Timestamp.date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    static func comparison(_ row: Row, entryID: EntryID) throws -> StoredComparison {
        StoredComparison(entryID: entryID, baselineID: EntryID(try row.get("baseline_id")),
                         revision: ComparisonRevision(try row.get("revision")), comparable: try row.get("comparable"),
                         similarityPercent: try row.optional("similarity"), rawScore: try row.get("raw_score"),
                         reasonNotComparable: try row.optional("reason", as: String.self).flatMap(NotComparableReason.init(rawValue:)))
    }
}

/// What the capture page's badges show for one live frame.
public struct LiveFrameScores: Sendable, Equatable {
    /// Light and focus.
    public let quality: CaptureQuality
    /// Movement since the page's previous frame; nil without one.
    public let steadiness: FrameSteadiness?
}

/// One version of an entry's note.
public struct SkinNoteVersion: Sendable, Equatable {
    /// 1 for the first note, then one more for each later one.
    public let version: Int
    /// The note; empty when this version removed it.
    public let text: String
    /// When it was recorded.
    public let recordedAt: Date
}

/// Draws a change map as a picture for the compare page's overlay.
enum SkinChangeMapImage {
    /// `width` x `height` pixels, black outside the compared central square; inside, the map upscaled
    /// bilinearly and tinted amber in proportion to the change.
    static func render(_ map: ChangeMap, width: Int, height: Int) -> RGBImage {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        let side = Double(min(width, height)) * Double(SkinComparator.cropFraction)
        let x0 = (Double(width) - side) / 2, y0 = (Double(height) - side) / 2
        for y in 0..<height {
            let v = (Double(y) + 0.5 - y0) / side
            guard v >= 0, v < 1 else { continue }
            for x in 0..<width {
                let u = (Double(x) + 0.5 - x0) / side
                guard u >= 0, u < 1 else { continue }
                let fx = min(max(u * Double(map.width) - 0.5, 0), Double(map.width - 1))
                let fy = min(max(v * Double(map.height) - 0.5, 0), Double(map.height - 1))
                let ix = min(Int(fx), map.width - 2), iy = min(Int(fy), map.height - 2)
                let ax = fx - Double(ix), ay = fy - Double(iy)
                func at(_ x: Int, _ y: Int) -> Double { Double(map.values[y * map.width + x]) }
                let value = (at(ix, iy) * (1 - ax) + at(ix + 1, iy) * ax) * (1 - ay)
                    + (at(ix, iy + 1) * (1 - ax) + at(ix + 1, iy + 1) * ax) * ay
                // Below a tenth of the display ceiling is drawn as no change, so JPEG noise does not outline the square.
                let t = min(max((value - 0.1) / 0.9, 0), 1)
                let i = (y * width + x) * 3
                px[i] = UInt8(255 * t); px[i + 1] = UInt8(170 * t); px[i + 2] = UInt8(40 * t)
            }
        }
        return RGBImage(width: width, height: height, pixels: px)
    }
}
