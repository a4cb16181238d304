import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import PhotoMetadata
import Smile
import Storage
import Testing

private func face(_ name: String) throws -> Data {
    try Data(contentsOf: SharedData.faces.appendingPathComponent(name))
}

/// A clock the test moves forward.
private final class SteppingClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant = Date(timeIntervalSince1970: 1_780_000_000)
    func now() -> Date { lock.withLock { instant } }
    var timeZone: TimeZone { TimeZone(identifier: "UTC")! }
    func advance(by seconds: TimeInterval) { lock.withLock { instant += seconds } }
}

extension TestVault {
    /// Checks the vault holds exactly the crops of `entries`: one 768 px JPEG file each, no temp file, no file the
    /// size of an original, and matching rows.
    func expectOnlyCrops(of entries: [SmileEntry], originals: [(Int, Int)] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (files, rows) = try snapshot()
        #expect(
            files.sorted() == entries.map { String($0.photo.relativePath.dropFirst("photos/".count)) }.sorted(),
            "only the confirmed crops are in the photos folder", sourceLocation: sourceLocation)
        #expect(!files.contains { $0.contains(".tmp") }, "no temp files", sourceLocation: sourceLocation)
        #expect(rows == entries.count, sourceLocation: sourceLocation)
        let smileRows = try app.database.read { try $0.scalar("SELECT count(*) FROM smile_entries", as: Int.self) }
        #expect(smileRows == entries.count, sourceLocation: sourceLocation)
        for file in files {
            let info = try ImagePipeline().probe(Data(contentsOf: app.vault.photosDirectory.appendingPathComponent(file)))
            #expect(info.width == SmileService.cropSide && info.height == SmileService.cropSide, sourceLocation: sourceLocation)
            #expect(!originals.contains { $0 == (info.width, info.height) }, "no file has an original's size", sourceLocation: sourceLocation)
        }
    }
}

