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
    /// JPEG source transcoded losslessly: its DCT coefficients (rotated/flipped when the orientation asks for
    /// it) written into a new file by libjpeg-turbo's tjTransform (COPYNONE): fresh markers, Huffman data
    /// coded again, the source's quantisation tables kept. No generation loss.
    case losslessTransform
    /// YCbCr or grey JPEG source: decoded by libjpeg-turbo to Y/Cb/Cr planes (no colour conversion), each
    /// plane turned upright when it must turn, encoded again (quality 90, libjpeg's own tables) with no
    /// metadata; the thumbnail is made from the source at the same time on a second thread (decoded at a
    /// reduced DCT scale). A large photo that must turn is turned in bands, each decoded again from the source
    /// (the same file; `ImagePipeline.turnLimit`).
    case planarReencode
    /// Decoded, turned upright, converted to sRGB and encoded again by libvips (quality 90), with no metadata.
    case reencode
}

/// Which path `ImagePipeline.ingest` may take for a JPEG source (other formats are always re-encoded).
public enum IngestStrategy: Sendable, Equatable {
    /// The default, chosen by measurement (see the cairn-bench `ingest` section): the planar re-encode
    /// (`IngestPath.planarReencode`) for a YCbCr or grey JPEG without a non-sRGB profile, upright or not;
    /// libvips re-encode for everything else (CMYK, other profiles, any libjpeg-turbo warning such as
    /// bytes padded into the scan). Every stored photo is thereby a new libjpeg file with libjpeg's standard
    /// quantisation tables at quality 90, so the tables no longer name the camera or the editing software
    /// (exiftool -JPEGDigest on a Photoshop file said "Adobe Photoshop, Quality 9" when they were copied).
    /// The cost, measured by `cairn-bench ingest`: an upright 12 MP photo now decodes and encodes again
    /// (about the time of the turned case) where it used to copy segments; one generation of Q90 loss.
    case automatic
    /// Lossless whenever the JPEG allows it (`IngestPath.losslessTransform`): no generation loss, but the
    /// source's quantisation tables stay, and with them what they say about the camera or editor.
    case losslessWherePossible
    /// Always decode and encode again with libvips (the `IngestPath.reencode` route).
    case alwaysReencode
}

/// The output of an ingest: oriented JPEGs with no metadata, ready for the storage adapter to write.
public struct IngestedPhoto: Sendable, Equatable {
    /// The full-size, upright JPEG; carries a bare JFIF header (libjpeg's paths) or no APP0 at all (libvips'), and
    /// nothing else.
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
