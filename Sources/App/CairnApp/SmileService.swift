import CairnCore
import Encryption
import Foundation
import Imaging
import Landmarks
import PhotoMetadata
import Smile
import Storage

/// The Smile journal: turns a photo into a fixed-size square mouth crop and keeps only that crop.
///
/// Decisions:
/// - Output: `cropSide` x `cropSide` (768) JPEG at quality 90, encoded fresh from pixels (so it carries only a
///   JFIF header), checked by the metadata inspector before the write and again on the bytes read back.
/// - The original photo is held in memory, decoded, cropped and dropped; it is never written anywhere (no temp
///   file either). Only the crop's own temp file exists, inside the photo store, removed on every path. The mouth
///   is found on a copy shrunk while decoding; only the square is decoded at full resolution (and converted from
///   the photo's colour profile), when the crop is kept.
/// - Several faces: the cascade proposes the largest; the others are offered as candidates.
/// - A proposal is kept without the person's look only when `MouthConfidenceRule` calls it confident (face
///   landmarks with plausible lips, mouth not open wide, the whole mouth inside with a margin, no eye near). Any
///   other proposal (lip colour, with or without a face; a wide-open mouth; a square the edge or the eyes pushed)
///   is refused by `confirm` without a square (`SmileError.uncertainProposal` with the reasons): the web and phone
///   pages always show the square, the CLI asks at a terminal and otherwise reports "needs a manual crop" with the
///   suggested square.
/// - A square holding an eye point of a face found in the photo is never kept, whoever placed it
///   (`SmileError.squareHoldsAnEye`).
/// - Web uploads wait for their crop in memory only (`holdUpload`): at most `maximumPendingUploads`, for
///   `pendingLifetime`, keyed by a random id. Nothing is kept until a crop is confirmed.
public final class SmileService: @unchecked Sendable {
    /// The side of every stored crop, in pixels: before and after frames share dimensions.
    public static let cropSide = 768
    /// JPEG quality of stored crops and side-by-sides.
    public static let cropQuality = 90
    /// The `photos.purpose` of crops.
    public static let purpose = "smile"
    /// The smallest square accepted (original pixels): 1.6 x the cascade's smallest useful mouth (24 px).
    public static let minimumSquareSide = 38
    /// How many uploads may wait for a crop at once (each holds decoded pixels in memory).
    public static let maximumPendingUploads = 4
    /// How long an upload waits for its crop.
    public static let pendingLifetime: TimeInterval = 30 * 60
    /// The gap between the two frames of a side-by-side, in pixels.
    public static let sideBySideGap = 16

    /// One landmark detector per process: the model is loaded once (lazily) and searches are serialised.
    public static let sharedLandmarkDetector = DlibLandmarkDetector()

    private let database: Database
    private let photoStore: PhotoFileStore
    private let photoIntake: PhotoIntake
    private let pipeline: ImagePipeline
    private let locator: MouthLocator
    private let clock: any Clock
    private let lock = NSLock()
    private var pending: [String: SmilePendingUpload] = [:]
    /// Waiting upload ids, oldest first (the cap drops from the front).
    private var pendingOrder: [String] = []
    /// Bumped by `discardAllPendingUploads`, so an analysis that was running then is not held afterwards.
    private var generation = 0

    /// A service over an opened vault's database and photo store.
    public init(
        database: Database, photoStore: PhotoFileStore, photoIntake: PhotoIntake, pipeline: ImagePipeline,
        locator: MouthLocator, clock: any Clock
    ) {
        self.database = database
        self.photoStore = photoStore
        self.photoIntake = photoIntake
        self.pipeline = pipeline
        self.locator = locator
        self.clock = clock
    }

    // MARK: finding the mouth (nothing stored)

    /// A photo with more pixels than this that must be turned upright (EXIF orientation) is cropped from a copy
    /// shrunk while loading (libjpeg's DCT scaling through libvips) to about this many, so memory stays flat up to
    /// the 100 MP limit: turning it needs the whole photo decoded (a 100 MP photo decoded whole took 742 MB). An
    /// upright photo of any size is read only down to the square's last row; the mouth square of a 24 or 48 MP
    /// selfie still holds about as many pixels as the 768 px crop.
    public static let analysisPixelLimit = 16_000_000

