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

/// The one path by which a photo file enters the vault: the image pipeline orients it, strips it and makes a
/// thumbnail; Cairn's own metadata inspector checks what the pipeline produced and again what was read back
/// from disk; the file store writes under a temp name, fsyncs, renames and records the rows in the caller's
/// transaction. Bad input fails before anything touches the vault.
public struct PhotoIntake: Sendable {
    /// The metadata every stored photo may carry: a JFIF header and nothing else.
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
    public func process(_ data: Data) throws -> IngestedPhoto {
        try pipeline.ingest(data, thumbnailSide: Self.thumbnailSide, verify: Self.verify)
    }

    /// The second half of `ingest`: stores a processed photo and its thumbnail inside the caller's write
    /// transaction (each file fsynced, read back and verified before its row is written).
    public func save(_ photo: IngestedPhoto, purpose: String, in db: Connection) throws -> IntakePhoto {
        let full = try store.write(photo.jpeg, purpose: purpose, mediaType: .jpeg, width: photo.width,
                                   height: photo.height, in: db, verify: Self.verify)
        let thumbnail = try store.write(photo.thumbnail, purpose: purpose + ".thumbnail", mediaType: .jpeg,
                                        width: photo.thumbnailWidth, height: photo.thumbnailHeight, in: db,
                                        verify: Self.verify)
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
        return try store.write(jpeg, purpose: purpose, mediaType: .jpeg, width: image.width, height: image.height,
                               in: db, verify: Self.verify)
    }

    /// Throws unless `jpeg` carries nothing beyond the allow-list.
    static func verify(_ jpeg: Data) throws {
        try MetadataInspector.verifyClean(jpeg, allowList: allowList)
    }
}
