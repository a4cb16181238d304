import CairnCore
import Foundation

// INTERFACE PINNED BY THE INTEGRATOR: the Imaging adapter codes against these signatures.
// Implementations are placeholders until the PhotoMetadata work lands; keep the signatures (add freely).

/// The container a file's bytes say it is (by signature, never by file name).
public enum ImageContainer: String, Sendable, Equatable {
    case jpeg, png, heif, webp, unknown

    /// The container `data` starts like: JPEG (FF D8 FF), PNG (its 8-byte signature), WebP ("RIFF" size
    /// "WEBP"), HEIF (an "ftyp" box whose major or compatible brand is a HEIF/AVIF brand), else `.unknown`.
    public static func detect(_ data: Data) -> ImageContainer {
        data.withByteView { view in
            if view.hasBytes([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
            if view.hasBytes(PNGWalker.signature, at: 0) { return .png }
            if view.hasBytes(ascii("RIFF"), at: 0) && view.hasBytes(ascii("WEBP"), at: 8) { return .webp }
            if view.hasBytes(ascii("ftyp"), at: 4), let boxSize = view.u32(0) {
                let end = min(view.count, boxSize < 16 ? 16 : min(boxSize, 256))
                var offset = 8
                while offset + 4 <= end {
                    if offset != 12, let brand = view.slice(offset, length: 4),
                        heifBrands.contains(String(decoding: brand.raw, as: UTF8.self))
                    {
                        return .heif
                    }
                    offset += 4
                }
            }
            return .unknown
        }
    }

    /// ftyp brands of HEIF still images and sequences (including AVIF, which is HEIF with AV1).
    static let heifBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif", "avis",
    ]
}

/// One kind of metadata a file can carry.
public enum MetadataKind: String, Sendable, CaseIterable, Equatable {
    case jfif  // JPEG APP0 "JFIF"
    case jfxx  // JPEG APP0 "JFXX" (a JFIF thumbnail extension)
    case exif  // EXIF (JPEG APP1 "Exif", PNG eXIf)
    case gps  // a GPS IFD inside EXIF
    case makerNotes  // a MakerNote tag inside EXIF
    case exifThumbnail  // an embedded thumbnail (EXIF IFD1)
    case xmp  // JPEG APP1 XMP / extended XMP, PNG iTXt XML:com.adobe.xmp
    case iptc  // IPTC inside Photoshop APP13
    case photoshop  // Photoshop APP13 (IRB) without IPTC
    case icc  // JPEG APP2 ICC_PROFILE, PNG iCCP
    case comment  // JPEG COM
    case adobe  // JPEG APP14 "Adobe"
    case otherApplication  // any other JPEG APPn
    case text  // PNG tEXt / zTXt / iTXt (other than XMP)
    case timestamp  // PNG tIME
    case trailingData  // bytes after JPEG EOI or PNG IEND
    case unknownSegment  // a JPEG segment the inspector does not understand or Cairn never writes (DNL, JPGn, ...)
    case strayBytes  // bytes where none belong: between segments, past a segment's tables, a JFIF thumbnail
    case scanPadding  // entropy-coded data that no coded block uses (before a restart marker or the next marker)
    case restartMarkers  // restart markers out of sequence, unexpected or missing
    case undecodedScan  // scan data the inspector cannot decode (progressive, arithmetic, lossless, damaged), so
    // bytes hidden in it cannot be ruled out
}

/// One item of metadata found in a file.
public struct MetadataItem: Sendable, Equatable {
    /// What the item is.
    public let kind: MetadataKind
    /// Where it was found, e.g. "APP1 Exif", "PNG chunk tEXt"; never the metadata's own content.
    public let location: String
    /// The item's size in bytes (segment or chunk payload, or the declared size of an EXIF part).
    public let byteCount: Int
    /// An item as found.
    public init(kind: MetadataKind, location: String, byteCount: Int) {
        self.kind = kind
        self.location = location
        self.byteCount = byteCount
    }
}

/// What an inspection found.
public struct MetadataReport: Sendable, Equatable {
    /// The container the file is.
    public let container: ImageContainer
    /// Every item, in file order.
    public let items: [MetadataItem]
    /// A report of `items` found in a `container` file.
    public init(container: ImageContainer, items: [MetadataItem]) {
        self.container = container
        self.items = items
    }
    /// The kinds present, without repeats, in order of first appearance.
    public var kinds: [MetadataKind] {
        var seen: [MetadataKind] = []
        for item in items where !seen.contains(item.kind) { seen.append(item.kind) }
        return seen
    }
}

/// The metadata a file Cairn writes may carry. Anything else makes the write fail.
public struct MetadataAllowList: Sendable, Equatable {
    /// The kinds a file may carry.
    public let allowed: Set<MetadataKind>
    /// A list allowing exactly `allowed`.
    public init(allowed: Set<MetadataKind>) { self.allowed = allowed }
    /// Cairn's JPEGs: at most a bare JFIF APP0 header (files libvips encodes have none), and nothing else.
    public static let cairnJPEG = MetadataAllowList(allowed: [.jfif])
    /// The items of `report` that the list does not allow.
    public func violations(in report: MetadataReport) -> [MetadataItem] {
        report.items.filter { !allowed.contains($0.kind) }
    }
}

/// Reads a JPEG's markers or a PNG's chunks and lists the metadata the file carries.
/// Our own code, independent of libvips: it is the check on what libvips wrote.
public enum MetadataInspector {
    /// Lists every metadata item in `data`. Throws `MetadataError` for bytes that are not a readable JPEG or PNG:
    /// `.notAnImage` for unknown bytes, `.unsupportedContainer` for HEIF and WebP (Cairn only writes JPEG),
    /// `.truncated` when the file stops early, `.malformed` when its structure is broken.
    ///
    /// JPEG: every APPn and COM segment before and between scans, plus the parts of an EXIF block (GPS IFD,
    /// MakerNote, IFD1 thumbnail) as items of their own, plus any bytes after EOI. And every segment or byte the
    /// image does not need: segments other than the coding ones (DNL, JPGn, reserved markers), bytes between
    /// segments or past the tables a segment declares, quantisation or Huffman tables no frame or scan uses, a
    /// JFIF thumbnail. Baseline and extended sequential scans are decoded (Huffman codes only) to find padding
    /// in the entropy-coded data and restart markers that do not match the restart interval; other scans are
    /// listed as `.undecodedScan`, since hidden bytes in them cannot be ruled out.
    /// PNG: tEXt, zTXt, iTXt, eXIf (and its parts), tIME, iCCP, any chunk type not known to be image data,
    /// plus any bytes after IEND. Chunks that only describe how to draw the pixels are not metadata and are
    /// not listed: IHDR, PLTE, IDAT, IEND, tRNS, gAMA, cHRM, sRGB, sBIT, bKGD, hIST, pHYs, sPLT, cICP, mDCv,
    /// cLLi, and the APNG chunks acTL, fcTL, fdAT.
    public static func inspect(_ data: Data) throws -> MetadataReport {
        let container = ImageContainer.detect(data)
        switch container {
        case .jpeg:
            return MetadataReport(container: .jpeg, items: try data.withByteView { try JPEGInspector.items($0) })
        case .png:
            return MetadataReport(container: .png, items: try data.withByteView(PNGInspector.items))
        case .heif, .webp:
            throw MetadataError.unsupportedContainer(container)
        case .unknown:
            throw MetadataError.notAnImage
        }
    }