    /// The largest photo file `analyse(fileAt:)` reads (the image pipeline refuses larger ones too).
    public static let maximumFileBytes = ImageLimits().maxBytes

    /// Reads the header (limits, capture date), decodes an upright copy shrunk while loading (a JPEG by a power of
    /// two, so its longer side is 90-100% of the cascade's detection size: `decodeRGB(_:approximatelyFitting:)`)
    /// and runs the cascade on it. Throws `ImagingError` for a file that is not a usable image. Stores nothing.
    public func analyse(_ data: Data) throws -> SmileAnalysis {
        let (info, working) = try detectionCopy(of: data)
        return locate(in: working, info: info, photo: .held(data))
    }

    /// `analyse(_:)` of a photo file the person named (`cairn smile add`). A photo above `analysisPixelLimit` is
    /// not held while the cascade runs: once its detection copy is decoded its bytes are let go (a 99 MP PNG is
    /// 58 MB, dlib's model about 65 MB, and the two were held together), and `confirm` reads the file again for
    /// the crop, refusing it unless its SHA-256 is the same. Throws `InputFileError` for a file that cannot be read.
    public func analyse(fileAt path: String) throws -> SmileAnalysis {
        var data: Data? = try InputFile.read(path, maximumBytes: Self.maximumFileBytes)
        let (info, working) = try detectionCopy(of: data!)
        let photo: SmilePhotoBytes
        if info.width * info.height > Self.analysisPixelLimit {
            photo = .file(path: path, sha256: data!.withUnsafeBytes { SHA256.digest($0) })
            data = nil
        } else {
            photo = .held(data!)
        }
        return locate(in: working, info: info, photo: photo)
    }

    private func detectionCopy(of data: Data) throws -> (ImageInfo, RGBImage) {
        (try pipeline.probe(data), try pipeline.decodeRGB(data, approximatelyFitting: locator.configuration.detectionLongSide))
    }

    private func locate(in working: RGBImage, info: ImageInfo, photo: SmilePhotoBytes) -> SmileAnalysis {
        let location = locator.locate(inDetectionCopy: working, photoWidth: info.width, photoHeight: info.height)
        return SmileAnalysis(
            sourceWidth: info.width, sourceHeight: info.height, captureDate: info.captureDate,
            location: location, image: working, photo: photo, orientation: info.orientation)
    }

    /// The pixels of `square` (in the photo's pixels, inside it) at full resolution, or for a large photo that
    /// must be turned upright, from a copy shrunk to about `analysisPixelLimit` pixels.
    private func pixels(of square: CropSquare, in analysis: SmileAnalysis) throws -> RGBImage {
        let pixels = analysis.sourceWidth * analysis.sourceHeight
        let photo = try analysis.photo.data()
        guard analysis.orientation != 1, pixels > Self.analysisPixelLimit else {
            return try pipeline.decodeRGB(photo, x: square.x, y: square.y, width: square.side, height: square.side)
        }
        let shrink = (Double(pixels) / Double(Self.analysisPixelLimit)).squareRoot()
        let image = try pipeline.decodeRGB(photo, maxSide: max(1, Int(Double(max(analysis.sourceWidth, analysis.sourceHeight)) / shrink)))
        let scale = Double(analysis.sourceWidth) / Double(image.width)
        let side = max(1, min(Int((Double(square.side) / scale).rounded()), image.width, image.height))
        let x = min(max(0, Int((Double(square.x) / scale).rounded())), image.width - side)
        let y = min(max(0, Int((Double(square.y) / scale).rounded())), image.height - side)
        guard let region = pipeline.crop(image, x: x, y: y, width: side, height: side) else { throw SmileError.squareOutsidePhoto }
        return region
    }

