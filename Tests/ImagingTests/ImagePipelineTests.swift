import CairnCore
import Foundation
import PhotoMetadata
import Testing

@testable import Imaging

private let pipeline = ImagePipeline()

/// Swift Testing prints a thrown error's description; include the library text to make failures diagnosable.
private func kind(of body: () throws -> Any) -> ImagingError.Kind? {
    do {
        _ = try body()
        return nil
    } catch let error as ImagingError { return error.kind } catch { return nil }
}

private func noCheck(_: Data) {}

// MARK: - probe

@Test func probeReadsFormatAndSizeOfJPEGPNGWebPAndHEIC() throws {
    let dir = try Fixtures.TempDir()
    let jpeg = try pipeline.encodeJPEG(Fixtures.markerImage(width: 64, height: 48))
    let samples: [(Data, ImageFormat)] = [
        (jpeg, .jpeg),
        (try Fixtures.convert(jpeg, to: "a.png", in: dir), .png),
        (try Fixtures.convert(jpeg, to: "a.webp", in: dir), .webp),
        (try Fixtures.convert(jpeg, to: "a.heic", in: dir), .heic),
    ]
    for (data, format) in samples {
        let info = try pipeline.probe(data)
        #expect(info.format == format)
        #expect(info.width == 64 && info.height == 48)
        #expect(info.orientation == 1)
        #expect(info.captureDate == nil)
    }
}

@Test func probeRejectsAZeroByteFile() {
    #expect(kind { try pipeline.probe(Data()) } == .emptyFile)
    #expect(kind { try pipeline.ingest(Data(), verify: noCheck) } == .emptyFile)
    #expect(kind { try pipeline.decodeRGB(Data()) } == .emptyFile)
}

@Test func probeRejectsATextFileNamedJPG() throws {
    let dir = try Fixtures.TempDir()
    let file = dir.file("holiday.jpg")
    try Data("These are my notes, not a photo.\n".utf8).write(to: file)
    let data = try Data(contentsOf: file)
    #expect(kind { try pipeline.probe(data) } == .notAnImage)
    #expect(kind { try pipeline.ingest(data, verify: noCheck) } == .notAnImage)
    #expect(kind { try pipeline.decodeRGB(data, maxSide: 64) } == .notAnImage)
}

@Test func probeRejectsAFormatCairnDoesNotTake() throws {
    let dir = try Fixtures.TempDir()
    let tiff = try Fixtures.convert(try pipeline.encodeJPEG(Fixtures.markerImage()), to: "a.tif", in: dir)
    #expect(kind { try pipeline.probe(tiff) } == .unsupportedFormat)
}

@Test func rejectsA30000x30000PNGByItsHeaderBeforeDecoding() throws {
    let dir = try Fixtures.TempDir()
    // A real PNG: 900 million pixels that compress to about 100 kB.
    try Fixtures.run("vips", ["black", dir.file("bomb.png").path + "[bitdepth=1]", "30000", "30000"])
    let bomb = try Data(contentsOf: dir.file("bomb.png"))
    #expect(bomb.count < 1_000_000)
    let peakBefore = Fixtures.peakResidentBytes()
    #expect(kind { try pipeline.probe(bomb) } == .tooManyPixels(width: 30000, height: 30000, limit: 100_000_000))
    #expect(
        kind { try pipeline.ingest(bomb, verify: noCheck) }
            == .tooManyPixels(width: 30000, height: 30000, limit: 100_000_000))
    #expect(
        kind { try pipeline.decodeRGB(bomb, maxSide: 256) }
            == .tooManyPixels(width: 30000, height: 30000, limit: 100_000_000))
    // Decoding even one byte per pixel would need 900 MB; the header read must not come close.
    #expect(Fixtures.peakResidentBytes() - peakBefore < 64 * 1_048_576)
    do {
        _ = try pipeline.probe(bomb)
    } catch let error as ImagingError {
        #expect(error.userMessage.contains("30000 x 30000"))
        #expect(error.userMessage.contains("100 MP"))
    }
}

