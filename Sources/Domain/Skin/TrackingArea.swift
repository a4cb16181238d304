import CairnCore
import Foundation

/// Tag for Skin tracking areas.
public enum SkinAreaTag {}
/// The identifier of a Skin tracking area.
public typealias AreaID = Identifier<SkinAreaTag>
/// Tag for Skin journal entries.
public enum SkinEntryTag {}
/// The identifier of one photo entry of a Skin tracking area.
public typealias EntryID = Identifier<SkinEntryTag>

/// A patch of skin the person photographs over time.
public struct TrackingArea: Sendable, Equatable {
    /// Its identifier.
    public let id: AreaID
    /// The person's name for it ("Left forearm").
    public let name: String
    /// Where on the body it is, when given.
    public let bodyLocation: String?
    /// How to take its photos (distance, light, pose), shown when capturing.
    public let guidance: String
    /// When it was added.
    public let createdAt: Date

    /// An area from stored fields.
    public init(id: AreaID, name: String, bodyLocation: String?, guidance: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.bodyLocation = bodyLocation
        self.guidance = guidance
        self.createdAt = createdAt
    }
}

/// One photo of an area: when it was taken, the stored photo and thumbnail, a note and its capture quality.
public struct TrackingEntry: Sendable, Equatable {
    /// Its identifier.
    public let id: EntryID
    /// The area it belongs to.
    public let areaID: AreaID
    /// The capture instant.
    public let capturedAt: Date
    /// The time zone the photo was taken in (an identifier such as "Europe/Berlin" or "GMT+0100").
    public let timeZone: String
    /// The stored full-size photo.
    public let photoID: PhotoID
    /// The stored thumbnail.
    public let thumbnailID: PhotoID
    /// The person's note (may be empty).
    public let note: String
    /// Brightness and sharpness scores of the photo.
    public let quality: CaptureQuality

    /// An entry from stored fields.
    public init(
        id: EntryID, areaID: AreaID, capturedAt: Date, timeZone: String, photoID: PhotoID,
        thumbnailID: PhotoID, note: String, quality: CaptureQuality
    ) {
        self.id = id
        self.areaID = areaID
        self.capturedAt = capturedAt
        self.timeZone = timeZone
        self.photoID = photoID
        self.thumbnailID = thumbnailID
        self.note = note
        self.quality = quality
    }
}

/// The stored outcome of comparing one entry with its area's baseline (never recomputed by a view).
public struct StoredComparison: Sendable, Equatable {
    /// The compared entry.
    public let entryID: EntryID
    /// The baseline it was compared with (the area's oldest entry when it was stored).
    public let baselineID: EntryID
    /// The method revision that produced it.
    public let revision: ComparisonRevision
    /// False when the photos could not be compared; then there is no similarity.
    public let comparable: Bool
    /// Visual similarity 0...100, nil when not comparable.
    public let similarityPercent: Double?
    /// Raw distance, higher = more different (shown only with "Show comparison details").
    public let rawScore: Double
    /// Why not comparable, when `comparable` is false.
    public let reasonNotComparable: NotComparableReason?

    /// A comparison from stored fields.
    public init(
        entryID: EntryID, baselineID: EntryID, revision: ComparisonRevision, comparable: Bool,
        similarityPercent: Double?, rawScore: Double, reasonNotComparable: NotComparableReason?
    ) {
        self.entryID = entryID
        self.baselineID = baselineID
        self.revision = revision
        self.comparable = comparable
        self.similarityPercent = similarityPercent
        self.rawScore = rawScore
        self.reasonNotComparable = reasonNotComparable
    }

    /// How far the entry is from the baseline on a 0 (same) ... 1 (very different) scale, for the trend.
    public var magnitude: Double? { similarityPercent.map { (100 - $0) / 100 } }
}

/// The alignment and secondary figures behind a stored comparison (for "Show comparison details").
public struct ComparisonDetails: Sendable, Equatable, Codable {
    /// How the probe was lined up.
    public let alignment: AlignmentSummary
    /// Secondary figures.
    public let diagnostics: ComparisonDiagnostics

    /// Details from a comparison result.
    public init(alignment: AlignmentSummary, diagnostics: ComparisonDiagnostics) {
        self.alignment = alignment
        self.diagnostics = diagnostics
    }
}

/// Binary storage of a fingerprint: "SKF1", revision, width, height (little-endian 32-bit), then the pixels.
public enum FingerprintCoding {
    static let magic: [UInt8] = Array("SKF1".utf8)

    /// The stored bytes of `fingerprint`.
    public static func encode(_ fingerprint: ComparisonFingerprint) -> Data {
        var data = Data(magic)
        for value in [fingerprint.revision.number, fingerprint.width, fingerprint.height] {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: fingerprint.pixels)
        return data
    }

    /// The fingerprint stored in `data`. Throws `SkinComparisonError.corruptFingerprint` for anything else.
    public static func decode(_ data: Data) throws -> ComparisonFingerprint {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, Array(bytes[0..<4]) == magic else { throw SkinComparisonError.corruptFingerprint }
        func word(_ at: Int) -> Int {
            Int(UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
        }
        let revision = word(4)
        let width = word(8)
        let height = word(12)
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14,
            bytes.count == 16 + width * height * 3
        else { throw SkinComparisonError.corruptFingerprint }
        return ComparisonFingerprint(
            revision: ComparisonRevision(revision), width: width, height: height,
            pixels: Array(bytes[16...]))
    }
}

extension CaptureQuality {
    /// Scores from stored measurements; the flags are derived with `CaptureQualityAnalyzer`'s thresholds.
    public init(meanLuminance: Double, darkClippedFraction: Double, brightClippedFraction: Double, sharpness: Double) {
        self.init(
            meanLuminance: meanLuminance, darkClippedFraction: darkClippedFraction,
            brightClippedFraction: brightClippedFraction, sharpness: sharpness,
            isTooDark: meanLuminance < CaptureQualityAnalyzer.darkLimit,
            isTooBright: meanLuminance > CaptureQualityAnalyzer.brightLimit,
            isClipped: darkClippedFraction + brightClippedFraction > CaptureQualityAnalyzer.clippingLimit,
            isSoft: sharpness < CaptureQualityAnalyzer.softLimit)
    }
}
