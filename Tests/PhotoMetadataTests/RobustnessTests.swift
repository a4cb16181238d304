import CairnCore
import CairnTestSupport
import Foundation
import PhotoMetadata
import Testing

/// Feeds cut-short and damaged files to every entry point: each call must return or throw `MetadataError`,
/// never trap and never throw anything else.
@Suite struct RobustnessTests {
    /// Runs every parser on `bytes`; returns true when `inspect` accepted them.
    @discardableResult
    static func exercise(_ bytes: Data) -> Bool {
        var accepted = false
        do {
            _ = try MetadataInspector.inspect(bytes)
            accepted = true
        } catch { #expect(error is MetadataError) }
        do {
            if let block = try ExifReader.exifBlock(in: bytes) { _ = try? ExifReader.read(block) }
        } catch { #expect(error is MetadataError) }
        do { _ = try ExifReader.read(bytes) } catch { #expect(error is MetadataError) }
        return accepted
    }

    static func richJPEG() -> Data {
        let exif = [
            Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09")), Entry(tag: 0x9011, value: .ascii("+02:00")),
            Entry(tag: 0x927C, value: .undefined([UInt8](repeating: 3, count: 40))),
        ]
        let tiff = TIFFBuilder.camera(exif: exif, gps: true, thumbnail: true).build()
        let photoshop = Bytes.ascii("Photoshop 3.0\08BIM") + [4, 4, 0, 0] + Bytes.be32(4) + [1, 2, 3, 4]
        return JPEGBuilder.jpeg(
            [
                JPEGBuilder.exifSegment(tiff), JPEGBuilder.segment(0xED, photoshop),
                JPEGBuilder.segment(0xFE, Bytes.ascii("comment")),
            ], trailer: [1, 2, 3])
    }

    static func richPNG() -> Data {
        let tiff = TIFFBuilder.camera(exif: [], gps: true, thumbnail: true).build()
        return PNGBuilder.png(
            [
                PNGBuilder.chunk("tEXt", Bytes.ascii("Comment\0x")), PNGBuilder.chunk("eXIf", [UInt8](tiff)),
                PNGBuilder.chunk("tIME", [7, 232, 5, 6, 7, 8, 9]),
            ], trailer: [9, 9])
    }

    /// Every strict prefix of a complete file (up to `limit`, then random lengths) must be refused, not trap.
    static func checkPrefixes(of file: Data, endOfImage: Int, random: inout SeededGenerator) {
        var lengths = Array(0..<min(endOfImage, 700))
        for _ in 0..<150 { lengths.append(Int.random(in: 0..<endOfImage, using: &random)) }
        for length in lengths {
            let accepted = exercise(file.prefix(length))
            #expect(!accepted, "a prefix of \(length) of \(file.count) bytes was accepted")
        }
    }

    /// Flips random bytes (mostly in the first 4 KB, where the metadata is) and runs every parser.
    static func checkMutations(of file: Data, count: Int, random: inout SeededGenerator) {
        for _ in 0..<count {
            var bytes = [UInt8](file)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let window = Bool.random(using: &random) ? min(bytes.count, 4096) : bytes.count
                bytes[Int.random(in: 0..<window, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            exercise(Data(bytes))
        }
    }

    @Test func neverTrapsOnCutShortOrDamagedBuiltFiles() {
        var random = SeededGenerator(seed: 20_240_506)
        let jpeg = Self.richJPEG()
        let png = Self.richPNG()
        Self.checkPrefixes(of: jpeg, endOfImage: jpeg.count - 3, random: &random)
        Self.checkPrefixes(of: png, endOfImage: png.count - 2, random: &random)
        Self.checkMutations(of: jpeg, count: 1500, random: &random)
        Self.checkMutations(of: png, count: 1500, random: &random)
        let tiff = TIFFBuilder.camera(
            exif: [Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09"))], gps: true,
            thumbnail: true
        ).build()
        Self.checkMutations(of: tiff, count: 1500, random: &random)
        for length in 0..<tiff.count { _ = try? ExifReader.read(tiff.prefix(length)) }
    }

    @Test func neverTrapsOnCutShortOrDamagedRealPhotos() throws {
        var random = SeededGenerator(seed: 7)
        let photo = try Data(contentsOf: SharedData.photo)
        #expect(try MetadataInspector.inspect(photo).kinds == [.jfif])
        Self.checkPrefixes(of: photo, endOfImage: photo.count, random: &random)
        Self.checkMutations(of: photo, count: 300, random: &random)
    }

    @Test(.enabled(if: ExiftoolProbe.isAvailable, "exiftool is not installed (Debian libimage-exiftool-perl)"))
    func neverTrapsOnCutShortOrDamagedCameraFiles() throws {
        var random = SeededGenerator(seed: 42)
        let scratch = try Scratch()
        defer { scratch.remove() }
        for url in [try CameraFixtures.cameraJPEG(in: scratch), try CameraFixtures.cameraPNG(in: scratch)] {
            let file = try Data(contentsOf: url)
            Self.checkPrefixes(of: file, endOfImage: file.count - CameraFixtures.trailer.count, random: &random)
            Self.checkMutations(of: file, count: 300, random: &random)
        }
    }

    /// A ~4 MB JPEG of noise is read whole and found clean (its speed is `cairn-bench ingest`'s inspector figure).
    @Test func inspectsAFourMegabyteJPEGOfNoiseAndFindsNoTrailingData() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let noise = scratch.file("noise.v")
        let gray = scratch.file("gray.v")
        let rgb = scratch.file("rgb.v")
        let big = scratch.file("big.jpg")
        try Tools.run(tool: "vips", ["gaussnoise", noise.path, "2500", "1800", "--sigma", "50", "--mean", "128"])
        try Tools.run(tool: "vips", ["cast", noise.path, gray.path, "uchar"])
        try Tools.run(tool: "vips", ["bandjoin", "\(gray.path) \(gray.path) \(gray.path)", rgb.path])
        try Tools.run(tool: "vips", ["copy", rgb.path, big.path + "[Q=95]"])
        let data = try Data(contentsOf: big)
        let report = try MetadataInspector.inspect(data)
        #expect(data.count > 3_000_000)
        #expect(report.container == .jpeg)
        #expect(!report.items.contains { $0.kind == .trailingData })
    }
}
