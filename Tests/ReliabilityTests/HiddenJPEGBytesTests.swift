import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import PhotoMetadata
import Storage
import Testing

/// Finding 1 of the adversarial test: bytes hidden in a JPEG's coding (a DNL segment, padding in the scan,
/// restart-marker oddities, bytes between segments, a trailer) must not reach any stored file, and Cairn's own
/// inspector must see them. Each fixture is a real libjpeg file (a face photo saved by libvips with restart
/// markers) with a GPS position and a camera name planted by byte surgery.
@Suite(.enabled(if: ExiftoolProbe.isAvailable, "exiftool is not installed (Debian libimage-exiftool-perl)"))
struct HiddenJPEGBytesTests {
    static let planted = Array("GPSLatitude 48.8566 N GPSLongitude 2.3522 E Make Canon Model EOS 5D".utf8)

    enum Plant: String, CaseIterable, Sendable {
        case dnlBeforeScan, dnlAfterScan, paddingBeforeEndOfImage, paddingBeforeRestartMarker, restartMarkersSwapped,
            bytesBetweenSegments, trailerAfterEndOfImage

        /// The kind Cairn's inspector must report for it.
        var kind: MetadataKind {
            switch self {
            case .dnlBeforeScan, .dnlAfterScan: return .unknownSegment
            case .paddingBeforeEndOfImage, .paddingBeforeRestartMarker: return .scanPadding
            case .restartMarkersSwapped: return .restartMarkers
            case .bytesBetweenSegments: return .strayBytes
            case .trailerAfterEndOfImage: return .trailingData
            }
        }
    }

    /// A face photo saved by libvips (libjpeg) with a restart marker every 4 MCUs and no metadata.
    static func cleanSource(in scratch: Scratch) throws -> [UInt8] {
        let url = scratch.file("clean.jpg")
        try Tools.run(tool: "vips", ["copy", SharedData.photo.path, url.path + "[Q=92,strip,restart-interval=4]"])
        return Array(try Data(contentsOf: url))
    }

