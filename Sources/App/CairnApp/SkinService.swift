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

    public var errorKind: ErrorKind { self == .areaNotFound || self == .entryNotFound ? .notFound : .refusedInput }

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

/// What the note page shows: the area, the entry and its note's versions, oldest first.
public struct SkinNoteView: Sendable, Equatable {
    public let area: TrackingArea
    public let entry: TrackingEntry
    public let history: [SkinNoteVersion]
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
        return
            "This is the first photo of this area, the one every other photo is compared with. After it is removed, the next-oldest photo becomes the first one and \(recomparedCount) other photo\(recomparedCount == 1 ? " is" : "s are") compared with it again. This cannot be undone."
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
    public init(
        database: Database, photoStore: PhotoFileStore, intake: PhotoIntake, pipeline: ImagePipeline = ImagePipeline(),
        clock: any Clock
    ) {
        self.database = database
        self.photoStore = photoStore
        self.intake = intake
        self.pipeline = pipeline
        self.clock = clock
    }

    // MARK: areas

    /// Every area, by name.
    public func areas() throws -> [SkinAreaSummary] {
        try database.read { try SkinStore($0).areaSummaries() }
    }

    /// The area with `id`. Throws `areaNotFound`.
    public func area(_ id: AreaID) throws -> TrackingArea {
        try database.read { db in try Self.area(id, SkinStore(db)) }
    }

    /// The area whose identifier or (case-insensitive) name is `text`. Throws `areaNotFound`.
    public func area(named text: String) throws -> TrackingArea {
        try database.read { db in
            guard let area = try SkinStore(db).area(named: text) else { throw SkinJournalError.areaNotFound }
            return area
        }
    }

    /// Adds an area. Throws `emptyName`, `nameTaken`.
    @discardableResult
    public func addArea(name: String, bodyLocation: String? = nil, guidance: String = "") throws -> TrackingArea {
        let clean = try Self.cleanName(name)
        let location = try bodyLocation.map { try TextInput.name($0, field: "body location") }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let guidance = try TextInput.note(guidance, field: "guidance")
        let area = TrackingArea(
            id: .random(), name: clean, bodyLocation: (location?.isEmpty ?? true) ? nil : location,
            guidance: guidance, createdAt: clock.now())
        try database.write { db in
            let store = SkinStore(db)
            try Self.checkNameFree(clean, except: nil, store)
            try store.insert(area)
        }
        return area
    }

    /// Renames an area. Throws `areaNotFound`, `emptyName`, `nameTaken`.
    public func renameArea(_ id: AreaID, to name: String) throws {
        let clean = try Self.cleanName(name)
        try database.write { db in
            let store = SkinStore(db)
            _ = try Self.area(id, store)
            try Self.checkNameFree(clean, except: id, store)
            try store.rename(id, to: clean)
        }
    }

    /// Deletes an area with every photo of it. Throws `areaNotFound`.
    public func deleteArea(_ id: AreaID) throws {
        try database.write { db in
            let store = SkinStore(db)
            _ = try Self.area(id, store)
            for photo in try store.deleteArea(id) { try photoStore.delete(photo, in: db) }
        }
    }

    // MARK: entries

