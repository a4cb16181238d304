import CairnCore
import Foundation
import PhotoMetadata
import Testing

@testable import Imaging

private let pipeline = ImagePipeline()

private func verifyClean(_ data: Data) throws { try MetadataInspector.verifyClean(data, allowList: .cairnJPEG) }

private func kind(of body: () throws -> Any) -> ImagingError.Kind? {
    do {
        _ = try body()
        return nil
    } catch let error as ImagingError { return error.kind } catch { return nil }
}

/// The marker picture as a greyscale JPEG decodes it (BT.601 luma in all three channels).
private func luma(_ image: RGBImage) -> RGBImage {
    var out = image.pixels
    for i in stride(from: 0, to: out.count, by: 3) {
        let y = (299 * Int(out[i]) + 587 * Int(out[i + 1]) + 114 * Int(out[i + 2]) + 500) / 1000
        out[i] = UInt8(y)
        out[i + 1] = UInt8(y)
        out[i + 2] = UInt8(y)
    }
    return RGBImage(width: image.width, height: image.height, pixels: out)
}

/// A TurboJPEG-encoded picture stored for `orientation`, tagged by exiftool with the orientation and GPS.
private func taggedSource(
    _ upright: RGBImage, sampling: PlanarJPEG.Sampling, orientation: Int,
    in dir: Fixtures.TempDir
) throws -> Data {
    let stored = Fixtures.stored(upright, forOrientation: orientation)
    let jpeg = try #require(PlanarJPEG.compress(stored, sampling: sampling, quality: 95).jpeg)
    return try Fixtures.exiftool(
        jpeg,
        [
            "-n", "-Orientation=\(orientation)", "-GPSLatitude=48.8566",
            "-GPSLatitudeRef=N", "-DateTimeOriginal=2024:05:06 07:08:09",
        ],
        in: dir, name: "o\(orientation)-\(sampling).jpg")
}

@Test func storedPictureForOrientation6IsTheCounterClockwiseTurn() {
    let upright = Fixtures.markerImage(width: 7, height: 5)
    #expect(Fixtures.stored(upright, forOrientation: 6) == Fixtures.rotatedCounterClockwise(upright))
    #expect(Fixtures.stored(upright, forOrientation: 1) == upright)
}