@Test func probeAppliesACustomPixelLimitAndByteLimit() throws {
    let jpeg = try pipeline.encodeJPEG(Fixtures.markerImage(width: 64, height: 48))
    let small = ImagePipeline(limits: ImageLimits(maxPixels: 64 * 48 - 1))
    #expect(kind { try small.probe(jpeg) } == .tooManyPixels(width: 64, height: 48, limit: 64 * 48 - 1))
    #expect((try? ImagePipeline(limits: ImageLimits(maxPixels: 64 * 48)).probe(jpeg)) != nil)
    let tight = ImagePipeline(limits: ImageLimits(maxBytes: jpeg.count - 1))
    #expect(kind { try tight.probe(jpeg) } == .tooManyBytes(byteCount: jpeg.count, limit: jpeg.count - 1))
}

@Test func rejectsAHEICWithNoImageInIt() {
    // A hand-made HEIF: an ftyp box and a meta box whose item list is empty.
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + payload
    }
    let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
    let hdlr = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
    let iinf = box("iinf", [0, 0, 0, 0] + [0, 0])
    let meta = box("meta", [0, 0, 0, 0] + hdlr + iinf)
    let empty = Data(ftyp + meta)
    #expect(kind { try pipeline.probe(empty) } == .noImageInContainer)
    #expect(kind { try pipeline.ingest(empty, verify: noCheck) } == .noImageInContainer)
    #expect(kind { try pipeline.decodeRGB(empty, maxSide: 64) } == .noImageInContainer)
}

@Test func rejectsATruncatedHEIC() throws {
    let dir = try Fixtures.TempDir()
    let heic = try Fixtures.convert(
        try pipeline.encodeJPEG(Fixtures.texturedImage(width: 256, height: 192)),
        to: "a.heic", in: dir)
    let headOnly = heic.prefix(300)
    let error = kind { try pipeline.probe(Data(headOnly)) }
    #expect(error == .noImageInContainer || error == .corrupt)
    let half = heic.prefix(heic.count / 2)
    #expect(kind { try pipeline.ingest(Data(half), verify: noCheck) } == .corrupt)
}

// MARK: - ingest

@Test func ingestOfAnUprightJPEGRebuildsItWithLibjpegsOwnTablesAndKeepsThePicture() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 320, height: 240), quality: 80)
    let photo = try pipeline.ingest(source, verify: noCheck)
    #expect(photo.path == .planarReencode)
    #expect(photo.sourceFormat == .jpeg)
    #expect(photo.width == 320 && photo.height == 240)
    #expect(photo.jpeg != source)
    #expect(Fixtures.meanDifference(try pipeline.decodeRGB(photo.jpeg), try pipeline.decodeRGB(source)) < 3)
}

/// An upright JPEG whose decoded planes would pass `planarLimit` (40 MP at 4:4:4: 120 MB) is streamed
/// through libvips instead, read once and encoded as it is read; the same photo at 4:2:0 (60 MB of planes) keeps
/// the planar path. Both come out the photo's size, with a thumbnail.
@Test func aLargeUprightJPEGIsReencodedAsItStreamsWhenItsPlanesWouldPassTheLimit() throws {
    let dir = try Fixtures.TempDir()
    try pipeline.encodeJPEG(Fixtures.texturedImage(width: 320, height: 240), quality: 80).write(to: dir.file("small.jpg"))
    for (mode, expected) in [("off", IngestPath.reencode), ("on", .planarReencode)] {
        let name = "large-\(mode).jpg"
        try Fixtures.run("vips", ["resize", dir.file("small.jpg").path, dir.file(name).path + "[Q=90,subsample_mode=\(mode)]", "22.83"])
        let source = try Data(contentsOf: dir.file(name))
        let header = try #require(source.withUnsafeBytes { PlanarJPEG.header($0) })
        #expect((PlanarJPEG.planeBytes(header) > ImagePipeline.planarLimit) == (expected == .reencode))
        let photo = try pipeline.ingest(source, verify: noCheck)
        #expect(photo.path == expected, "subsampling \(mode)")
        #expect(photo.width == header.width && photo.height == header.height)
        #expect(max(photo.thumbnailWidth, photo.thumbnailHeight) == 512)
    }
}