@Test func aPortraitIsCroppedByLandmarksAndOnlyTheCleanSquareCropIsKept() throws {
    let vault = try TestVault()
    let original = try face("fr_obama.jpg")
    let info = try ImagePipeline().probe(original)

    let (analysis, entry) = try vault.app.smile.add(original, note: "  first one  ")

    #expect(entry.source == .landmarks)
    #expect(entry.note == "first one")
    #expect(entry.captureDate == info.captureDate && entry.captureDate != nil, "capture date read from the original's EXIF")
    #expect(entry.square == analysis.proposedSquare)
    #expect(entry.square.fits(width: info.width, height: info.height))
    #expect(entry.sourceWidth == info.width && entry.sourceHeight == info.height)
    #expect(entry.photo.width == 768 && entry.photo.height == 768 && entry.photo.purpose == "smile")
    try vault.expectOnlyCrops(of: [entry], originals: [(info.width, info.height)])
    let url = try vault.app.photoStore.fileURL(for: entry.photo.id)
    #expect(try MetadataAllowList.cairnJPEG.violations(in: MetadataInspector.inspect(Data(contentsOf: url))).isEmpty)
    if ExiftoolProbe.isAvailable { #expect(try ExiftoolProbe.violations(at: url).isEmpty) }
    #expect(try vault.app.smile.entries() == [entry])
}

@Test func aPhotoWithoutAFaceNeedsTheSquarePlacedByHandAndKeepsNothingUntilThen() throws {
    let vault = try TestVault()
    let original = try face("dogs.jpg")
    let analysis = try vault.app.smile.analyse(original)
    #expect(analysis.location.chosen?.detector != .landmarks)
    #expect(analysis.proposalIsUncertain || analysis.proposedSquare == nil)
    #expect(throws: SmileError.self) { try vault.app.smile.confirm(analysis) }
    try vault.expectOnlyCrops(of: [])

    let square = CropSquare(x: 100, y: 120, side: 300)
    let entry = try vault.app.smile.confirm(analysis, square: square)
    #expect(entry.source == .manual && entry.square == square)
    try vault.expectOnlyCrops(of: [entry], originals: [(analysis.sourceWidth, analysis.sourceHeight)])
}

@Test(arguments: ["text file", "truncated JPEG", "empty file", "too many pixels"])
func badInputGetsAClearMessageAndStoresNothing(_ kind: String) throws {
    let vault = try TestVault()
    var smile = vault.app.smile
    let data: Data
    switch kind {
    case "text file": data = Data("my smile notes".utf8)
    case "truncated JPEG":
        let full = try face("fr_obama.jpg")
        data = full.prefix(full.count / 3)
    case "empty file": data = Data()
    default:
        data = try face("fr_obama.jpg")
        smile = SmileService(
            database: vault.app.database, photoStore: vault.app.photoStore, photoIntake: vault.app.photoIntake,
            pipeline: ImagePipeline(limits: ImageLimits(maxPixels: 500_000)),
            locator: MouthLocator(detector: nil), clock: vault.app.clock)
    }
    do {
        _ = try smile.add(data)
        Issue.record("\(kind) was accepted")
    } catch let error as CairnError {
        #expect(!error.userMessage.isEmpty)
        #expect(!error.userMessage.contains("fr_obama"))
    }
    try vault.expectOnlyCrops(of: [])
    #expect(smile.pendingUploadCount == 0)
}

@Test func aGrayscalePortraitStillFindsItsMouthAndAGrayscalePhotoWithoutAFaceSaysSo() throws {
    let vault = try TestVault()
    let pipeline = ImagePipeline()
    func grayscale(_ name: String) throws -> Data {
        var image = try pipeline.decodeRGB(face(name))
        for i in stride(from: 0, to: image.pixels.count, by: 3) {
            let y = (Int(image.pixels[i]) * 299 + Int(image.pixels[i + 1]) * 587 + Int(image.pixels[i + 2]) * 114) / 1000
            image.pixels[i] = UInt8(y)
            image.pixels[i + 1] = UInt8(y)
            image.pixels[i + 2] = UInt8(y)
        }
        return try pipeline.encodeJPEG(image)
    }
    let (_, entry) = try vault.app.smile.add(try grayscale("fr_obama.jpg"))
    #expect(entry.source == .landmarks)

    let dogs = try vault.app.smile.analyse(try grayscale("dogs.jpg"))
    #expect(dogs.location == .notFound(.grayscaleWithoutFace))
    #expect(dogs.message.contains("black and white"))
    #expect(throws: SmileError.needsManualCrop(.grayscaleWithoutFace)) { try vault.app.smile.confirm(dogs) }
    try vault.expectOnlyCrops(of: [entry])
}

@Test func severalFacesProposeTheLargestAndOfferTheOthers() throws {
    let vault = try TestVault()
    let analysis = try vault.app.smile.analyse(try face("fr_two_people.jpg"))
    guard case .severalFaces(let chosen, let others) = analysis.location else {
        Issue.record("expected several faces, got \(analysis.location)")
        return
    }
    #expect(analysis.message.hasPrefix("2 faces were found"))
    #expect(chosen.square.side >= others[0].square.side)
    let other = try vault.app.smile.confirm(analysis, square: others[0].square)
    #expect(other.source == .landmarks, "a candidate's square keeps its detector")
    let moved = CropSquare(x: others[0].square.x + 1, y: others[0].square.y, side: others[0].square.side)
    #expect(try vault.app.smile.confirm(analysis, square: moved).source == .manual)
}

@Test func aTinyFaceIsTooSmallToCropAndStoresNothing() throws {
    let vault = try TestVault()
    let pipeline = ImagePipeline()
    let small = try pipeline.encodeJPEG(try pipeline.resize(try pipeline.decodeRGB(face("fr_obama.jpg")), fittingIn: 110))
    let analysis = try vault.app.smile.analyse(small)
    #expect(analysis.proposedSquare == nil || analysis.proposalIsUncertain)
    #expect(throws: SmileError.self) { try vault.app.smile.confirm(analysis) }
    try vault.expectOnlyCrops(of: [])
}

@Test func squaresOutsideThePhotoTooSmallOrWithLongNotesAreRefused() throws {
    let vault = try TestVault()
    let analysis = try vault.app.smile.analyse(try face("fr_obama.jpg"))
    #expect(throws: SmileError.squareOutsidePhoto) {
        try vault.app.smile.confirm(analysis, square: CropSquare(x: analysis.sourceWidth - 100, y: 0, side: 200))
    }
    #expect(throws: SmileError.squareTooSmall(minimum: SmileService.minimumSquareSide)) {
        try vault.app.smile.confirm(analysis, square: CropSquare(x: 0, y: 0, side: 10))
    }
    #expect(throws: TextInputError.tooLong(field: "note", maximum: TextInput.maximumNoteLength)) {
        try vault.app.smile.confirm(analysis, note: String(repeating: "x", count: TextInput.maximumNoteLength + 1))
    }
    try vault.expectOnlyCrops(of: [])
}