@Test(arguments: [PlanarJPEG.Sampling.s420, .s422, .s444, .grey])
func ingestTurnsEveryOrientationUprightWithOddSizes(sampling: PlanarJPEG.Sampling) throws {
    let dir = try Fixtures.TempDir()
    let marker = Fixtures.markerImage(width: 67, height: 45)
    let upright = sampling == .grey ? luma(marker) : marker
    for orientation in 1...8 {
        let source = try taggedSource(marker, sampling: sampling, orientation: orientation, in: dir)
        #expect(PlanarJPEG.sampling(of: source) == sampling)
        let photo = try pipeline.ingest(source, verify: verifyClean)
        #expect(photo.path == .planarReencode, "orientation \(orientation)")
        #expect(photo.width == 67 && photo.height == 45)
        #expect(photo.captureDate != nil)
        // A quarter turn swaps 4:2:2 for 4:4:0; the others keep their subsampling.
        let turned = orientation >= 5 && sampling == .s422 ? PlanarJPEG.Sampling.s440 : sampling
        #expect(PlanarJPEG.sampling(of: photo.jpeg) == turned)
        #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [], "orientation \(orientation)")
        #expect(photo.jpeg.prefix(11) == Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]))
        let decoded = try pipeline.decodeRGB(photo.jpeg)
        #expect(decoded.width == 67 && decoded.height == 45)
        // Measured: at most 8.5 for 4:2:0 (the source itself decodes at 6.6, libvips' own turn at 8.2; odd sizes
        // move chroma by half a sample); any wrong turn of the marker is above 30.
        #expect(Fixtures.meanDifference(decoded, upright) < 10, "orientation \(orientation)")
        #expect(try pipeline.probe(photo.jpeg).orientation == 1)

        // The thumbnail (already small enough: kept at 67 x 45) is upright too.
        #expect(photo.thumbnailWidth == 67 && photo.thumbnailHeight == 45)
        let thumbnail = try pipeline.decodeRGB(photo.thumbnail)
        #expect(thumbnail.width == 67 && thumbnail.height == 45)
        #expect(Fixtures.meanDifference(thumbnail, upright) < 10, "orientation \(orientation)")
        if orientation == 6 { #expect(try Fixtures.metadataGroups(photo.thumbnail, in: dir) == []) }
    }
}

/// The turn in bands (for photos whose planes are too large to hold) makes the file the whole turn makes, byte for
/// byte, whatever the band: one MCU row per band, about a third of the picture, or the whole picture in one band;
/// for every orientation that turns and every subsampling (4:1:1 only flips), odd sizes included.
@Test(arguments: [PlanarJPEG.Sampling.s420, .s422, .s444, .grey, .s440, .s411])
func theTurnInBandsMakesTheSameFileAsTheWholeTurn(sampling: PlanarJPEG.Sampling) throws {
    for (width, height) in [(203, 137), (131, 250)] {
        let stored = Fixtures.texturedImage(width: width, height: height)
        let source = try #require(PlanarJPEG.compress(stored, sampling: sampling, quality: 92).jpeg)
        for orientation in 2...8 where sampling != .s411 || orientation < 5 {
            try source.withUnsafeBytes { bytes in
                let whole = PlanarJPEG.upright(bytes, orientation: orientation, quality: 90)
                let expected = try #require(whole.jpeg, "\(sampling) \(orientation): \(whole.failure ?? "")")
                let planes = PlanarJPEG.planeBytes(try #require(PlanarJPEG.header(bytes)))
                var bandCounts: [Int] = []
                for bandBytes in [1, planes / 3, 1 << 30] {
                    let banded = PlanarJPEG.uprightInBands(bytes, orientation: orientation, quality: 90, bandBytes: bandBytes)
                    let jpeg = try #require(banded.jpeg, "\(sampling) \(orientation): \(banded.failure ?? "")")
                    #expect(jpeg.elementsEqual(expected), "\(sampling) \(width)x\(height) orientation \(orientation), \(banded.bands) bands")
                    #expect(banded.width == whole.width && banded.height == whole.height)
                    bandCounts.append(banded.bands)
                }
                // One MCU row per band (8 or 16 rows), several rows, one band.
                let rowsPerMCU =
                    8
                    * (orientation >= 5
                        ? (sampling == .s420 || sampling == .s422 ? 2 : 1)
                        : (sampling == .s420 || sampling == .s440 ? 2 : 1))
                #expect(bandCounts[0] == (whole.height + rowsPerMCU - 1) / rowsPerMCU)
                #expect(bandCounts[1] >= 3 && bandCounts[1] < bandCounts[0])
                #expect(bandCounts[2] == 1)
            }
        }
    }
}

/// A progressive source (all its scans read again for each band) comes out as the whole turn makes it too.
@Test func theTurnInBandsTakesAProgressiveSource() throws {
    let dir = try Fixtures.TempDir()
    let stored = Fixtures.texturedImage(width: 90, height: 70)
    try pipeline.encodeJPEG(stored, quality: 90).write(to: dir.file("b.jpg"))
    try Fixtures.run("vips", ["copy", dir.file("b.jpg").path, dir.file("p.jpg").path + "[Q=90,interlace]"])
    let source = try Data(contentsOf: dir.file("p.jpg"))
    #expect(source.contains(0xC2))  // SOF2
    try source.withUnsafeBytes { bytes in
        let expected = try #require(PlanarJPEG.upright(bytes, orientation: 6, quality: 90).jpeg)
        let banded = PlanarJPEG.uprightInBands(bytes, orientation: 6, quality: 90, bandBytes: 2000)
        #expect(banded.bands > 1)
        #expect(banded.jpeg?.elementsEqual(expected) == true)
    }
}

/// Damage anywhere in the source ends the turn in bands with libjpeg's reason (as the whole turn does): a file cut
/// short, whichever band reads the cut first, and bytes that are not a JPEG.
@Test func theTurnInBandsFailsWithAReasonOnADamagedSource() throws {
    let stored = Fixtures.texturedImage(width: 96, height: 64)
    let source = try #require(PlanarJPEG.compress(stored, sampling: .s420, quality: 92).jpeg)
    let truncated = Data(source.prefix(source.count * 7 / 10))
    for orientation in [2, 3, 6, 8] {
        truncated.withUnsafeBytes { bytes in
            #expect(PlanarJPEG.upright(bytes, orientation: orientation, quality: 90).jpeg == nil)
            let banded = PlanarJPEG.uprightInBands(bytes, orientation: orientation, quality: 90, bandBytes: 1)
            #expect(banded.jpeg == nil, "orientation \(orientation)")
            #expect(banded.failure?.isEmpty == false)
        }
    }
    Data("not a jpeg at all, just words".utf8).withUnsafeBytes { bytes in
        let banded = PlanarJPEG.uprightInBands(bytes, orientation: 6, quality: 90, bandBytes: 1)
        #expect(banded.jpeg == nil && banded.failure?.isEmpty == false)
    }
}

/// A photo that must turn whose planes pass the pipeline's turn limit is turned in bands: the same full-size file and
/// thumbnail as a pipeline that turns it whole; an upright photo above the planar limit goes to libvips' streamed
/// re-encode.
@Test func aPhotoThatMustTurnAboveThePlaneLimitIsTurnedInBandsWithTheSameResult() throws {
    let dir = try Fixtures.TempDir()
    let small = ImagePipeline(planarLimit: 4000, turnLimit: 4000)
    let upright = Fixtures.markerImage(width: 67, height: 45)
    for orientation in 2...8 {
        let source = try taggedSource(upright, sampling: .s420, orientation: orientation, in: dir)
        let whole = try pipeline.ingest(source, thumbnailSide: 32, verify: verifyClean)
        let banded = try small.ingest(source, thumbnailSide: 32, verify: verifyClean)
        #expect(banded.path == .planarReencode)
        #expect(banded.jpeg.elementsEqual(whole.jpeg), "orientation \(orientation)")
        #expect(banded.thumbnail.elementsEqual(whole.thumbnail))
        #expect(banded.width == 67 && banded.height == 45 && banded.captureDate != nil)
        #expect(try Fixtures.metadataGroups(banded.jpeg, in: dir) == [])
    }
    let plain = try pipeline.encodeJPEG(upright, quality: 90)
    #expect(try small.ingest(plain, verify: verifyClean).path == .reencode)
}

@Test func planarThumbnailShrinksToTheSideAndStaysUpright() throws {
    let dir = try Fixtures.TempDir()
    let upright = Fixtures.markerImage(width: 67, height: 45)
    let expected = try pipeline.resize(upright, width: 20, height: 13)
    for orientation in [3, 6, 8] {
        let source = try taggedSource(upright, sampling: .s420, orientation: orientation, in: dir)
        let photo = try pipeline.ingest(source, thumbnailSide: 20, verify: verifyClean)
        #expect(photo.path == .planarReencode)
        #expect(photo.thumbnailWidth == 20 && photo.thumbnailHeight == 13)
        let thumbnail = try pipeline.decodeRGB(photo.thumbnail)
        #expect(thumbnail.width == 20 && thumbnail.height == 13)
        #expect(Fixtures.meanDifference(thumbnail, expected) < 16, "orientation \(orientation)")
    }
}

@Test func thumbnailScaleIsTheSmallestDCTScaleThatKeepsTheSide() {
    #expect(PlanarJPEG.scale(forLongerSide: 4032, atLeast: 512) == (1, 4))  // 1/8 would give 504
    #expect(PlanarJPEG.scale(forLongerSide: 4032, atLeast: 504) == (1, 8))
    #expect(PlanarJPEG.scale(forLongerSide: 4032, atLeast: 1009) == (3, 8))
    #expect(PlanarJPEG.scale(forLongerSide: 67, atLeast: 20) == (3, 8))  // 26 px; 1/4 would give 17
    #expect(PlanarJPEG.scale(forLongerSide: 100, atLeast: 512) == (1, 1))  // never enlarged
    #expect(PlanarJPEG.scale(forLongerSide: 512, atLeast: 512) == (1, 1))
}

@Test func subsamplingSwapsOnAQuarterTurnOnly() {
    #expect(PlanarJPEG.Sampling(PlanarJPEG.subsampling(PlanarJPEG.Sampling.s422.turbo, turnedBy: 6)!) == .s440)
    #expect(PlanarJPEG.Sampling(PlanarJPEG.subsampling(PlanarJPEG.Sampling.s440.turbo, turnedBy: 8)!) == .s422)
    #expect(PlanarJPEG.Sampling(PlanarJPEG.subsampling(PlanarJPEG.Sampling.s422.turbo, turnedBy: 3)!) == .s422)
    #expect(PlanarJPEG.Sampling(PlanarJPEG.subsampling(PlanarJPEG.Sampling.s420.turbo, turnedBy: 5)!) == .s420)
    #expect(PlanarJPEG.subsampling(PlanarJPEG.Sampling.s411.turbo, turnedBy: 6) == nil)
}

@Test func a411JPEGTakesThePlanarPathForAFlipAndLibvipsForAQuarterTurn() throws {
    let dir = try Fixtures.TempDir()
    let upright = Fixtures.markerImage(width: 64, height: 48)
    for (orientation, path) in [(3, IngestPath.planarReencode), (6, .reencode)] {
        let source = try taggedSource(upright, sampling: .s411, orientation: orientation, in: dir)
        let photo = try pipeline.ingest(source, verify: verifyClean)
        #expect(photo.path == path)
        #expect(Fixtures.meanDifference(try pipeline.decodeRGB(photo.jpeg), upright) < 8)
    }
}

@Test func aCMYKJPEGThatMustTurnTakesTheLibvipsRoute() throws {
    let dir = try Fixtures.TempDir()
    let upright = Fixtures.markerImage(width: 64, height: 48)
    try pipeline.encodeJPEG(Fixtures.rotatedCounterClockwise(upright), quality: 95).write(to: dir.file("m.jpg"))
    try Fixtures.run("vips", ["colourspace", dir.file("m.jpg").path, dir.file("cmyk.jpg").path + "[strip]", "cmyk"])
    let cmyk = try Fixtures.exiftool(try Data(contentsOf: dir.file("cmyk.jpg")), ["-n", "-Orientation=6"], in: dir)
    let photo = try pipeline.ingest(cmyk, verify: verifyClean)
    #expect(photo.path == .reencode)
    #expect(photo.width == 64 && photo.height == 48)
    #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
    let top = try pipeline.decodeRGB(photo.jpeg).pixel(x: 8, y: 8)
    #expect(top.r > 150 && top.b < 100)
}

@Test func anAdobeRGBJPEGThatMustTurnIsConvertedBylibvipsAndAnSRGBOneIsNot() throws {
    let dir = try Fixtures.TempDir()
    let upright = Fixtures.markerImage(width: 64, height: 48)
    let stored = try pipeline.encodeJPEG(Fixtures.rotatedCounterClockwise(upright), quality: 95)
    try Fixtures.adobeRGBProfile().write(to: dir.file("adobe.icc"))
    let adobe = try Fixtures.exiftool(
        stored, ["-n", "-Orientation=6", "-ICC_Profile<=" + dir.file("adobe.icc").path],
        in: dir, name: "adobe.jpg")
    #expect(try Fixtures.metadataGroups(adobe, in: dir).contains(where: { $0.hasPrefix("ICC") }))
    let photo = try pipeline.ingest(adobe, verify: verifyClean)
    #expect(photo.path == .reencode)
    #expect(photo.width == 64 && photo.height == 48)
    #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
    let converted = try pipeline.decodeRGB(photo.jpeg)
    let red = converted.pixel(x: 8, y: 8)
    let blue = converted.pixel(x: 50, y: 20)
    #expect(red.r > 150 && red.b < 100)
    #expect(blue.b > 150 && blue.r < 100)

    // The same picture with libvips' own sRGB profile needs no conversion: the planar path takes it.
    try stored.write(to: dir.file("plain.jpg"))
    try Fixtures.run(
        "vips",
        [
            "icc_transform", dir.file("plain.jpg").path, dir.file("srgb.jpg").path, "srgb",
            "--input-profile", "srgb", "--embedded",
        ])
    let srgb = try Fixtures.exiftool(
        try Data(contentsOf: dir.file("srgb.jpg")), ["-n", "-Orientation=6"], in: dir,
        name: "srgb-tagged.jpg")
    let plain = try pipeline.ingest(srgb, verify: verifyClean)
    #expect(plain.path == .planarReencode)
    #expect(try Fixtures.metadataGroups(plain.jpeg, in: dir) == [])
    #expect(Fixtures.meanDifference(try pipeline.decodeRGB(plain.jpeg), upright) < 8)
}

@Test func aTruncatedJPEGThatMustTurnIsRefusedAsCorrupt() throws {
    let dir = try Fixtures.TempDir()
    let source = try taggedSource(
        Fixtures.texturedImage(width: 320, height: 240), sampling: .s420, orientation: 6,
        in: dir)
    let truncated = Data(source.prefix(source.count * 7 / 10))
    #expect(kind { try pipeline.ingest(truncated, verify: verifyClean) } == .corrupt)
}

@Test func planarCallsFailWithAReasonOnBytesThatAreNotAJPEG() {
    let junk = Data("not a jpeg at all, just words".utf8)
    junk.withUnsafeBytes { bytes in
        let full = PlanarJPEG.upright(bytes, orientation: 6, quality: 90)
        #expect(full.jpeg == nil && full.failure != nil)
        let small = PlanarJPEG.uprightRGB(bytes, orientation: 6, atLeast: 16)
        #expect(small.image == nil && small.failure != nil)
        #expect(PlanarJPEG.header(bytes) == nil)
    }
    #expect(PlanarJPEG.sampling(of: Data()) == nil)
}

@Test func planarIngestsRunFromSeveralThreadsAtOnce() throws {
    let dir = try Fixtures.TempDir()
    let upright = Fixtures.markerImage(width: 96, height: 64)
    let source = try taggedSource(upright, sampling: .s420, orientation: 6, in: dir)
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [IngestPath] = []
        private var errors = 0
        func add(_ path: IngestPath?) {
            lock.lock()
            defer { lock.unlock() }
            if let path { paths.append(path) } else { errors += 1 }
        }
        var summary: (paths: [IngestPath], errors: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (paths, errors)
        }
    }
    let outcomes = Outcomes()
    // Every worker of the shared queue is busy here: the thumbnail threads must still run.
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
        let photo = try? pipeline.ingest(source, thumbnailSide: 32, verify: verifyClean)
        outcomes.add(photo.flatMap { $0.width == 96 && $0.height == 64 && $0.thumbnailWidth == 32 ? $0.path : nil })
    }
    #expect(outcomes.summary.errors == 0)
    #expect(outcomes.summary.paths == Array(repeating: .planarReencode, count: 8))
}