@Test func losslessIngestOfAnUprightJPEGKeepsEveryPixelInANewFile() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 320, height: 240), quality: 80)
    let photo = try pipeline.ingest(source, strategy: .losslessWherePossible, verify: noCheck)
    #expect(photo.path == .losslessTransform)
    #expect(try pipeline.decodeRGB(photo.jpeg) == (try pipeline.decodeRGB(source)))
}

@Test func reencodePathChangesPixelsThatTheLosslessPathKeeps() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 320, height: 240), quality: 80)
    let reencoded = try pipeline.ingest(source, strategy: .alwaysReencode, verify: noCheck)
    #expect(reencoded.path == .reencode)
    #expect(reencoded.width == 320 && reencoded.height == 240)
    let original = try pipeline.decodeRGB(source)
    #expect(Fixtures.meanDifference(try pipeline.decodeRGB(reencoded.jpeg), original) > 0)
}

@Test func ingestDropsCommentXMPAndICCAndKeepsOnlyJFIF() throws {
    let dir = try Fixtures.TempDir()
    let plain = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 128, height: 96))
    // sRGB ICC profile from libvips' own conversion, then a comment and XMP from exiftool.
    try plain.write(to: dir.file("plain.jpg"))
    try Fixtures.run(
        "vips",
        [
            "icc_transform", dir.file("plain.jpg").path, dir.file("icc.jpg").path, "srgb",
            "--input-profile", "srgb", "--embedded",
        ])
    let tagged = try Fixtures.exiftool(
        try Data(contentsOf: dir.file("icc.jpg")),
        ["-EXIF:all=", "-Comment=private note", "-XMP-dc:Subject=private subject"], in: dir)
    let before = try Fixtures.metadataGroups(tagged, in: dir)
    #expect(before.contains("XMP-dc"))
    #expect(before.contains(where: { $0.hasPrefix("ICC") }))
    let photo = try pipeline.ingest(tagged, verify: noCheck)
    #expect(photo.path == .planarReencode)
    #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
    #expect(try Fixtures.metadataGroups(photo.thumbnail, in: dir) == [])
    #expect(photo.jpeg.prefix(11) == Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]))
}

@Test func ingestOfPNGWithAlphaAndOfWebPAndHEICReencodesToCleanJPEG() throws {
    let dir = try Fixtures.TempDir()
    let jpeg = try pipeline.encodeJPEG(Fixtures.markerImage(width: 64, height: 48))
    try jpeg.write(to: dir.file("m.jpg"))
    try Fixtures.run("vips", ["bandjoin_const", dir.file("m.jpg").path, dir.file("alpha.png").path + "[strip]", "0"])
    let sources: [(Data, ImageFormat)] = [
        (try Data(contentsOf: dir.file("alpha.png")), .png),
        (try Fixtures.convert(jpeg, to: "a.webp", in: dir), .webp),
        (try Fixtures.convert(jpeg, to: "a.heic", in: dir), .heic),
    ]
    for (data, format) in sources {
        let photo = try pipeline.ingest(data, verify: noCheck)
        #expect(photo.sourceFormat == format)
        #expect(photo.path == .reencode)
        #expect(photo.width == 64 && photo.height == 48)
        #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
        #expect(try pipeline.probe(photo.jpeg).format == .jpeg)
    }
    // A fully transparent PNG is flattened on white.
    let flattened = try pipeline.decodeRGB(try pipeline.ingest(sources[0].0, verify: noCheck).jpeg)
    let p = flattened.pixel(x: 32, y: 24)
    #expect(p.r > 240 && p.g > 240 && p.b > 240)
}

@Test func ingestOfACMYKJPEGReencodesToSRGB() throws {
    let dir = try Fixtures.TempDir()
    try pipeline.encodeJPEG(Fixtures.markerImage(width: 64, height: 48)).write(to: dir.file("m.jpg"))
    try Fixtures.run("vips", ["colourspace", dir.file("m.jpg").path, dir.file("cmyk.jpg").path + "[strip]", "cmyk"])
    let photo = try pipeline.ingest(try Data(contentsOf: dir.file("cmyk.jpg")), verify: noCheck)
    #expect(photo.path == .reencode)
    #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
    let top = try pipeline.decodeRGB(photo.jpeg).pixel(x: 8, y: 8)
    #expect(top.r > 150 && top.b < 100)
}