@Test func aFailureAfterTheCropFileIsWrittenLeavesNoFileAndNoRow() throws {
    let vault = try TestVault()
    let analysis = try vault.app.smile.analyse(try face("fr_obama.jpg"))
    // Break the journal's table so the insert fails after the photo file was written in the same transaction.
    try vault.app.database.write { try $0.execute("ALTER TABLE smile_entries RENAME TO smile_entries_gone") }
    #expect(throws: (any Error).self) { try vault.app.smile.confirm(analysis) }
    let (files, rows) = try vault.snapshot()
    #expect(files.isEmpty, "the crop written before the failure was removed")
    #expect(rows == 0)
}

@Test func theCaptureDateComesFromTheOriginalsEXIFAndSquaresAreInUprightPixels() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let original = try Data(contentsOf: CameraFixtures.cameraJPEG(in: scratch))
    let info = try ImagePipeline().probe(original)
    let analysis = try vault.app.smile.analyse(original)
    #expect(analysis.sourceWidth == info.width && analysis.sourceHeight == info.height, "after the EXIF orientation")
    let side = min(info.width, info.height) / 2
    let entry = try vault.app.smile.confirm(analysis, square: CropSquare(x: info.width - side, y: info.height - side, side: side))
    #expect(entry.captureDate == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: 7200))
    #expect(entry.displayDate == "2024-05-06 07:08")
    let stored = try vault.app.smile.entry(entry.id)
    #expect(stored == entry)
    try vault.expectOnlyCrops(of: [entry], originals: [(info.width, info.height)])
}

@Test func uploadsWaitInMemoryOnlyUntilConfirmedDiscardedOrExpired() throws {
    let clock = SteppingClock()
    let vault = try TestVault(clock: clock)
    let smile = vault.app.smile
    let upload = try smile.holdUpload(try face("fr_obama.jpg"))
    #expect(upload.id.count == 32)
    #expect(smile.pendingUploadCount == 1)
    try vault.expectOnlyCrops(of: [])
    let preview = try smile.preview(of: upload.analysis)
    #expect(max(preview.width, preview.height) <= 960)
    #expect(try MetadataAllowList.cairnJPEG.violations(in: MetadataInspector.inspect(preview.jpeg)).isEmpty)

    let entry = try smile.confirmUpload(upload.id, square: nil, note: "")
    #expect(smile.pendingUploadCount == 0)
    #expect(throws: SmileError.uploadExpired) { try smile.confirmUpload(upload.id, square: nil, note: "") }
    try vault.expectOnlyCrops(of: [entry])

    let discarded = try smile.holdUpload(try face("fr_obama.jpg"))
    smile.discardUpload(discarded.id)
    #expect(throws: SmileError.uploadExpired) { try smile.pendingUpload(discarded.id) }

    let expiring = try smile.holdUpload(try face("fr_obama.jpg"))
    clock.advance(by: SmileService.pendingLifetime + 1)
    #expect(throws: SmileError.uploadExpired) { try smile.pendingUpload(expiring.id) }

    let small = try ImagePipeline().encodeJPEG(RGBImage(width: 64, height: 64, red: 200, green: 120, blue: 110))
    let held = try (0...SmileService.maximumPendingUploads).map { _ in try smile.holdUpload(small) }
    #expect(smile.pendingUploadCount == SmileService.maximumPendingUploads, "the cap drops the oldest")
    #expect(throws: SmileError.uploadExpired) { try smile.pendingUpload(held[0].id) }
    try vault.expectOnlyCrops(of: [entry])
}

@Test func exportIsTheStoredBytesAndSideBySideIsANewCleanPicture() throws {
    let vault = try TestVault()
    let smile = vault.app.smile
    let (_, a) = try smile.add(try face("fr_obama.jpg"))
    let (_, b) = try smile.add(try face("fr_biden.jpg"), note: "second")

    let export = try smile.export(a)
    #expect(export.jpeg == (try Data(contentsOf: vault.app.photoStore.fileURL(for: a.photo.id))))
    #expect(export.containsNoMetadata)
    #expect(export.suggestedFileName.hasPrefix("smile-") && export.suggestedFileName.hasSuffix("-\(a.shortID).jpg"))

    let pair = try smile.sideBySide(a, b)
    let info = try ImagePipeline().probe(pair)
    #expect(info.width == 2 * SmileService.cropSide + SmileService.sideBySideGap && info.height == SmileService.cropSide)
    #expect(try MetadataAllowList.cairnJPEG.violations(in: MetadataInspector.inspect(pair)).isEmpty)
    try vault.expectOnlyCrops(of: [a, b])
}