    /// Logs a photo of `area`: stores the photo and thumbnail through `PhotoIntake`, its capture-quality
    /// scores and comparison data, and its comparison with the area's baseline, all in one transaction.
    /// `capturedAt` defaults to the camera's date, else now. A file that is not a readable image throws
    /// `unreadablePhoto` and stores nothing.
    @discardableResult
    public func log(
        photo data: Data, in area: AreaID, note: String = "", capturedAt: Date? = nil,
        timeZone: TimeZone? = nil
    ) throws -> TrackingEntry {
        // Everything that can fail on bad input happens before the vault is touched.
        let note = try TextInput.note(note, field: "note")
        // The analysis copy (libvips' shrink-on-load, which the comparator was calibrated on, or the same from the
        // re-encode's own decode: `ImagePipeline.ingest(_:thumbnailSide:analysisSide:verify:)`) is the thumbnail's
        // source too; the intake's encoding happens before the write transaction, which then only stores the files
        // and rows.
        let image: RGBImage
        let processed: ProcessedPhoto
        do {
            (processed, image) = try intake.process(data, analysisSide: Self.analysisSide)
        } catch let error as ImagingError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        let quality = CaptureQualityAnalyzer.analyze(image)
        let fingerprint: ComparisonFingerprint
        do {
            fingerprint = try SkinComparator.fingerprint(of: image)
        } catch let error as CairnError {
            throw SkinJournalError.unreadablePhoto(error.userMessage)
        }
        // The comparison with the area's current baseline runs here, on a read snapshot, outside the write
        // transaction (which would hold every other writer for its ~30 ms); the write stores it when the baseline is
        // still that one. Only when it is not (a photo dated before the baseline becomes the new one) or the
        // baseline's data must be extracted again does `reanchor` compare inside the write.
        let compared = try? database.read { db -> (baselineID: String, result: SkinComparisonResult)? in
            let store = SkinStore(db)
            guard let baselineID = try store.baselineID(of: area), let baseline = try? preparedFromStore(baselineID, store) else {
                return nil
            }
            return (baselineID, try SkinComparator.compare(baseline: baseline, probe: SkinComparator.prepare(fingerprint)))
        }
        return try database.write { db in
            let store = SkinStore(db)
            _ = try Self.area(area, store)
            let photo = try intake.save(processed, purpose: Self.photoPurpose, in: db)
            let instant = capturedAt ?? photo.captureDate?.instant ?? clock.now()
            let zone = timeZone ?? photo.captureDate?.utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? clock.timeZone
            let entry = TrackingEntry(
                id: .random(), areaID: area, capturedAt: instant, timeZone: zone.identifier,
                photoID: photo.full.id, thumbnailID: photo.thumbnail.id,
                note: note, quality: quality)
            try store.insert(entry, fingerprint: fingerprint, at: clock.now())
            if !note.isEmpty { try store.appendNote(note, to: entry.id, at: clock.now()) }
            if let compared, compared.baselineID != entry.id.rawValue, try store.baselineID(of: area) == compared.baselineID {
                try storeComparison(compared.result, of: entry.id.rawValue, baselineID: compared.baselineID, area: area, store)
            }
            try reanchor(area, in: db)
            return entry
        }
    }

    /// The area's entries oldest first, each with its stored comparison with the baseline. Reads stored rows
    /// only (no photo or comparison data is loaded). Throws `areaNotFound`.
    public func timeline(of areaID: AreaID) throws -> SkinTimeline {
        try database.read { db in
            let store = SkinStore(db)
            let area = try Self.area(areaID, store)
            let rows = try store.timeline(of: areaID, baselineID: try store.baselineID(of: areaID), revision: ComparisonRevision.current.number)
            let items = rows.enumerated().map { index, row in
                SkinTimelineItem(entry: row.entry, isBaseline: index == 0, comparison: row.comparison)
            }
            return SkinTimeline(area: area, items: items)
        }
    }

    /// The entry `id` of `area`. Throws `entryNotFound` (also for another area's entry).
    public func entry(_ id: EntryID, in areaID: AreaID) throws -> TrackingEntry {
        try database.read { db in try Self.entry(id, in: areaID, SkinStore(db)) }
    }

    /// The comparison of `entry` with the baseline of `area`, as stored. There is no way to ask for a
    /// comparison across areas: the entry must belong to `area` (else `entryNotFound`).
    public func comparison(of entryID: EntryID, in areaID: AreaID) throws -> SkinComparisonView {
        try database.read { db in
            let store = SkinStore(db)
            let area = try Self.area(areaID, store)
            let entry = try Self.entry(entryID, in: areaID, store)
            guard let baseline = try store.oldestEntries(of: areaID, limit: 1).first else { throw SkinJournalError.entryNotFound }
            guard baseline.id != entry.id,
                let stored = try store.comparison(
                    of: entry.id, baseline: baseline.id, in: areaID,
                    revision: ComparisonRevision.current.number)
            else {
                return SkinComparisonView(area: area, baseline: baseline, entry: entry, comparison: nil, details: nil, changeMap: nil)
            }
            return SkinComparisonView(
                area: area, baseline: baseline, entry: entry, comparison: stored.comparison,
                details: stored.details, changeMap: stored.changeMap)
        }
    }