    /// Stores the crop of `analysis` inside `square` (nil = the proposal) with `note`, in one transaction.
    /// Throws `SmileError.needsManualCrop` when nothing was found and no square was given.
    @discardableResult
    public func confirm(_ analysis: SmileAnalysis, square: CropSquare? = nil, note: String = "") throws -> SmileEntry {
        let trimmedNote = try TextInput.note(note, field: "note")
        if square == nil, analysis.proposalIsUncertain { throw SmileError.uncertainProposal(analysis.doubts) }
        guard let square = square ?? analysis.proposedSquare else {
            if case .notFound(let reason) = analysis.location { throw SmileError.needsManualCrop(reason) }
            throw SmileError.needsManualCrop(.nothingFound)
        }
        guard square.fits(width: analysis.sourceWidth, height: analysis.sourceHeight) else { throw SmileError.squareOutsidePhoto }
        guard square.side >= Self.minimumSquareSide else { throw SmileError.squareTooSmall(minimum: Self.minimumSquareSide) }
        guard !analysis.holdsAnEye(square) else { throw SmileError.squareHoldsAnEye }
        // A large photo's full-resolution rows and dlib's model (about 65 MB) are never held together: the model
        // is let go first and loaded again by the next search (from its cache, about 0.1 s).
        if analysis.sourceWidth * analysis.sourceHeight > Self.analysisPixelLimit { locator.releaseModel() }
        let crop = try pipeline.resize(try pixels(of: square, in: analysis), width: Self.cropSide, height: Self.cropSide)
        let source = analysis.source(of: square)
        let id = SmileEntryID.random()
        let now = clock.now()
        try database.write { db in
            let photo = try photoIntake.storeEncoded(crop, quality: Self.cropQuality, purpose: Self.purpose, in: db)
            try SmileStore(db, photos: photoStore).insert(
                id: id, photo: photo.id, captureDate: analysis.captureDate, note: trimmedNote,
                source: source, square: square, sourceWidth: analysis.sourceWidth,
                sourceHeight: analysis.sourceHeight, at: now)
        }
        guard let entry = try entry(id) else { throw SmileError.noSuchEntry }
        return entry
    }

    /// Analyses and, unless it needs a manual crop, stores `data` (CLI `smile add`). With `square`, that square is
    /// used whatever the cascade proposed.
    public func add(_ data: Data, square: CropSquare? = nil, note: String = "") throws -> (SmileAnalysis, SmileEntry) {
        let analysis = try analyse(data)
        return (analysis, try confirm(analysis, square: square, note: note))
    }

    /// Deletes `id`'s entry and its stored crop in one transaction (the crop's file is removed after the
    /// commit). Throws `SmileError.noSuchEntry` when there is no such entry.
    public func delete(_ id: SmileEntryID) throws {
        try database.write { db in
            guard let photo = try SmileStore(db, photos: photoStore).delete(id) else { throw SmileError.noSuchEntry }
            try photoStore.delete(photo, in: db)
        }
    }

    // MARK: reading

    /// Every entry, oldest first (by capture date when known, else by the day it was added).
    public func entries() throws -> [SmileEntry] {
        try database.read { try SmileStore($0, photos: photoStore).entries() }.sorted { ($0.sortKey, $0.id.rawValue) < ($1.sortKey, $1.id.rawValue) }
    }

    /// The entry with this identifier, or nil.
    public func entry(_ id: SmileEntryID) throws -> SmileEntry? {
        try database.read { try SmileStore($0, photos: photoStore).entry(id) }
    }

    /// The one entry whose identifier starts with `prefix` (`smile list` prints 8 characters). Throws
    /// `SmileError.noSuchEntry` or `.ambiguousID`.
    public func entry(matching prefix: IdentifierPrefix) throws -> SmileEntry {
        let ids = try database.read { try SmileStore($0, photos: photoStore).ids(startingWith: prefix.text) }
        guard !ids.isEmpty else { throw SmileError.noSuchEntry }
        guard ids.count == 1 else { throw SmileError.ambiguousID }
        guard let entry = try entry(ids[0]) else { throw SmileError.noSuchEntry }
        return entry
    }

    /// The stored crop's bytes, exactly as kept.
    public func cropJPEG(_ entry: SmileEntry) throws -> Data {
        try photoStore.data(for: entry.photo.id)
    }

    /// The bytes an export writes (the stored crop, not re-encoded), checked for metadata right now.
    public func export(_ entry: SmileEntry) throws -> SmileExport {
        let data = try cropJPEG(entry)
        let clean = (try? MetadataInspector.verifyClean(data, allowList: PhotoIntake.allowList)) != nil
        return SmileExport(entry: entry, jpeg: data, containsNoMetadata: clean)
    }