/// An upright photo rebuilt a strip at a time is the file TurboJPEG's whole decode to planes and encode make, byte for
/// byte, for every subsampling and odd sizes, progressive sources too; with the half-size copy asked for, that is
/// made for 4:2:0 and 4:4:4 (the subsamplings libjpeg decodes at half size without upsampling) and for no other.
@Test(arguments: [PlanarJPEG.Sampling.s420, .s422, .s444, .grey, .s440, .s411])
func theUprightRebuiltInStripsIsTheFileTheWholeRebuildMakes(sampling: PlanarJPEG.Sampling) throws {
    for (width, height) in [(203, 137), (131, 250), (64, 48)] {
        let source = try #require(
            PlanarJPEG.compress(
                Fixtures.texturedImage(width: width, height: height),
                sampling: sampling, quality: 92
            ).jpeg)
        try source.withUnsafeBytes { bytes in
            let expected = try #require(PlanarJPEG.upright(bytes, orientation: 1, quality: 90).jpeg)
            for half in [false, true] {
                let rebuilt = PlanarJPEG.rebuiltUpright(bytes, quality: 90, half: half)
                let jpeg = try #require(rebuilt.jpeg, "\(sampling): \(rebuilt.failure ?? "")")
                #expect(jpeg.elementsEqual(expected), "\(sampling) \(width)x\(height)")
                #expect(rebuilt.width == width && rebuilt.height == height)
                #expect((rebuilt.half != nil) == (half && (sampling == .s420 || sampling == .s444)), "\(sampling)")
            }
        }
    }
    let dir = try Fixtures.TempDir()
    try pipeline.encodeJPEG(Fixtures.texturedImage(width: 90, height: 70), quality: 90).write(to: dir.file("b.jpg"))
    try Fixtures.run("vips", ["copy", dir.file("b.jpg").path, dir.file("p.jpg").path + "[Q=90,interlace]"])
    try Data(contentsOf: dir.file("p.jpg")).withUnsafeBytes { bytes in
        let expected = try #require(PlanarJPEG.upright(bytes, orientation: 1, quality: 90).jpeg)
        #expect(PlanarJPEG.rebuiltUpright(bytes, quality: 90, half: true).jpeg?.elementsEqual(expected) == true)
    }
}

