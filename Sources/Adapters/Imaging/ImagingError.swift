import CairnCore
import Foundation

/// Why the image pipeline refused or failed on a photo. The message never quotes the file's name, path or content.
public struct ImagingError: CairnError, Equatable {
    /// What went wrong, as a value tests and callers can match on.
    public enum Kind: Equatable, Sendable {
        /// The file has no bytes at all.
        case emptyFile
        /// The bytes are not an image any loader recognises (checked by signature, not by file name).
        case notAnImage
        /// The image is recognised but cut short or damaged.
        case corrupt
        /// The picture is larger than the pixel limit (a guard against decompression bombs).
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// The file is larger than the byte limit.
        case tooManyBytes(byteCount: Int, limit: Int)
        /// A HEIF/HEIC container that holds no picture.
        case noImageInContainer
        /// An image format Cairn does not take (only JPEG, PNG, HEIC and WebP are accepted).
        case unsupportedFormat
        /// Encoding or checking the output failed.
        case writeFailed
    }

    /// What went wrong.
    public let kind: Kind
    /// The library's own text, for a developer log only: never shown to the person, never holds a path
    /// (Cairn always hands the libraries bytes, not files).
    public let libraryDetail: String?

    /// Makes an error of `kind`, optionally carrying the library's text for a log.
    public init(_ kind: Kind, libraryDetail: String? = nil) {
        self.kind = kind
        let trimmed = libraryDetail?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.libraryDetail = trimmed?.isEmpty == false ? trimmed : nil
    }

    /// Plain English, with no user content.
    public var userMessage: String {
        switch kind {
        case .emptyFile:
            return "The file is empty (0 bytes), so there is no photo to add."
        case .notAnImage:
            return "The file is not a photo Cairn can read. Use a JPEG, PNG, HEIC or WebP image."
        case .corrupt:
            return "The photo file is damaged or cut short and cannot be read. Try exporting it again."
        case .tooManyPixels(let width, let height, let limit):
            let megapixels = Double(width) * Double(height) / 1_000_000
            return "The photo is \(width) x \(height) pixels (\(Self.format(megapixels)) MP), larger than the "
                + "limit of \(Self.format(Double(limit) / 1_000_000)) MP. Use a smaller copy of it."
        case .tooManyBytes(let count, let limit):
            return "The file is \(Self.format(Double(count) / 1_048_576)) MB, larger than the limit of "
                + "\(Self.format(Double(limit) / 1_048_576)) MB."
        case .noImageInContainer:
            return "The HEIC file holds no picture, so there is nothing to add."
        case .unsupportedFormat:
            return "This kind of image is not supported. Use a JPEG, PNG, HEIC or WebP image."
        case .writeFailed:
            return "The photo could not be saved as a clean JPEG, so it was not kept."
        }
    }

    private static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
