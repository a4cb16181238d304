import CairnCore
import Encryption
import Foundation
import PhotoMetadata
import Smile
import Storage

/// Tag for Smile journal entries.
public enum SmileEntryTag {}
/// The identifier of one Smile journal entry.
public typealias SmileEntryID = Identifier<SmileEntryTag>

/// Who placed an entry's crop square: one of the cascade's steps, or the person.
public enum SmileCropSource: String, Sendable, Equatable, Codable, CaseIterable {
    /// Face landmarks.
    case landmarks
    /// Colour analysis.
    case colour
    /// The person placed the square.
    case manual

    /// The cascade step as a source.
    public init(_ detector: MouthDetector) {
        switch detector {
        case .landmarks: self = .landmarks
        case .colour: self = .colour
        }
    }

    /// Plain words for pages and the CLI.
    public var label: String {
        switch self {
        case .landmarks: return "found by face landmarks"
        case .colour: return "found by lip colour"
        case .manual: return "placed by hand"
        }
    }
}

/// One confirmed entry of the Smile journal: a fixed-size square crop of the mouth and where it came from.
public struct SmileEntry: Sendable, Equatable {
    /// The entry's identifier.
    public let id: SmileEntryID
    /// The stored crop (a `SmileService.cropSide`-square JPEG with no metadata).
    public let photo: StoredPhoto
    /// When the original photo was taken, read from its EXIF before it was discarded; nil when it had none.
    public let captureDate: CaptureDate?
    /// The person's note (may be empty).
    public let note: String
    /// Who placed the square.
    public let source: SmileCropSource
    /// The crop square in the original photo's upright pixel coordinates.
    public let square: CropSquare
    /// The original photo's upright width.
    public let sourceWidth: Int
    /// The original photo's upright height.
    public let sourceHeight: Int
    /// When the entry was confirmed.
    public let createdAt: Date

    /// The first 8 characters of the identifier, as the CLI shows it (any unique prefix is accepted back).
    public var shortID: String { String(id.rawValue.prefix(8)) }

    /// The date to show: the capture date's day and time when known, else the day it was added (UTC).
    public var displayDate: String {
        if let captureDate {
            let local = captureDate.localDateTime
            return String(local.prefix(10)) + " " + String(local.dropFirst(11).prefix(5))
        }
        return "added " + String(Timestamp.string(from: createdAt).prefix(10))
    }

    /// Sort key: capture time when known, else the time added.
    var sortKey: String { captureDate?.localDateTime ?? Timestamp.string(from: createdAt) }
}

/// What the cascade made of a photo, held in memory only until a crop is confirmed or discarded. The photo's
/// bytes and pixels never reach the disk.
public struct SmileAnalysis: Sendable {
    /// The photo's upright width.
    public let sourceWidth: Int
    /// The photo's upright height.
    public let sourceHeight: Int
    /// The capture date read from the original's EXIF.
    public let captureDate: CaptureDate?
    /// What the cascade proposes.
    public let location: MouthLocation
    /// The upright copy the cascade ran on (memory only): shrunk while decoding so its longer side is at most
    /// `MouthLocator.Configuration.detectionLongSide`; also the crop page's preview.
    let image: RGBImage
    /// The photo as uploaded or named (memory only): the crop is decoded from it at full resolution.
    let photo: SmilePhotoBytes
    /// The photo's EXIF orientation (1 when upright as stored).
    let orientation: Int

    /// The proposed square (the largest face's mouth when there are several), or nil when nothing was found.
    public var proposedSquare: CropSquare? { location.chosen?.square }

    /// Where the square starts on the crop page: the proposal, else centred at half the shorter side.
    public var startingSquare: CropSquare {
        proposedSquare ?? MouthLocator.manualStartingSquare(width: sourceWidth, height: sourceHeight)
    }

    /// Every candidate, the chosen one first (several faces: one per face, largest first).
    public var candidates: [MouthCandidate] { location.candidates }

    /// Why the proposal must be checked by the person before it is kept (`MouthConfidenceRule`); empty when it
    /// is confident or there is none.
    public var doubts: [MouthDoubt] { location.chosen?.doubts ?? [] }

    /// Whether the proposal fails `MouthConfidenceRule`: every door shows it to the person, and `confirm` keeps it
    /// only with the square given back (see `SmileService`).
    public var proposalIsUncertain: Bool { !doubts.isEmpty }

    /// Whether `square` holds an eye point of a face found upright in the photo. (A face found only in the photo
    /// turned a quarter is less sure, and a false one there would forbid the square the person chose; its own
    /// proposal keeps its eyes out all the same.)
    public func holdsAnEye(_ square: CropSquare) -> Bool {
        candidates.contains { !$0.sideways && $0.eyes.contains(where: square.contains) }
    }

    /// What to tell the person about the proposal, in plain words.
    public var message: String {
        if proposalIsUncertain { return SmileError.uncertainProposal(doubts).userMessage }
        switch location {
        case .found(let c):
            return "Your smile was \(SmileCropSource(c.detector).label). Check the square and save it."
        case .severalFaces(_, let others):
            let count = others.count + 1
            return "\(count) faces were found. The square is on the largest one; you can pick another face or move the square."
        case .notFound(let reason):
            return reason.userMessage
        }
    }