/// The half-size copy is libjpeg's own decode at half size but for its luma (a 2 x 2 mean instead of a 4x4 reduced
/// inverse DCT): measured on this textured picture, 4:2:0 differs in 14% of samples and by 2 at most, 4:4:4 by 3
/// (its chroma is averaged too); a copy of another picture, or misplaced by a pixel, differs by far more.
@Test(arguments: [PlanarJPEG.Sampling.s420, .s444])
func theHalfSizeCopyIsWithinAFewLevelsOfLibjpegsHalfSizeDecode(sampling: PlanarJPEG.Sampling) throws {
    let (width, height) = (401, 299)
    let source = try #require(
        PlanarJPEG.compress(
            Fixtures.texturedImage(width: width, height: height), sampling: sampling,
            quality: 92
        ).jpeg)
    try source.withUnsafeBytes { bytes in
        let half = try #require(PlanarJPEG.rebuiltUpright(bytes, quality: 90, half: true).half)
        #expect(half.width == 201 && half.height == 150)
        // TurboJPEG decodes at 1/2 here: the smallest scale whose longer side is still 201.
        let reference = try #require(PlanarJPEG.uprightRGB(bytes, orientation: 1, atLeast: 201).image)
        #expect(reference.width == 201 && reference.height == 150)
        let count = half.width * half.height * 3
        let copy = Array(UnsafeBufferPointer(start: half.pixels, count: count))
        let differences = zip(copy, reference.pixels).map { abs(Int($0) - Int($1)) }
        #expect(differences.max() ?? 99 <= 4)
        #expect(Double(differences.reduce(0, +)) / Double(count) < 0.5)
    }
}

/// Damage in an upright source ends the rebuild in strips with libjpeg's reason, as the whole rebuild.
@Test func theRebuildInStripsFailsWithAReasonOnADamagedSource() throws {
    let source = try #require(
        PlanarJPEG.compress(
            Fixtures.texturedImage(width: 96, height: 64), sampling: .s420,
            quality: 92
        ).jpeg)
    for damaged in [Data(source.prefix(source.count * 7 / 10)), Data("not a jpeg at all, just words".utf8)] {
        damaged.withUnsafeBytes { bytes in
            let rebuilt = PlanarJPEG.rebuiltUpright(bytes, quality: 90, half: true)
            #expect(rebuilt.jpeg == nil && rebuilt.half == nil)
            #expect(rebuilt.failure?.isEmpty == false)
        }
    }
}