    /// Throws `MetadataError.notClean` when `data` carries anything `allowList` does not allow.
    public static func verifyClean(_ data: Data, allowList: MetadataAllowList = .cairnJPEG) throws {
        let report = try inspect(data)
        let bad = allowList.violations(in: report)
        if !bad.isEmpty { throw MetadataError.notClean(bad) }
    }
}

/// Why an inspection or a verification failed.
public enum MetadataError: CairnError, Equatable {
    /// The bytes are not a JPEG or PNG (nor HEIF or WebP).
    case notAnImage
    /// The file stops early; the text names the structure (never content).
    case truncated(String)
    /// The file's structure is broken; the text names the structure (never content).
    case malformed(String)
    /// The file carries items the allow-list does not allow.
    case notClean([MetadataItem])
    /// HEIF or WebP: recognised, but only JPEG and PNG are inspected (Cairn only writes JPEG).
    case unsupportedContainer(ImageContainer)

    /// Plain English, naming no user content.
    public var userMessage: String {
        switch self {
        case .notAnImage: return "The file is not a JPEG or PNG image."
        case .truncated(let what): return "The image file is cut short (\(what))."
        case .malformed(let what): return "The image file is damaged (\(what))."
        case .unsupportedContainer(let container):
            let name = container == .webp ? "WebP" : container == .heif ? "HEIF" : "this kind of"
            return "The image is a \(name) file; only JPEG and PNG files can be checked for metadata."
        case .notClean(let items):
            let kinds = Set(items.map(\.kind.rawValue)).sorted().joined(separator: ", ")
            return "The written photo still carried metadata (\(kinds)), so it was not kept."
        }
    }
}
