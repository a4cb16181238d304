import Foundation
import PhotoMetadata

/// Limits applied before any pixel is decoded.
public struct ImageLimits: Sendable, Equatable {
    /// Largest width x height accepted (after reading the header only). About 100 MP by default.
    public var maxPixels: Int
    /// Largest encoded file accepted, in bytes.
    public var maxBytes: Int

    /// Makes limits; the defaults are 100 million pixels and 64 MiB.
    public init(maxPixels: Int = 100_000_000, maxBytes: Int = 64 * 1_048_576) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
    }
}

/// The image formats Cairn takes in.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg, png, heic, webp
}

/// What a header read tells about a photo, before any pixel is decoded.
public struct ImageInfo: Sendable, Equatable {
    /// The format found by the file's signature.
    public let format: ImageFormat
    /// Width as the photo is meant to be seen (after applying the orientation).
    public let width: Int
    /// Height as the photo is meant to be seen (after applying the orientation).
    public let height: Int
    /// The EXIF orientation 1-8 (1 when absent).
    public let orientation: Int
    /// When the photo was taken, from DateTimeOriginal and OffsetTimeOriginal; nil when absent or unreadable.
    public let captureDate: CaptureDate?
}

/// How the full-size JPEG of an ingest was produced.
public enum IngestPath: String, Sendable, Equatable {
    /// JPEG source already upright: its coding segments copied byte for byte behind a fresh JFIF header,
    /// every APPn/COM segment and trailing byte dropped. No decoding, no generation loss.
    case segmentCopy
    /// JPEG source turned upright losslessly: DCT coefficients rotated/flipped with libjpeg-turbo's
    /// tjTransform (COPYNONE), so no generation loss.
    case losslessTransform
    /// JPEG source that must turn: decoded by libjpeg-turbo to Y/Cb/Cr planes (no colour conversion), each
    /// plane turned upright, encoded again (quality 90) with no metadata; the thumbnail is made from the
    /// source at the same time on a second thread (decoded at a reduced DCT scale).
    case planarReencode
    /// Decoded, turned upright, converted to sRGB and encoded again by libvips (quality 90), with no metadata.
    case reencode
}

/// Which path `ImagePipeline.ingest` may take for a JPEG source (other formats are always re-encoded).
public enum IngestStrategy: Sendable, Equatable {
    /// The default, chosen by measurement (see the cairn-bench `ingest` section): segment copy when the photo
    /// is already upright; the planar re-encode (`IngestPath.planarReencode`) when a YCbCr or grey JPEG
    /// without a non-sRGB profile must turn; libvips re-encode for everything else (CMYK, other profiles, any
    /// libjpeg-turbo warning). The lossless turn is not the default: at 12 MP it costs more CPU than a re-encode.
    case automatic
    /// Lossless whenever the JPEG allows it, turns included: no generation loss, more memory and time.
    case losslessWherePossible
    /// Always decode and encode again with libvips (the `IngestPath.reencode` route).
    case alwaysReencode
}

/// The output of an ingest: oriented JPEGs with no metadata, ready for the storage adapter to write.
public struct IngestedPhoto: Sendable, Equatable {
    /// The full-size, upright JPEG; carries a JFIF header and nothing else.
    public let jpeg: Data
    /// A JPEG thumbnail whose longer side is at most the requested size.
    public let thumbnail: Data
    /// Width of `jpeg` in pixels.
    public let width: Int
    /// Height of `jpeg` in pixels.
    public let height: Int
    /// Width of `thumbnail` in pixels.
    public let thumbnailWidth: Int
    /// Height of `thumbnail` in pixels.
    public let thumbnailHeight: Int
    /// The capture date read from the source's EXIF before it was stripped.
    public let captureDate: CaptureDate?
    /// The format of the source bytes.
    public let sourceFormat: ImageFormat
    /// How `jpeg` was produced.
    public let path: IngestPath
}