@Test func entriesAreFoundByAUniquePrefixOfTheirID() throws {
    let vault = try TestVault()
    let smile = vault.app.smile
    #expect(try smile.entries().isEmpty)
    func prefix(_ text: String) throws -> IdentifierPrefix { try IdentifierPrefix.parse(text) }
    #expect(throws: SmileError.noSuchEntry) { try smile.entry(matching: prefix("abcd")) }
    let (_, a) = try smile.add(try face("fr_obama.jpg"))
    #expect(try smile.entry(matching: prefix(a.shortID)) == a)
    #expect(try smile.entry(matching: prefix(a.id.rawValue.uppercased())) == a)
    #expect(throws: InputError.unreadableIdentifier) { try prefix("ab") }
    #expect(throws: InputError.unreadableIdentifier) { try prefix("zz'; DROP") }
}

@Test func deletingAnEntryRemovesItsRowAndItsCropAndLeavesTheOthers() throws {
    let vault = try TestVault()
    let (_, first) = try vault.app.smile.add(try face("fr_obama.jpg"))
    let (_, second) = try vault.app.smile.add(try face("fr_biden.jpg"))
    try vault.app.smile.delete(first.id)
    #expect(try vault.app.smile.entries() == [second])
    try vault.expectOnlyCrops(of: [second])
    #expect(throws: SmileError.noSuchEntry) { try vault.app.smile.delete(first.id) }
    try vault.app.smile.delete(second.id)
    try vault.expectOnlyCrops(of: [])
}

/// fr_obama.jpg enlarged to 1.5 times `SmileService.analysisPixelLimit` pixels, as `name` in `scratch` (JPEG, Q90,
/// or any format vips writes by the name's extension).
private func enlargedFace(in scratch: Scratch, name: String = "big.jpg", options: String = "[Q=90,strip]") throws -> URL {
    let source = SharedData.faces.appendingPathComponent("fr_obama.jpg")
    let info = try ImagePipeline().probe(Data(contentsOf: source))
    let factor = ((Double(SmileService.analysisPixelLimit) * 1.5) / Double(info.width * info.height)).squareRoot()
    let big = scratch.file(name)
    try Tools.run(tool: "vips", ["resize", source.path, big.path + options, String(format: "%.4f", factor)])
    return big
}

/// A photo above `SmileService.analysisPixelLimit` is analysed on a copy shrunk while loading, and the mouth is
/// found at the same place in the photo's own pixels as in the photo at its normal size.
@Test func aPhotoAboveThePixelLimitIsShrunkWhileLoadingAndItsSquareIsInThePhotosPixels() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let small = try face("fr_obama.jpg")
    let smallInfo = try ImagePipeline().probe(small)
    let bigData = try Data(contentsOf: try enlargedFace(in: scratch))
    let bigInfo = try ImagePipeline().probe(bigData)
    #expect(bigInfo.width * bigInfo.height > SmileService.analysisPixelLimit)

    let reference = try vault.app.smile.analyse(small)
    let (analysis, entry) = try vault.app.smile.add(bigData)

    #expect(analysis.sourceWidth == bigInfo.width && analysis.sourceHeight == bigInfo.height)
    let square = try #require(analysis.proposedSquare)
    let expected = try #require(reference.proposedSquare)
    #expect(square.fits(width: bigInfo.width, height: bigInfo.height))
    let scale = Double(bigInfo.width) / Double(smallInfo.width)
    // Within 3% of the photo's width of where the normal-size photo puts it, once scaled.
    let tolerance = 0.03 * Double(bigInfo.width)
    #expect(abs(Double(square.x) - Double(expected.x) * scale) < tolerance)
    #expect(abs(Double(square.y) - Double(expected.y) * scale) < tolerance)
    #expect(abs(Double(square.side) - Double(expected.side) * scale) < tolerance)
    #expect(entry.photo.width == SmileService.cropSide && entry.square == square)
}

