import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import PhotoMetadata
import Storage
import Testing

@testable import CairnApp

/// A camera-style JPEG: orientation 6, GPS, a capture date, XMP, a comment, an ICC profile, maker notes,
/// a thumbnail and trailing bytes (built by exiftool from a real photo).
private func cameraJPEG(in scratch: Scratch) throws -> Data {
    try Data(contentsOf: CameraFixtures.cameraJPEG(in: scratch))
}

@Test func aCameraPhotoIsStoredUprightWithNothingBeyondAJFIFHeader() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let original = try cameraJPEG(in: scratch)
    let source = try ImagePipeline().probe(original)

    let photo = try vault.app.photoIntake.ingest(original, purpose: "skin", database: vault.app.database)

    #expect(photo.captureDate == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: 7200))
    #expect(photo.full.width == source.width && photo.full.height == source.height, "stored upright")
    #expect(
        max(photo.thumbnail.width, photo.thumbnail.height) == min(PhotoIntake.thumbnailSide, max(source.width, source.height)),
        "a thumbnail fits the square and never upscales")
    for stored in [photo.full, photo.thumbnail] {
        let url = try vault.app.photoStore.fileURL(for: stored.id)
        #expect(try MetadataAllowList.cairnJPEG.violations(in: MetadataInspector.inspect(Data(contentsOf: url))).isEmpty)
        #expect(try ExiftoolProbe.violations(at: url).isEmpty, "exiftool -a -G1 shows nothing beyond the allow-list")
        #expect(try ImagePipeline().probe(Data(contentsOf: url)).orientation == 1)
    }
    #expect(try vault.snapshot().rows == 2)
}

/// Each bad input gets a clear error and leaves the vault exactly as it was.
@Test(arguments: ["truncated JPEG", "zero-byte file", "text named .jpg", "30000x30000 PNG", "HEIC with no image"])
func badInputIsRefusedAndLeavesTheVaultAsItWas(_ name: String) throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    // Something already in the vault, which must survive untouched.
    _ = try vault.app.photoIntake.ingest(Data(contentsOf: SharedData.photo), purpose: "skin", database: vault.app.database)
    let before = try vault.snapshot()

    let input: Data
    switch name {
    case "truncated JPEG":
        let photo = try Data(contentsOf: SharedData.photo)
        input = photo.prefix(photo.count / 2)
    case "zero-byte file":
        input = Data()
    case "text named .jpg":
        input = Data("These are my notes, not a picture.\n".utf8)
    case "30000x30000 PNG":
        let url = scratch.file("huge.png")
        try Tools.run(tool: "vips", ["black", url.path, "30000", "30000"])
        input = try Data(contentsOf: url)
    default:
        // An ftyp box naming HEIC, then nothing: a container with no image in it.
        var box = Data([0, 0, 0, 24]) + Data("ftypheic".utf8) + Data([0, 0, 0, 0])
        box += Data("mif1heic".utf8)
        input = box
    }

    #expect {
        try vault.app.photoIntake.ingest(input, purpose: "skin", database: vault.app.database)
    } throws: { error in
        guard let problem = error as? CairnError else { return false }
        // A clear message that names the problem, never a path.
        return !problem.userMessage.isEmpty && !problem.userMessage.contains("/")
    }
    let after = try vault.snapshot()
    #expect(after.files == before.files)
    #expect(after.rows == before.rows)
}

@Test func aWriteCarryingMetadataFailsAndLeavesNothingBehind() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let tagged = try cameraJPEG(in: scratch)
    let before = try vault.snapshot()

    // The store's read-back check is the metadata inspector with Cairn's allow-list: bytes that still carry
    // EXIF (as a faulty encoder might write them) never become a stored photo.
    #expect(throws: MetadataError.self) {
        try vault.app.photoStore.write(tagged, purpose: "skin", mediaType: .jpeg, width: 10, height: 10) {
            try MetadataInspector.verifyClean($0, allowList: PhotoIntake.allowList)
        }
    }
    let after = try vault.snapshot()
    #expect(after.files == before.files && after.rows == before.rows)
}

/// The read-back check takes bytes identical to the ones the inspector passed in memory without decoding them a
/// second time, and inspects any others: a file read back carrying EXIF is refused though the inspected bytes were clean.
@Test func theReadBackCheckInspectsBytesOtherThanTheInspectedOnes() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let clean = try ImagePipeline().encodeJPEG(RGBImage(width: 40, height: 30, red: 200, green: 150, blue: 120))
    let tagged = try cameraJPEG(in: scratch)
    try PhotoIntake.verify(readBack: clean, inspected: clean)
    #expect(throws: MetadataError.self) { try PhotoIntake.verify(readBack: tagged, inspected: clean) }
    #expect(throws: MetadataError.self) { try PhotoIntake.verify(tagged) }
}

@Test func imagesCairnEncodesItselfAreStoredClean() throws {
    let vault = try TestVault()
    let image = RGBImage(width: 40, height: 30, red: 200, green: 150, blue: 120)
    let stored = try vault.app.database.write { db in
        try vault.app.photoIntake.storeEncoded(image, purpose: "smile", in: db)
    }
    #expect(stored.width == 40 && stored.height == 30)
    #expect(try ExiftoolProbe.violations(at: vault.app.photoStore.fileURL(for: stored.id)).isEmpty)
}

@Test func aPhotoRolledBackWithItsJournalRowsLeavesNoFile() throws {
    let vault = try TestVault()
    struct JournalFailed: Error {}
    #expect(throws: JournalFailed.self) {
        try vault.app.database.write { db in
            _ = try vault.app.photoIntake.ingest(Data(contentsOf: SharedData.photo), purpose: "skin", in: db)
            throw JournalFailed()
        }
    }
    let after = try vault.snapshot()
    #expect(after.files.isEmpty && after.rows == 0)
}
