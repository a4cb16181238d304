import CairnTestSupport
import Foundation
import PhotoMetadata
import Testing

/// Our inspector against the reference reader, exiftool, on camera-style files made at run time.
@Suite(.enabled(if: ExiftoolProbe.isAvailable, "exiftool is not installed (Debian libimage-exiftool-perl)"))
struct ExiftoolAgreementTests {
    /// Kinds the camera JPEG fixture must carry (checked through exiftool, so the fixture itself is verified).
    static let cameraJPEGKinds: Set<MetadataKind> = [
        .jfif, .exif, .gps, .makerNotes, .exifThumbnail, .xmp, .iptc, .icc, .comment, .trailingData,
    ]
    static let cameraPNGKinds: Set<MetadataKind> = [
        .exif, .gps, .makerNotes, .exifThumbnail, .xmp, .iptc, .icc, .text, .timestamp, .trailingData,
    ]

    @Test func reportsEverythingExiftoolFindsInACameraJPEG() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = try CameraFixtures.cameraJPEG(in: scratch)
        let reference = try ExiftoolProbe.kinds(at: url)
        #expect(reference.unmapped.isEmpty, "exiftool groups without a mapping: \(reference.unmapped)")
        #expect(Self.cameraJPEGKinds.isSubset(of: reference.kinds), "fixture lacks \(Self.cameraJPEGKinds.subtracting(reference.kinds))")
        let ours = Set(try MetadataInspector.inspect(Data(contentsOf: url)).kinds)
        #expect(reference.kinds.subtracting(ours).isEmpty, "exiftool found, we missed: \(reference.kinds.subtracting(ours))")
    }

    @Test func reportsEverythingExiftoolFindsInACameraPNG() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = try CameraFixtures.cameraPNG(in: scratch)
        let reference = try ExiftoolProbe.kinds(at: url)
        #expect(reference.unmapped.isEmpty, "exiftool groups without a mapping: \(reference.unmapped)")
        #expect(Self.cameraPNGKinds.isSubset(of: reference.kinds), "fixture lacks \(Self.cameraPNGKinds.subtracting(reference.kinds))")
        let ours = Set(try MetadataInspector.inspect(Data(contentsOf: url)).kinds)
        #expect(reference.kinds.subtracting(ours).isEmpty, "exiftool found, we missed: \(reference.kinds.subtracting(ours))")
    }

    @Test func agreesWithExiftoolThatAStrippedJPEGIsClean() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let camera = try CameraFixtures.cameraJPEG(in: scratch)
        let stripped = scratch.file("stripped.jpg")
        try Tools.run(tool: "vips", ["copy", camera.path, stripped.path + "[strip]"])
        try MetadataInspector.verifyClean(Data(contentsOf: stripped))
        #expect(try ExiftoolProbe.violations(at: stripped).isEmpty)
        // And both refuse the camera original.
        #expect(throws: MetadataError.self) { try MetadataInspector.verifyClean(Data(contentsOf: camera)) }
        #expect(try !ExiftoolProbe.violations(at: camera).isEmpty)
    }

    /// One metadata kind added on its own to a clean JPEG.
    struct Addition: Sendable, CustomStringConvertible {
        let kind: MetadataKind
        let exiftoolArguments: [String]
        var description: String { kind.rawValue }
    }

    static let additions: [Addition] = [
        Addition(kind: .exif, exiftoolArguments: ["-EXIF:Artist=someone"]),
        Addition(kind: .gps, exiftoolArguments: ["-GPSLatitude=1.5", "-GPSLatitudeRef=S"]),
        Addition(kind: .xmp, exiftoolArguments: ["-XMP-dc:Subject=beach"]),
        Addition(kind: .iptc, exiftoolArguments: ["-IPTC:City=Somewhere"]),
        Addition(kind: .comment, exiftoolArguments: ["-Comment=note"]),
        Addition(kind: .photoshop, exiftoolArguments: ["-Photoshop:CopyrightFlag=True"]),
        Addition(kind: .icc, exiftoolArguments: []),  // the profile is added from a file, see below
    ]

    @Test(arguments: additions)
    func bothCheckersRefuseASingleAddedKind(_ addition: Addition) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = scratch.file("single.jpg")
        try Tools.run(tool: "vips", ["copy", SharedData.photo.path, url.path + "[strip]"])
        var arguments = addition.exiftoolArguments
        if addition.kind == .icc { arguments = ["-ICC_Profile<=" + (try CameraFixtures.iccProfile(in: scratch)).path] }
        try Tools.run(tool: "exiftool", ["-q", "-q", "-overwrite_original"] + arguments + [url.path])
        let reference = try ExiftoolProbe.kinds(at: url)
        #expect(reference.kinds.contains(addition.kind), "exiftool did not write \(addition.kind)")
        #expect(reference.unmapped.isEmpty, "\(reference.unmapped)")
        let ours = Set(try MetadataInspector.inspect(Data(contentsOf: url)).kinds)
        #expect(ours.contains(addition.kind))
        #expect(reference.kinds.subtracting(ours).isEmpty)
        #expect(throws: MetadataError.self) { try MetadataInspector.verifyClean(Data(contentsOf: url)) }
        #expect(try !ExiftoolProbe.violations(at: url).isEmpty)
    }

    @Test func bothCheckersRefuseTheAdobeSegmentOfACMYKJPEG() throws {
        // exiftool cannot create an APP14 Adobe segment; libjpeg writes one for every CMYK JPEG.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = scratch.file("cmyk.jpg")
        try Tools.run(tool: "vips", ["colourspace", SharedData.photo.path, url.path + "[strip]", "cmyk"])
        let reference = try ExiftoolProbe.kinds(at: url)
        #expect(reference.kinds == [.adobe])
        #expect(reference.unmapped.isEmpty, "\(reference.unmapped)")
        #expect(try MetadataInspector.inspect(Data(contentsOf: url)).kinds == [.adobe])
        #expect(try ExiftoolProbe.violations(at: url).map(\.group0) == Array(repeating: "APP14", count: 4))
    }

    @Test func mapsExiftoolGroupsOntoOurKinds() {
        func kind(_ g0: String, _ g1: String, _ tag: String) -> ExiftoolMapping {
            ExiftoolProbe.mapping(of: ExiftoolFinding(group0: g0, group1: g1, tag: tag))
        }
        #expect(kind("EXIF", "IFD0", "Make") == .kind(.exif))
        #expect(kind("EXIF", "GPS", "GPSLatitude") == .kind(.gps))
        #expect(kind("EXIF", "IFD1", "ThumbnailImage") == .kind(.exifThumbnail))
        #expect(kind("MakerNotes", "Canon", "CanonModelID") == .kind(.makerNotes))
        #expect(kind("File", "File", "Comment") == .kind(.comment))
        #expect(kind("File", "File", "ImageWidth") == .structural)
        #expect(kind("File", "File", "SomethingNew") == .unmapped)
        #expect(kind("Trailer", "File", "Trailer") == .kind(.trailingData))
        #expect(kind("Unheard", "Of", "Tag") == .unmapped)
    }
}