/// Forwards to the shared dlib detector and counts how often the model is let go.
private final class ReleaseCountingDetector: FaceLandmarkDetecting, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var releases: Int { lock.withLock { count } }

    func faces(in image: RGBImage, upsampling: Int) throws -> [DetectedFace] {
        try SmileService.sharedLandmarkDetector.faces(in: image, upsampling: upsampling)
    }

    func releaseModel() {
        lock.withLock { count += 1 }
        SmileService.sharedLandmarkDetector.releaseModel()
    }
}

/// A photo above `SmileService.analysisPixelLimit` lets go of the landmark model before its full-resolution square
/// is read, so the two never sit in memory together; a photo below it keeps the model for the next one.
@Test func aPhotoAboveThePixelLimitLetsGoOfTheLandmarkModelBeforeItsSquareIsRead() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let detector = ReleaseCountingDetector()
    let smile = SmileService(
        database: vault.app.database, photoStore: vault.app.photoStore, photoIntake: vault.app.photoIntake,
        pipeline: ImagePipeline(), locator: MouthLocator(detector: detector), clock: vault.app.clock)
    let small = try face("fr_obama.jpg")
    _ = try smile.add(small)
    #expect(detector.releases == 0)
    let (analysis, entry) = try smile.add(try Data(contentsOf: try enlargedFace(in: scratch)))
    #expect(detector.releases == 1)
    #expect(entry.source == .landmarks && entry.photo.width == SmileService.cropSide, "\(analysis.location)")
    // The next search loads the model again.
    #expect(try smile.add(small).1.source == .landmarks)
}

/// `cairn smile add` of a photo file above the pixel limit lets go of its bytes while the cascade runs and reads
/// the file again for the crop: the crop is the one the held bytes give.
@Test func aLargePhotoFileIsReadAgainForItsCropAndGivesTheSameCropAsItsHeldBytes() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let big = try enlargedFace(in: scratch)
    let held = try vault.app.smile.add(try Data(contentsOf: big)).1
    let analysis = try vault.app.smile.analyse(fileAt: big.path)
    let entry = try vault.app.smile.confirm(analysis)
    #expect(entry.square == held.square && entry.source == .landmarks)
    #expect(try vault.app.smile.cropJPEG(entry) == vault.app.smile.cropJPEG(held))
    try vault.expectOnlyCrops(of: [held, entry])
}

/// A large photo file that is replaced between its analysis and its crop is refused, and nothing is stored: the
/// crop must come from the photo whose mouth was found.
@Test func aLargePhotoFileThatChangesBeforeItsCropIsRefusedAndNothingIsStored() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let big = try enlargedFace(in: scratch)
    let analysis = try vault.app.smile.analyse(fileAt: big.path)
    _ = try enlargedFace(in: scratch, options: "[Q=80,strip]")
    #expect(throws: SmileError.photoChanged) { try vault.app.smile.confirm(analysis) }
    try FileManager.default.removeItem(at: big)
    #expect(throws: InputFileError.missing) { try vault.app.smile.confirm(analysis) }
    try vault.expectOnlyCrops(of: [])
}

/// A photo file within the pixel limit is held from its analysis to its crop, so changing the file afterwards
/// changes nothing.
@Test func aSmallPhotoFileIsHeldFromItsAnalysisToItsCrop() throws {
    let vault = try TestVault()
    let scratch = try Scratch()
    defer { scratch.remove() }
    let file = scratch.file("face.jpg")
    try face("fr_obama.jpg").write(to: file)
    let analysis = try vault.app.smile.analyse(fileAt: file.path)
    try Data("not a photo".utf8).write(to: file)
    let entry = try vault.app.smile.confirm(analysis)
    #expect(entry.source == .landmarks)
    try vault.expectOnlyCrops(of: [entry])
}

/// A real face cut just below its chin (its mouth on the photo's bottom edge), through the imaging adapter.
private func cutBelowTheChin(_ name: String, keepingBelowTheLips share: Double, in vault: TestVault) throws -> (Data, MouthCandidate) {
    let pipeline = ImagePipeline()
    let original = try face(name)
    let whole = try #require(try vault.app.smile.analyse(original).location.chosen)
    let image = try pipeline.decodeRGB(original)
    let bottom = min(image.height, Int(whole.mouthBounds.maxY + share * whole.mouthBounds.width))
    let cut = try #require(pipeline.crop(image, x: 0, y: 0, width: image.width, height: bottom))
    return (try pipeline.encodeJPEG(cut, quality: 92), whole)
}