    /// Offset of the first SOS marker (walking the segments, so no table byte is mistaken for one).
    static func startOfScan(_ b: [UInt8]) -> Int {
        var i = 2
        while !(b[i] == 0xFF && b[i + 1] == 0xDA) { i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3])) }
        return i
    }

    /// Offset of the first RSTn marker with this number in the scan.
    static func restartMarker(_ n: UInt8, in b: [UInt8]) -> Int {
        var i = startOfScan(b)
        while !(b[i] == 0xFF && b[i + 1] == 0xD0 + n) { i += 1 }
        return i
    }

    static func plant(_ plant: Plant, into source: [UInt8]) -> [UInt8] {
        var b = source
        let dnl: [UInt8] =
            [0xFF, 0xDC] + [UInt8((planted.count + 4) >> 8), UInt8((planted.count + 4) & 0xFF), 0x01, 0x77]
            + planted
        switch plant {
        case .dnlBeforeScan: b.insert(contentsOf: dnl, at: startOfScan(b))
        case .dnlAfterScan: b.insert(contentsOf: dnl, at: b.count - 2)
        case .paddingBeforeEndOfImage: b.insert(contentsOf: planted, at: b.count - 2)
        case .paddingBeforeRestartMarker: b.insert(contentsOf: planted, at: restartMarker(0, in: b))
        case .restartMarkersSwapped:
            let first = restartMarker(0, in: b)
            let second = restartMarker(1, in: b)
            b[first + 1] = 0xD1
            b[second + 1] = 0xD0
        case .bytesBetweenSegments: b.insert(contentsOf: planted, at: startOfScan(b))
        case .trailerAfterEndOfImage: b += planted
        }
        return b
    }

    static func contains(_ haystack: Data, _ needle: [UInt8]) -> Bool {
        haystack.range(of: Data(needle)) != nil
    }

    @Test func theCleanFixtureIsCleanToBothInspectors() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = scratch.file("clean.jpg")
        try Data(try Self.cleanSource(in: scratch)).write(to: url)
        #expect(try MetadataInspector.inspect(Data(contentsOf: url)).items.isEmpty)  // libvips' strip drops JFIF too
        #expect(try ExiftoolProbe.violations(at: url).isEmpty)
    }

    @Test(arguments: Plant.allCases)
    func cairnsInspectorFindsWhatExiftoolDoesNotShow(_ plant: Plant) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = Data(Self.plant(plant, into: try Self.cleanSource(in: scratch)))
        let url = scratch.file("\(plant).jpg")
        try bytes.write(to: url)
        // The fixture is a JPEG both libjpeg (through libvips) and exiftool read.
        #expect(try ImagePipeline().probe(bytes).format == .jpeg)
        let exiftoolFound = try ExiftoolProbe.findings(at: url).map(\.description)
        #expect(!exiftoolFound.contains { $0.hasPrefix("ExifTool:Error") }, "\(plant): \(exiftoolFound)")
        #expect(exiftoolFound.contains("File:ImageWidth"), "\(plant): \(exiftoolFound)")
        // Ours names it, and the allow-list check refuses it.
        let report = try MetadataInspector.inspect(bytes)
        #expect(report.kinds.contains(plant.kind), "\(plant): found \(report.items)")
        #expect(throws: MetadataError.self) { try MetadataInspector.verifyClean(bytes) }
    }

    @Test(arguments: Plant.allCases)
    func aSkinPhotoWithHiddenBytesIsStoredRebuiltWithNoneOfThem(_ plant: Plant) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:])
        let bytes = Data(Self.plant(plant, into: try Self.cleanSource(in: scratch)))
        #expect(Self.contains(bytes, Self.planted) == (plant != .restartMarkersSwapped))

        let photo = try app.photoIntake.ingest(bytes, purpose: "skin", database: app.database)
        // The path the pipeline takes for these bytes: libjpeg's (planar or lossless) unless it refuses the source.
        let libjpegWroteTheFullPhoto = try ImagePipeline().ingest(bytes, thumbnailSide: PhotoIntake.thumbnailSide) { _ in }.path != .reencode

        for stored in [photo.full, photo.thumbnail] {
            let url = try app.photoStore.fileURL(for: stored.id)
            let written = try Data(contentsOf: url)
            #expect(!Self.contains(written, Array("48.8566".utf8)), "\(plant): the GPS text reached the stored file")
            #expect(!Self.contains(written, Array("Canon".utf8)), "\(plant): the camera name reached the stored file")
            // What the README says: a file libjpeg writes (the full-size photo, when libjpeg's path takes the source)
            // carries its bare JFIF header; a file libvips writes (the thumbnail, and the full-size photo of a source
            // libjpeg refuses) no APP0 at all; neither anything else.
            let items = try MetadataInspector.inspect(written).items
            let bareJFIF = MetadataItem(kind: .jfif, location: "APP0 JFIF", byteCount: 14)
            #expect(items == (stored.id == photo.full.id && libjpegWroteTheFullPhoto ? [bareJFIF] : []), "\(plant): \(items)")
            #expect(try ImagePipeline().probe(written).width == (stored.id == photo.full.id ? photo.full.width : photo.thumbnail.width))
            #expect(try ExiftoolProbe.violations(at: url).isEmpty, "exiftool -a -G1 shows nothing beyond the allow-list")
        }
    }

    @Test(arguments: Plant.allCases)
    func thePhotoStoreRefusesAFileWhoseReadBackIsNotClean(_ plant: Plant) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:])
        let bytes = Data(Self.plant(plant, into: try Self.cleanSource(in: scratch)))
        #expect(throws: MetadataError.self) {
            _ = try app.photoStore.write(bytes, purpose: "skin", mediaType: .jpeg, width: 1, height: 1) {
                try MetadataInspector.verifyClean($0, allowList: PhotoIntake.allowList)
            }
        }
        let left =
            FileManager.default.enumerator(atPath: app.vault.photosDirectory.path)?.allObjects.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".jpg") } ?? []
        #expect(left.isEmpty, "nothing half-written stays behind: \(left)")
    }

    /// The quantisation tables of a stored photo are libjpeg's own at quality 90, whatever the source used: the
    /// source's tables (which exiftool -JPEGDigest matches to cameras and editors) do not survive.
    @Test func storedPhotosCarryLibjpegsTablesNotTheSources() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:])
        let source = scratch.file("odd-tables.jpg")
        // libjpeg's table set 3 ("ImageMagick's"), quality 63: tables no Cairn file carries.
        try Tools.run(tool: "vips", ["copy", SharedData.photo.path, source.path + "[Q=63,quant-table=3,strip]"])
        let photo = try app.photoIntake.ingest(Data(contentsOf: source), purpose: "skin", database: app.database)
        let stored = try Data(contentsOf: app.photoStore.fileURL(for: photo.full.id))
        let reference = try ImagePipeline().encodeJPEG(
            RGBImage(
                width: 16, height: 16,
                pixels: [UInt8](repeating: 128, count: 16 * 16 * 3)))
        #expect(Self.quantisationTables(stored) == Self.quantisationTables(reference))
        #expect(Self.quantisationTables(stored) != Self.quantisationTables(Array(try Data(contentsOf: source))))
        let digest = try Tools.run(tool: "exiftool", ["-s3", "-JPEGDigest", app.photoStore.fileURL(for: photo.full.id).path])
        #expect(!String(decoding: digest, as: UTF8.self).localizedCaseInsensitiveContains("photoshop"))
    }

    static func quantisationTables<C: Collection>(_ data: C) -> [[UInt8]] where C.Element == UInt8 {
        let b = Array(data)
        var tables: [[UInt8]] = []
        var i = 2
        while i + 3 < b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if b[i + 1] == 0xDB { tables.append(Array(b[(i + 4)..<(i + 2 + length)])) }
            i += 2 + length
        }
        return tables
    }
}