@Test func ingestCallsVerifyOnEachJPEGAndStopsOnItsError() throws {
    struct Refused: Error {}
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 128, height: 96))
    var seen: [Data] = []
    let photo = try pipeline.ingest(source) { seen.append($0) }
    #expect(seen == [photo.jpeg, photo.thumbnail])
    #expect(throws: Refused.self) { try pipeline.ingest(source) { _ in throw Refused() } }
}

@Test func thumbnailFitsTheRequestedSideAndNeverEnlarges() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 800, height: 400))
    let photo = try pipeline.ingest(source, thumbnailSide: 200, verify: noCheck)
    #expect(photo.thumbnailWidth == 200 && photo.thumbnailHeight == 100)
    #expect(try pipeline.probe(photo.thumbnail).width == 200)
    let big = try pipeline.ingest(source, thumbnailSide: 2000, verify: noCheck)
    #expect(big.thumbnailWidth == 800 && big.thumbnailHeight == 400)
}

/// The thumbnail's shrink (both directions through libvips' vertical reduce) makes the picture `resize` makes, the
/// same size and within a few levels, also when only one side shrinks; a shrink by 2 or more is `resize`'s own.
@Test func theThumbnailShrinkMatchesTheResizeWithinAFewLevels() throws {
    let picture = Fixtures.texturedImage(width: 800, height: 600)
    for (width, height, exact) in [(512, 384, false), (800, 300, true), (420, 600, false), (137, 101, true), (401, 301, false)] {
        let resized = try pipeline.resize(picture, width: width, height: height)
        let shrunk = try VipsImageRef.fromRGB(picture).thumbnailShrunk(width: width, height: height).srgb8()
        #expect(shrunk.width == width && shrunk.height == height)
        let pixels = try shrunk.memory()
        #expect(pixels.count == resized.pixels.count)
        let differences = zip(pixels, resized.pixels).map { abs(Int($0) - Int($1)) }
        if exact {
            #expect(pixels == resized.pixels, "\(width)x\(height)")
        } else {
            #expect(pixels != resized.pixels, "\(width)x\(height)")
            #expect(differences.max() ?? 99 <= 12, "\(width)x\(height)")
            #expect(Double(differences.reduce(0, +)) / Double(differences.count) < 0.5, "\(width)x\(height)")
        }
    }
    #expect(throws: ImagingError.self) { try VipsImageRef.fromRGB(picture).thumbnailShrunk(width: 801, height: 600) }
}

/// A caller that decoded the photo already hands that copy over and the thumbnail is shrunk from it: a preview of
/// another picture (a plain grey one here) shows in the thumbnail, at the size the photo's own would have.
@Test func theThumbnailIsShrunkFromTheCallersDecodedCopyWhenItFits() throws {
    let picture = Fixtures.texturedImage(width: 800, height: 400)
    let source = try pipeline.encodeJPEG(picture)
    let grey = RGBImage(width: 400, height: 200, pixels: [UInt8](repeating: 128, count: 400 * 200 * 3))
    let photo = try pipeline.ingest(source, thumbnailSide: 200, preview: grey, verify: noCheck)
    #expect(photo.path == .planarReencode)
    #expect(photo.thumbnailWidth == 200 && photo.thumbnailHeight == 100)
    let thumbnail = try pipeline.decodeRGB(photo.thumbnail)
    #expect(thumbnail.pixels.allSatisfy { abs(Int($0) - 128) <= 2 })
    // Without a preview, the thumbnail shows the photo's texture.
    let own = try pipeline.decodeRGB(try pipeline.ingest(source, thumbnailSide: 200, verify: noCheck).thumbnail)
    #expect(own.pixels.filter { abs(Int($0) - 128) > 20 }.count > own.pixels.count / 4)
}

/// A preview that could not give the thumbnail the photo would (smaller than the thumbnail, another shape, larger
/// than the photo) is not used: the thumbnail is made from the photo as without one.
@Test func aPreviewThatDoesNotFitThePhotoIsNotUsedForTheThumbnail() throws {
    let picture = Fixtures.texturedImage(width: 800, height: 400)
    let source = try pipeline.encodeJPEG(picture)
    let expected = try pipeline.decodeRGB(try pipeline.ingest(source, thumbnailSide: 200, verify: noCheck).thumbnail)
    for (width, height) in [(150, 75), (400, 400), (1600, 800)] {
        let grey = RGBImage(width: width, height: height, pixels: [UInt8](repeating: 128, count: width * height * 3))
        let photo = try pipeline.ingest(source, thumbnailSide: 200, preview: grey, verify: noCheck)
        #expect(try pipeline.decodeRGB(photo.thumbnail) == expected, "preview \(width)x\(height)")
    }
}