    /// A new JPEG with `before` on the left and `after` on the right (a gap between, on a warm off-white
    /// ground), verified to carry no metadata. Not stored.
    public func sideBySide(_ before: SmileEntry, _ after: SmileEntry) throws -> Data {
        let left = try pipeline.decodeRGB(cropJPEG(before))
        let right = try pipeline.decodeRGB(cropJPEG(after))
        let side = Self.cropSide
        let gap = Self.sideBySideGap
        var canvas = RGBImage(width: 2 * side + gap, height: side, red: 247, green: 244, blue: 238)
        for (image, originX) in [(left, 0), (right, side + gap)] {
            let frame = image.width == side && image.height == side ? image : try pipeline.resize(image, width: side, height: side)
            for y in 0..<side {
                let from = frame.offset(x: 0, y: y)
                let to = canvas.offset(x: originX, y: y)
                canvas.pixels.replaceSubrange(to..<(to + 3 * side), with: frame.pixels[from..<(from + 3 * side)])
            }
        }
        let jpeg = try pipeline.encodeJPEG(canvas, quality: Self.cropQuality)
        do { try MetadataInspector.verifyClean(jpeg, allowList: PhotoIntake.allowList) } catch { throw SmileError.outputNotClean }
        return jpeg
    }

    // MARK: uploads waiting for a crop (web, memory only)

    /// Analyses `data` and holds the result in memory for the crop page. Nothing touches the disk. When
    /// `maximumPendingUploads` are already waiting, the oldest is dropped.
    public func holdUpload(_ data: Data) throws -> SmilePendingUpload {
        let started = lock.withLock { generation }
        let analysis = try analyse(data)
        let upload = SmilePendingUpload(
            id: Self.randomKey(), analysis: analysis,
            expiresAt: clock.now().addingTimeInterval(Self.pendingLifetime))
        try lock.withLock {
            // All data was deleted while this photo was being analysed: it is not kept either.
            guard generation == started else { throw SmileError.uploadExpired }
            dropExpired()
            while pending.count >= Self.maximumPendingUploads, !pendingOrder.isEmpty {
                pending[pendingOrder.removeFirst()] = nil
            }
            pending[upload.id] = upload
            pendingOrder.append(upload.id)
        }
        return upload
    }

    /// The upload waiting under `id`. Throws `uploadExpired` when it is gone.
    public func pendingUpload(_ id: String) throws -> SmilePendingUpload {
        try lock.withLock {
            dropExpired()
            guard let upload = pending[id] else { throw SmileError.uploadExpired }
            return upload
        }
    }

    /// Stores the crop of a waiting upload and forgets the upload.
    @discardableResult
    public func confirmUpload(_ id: String, square: CropSquare?, note: String) throws -> SmileEntry {
        let upload = try pendingUpload(id)
        let entry = try confirm(upload.analysis, square: square, note: note)
        discardUpload(id)
        return entry
    }

    /// Forgets a waiting upload (nothing was stored for it).
    public func discardUpload(_ id: String) {
        lock.withLock {
            pending[id] = nil
            pendingOrder.removeAll { $0 == id }
        }
    }

    /// Forgets every waiting upload, and any upload still being analysed (after "Delete all data": nothing
    /// uploaded before can be saved afterwards).
    public func discardAllPendingUploads() {
        lock.withLock {
            pending = [:]
            pendingOrder = []
            generation += 1
        }
    }

    /// How many uploads are waiting (for tests and diagnostics).
    public var pendingUploadCount: Int {
        lock.withLock {
            dropExpired()
            return pending.count
        }
    }

    /// A downscaled JPEG of a waiting upload for the crop page (memory only), and the factor from its pixels
    /// to the original's (original = preview x scale).
    public func preview(of analysis: SmileAnalysis, longSide: Int = 960) throws -> (jpeg: Data, width: Int, height: Int, scale: Double) {
        let small = try pipeline.resize(analysis.image, fittingIn: longSide)
        let jpeg = try pipeline.encodeJPEG(small, quality: 85)
        return (jpeg, small.width, small.height, Double(analysis.sourceWidth) / Double(small.width))
    }

    private func dropExpired() {
        let now = clock.now()
        pending = pending.filter { $0.value.expiresAt > now }
        pendingOrder.removeAll { pending[$0] == nil }
    }

    private static func randomKey() -> String {
        (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased().prefix(32).description
    }
}