    /// The source of `square`: the candidate's step when it is exactly a candidate's square, else manual.
    public func source(of square: CropSquare) -> SmileCropSource {
        candidates.first { $0.square == square }.map { SmileCropSource($0.detector) } ?? .manual
    }
}

extension SmileAnalysis: CustomStringConvertible {
    /// Sizes and the cascade's result, never the pixels.
    public var description: String { "SmileAnalysis(\(sourceWidth)x\(sourceHeight), \(location))" }
}

/// A photo uploaded on the web page and held in memory for the crop page.
public struct SmilePendingUpload: Sendable, CustomStringConvertible {
    /// A random key (32 hex characters) naming it in the crop page's address.
    public let id: String
    /// The cascade's result and the pixels.
    public let analysis: SmileAnalysis
    /// When it stops being available.
    public let expiresAt: Date
    /// The id and the analysis summary, never the pixels.
    public var description: String { "SmilePendingUpload(\(id), \(analysis))" }
}

/// A stored crop ready to be written out, with what was checked about it.
public struct SmileExport: Sendable {
    /// The entry.
    public let entry: SmileEntry
    /// Exactly the bytes that will be written (the stored file, not re-encoded).
    public let jpeg: Data
    /// Whether Cairn's metadata inspector found nothing beyond a JFIF header (checked just now).
    public let containsNoMetadata: Bool
    /// A file name for the download: `smile-<date>-<short id>.jpg`.
    public var suggestedFileName: String {
        let day = String(entry.sortKey.prefix(10))
        return "smile-\(day)-\(entry.shortID).jpg"
    }

    /// A file name for two crops side by side: `smile-side-by-side-<day a>-<day b>.jpg`.
    public static func sideBySideFileName(_ a: SmileEntry, _ b: SmileEntry) -> String {
        "smile-side-by-side-\(a.sortKey.prefix(10))-\(b.sortKey.prefix(10)).jpg"
    }
}

/// Why the Smile journal refused an action. Messages never contain notes, paths or file names.
/// Where the full-resolution crop is read from: the bytes held in memory (an upload, a small photo), or a photo
/// file that was too large to hold beside dlib's model (see `SmileService.analyse(fileAt:)`), read again when the
/// crop is made and refused unless it is byte for byte the file that was analysed (its SHA-256).
enum SmilePhotoBytes: Sendable {
    case held(Data)
    case file(path: String, sha256: [UInt8])

    /// The bytes; throws `SmileError.photoChanged` when a re-read file differs, `InputFileError` when it is gone.
    func data() throws -> Data {
        switch self {
        case .held(let data):
            return data
        case .file(let path, let sha256):
            let data = try InputFile.read(path, maximumBytes: SmileService.maximumFileBytes)
            guard data.withUnsafeBytes({ SHA256.digest($0) }) == sha256 else { throw SmileError.photoChanged }
            return data
        }
    }
}

public enum SmileError: CairnError, Equatable {
    /// Nothing was found and no square was given: the person must place it.
    case needsManualCrop(MouthNotFoundReason)
    /// The square does not lie inside the photo.
    case squareOutsidePhoto
    /// The square is smaller than the smallest useful crop.
    case squareTooSmall(minimum: Int)
    /// No entry has this identifier.
    case noSuchEntry
    /// The identifier prefix matches several entries.
    case ambiguousID
    /// The uploaded photo is no longer held (it expired, was saved, or was discarded).
    case uploadExpired
    /// The proposal fails `MouthConfidenceRule` (the reasons): the person must check or place the square.
    case uncertainProposal([MouthDoubt])
    /// The square holds an eye point of a face in the photo: it is never kept.
    case squareHoldsAnEye
    /// A produced JPEG carried metadata (it is never written).
    case outputNotClean
    /// The photo file read again for the crop was not the file that was analysed.
    case photoChanged

    /// An entry id that matches nothing, or a held upload that is gone (expired, discarded, never made).
    public var errorKind: ErrorKind { self == .noSuchEntry || self == .uploadExpired ? .notFound : .refusedInput }

    /// Plain English for the person.
    public var userMessage: String {
        switch self {
        case .needsManualCrop(let reason): return reason.userMessage
        case .squareOutsidePhoto: return "The square must lie inside the photo. Nothing was saved."
        case .squareTooSmall(let minimum): return "The square must be at least \(minimum) pixels wide. Nothing was saved."
        case .noSuchEntry: return "There is no smile entry with that ID. Run 'cairn smile list' to see the IDs."
        case .ambiguousID: return "More than one smile entry starts with that ID. Give more of it."
        case .uploadExpired:
            return "That photo is no longer held (photos waiting for a crop are kept in memory for a short while only). Please add it again."
        case .uncertainProposal(let doubts):
            return (doubts.map(\.userMessage) + ["Check that the square holds your whole mouth and no eye, or place the square yourself."])
                .joined(separator: " ")
        case .squareHoldsAnEye:
            return "The square holds part of an eye. Move it down or make it smaller: only your mouth is kept. Nothing was saved."
        case .outputNotClean: return "The picture Cairn made did not pass its metadata check, so it was not written."
        case .photoChanged: return "The photo file changed while Cairn was adding it, so nothing was saved. Please add it again."
        }
    }
}