@Test func ingestRejectsATruncatedJPEG() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 640, height: 480))
    let truncated = Data(source.prefix(source.count * 6 / 10))
    #expect(kind { try pipeline.ingest(truncated, verify: noCheck) } == .corrupt)
    #expect(kind { try pipeline.decodeRGB(truncated) } == .corrupt)
    #expect(kind { try pipeline.decodeRGB(truncated, maxSide: 100) } == .corrupt)
    let headerOnly = Data(source.prefix(20))
    #expect(kind { try pipeline.probe(headerOnly) } == .corrupt)
}

/// An upright 4:2:0 JPEG that libvips would shrink by 2 while loading gets its analysis copy from the re-encode's own
/// decode: the same stored file as without it, and a copy the size of `decodeRGB(_:maxSide:)`'s within a level or
/// two of it (its luma is a 2 x 2 mean where libjpeg's half-size decode uses a reduced inverse DCT, so the two differ
/// in a few samples); the thumbnail is shrunk from that copy.
@Test func anUprightPhotosAnalysisCopyComesFromTheReencodesOwnDecode() throws {
    let source = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 1000, height: 600))
    let made = try pipeline.ingest(source, thumbnailSide: 100, analysisSide: 200, verify: noCheck)
    let libvips = try pipeline.decodeRGB(source, maxSide: 200)
    #expect(made.analysis.width == 200 && made.analysis.height == 120)
    #expect(made.analysis.width == libvips.width && made.analysis.height == libvips.height)
    let differences = zip(made.analysis.pixels, libvips.pixels).map { abs(Int($0) - Int($1)) }
    #expect(differences.max() ?? 99 <= 3)
    #expect(Double(differences.reduce(0, +)) / Double(differences.count) < 0.5)
    #expect(made.analysis != libvips)
    let separate = try pipeline.ingest(source, thumbnailSide: 100, preview: made.analysis, verify: noCheck)
    #expect(made.photo.jpeg == separate.jpeg)
    #expect(made.photo.thumbnail == separate.thumbnail)
    #expect(made.photo.path == .planarReencode)
    #expect(made.photo.width == 1000 && made.photo.height == 600)
    #expect(made.photo.thumbnailWidth == 100 && made.photo.thumbnailHeight == 60)
}

/// Any other photo (libvips would not shrink it by 2 while loading, or its subsampling needs upsampling at half
/// size) gets libvips' own analysis copy, and the file and thumbnail `ingest` makes with that copy as its preview.
@Test func anyOtherPhotosAnalysisCopyIsLibvipsOwn() throws {
    let picture = Fixtures.texturedImage(width: 1000, height: 600)
    let subsampled422 = try #require(PlanarJPEG.compress(picture, sampling: .s422, quality: 92).jpeg)
    for (source, side) in [(try pipeline.encodeJPEG(picture), 300), (subsampled422, 200)] {
        let made = try pipeline.ingest(source, thumbnailSide: 100, analysisSide: side, verify: noCheck)
        let libvips = try pipeline.decodeRGB(source, maxSide: side)
        #expect(made.analysis == libvips)
        #expect(made.photo.jpeg == (try pipeline.ingest(source, thumbnailSide: 100, preview: libvips, verify: noCheck)).jpeg)
    }
    let truncated = Data(try pipeline.encodeJPEG(picture).prefix(40_000))
    #expect(kind { try pipeline.ingest(truncated, analysisSide: 200, verify: noCheck) } == .corrupt)
}

// MARK: - EXIF (enabled once PhotoMetadata's ExifReader is merged)

