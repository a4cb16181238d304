import Foundation
import PhotoMetadata

// Tests-only. Reusable by other test targets (copy this file, e.g. into Tests/ImagingTests/Support/): it runs the
// reference reader, exiftool, on a file and maps what it reports onto PhotoMetadata's kinds, so a test can
// assert "after Cairn writes the file, exiftool shows nothing beyond the allow-list".

/// One tag exiftool reported, with its family-0 and family-1 groups (`exiftool -a -G0:1`).
public struct ExiftoolFinding: Hashable, CustomStringConvertible {
    public init(group0: String, group1: String, tag: String) {
        self.group0 = group0
        self.group1 = group1
        self.tag = tag
    }
    public let group0: String
    public let group1: String
    public let tag: String
    public var description: String { group0 == group1 ? "\(group0):\(tag)" : "\(group0):\(group1):\(tag)" }
}

/// How one exiftool finding relates to PhotoMetadata's kinds.
public enum ExiftoolMapping: Equatable {
    /// File-system facts, image structure (size, bit depth, colour type...) or values derived from other tags.
    case structural
    /// Metadata of this kind.
    case kind(MetadataKind)
    /// Something the mapping does not know: treat it as a failure, never as harmless.
    case unmapped
}

/// Runs exiftool and maps its groups to `MetadataKind`s.
public enum ExiftoolProbe {
    /// The exiftool executable, when installed.
    public static let executable: String? = Tools.path(of: "exiftool")

    public static var isAvailable: Bool { executable != nil }

    /// Every tag exiftool reports for the file: `exiftool -j -a -u -G0:1 -all -trailer FILE`
    /// (`-trailer` because exiftool lists unknown JPEG trailers only when asked for them).
    public static func findings(at url: URL) throws -> [ExiftoolFinding] {
        guard let executable else { throw ToolFailure(tool: "exiftool", message: "not installed") }
        let output = try Tools.run(executable, ["-j", "-a", "-u", "-G0:1", "-all", "-trailer", url.path])
        guard let list = try JSONSerialization.jsonObject(with: output) as? [[String: Any]], let object = list.first else {
            throw ToolFailure(tool: "exiftool", message: "unexpected JSON")
        }
        return object.keys.sorted().compactMap { key in
            let parts = key.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 2: return ExiftoolFinding(group0: parts[0], group1: parts[0], tag: parts[1])
            case 3: return ExiftoolFinding(group0: parts[0], group1: parts[1], tag: parts[2])
            default: return nil  // "SourceFile"
            }
        }.filter { !($0.group0 == "ExifTool" && $0.tag == "Warning") } + (try warnings(object))
    }

    /// exiftool's warnings, as findings (a PNG trailer is only reported as a warning).
    private static func warnings(_ object: [String: Any]) throws -> [ExiftoolFinding] {
        guard let warning = object["ExifTool:Warning"] else { return [] }
        let text = "\(warning)"
        return [ExiftoolFinding(group0: "ExifTool", group1: "ExifTool", tag: "Warning: " + text)]
    }

    /// File-group tags that describe the file or the image structure, not metadata.
    public static let structuralFileTags: Set<String> = [
        "FileType", "FileTypeExtension", "MIMEType", "ImageWidth", "ImageHeight", "EncodingProcess",
        "BitsPerSample", "ColorComponents", "YCbCrSubSampling",
    ]
    /// PNG-group tags from chunks that only describe how to draw the pixels (IHDR, gAMA, cHRM, sRGB, bKGD, ...).
    public static let structuralPNGTags: Set<String> = [
        "ImageWidth", "ImageHeight", "BitDepth", "ColorType", "Compression", "Filter", "Interlace", "Gamma",
        "WhitePointX", "WhitePointY", "RedX", "RedY", "GreenX", "GreenY", "BlueX", "BlueY", "BackgroundColor",
        "SRGBRendering", "Palette", "Transparency", "SignificantBits", "PixelsPerUnitX", "PixelsPerUnitY",
        "PixelUnits", "AnimationFrames", "AnimationPlays",
    ]

    /// The exiftool-group-to-kind mapping.
    public static func mapping(of finding: ExiftoolFinding) -> ExiftoolMapping {
        let (g0, g1, tag) = (finding.group0, finding.group1, finding.tag)
        switch g0 {
        case _ where g1 == "System":
            return .structural  // File:System: name, size, dates and permissions of the file on disk
        case "Composite":
            return .structural
        case "ExifTool":
            if tag == "ExifToolVersion" { return .structural }
            if tag.hasPrefix("Warning:") && tag.lowercased().contains("trailer") { return .kind(.trailingData) }
            return .unmapped
        case "File":
            switch tag {
            case "Comment": return .kind(.comment)
            case "ExifByteOrder": return .kind(.exif)
            case "CurrentIPTCDigest": return .kind(.iptc)
            default: return structuralFileTags.contains(tag) && g1 != "Trailer" ? .structural : .unmapped
            }
        case "JFIF": return .kind(g1 == "JFXX" ? .jfxx : .jfif)
        case "JFXX": return .kind(.jfxx)
        case "EXIF":
            switch g1 {
            case "GPS": return .kind(.gps)
            case "IFD1": return .kind(.exifThumbnail)
            default: return .kind(.exif)
            }
        case "MakerNotes": return .kind(.makerNotes)
        case "XMP": return .kind(.xmp)
        case "IPTC": return .kind(.iptc)
        case "Photoshop": return .kind(.photoshop)
        case "ICC_Profile": return .kind(.icc)
        case "Trailer": return .kind(.trailingData)
        case "APP14" where g1 == "Adobe": return .kind(.adobe)
        case "MPF", "FlashPix", "Ducky", "JUMBF", "Meta", "FotoStation", "PhotoMechanic":
            return .kind(.otherApplication)
        case let group where group.hasPrefix("APP"):
            return .kind(.otherApplication)
        case "PNG":
            if g1 == "PNG-pHYs" || structuralPNGTags.contains(tag) { return .structural }
            if tag == "ModifyDate" { return .kind(.timestamp) }
            if tag == "ProfileName" { return .kind(.icc) }
            return .kind(.text)
        default:
            return .unmapped
        }
    }

    /// The kinds exiftool finds in the file, and the findings the mapping does not know.
    public static func kinds(at url: URL) throws -> (kinds: Set<MetadataKind>, unmapped: [ExiftoolFinding]) {
        var kinds: Set<MetadataKind> = []
        var unmapped: [ExiftoolFinding] = []
        for finding in try findings(at: url) {
            switch mapping(of: finding) {
            case .structural: break
            case .kind(let kind): kinds.insert(kind)
            case .unmapped: unmapped.append(finding)
            }
        }
        return (kinds, unmapped)
    }

    /// What exiftool shows in the file beyond the allow-list (unmapped findings count too). Empty means clean.
    public static func violations(at url: URL, allowList: MetadataAllowList = .cairnJPEG) throws -> [ExiftoolFinding] {
        try findings(at: url).filter { finding in
            switch mapping(of: finding) {
            case .structural: return false
            case .kind(let kind): return !allowList.allowed.contains(kind)
            case .unmapped: return true
            }
        }
    }
}