@Test(arguments: [0.15, 0.3, 0.45])
func aFaceOnThePhotosBottomEdgeIsNeverCroppedWithAnEyeAndIsCheckedBeforeItIsKept(share: Double) throws {
    let vault = try TestVault()
    let (photo, whole) = try cutBelowTheChin("fr_obama.jpg", keepingBelowTheLips: share, in: vault)
    let analysis = try vault.app.smile.analyse(photo)
    // The eyes as found in the uncut photo: the truth the cut photo's square is judged against.
    #expect(whole.eyes.count == 12)
    for candidate in analysis.candidates {
        #expect(!whole.eyes.contains(where: candidate.square.contains), "no eye in \(candidate.square) (\(analysis.location))")
    }
    guard let proposal = analysis.location.chosen else { return }
    if !whole.mouthBounds.insetBy(-0.05 * whole.mouthBounds.width).isInside(proposal.square.rect) {
        #expect(analysis.proposalIsUncertain, "a square that cuts the mouth is never kept unchecked")
    }
    if analysis.proposalIsUncertain {
        #expect(throws: SmileError.uncertainProposal(analysis.doubts)) { try vault.app.smile.confirm(analysis) }
        try vault.expectOnlyCrops(of: [])
        let kept = try vault.app.smile.confirm(analysis, square: proposal.square)
        #expect(kept.source == .landmarks, "the person kept the proposal after looking")
    }
}

@Test func aSquareHoldingAnEyeIsNeverKeptWhoeverPlacedIt() throws {
    let vault = try TestVault()
    let analysis = try vault.app.smile.analyse(try face("fr_obama.jpg"))
    let eye = try #require(analysis.location.chosen?.eyes.first)
    let overEye = CropSquare(x: Int(eye.x) - 40, y: Int(eye.y) - 40, side: 120)
    #expect(throws: SmileError.squareHoldsAnEye) { try vault.app.smile.confirm(analysis, square: overEye) }
    try vault.expectOnlyCrops(of: [])
    #expect(!analysis.proposalIsUncertain && analysis.doubts.isEmpty, "an upright portrait is confident")
}

extension PixelRect {
    /// The rectangle moved in by `amount` on every side (a negative `amount` grows it).
    fileprivate func insetBy(_ amount: Double) -> PixelRect {
        PixelRect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }
    fileprivate func isInside(_ other: PixelRect) -> Bool { x >= other.x && y >= other.y && maxX <= other.maxX && maxY <= other.maxY }
}

@Test(arguments: [true, false])
func aFaceLyingOnItsSideIsFoundThroughItsOwnAngleAndCheckedWithoutAnEyeInItsSquare(clockwise: Bool) throws {
    let vault = try TestVault()
    let pipeline = ImagePipeline()
    let original = try face("fr_obama.jpg")
    let upright = try #require(try vault.app.smile.analyse(original).location.chosen)
    let image = try pipeline.decodeRGB(original)
    // The photo turned a quarter with no orientation recorded: the face lies on its side.
    let (w, h) = (image.width, image.height)
    var turned = RGBImage(width: h, height: w, red: 0, green: 0, blue: 0)
    for ty in 0..<w {
        for tx in 0..<h {
            let (x, y) = clockwise ? (ty, h - 1 - tx) : (w - 1 - ty, tx)
            for c in 0..<3 { turned.pixels[turned.offset(x: tx, y: ty) + c] = image.pixels[image.offset(x: x, y: y) + c] }
        }
    }
    func turn(_ p: Point) -> Point { clockwise ? Point(x: Double(h) - p.y, y: p.x) : Point(x: p.y, y: Double(w) - p.x) }
    let analysis = try vault.app.smile.analyse(try pipeline.encodeJPEG(turned, quality: 92))
    let chosen = try #require(analysis.location.chosen, "\(analysis.location)")
    #expect(chosen.sideways && analysis.doubts.contains(.faceSideways))
    let mouth = upright.mouthBounds
    for corner in [Point(x: mouth.x, y: mouth.y), Point(x: mouth.maxX, y: mouth.maxY)].map(turn) {
        #expect(chosen.square.contains(corner), "the turned mouth's corner \(corner) is in \(chosen.square)")
    }
    #expect(!upright.eyes.map(turn).contains(where: chosen.square.contains))
    #expect(throws: SmileError.uncertainProposal(analysis.doubts)) { try vault.app.smile.confirm(analysis) }
    try vault.expectOnlyCrops(of: [])
}