private func orientation6JPEG(width: Int, height: Int, in dir: Fixtures.TempDir) throws -> (Data, RGBImage) {
    let upright = Fixtures.markerImage(width: width, height: height)
    let stored = try pipeline.encodeJPEG(Fixtures.rotatedCounterClockwise(upright), quality: 95)
    let tagged = try Fixtures.exiftool(
        stored,
        [
            "-n", "-Orientation=6",
            "-GPSLatitude=48.8566", "-GPSLatitudeRef=N", "-GPSLongitude=2.3522", "-GPSLongitudeRef=E",
            "-DateTimeOriginal=2024:05:06 07:08:09", "-OffsetTimeOriginal=+02:00",
        ], in: dir)
    return (tagged, upright)
}

@Test
func probeReportsUprightSizeOrientationAndCaptureDate() throws {
    let dir = try Fixtures.TempDir()
    let (tagged, _) = try orientation6JPEG(width: 64, height: 48, in: dir)
    let info = try pipeline.probe(tagged)
    #expect(info.orientation == 6)
    #expect(info.width == 64 && info.height == 48)
    #expect(info.captureDate == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: 7200))
}

@Test
func ingestTurnsOrientation6UprightOnEveryPathAndDropsGPS() throws {
    let dir = try Fixtures.TempDir()
    let (tagged, upright) = try orientation6JPEG(width: 64, height: 48, in: dir)
    #expect(try Fixtures.metadataGroups(tagged, in: dir).contains("GPS"))
    let expected: [(IngestStrategy, IngestPath)] = [
        (.automatic, .planarReencode), (.losslessWherePossible, .losslessTransform), (.alwaysReencode, .reencode),
    ]
    for (strategy, path) in expected {
        let photo = try pipeline.ingest(tagged, strategy: strategy) {
            try MetadataInspector.verifyClean($0, allowList: .cairnJPEG)
        }
        #expect(photo.path == path)
        #expect(photo.width == 64 && photo.height == 48)
        #expect(photo.captureDate?.utcOffsetSeconds == 7200)
        #expect(try Fixtures.metadataGroups(photo.jpeg, in: dir) == [])
        let decoded = try pipeline.decodeRGB(photo.jpeg)
        #expect(Fixtures.meanDifference(decoded, upright) < 6)
        #expect(try pipeline.probe(photo.jpeg).orientation == 1)
    }
    // The lossless turn keeps the coded picture: it decodes (almost) exactly like the source turned by libvips.
    let sourceTurned = try pipeline.decodeRGB(tagged)
    let lossless = try pipeline.ingest(tagged, strategy: .losslessWherePossible, verify: noCheck)
    let reencoded = try pipeline.ingest(tagged, strategy: .alwaysReencode, verify: noCheck)
    let losslessError = Fixtures.meanDifference(try pipeline.decodeRGB(lossless.jpeg), sourceTurned)
    let reencodeError = Fixtures.meanDifference(try pipeline.decodeRGB(reencoded.jpeg), sourceTurned)
    #expect(losslessError < 0.5)
    #expect(losslessError < reencodeError)
}

@Test
func aJPEGWithPartialEdgeBlocksFallsBackToReencodeWhenItMustTurn() throws {
    let dir = try Fixtures.TempDir()
    let (tagged, upright) = try orientation6JPEG(width: 50, height: 30, in: dir)
    let photo = try pipeline.ingest(tagged, strategy: .losslessWherePossible, verify: noCheck)
    #expect(photo.path == .reencode)
    #expect(photo.width == 50 && photo.height == 30)
    let decoded = try pipeline.decodeRGB(photo.jpeg)
    for (x, y) in [(5, 5), (45, 5), (40, 28)] {
        let want = upright.pixel(x: x, y: y)
        let got = decoded.pixel(x: x, y: y)
        #expect(
            abs(Int(want.r) - Int(got.r)) < 40 && abs(Int(want.g) - Int(got.g)) < 40
                && abs(Int(want.b) - Int(got.b)) < 40)
    }
}

@Test
func decodeRGBAppliesTheOrientation() throws {
    let dir = try Fixtures.TempDir()
    let (tagged, upright) = try orientation6JPEG(width: 64, height: 48, in: dir)
    let full = try pipeline.decodeRGB(tagged)
    #expect(full.width == 64 && full.height == 48)
    #expect(Fixtures.meanDifference(full, upright) < 6)
    let small = try pipeline.decodeRGB(tagged, maxSide: 32)
    #expect(small.width == 32 && small.height == 24)
}

