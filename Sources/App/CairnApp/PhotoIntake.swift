import CairnCore
import Foundation
import Imaging
import PhotoMetadata
import Storage

/// A photo taken into the vault: the upright, metadata-free full image and its thumbnail, both stored.
public struct IntakePhoto: Sendable, Equatable {
    public let full: StoredPhoto
    public let thumbnail: StoredPhoto
    /// When the camera says it was taken, read before the metadata was stripped.
    public let captureDate: CaptureDate?
}

/// A photo `PhotoIntake.process` made and checked with the metadata inspector in memory. Only `process` makes one,
/// so `save` knows its bytes passed the inspector.
public struct ProcessedPhoto: Sendable {
    public let photo: IngestedPhoto

    fileprivate init(_ photo: IngestedPhoto) { self.photo = photo }
}

/// The one path by which a photo file enters the vault: the image pipeline orients it, strips it and makes a
/// thumbnail; Cairn's own metadata inspector checks what the pipeline produced; the file store writes under a temp
/// name, fsyncs, reads the file back and checks that it holds exactly the inspected bytes (so they are not decoded
/// a second time: the inspector's Huffman decoding was a tenth of a 12 MP `skin log`), renames and records the rows
/// in the caller's transaction. Bad input fails before anything touches the vault.
public struct PhotoIntake: Sendable {
    /// The metadata every stored photo may carry: at most a bare JFIF header (libjpeg writes one; libvips, which
    /// encodes thumbnails, crops and side-by-sides, writes none), and nothing else.
    public static let allowList = MetadataAllowList.cairnJPEG
    /// Thumbnails fit in a square of this side.
    public static let thumbnailSide = 512

    private let pipeline: ImagePipeline
    private let store: PhotoFileStore

    public init(pipeline: ImagePipeline, store: PhotoFileStore) {
        self.pipeline = pipeline
        self.store = store
    }

    /// Ingests `data` inside the caller's write transaction, so the journal's own rows and the photo rows
    /// commit or roll back together. `purpose` names the journal use ("skin", "smile"); the thumbnail gets
    /// `purpose + ".thumbnail"`.
    public func ingest(_ data: Data, purpose: String, in db: Connection) throws -> IntakePhoto {
        try save(try process(data), purpose: purpose, in: db)
    }

    /// The first half of `ingest`, in memory only (the vault is not touched): orients, strips, encodes and
    /// verifies `data`, so a caller can do it before its write transaction. Throws `ImagingError` or `MetadataError`.
    public func process(_ data: Data) throws -> ProcessedPhoto {
        ProcessedPhoto(try pipeline.ingest(data, thumbnailSide: Self.thumbnailSide, verify: Self.verify))
    }

    /// `process`, together with the upright copy `ImagePipeline.decodeRGB(_:maxSide: analysisSide)` makes, which
    /// is also the thumbnail's source; one decode serves both where the pipeline can
    /// (`ImagePipeline.ingest(_:thumbnailSide:analysisSide:verify:)`). Throws `ImagingError` or `MetadataError`.
    public func process(_ data: Data, analysisSide: Int) throws -> (photo: ProcessedPhoto, analysis: RGBImage) {
        let made = try pipeline.ingest(data, thumbnailSide: Self.thumbnailSide, analysisSide: analysisSide, verify: Self.verify)
        return (ProcessedPhoto(made.photo), made.analysis)
    }

    /// The second half of `ingest`: stores a processed photo and its thumbnail inside the caller's write
    /// transaction (each file fsynced, read back and checked before its row is written).
    public func save(_ processed: ProcessedPhoto, purpose: String, in db: Connection) throws -> IntakePhoto {
        let photo = processed.photo
        let full = try store.write(
            photo.jpeg, purpose: purpose, mediaType: .jpeg, width: photo.width,
            height: photo.height, in: db
        ) { try Self.verify(readBack: $0, inspected: photo.jpeg) }
        let thumbnail = try store.write(
            photo.thumbnail, purpose: purpose + ".thumbnail", mediaType: .jpeg,
            width: photo.thumbnailWidth, height: photo.thumbnailHeight, in: db
        ) {
            try Self.verify(readBack: $0, inspected: photo.thumbnail)
        }
        return IntakePhoto(full: full, thumbnail: thumbnail, captureDate: photo.captureDate)
    }

    /// Ingests `data` in a transaction of its own.
    public func ingest(_ data: Data, purpose: String, database: Database) throws -> IntakePhoto {
        try database.write { db in try ingest(data, purpose: purpose, in: db) }
    }

    /// Stores JPEG bytes Cairn made itself from pixels (a crop, a side-by-side), verified the same way.
    public func storeEncoded(_ image: RGBImage, quality: Int = 90, purpose: String, in db: Connection) throws -> StoredPhoto {
        let jpeg = try pipeline.encodeJPEG(image, quality: quality)
        try Self.verify(jpeg)
        return try store.write(
            jpeg, purpose: purpose, mediaType: .jpeg, width: image.width, height: image.height,
            in: db
        ) { try Self.verify(readBack: $0, inspected: jpeg) }
    }

    /// Throws unless `jpeg` carries nothing beyond the allow-list.
    static func verify(_ jpeg: Data) throws {
        try MetadataInspector.verifyClean(jpeg, allowList: allowList)
    }

    /// The read-back check of a file whose bytes passed `verify` in memory: bytes read back that are exactly those
    /// are clean; any other bytes go through the inspector. (The file store has also compared them already.)
    static func verify(readBack: Data, inspected: Data) throws {
        if readBack != inspected { try verify(readBack) }
    }
}
