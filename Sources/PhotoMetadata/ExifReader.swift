import Foundation

// INTERFACE PINNED BY THE INTEGRATOR (see MetadataInspector.swift).

/// When a photo was taken, as the camera recorded it: DateTimeOriginal plus OffsetTimeOriginal when present.
public struct CaptureDate: Sendable, Equatable, Codable {
    /// Local wall-clock time as written by the camera, "yyyy-MM-dd'T'HH:mm:ss".
    public let localDateTime: String
    /// The camera's UTC offset in seconds (OffsetTimeOriginal), when it wrote one.
    public let utcOffsetSeconds: Int?
    public init(localDateTime: String, utcOffsetSeconds: Int?) {
        self.localDateTime = localDateTime; self.utcOffsetSeconds = utcOffsetSeconds
    }
    /// The instant, when the offset is known; nil otherwise (a local time alone is not an instant).
    public var instant: Date? {
        guard let offset = utcOffsetSeconds else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        f.timeZone = TimeZone(secondsFromGMT: offset)
        return f.date(from: localDateTime)
    }
}

/// What Cairn needs from an EXIF block.
public struct ExifSummary: Sendable, Equatable {
    /// EXIF orientation 1-8, nil when absent.
    public var orientation: Int?
    public var captureDate: CaptureDate?
    public var hasGPS: Bool
    public var hasMakerNotes: Bool
    public var hasThumbnail: Bool
    public init(orientation: Int? = nil, captureDate: CaptureDate? = nil, hasGPS: Bool = false,
                hasMakerNotes: Bool = false, hasThumbnail: Bool = false) {
        self.orientation = orientation; self.captureDate = captureDate; self.hasGPS = hasGPS
        self.hasMakerNotes = hasMakerNotes; self.hasThumbnail = hasThumbnail
    }
}

/// Parses an EXIF block: a TIFF structure, with or without the "Exif\0\0" prefix (as in JPEG APP1, PNG
/// eXIf, HEIF, or libvips' "exif-data" field).
public enum ExifReader {
    public static func read(_ exif: Data) throws -> ExifSummary {
        fatalError("ExifReader.read: not implemented yet")
    }
    /// The EXIF block of a JPEG or PNG file, if it has one.
    public static func exifBlock(in fileData: Data) throws -> Data? {
        fatalError("ExifReader.exifBlock: not implemented yet")
    }
}