    /// What deleting `entry` would do (for the confirmation). Throws `entryNotFound`.
    public func deletionConsequence(of entryID: EntryID, in areaID: AreaID) throws -> SkinDeletionConsequence {
        try database.read { db in
            let store = SkinStore(db)
            _ = try Self.entry(entryID, in: areaID, store)
            let oldest = try store.oldestEntries(of: areaID, limit: 2)
            guard oldest.first?.id == entryID else { return SkinDeletionConsequence(isBaseline: false, nextBaseline: nil, recomparedCount: 0) }
            let count = try store.entryCount(of: areaID)
            return SkinDeletionConsequence(
                isBaseline: true, nextBaseline: oldest.count > 1 ? oldest[1] : nil,
                recomparedCount: max(0, count - 2))
        }
    }

    /// Deletes an entry, its photo and thumbnail. When it was the baseline, every other entry is compared
    /// with the next-oldest one in the same transaction. Throws `entryNotFound`.
    public func deleteEntry(_ entryID: EntryID, in areaID: AreaID) throws {
        try database.write { db in
            let store = SkinStore(db)
            let entry = try Self.entry(entryID, in: areaID, store)
            try store.deleteEntry(entryID, in: areaID)
            try photoStore.delete(entry.photoID, in: db)
            try photoStore.delete(entry.thumbnailID, in: db)
            try reanchor(areaID, in: db)
        }
    }

    /// The JPEG bytes of an entry's photo or thumbnail. Throws `entryNotFound`.
    public func photoData(of entryID: EntryID, in areaID: AreaID, thumbnail: Bool) throws -> Data {
        let entry = try database.read { db in try Self.entry(entryID, in: areaID, SkinStore(db)) }
        return try photoStore.data(for: thumbnail ? entry.thumbnailID : entry.photoID)
    }

    /// The change map as a picture the size of the baseline's thumbnail, for an overlay (black is transparent under
    /// the page's screen blend): a warm outline around each region of clear change, so the spot itself stays visible
    /// inside it; with `notCompared`, a light hatching over what was not compared instead (outside the other photo once
    /// lined up, or something else at the edge). The map covers the first photo's whole frame. Nil for the
    /// baseline itself or when the photos were not comparable.
    public func changeMapJPEG(of entryID: EntryID, in areaID: AreaID, notCompared: Bool = false) throws -> Data? {
        let view = try comparison(of: entryID, in: areaID)
        guard let map = view.changeMap, view.comparison?.comparable == true,
            let thumb = try photoStore.photo(view.baseline.thumbnailID)
        else { return nil }
        let overlay = try pipeline.changeOverlay(
            map.values, mapWidth: map.width, mapHeight: map.height, width: thumb.width, height: thumb.height,
            layer: notCompared ? .notCompared : .change(outline: true))
        return try pipeline.encodeJPEG(overlay, quality: 85)
    }

    // MARK: notes

    /// Every version of an entry's note, oldest first (the last one is the current note; an empty text
    /// means the note was removed then). Throws `entryNotFound`.
    public func noteHistory(of entryID: EntryID, in areaID: AreaID) throws -> [SkinNoteVersion] {
        try database.read { db in
            let store = SkinStore(db)
            _ = try Self.entry(entryID, in: areaID, store)
            return try store.noteVersions(of: entryID)
        }
    }