// MARK: - decodeRGB, encodeJPEG, crop, resize

@Test func decodeRGBShrinksOnLoadToMaxSide() throws {
    let source = try pipeline.encodeJPEG(Fixtures.markerImage(width: 640, height: 480))
    let small = try pipeline.decodeRGB(source, maxSide: 160)
    #expect(small.width == 160 && small.height == 120)
    #expect(small.pixels.count == 160 * 120 * 3)
    let topLeft = small.pixel(x: 10, y: 10)
    #expect(topLeft.r > 180 && topLeft.b < 80)
    let notEnlarged = try pipeline.decodeRGB(source, maxSide: 5000)
    #expect(notEnlarged.width == 640 && notEnlarged.height == 480)
}

@Test func anApproximateCopyOfAJPEGIsShrunkByAPowerOfTwoToWithinTenPercentOfItsSize() throws {
    let source = try pipeline.encodeJPEG(Fixtures.markerImage(width: 1600, height: 1200))
    let quarter = try pipeline.decodeRGB(source, approximatelyFitting: 420)  // 1/4 while decoding: 400 x 300
    #expect(quarter.width == 400 && quarter.height == 300)
    let topLeft = quarter.pixel(x: 10, y: 10)
    #expect(topLeft.r > 180 && topLeft.b < 80)
    let resampled = try pipeline.decodeRGB(source, approximatelyFitting: 700)  // 1/2 (800), then to 700
    #expect(resampled.width == 700 && resampled.height == 525)
    let small = try pipeline.decodeRGB(source, approximatelyFitting: 1500)  // too little to shrink: exact size
    #expect(small.width == 1500 && small.height == 1125)
    let notEnlarged = try pipeline.decodeRGB(source, approximatelyFitting: 5000)
    #expect(notEnlarged.width == 1600 && notEnlarged.height == 1200)
    let dir = try Fixtures.TempDir()
    let (tagged, _) = try orientation6JPEG(width: 640, height: 480, in: dir)
    let turned = try pipeline.decodeRGB(tagged, approximatelyFitting: 160)
    #expect(turned.width == 160 && turned.height == 120)
}

@Test func decodeRGBReadsGreyscaleAs3Channels() throws {
    let dir = try Fixtures.TempDir()
    try pipeline.encodeJPEG(Fixtures.markerImage()).write(to: dir.file("m.jpg"))
    try Fixtures.run("vips", ["colourspace", dir.file("m.jpg").path, dir.file("g.png").path + "[strip]", "b-w"])
    let grey = try pipeline.decodeRGB(try Data(contentsOf: dir.file("g.png")))
    #expect(grey.pixels.count == 64 * 48 * 3)
    let p = grey.pixel(x: 5, y: 5)
    #expect(p.r == p.g && p.g == p.b)
}

@Test func encodeJPEGWritesAJFIFHeaderAndNoMetadata() throws {
    let dir = try Fixtures.TempDir()
    let image = Fixtures.markerImage()
    let jpeg = try pipeline.encodeJPEG(image, quality: 95)
    #expect(try Fixtures.metadataGroups(jpeg, in: dir) == [])
    #expect(JPEGSegments.firstNonCodingSegment(in: jpeg) == nil)
    #expect(Fixtures.meanDifference(try pipeline.decodeRGB(jpeg), image) < 6)
    // Out-of-range qualities are clamped rather than failing.
    #expect((try? pipeline.encodeJPEG(image, quality: 0)) != nil)
    #expect((try? pipeline.encodeJPEG(image, quality: 500)) != nil)
}

@Test func cropClipsToTheImageAndGivesNilOutsideIt() throws {
    let image = Fixtures.markerImage(width: 64, height: 48)
    let corner = try #require(pipeline.crop(image, x: 0, y: 0, width: 10, height: 5))
    #expect(corner.width == 10 && corner.height == 5)
    #expect(corner.pixel(x: 9, y: 4) == image.pixel(x: 9, y: 4))
    let clipped = try #require(pipeline.crop(image, x: 60, y: -10, width: 20, height: 20))
    #expect(clipped.width == 4 && clipped.height == 10)
    #expect(clipped.pixel(x: 0, y: 0) == image.pixel(x: 60, y: 0))
    #expect(pipeline.crop(image, x: 64, y: 0, width: 5, height: 5) == nil)
    #expect(pipeline.crop(image, x: 0, y: 0, width: 0, height: 5) == nil)
}

@Test func resizeGivesTheExactSizeAndFitKeepsTheAspect() throws {
    let image = Fixtures.markerImage(width: 64, height: 48)
    let stretched = try pipeline.resize(image, width: 33, height: 7)
    #expect(stretched.width == 33 && stretched.height == 7)
    let fitted = try pipeline.resize(image, fittingIn: 32)
    #expect(fitted.width == 32 && fitted.height == 24)
    #expect(try pipeline.resize(image, fittingIn: 100) == image)
    let tiny = RGBImage(width: 1, height: 1, pixels: [1, 2, 3])
    #expect(try pipeline.resize(tiny, width: 3, height: 2).pixels.count == 18)
}

@Test func aFreshPipelineWorksFromSeveralThreadsAtOnce() throws {
    let fresh = ImagePipeline()
    let source = try fresh.encodeJPEG(Fixtures.texturedImage(width: 96, height: 64))
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() {
            lock.lock()
            count += 1
            lock.unlock()
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }
    let failures = Counter()
    DispatchQueue.concurrentPerform(iterations: 8) { i in
        do {
            let jpeg = try fresh.encodeJPEG(Fixtures.markerImage(width: 32 + i * 16, height: 32))
            let photo = try fresh.ingest(i.isMultiple(of: 2) ? source : jpeg, thumbnailSide: 16, verify: noCheck)
            if photo.thumbnailWidth > 16 { failures.add() }
        } catch {
            failures.add()
        }
    }
    #expect(failures.value == 0)
}

@Test func aRegionDecodesExactlyAsTheSamePartOfTheWholePhotoUprightTurnedOrClipped() throws {
    let dir = try Fixtures.TempDir()
    let upright = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 320, height: 240), quality: 95)
    let (turned, _) = try orientation6JPEG(width: 64, height: 48, in: dir)
    // Far enough down that the rows above are read in several strips first, one of them short.
    let tall = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 200, height: 700), quality: 95)
    for (photo, x, y, w, h) in [
        (upright, 100, 60, 90, 90), (upright, 0, 0, 320, 240), (turned, 20, 10, 30, 30), (turned, 0, 0, 64, 48),
        (tall, 30, 333, 120, 120), (tall, 0, 640, 200, 60),
    ] {
        let whole = try pipeline.decodeRGB(photo)
        let region = try pipeline.decodeRGB(photo, x: x, y: y, width: w, height: h)
        #expect(region == pipeline.crop(whole, x: x, y: y, width: w, height: h), "\(x),\(y) \(w)x\(h)")
    }
    let clipped = try pipeline.decodeRGB(upright, x: 300, y: 200, width: 100, height: 100)
    #expect(clipped.width == 20 && clipped.height == 40, "clipped to the photo")
    #expect(throws: ImagingError.self) { try pipeline.decodeRGB(upright, x: 400, y: 0, width: 10, height: 10) }
}

@Test func aRegionIsConvertedFromThePhotosColourProfileLikeTheWholePhoto() throws {
    let dir = try Fixtures.TempDir()
    try Fixtures.adobeRGBProfile().write(to: dir.file("adobe.icc"))
    let plain = try pipeline.encodeJPEG(Fixtures.texturedImage(width: 160, height: 120), quality: 95)
    let tagged = try Fixtures.exiftool(plain, ["-ICC_Profile<=" + dir.file("adobe.icc").path], in: dir, name: "tagged.jpg")
    let whole = try pipeline.decodeRGB(tagged)
    #expect(Fixtures.meanDifference(whole, try pipeline.decodeRGB(plain)) > 1, "the profile is applied")
    let region = try pipeline.decodeRGB(tagged, x: 40, y: 30, width: 50, height: 50)
    let same = try #require(pipeline.crop(whole, x: 40, y: 30, width: 50, height: 50))
    #expect(Fixtures.meanDifference(region, same) < 0.5)
}