    /// What the note page shows, read in one transaction: the area, the entry and every version of its note
    /// (`noteHistory`). Throws `areaNotFound`, `entryNotFound`.
    public func noteView(of entryID: EntryID, in areaID: AreaID) throws -> SkinNoteView {
        try database.read { db in
            let store = SkinStore(db)
            return SkinNoteView(
                area: try Self.area(areaID, store), entry: try Self.entry(entryID, in: areaID, store),
                history: try store.noteVersions(of: entryID))
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
            let store = SkinStore(db)
            let entry = try Self.entry(entryID, in: areaID, store)
            guard entry.note != clean else { return false }
            try store.appendNote(clean, to: entryID, at: clock.now())
            return true
        }
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
        return LiveFrameScores(
            quality: CaptureQualityAnalyzer.analyze(image),
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

    // MARK: comparisons

    /// Recomputes the stored comparisons of every area that has entries without a comparison of this build's
    /// revision (after an upgrade to a new comparison revision, old rows are never shown or mixed, so these
    /// entries read "Not compared yet" until then). Returns how many areas were brought up to date. Views never
    /// call this; run it once after opening the application (it re-reads photos of outdated comparison data).
    @discardableResult
    public func recompareOutdatedAreas() throws -> Int {
        let revision = ComparisonRevision.current.number
        let outdated = try database.read { try SkinStore($0).areasMissingComparisons(revision: revision) }
        for area in outdated { try database.write { db in try reanchor(area, in: db) } }
        return outdated.count
    }

    /// Makes the stored comparisons of `area` match its current baseline and this build's revision: rows for
    /// other baselines or revisions are removed, missing rows computed from stored comparison data.
    func reanchor(_ area: AreaID, in db: Connection) throws {
        let store = SkinStore(db)
        guard let baselineID = try store.baselineID(of: area) else { return }
        let revision = ComparisonRevision.current.number
        try store.removeComparisons(in: area, otherThan: baselineID, revision: revision)
        let missing = try store.entriesMissingComparison(in: area, baselineID: baselineID, revision: revision)
        guard !missing.isEmpty else { return }
        let baseline = try prepared(baselineID, store)
        for id in missing {
            try storeComparison(
                SkinComparator.compare(baseline: baseline, probe: prepared(id, store)), of: id, baselineID: baselineID,
                area: area, store)
        }
    }

    /// Stores one comparison row: the figure (clamped to 0-100, none when not comparable, with the reason), the
    /// change map as bytes and the details as JSON.
    private func storeComparison(
        _ result: SkinComparisonResult, of entryID: String, baselineID: String, area: AreaID,
        _ store: SkinStore
    ) throws {
        let mapBytes = Data(result.changeMap.bytes)
        let details = String(
            decoding: try JSONEncoder().encode(ComparisonDetails(alignment: result.alignment, diagnostics: result.diagnostics)),
            as: UTF8.self)
        let similarity = result.comparable ? result.similarityPercent.map { min(max($0, 0), 100) } : nil
        try store.insertComparison(
            entryID: entryID, baselineID: baselineID, area: area, result: result, similarity: similarity,
            reason: similarity == nil ? (result.reasonNotComparable ?? .alignmentFailed) : nil,
            changeMap: mapBytes, details: details)
    }

    /// An entry prepared from its stored comparison data of this build's revision, without touching its photo
    /// (throws when that data is missing, of another revision or unreadable: `prepared` then extracts it again).
    private func preparedFromStore(_ id: String, _ store: SkinStore) throws -> PreparedPhoto {
        guard let stored = try store.comparisonData(of: id), stored.revision == ComparisonRevision.current.number,
            let data = stored.fingerprint
        else { throw SkinJournalError.entryNotFound }
        return try SkinComparator.prepare(FingerprintCoding.decode(data))
    }

    /// An entry prepared for comparison from its stored data; re-extracted from its stored photo (and saved)
    /// when the stored data was made by another revision or cannot be read.
    private func prepared(_ id: String, _ store: SkinStore) throws -> PreparedPhoto {
        if let photo = try? preparedFromStore(id, store) { return photo }
        guard let stored = try store.comparisonData(of: id) else { throw SkinJournalError.entryNotFound }
        // Inside the caller's transaction: read the file through the row this connection sees.
        let data = try photoStore.data(for: stored.photoID, in: store.db)
        let fresh = try SkinComparator.fingerprint(of: pipeline.decodeRGB(data, maxSide: Self.analysisSide))
        try store.updateComparisonData(of: id, fingerprint: fresh)
        return try SkinComparator.prepare(fresh)
    }

    // MARK: rows

    static func cleanName(_ name: String) throws -> String {
        let clean = try TextInput.name(name, field: "area name").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !clean.isEmpty else { throw SkinJournalError.emptyName }
        return clean
    }

    static func checkNameFree(_ name: String, except id: AreaID?, _ store: SkinStore) throws {
        if try store.isNameTaken(name, except: id) { throw SkinJournalError.nameTaken }
    }

    static func area(_ id: AreaID, _ store: SkinStore) throws -> TrackingArea {
        guard let area = try store.area(id) else { throw SkinJournalError.areaNotFound }
        return area
    }

    static func entry(_ id: EntryID, in area: AreaID, _ store: SkinStore) throws -> TrackingEntry {
        guard let entry = try store.entry(id, in: area) else { throw SkinJournalError.entryNotFound }
        return entry
    }

    /// `SkinStore.storedInstant(_:)`, for tests.
    public static func instantForTesting(_ text: String) -> Date { SkinStore.storedInstant(text) }
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
