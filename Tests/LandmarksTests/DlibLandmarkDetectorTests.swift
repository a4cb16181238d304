import CairnCore
import Foundation
import Landmarks
import Smile
import Testing

/// One detector for the suite: the model takes about a second to load.
let sharedDetector = DlibLandmarkDetector()

@Suite struct DlibLandmarkDetectorTests {
    @Test func findsOneFaceWithSixtyEightPointsAndTheMouthBelowTheEyes() throws {
        let photo = try TestPhotos.load("fr_obama.jpg")
        let faces = try sharedDetector.faces(in: photo, upsampling: 0)
        try #require(faces.count == 1)
        let face = faces[0]
        #expect(face.points.count == 68)
        #expect(face.points.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x < Double(photo.width) && $0.y < Double(photo.height) })
        let lowestEye = face.eyes.map(\.y).max()!
        let highestLip = face.outerLips.map(\.y).min()!
        #expect(highestLip > lowestEye)
        #expect(face.points[FaceLandmarkIndex.leftLipCorner].x < face.points[FaceLandmarkIndex.rightLipCorner].x)
        let box = face.bounds
        #expect(box.width > 100 && box.x >= 0 && box.maxX <= Double(photo.width))
        #expect(face.outerLips.allSatisfy { $0.x > box.x && $0.x < box.maxX })
    }

    @Test func findsNoFaceInAPhotoOfDogs() throws {
        #expect(try sharedDetector.faces(in: TestPhotos.load("dogs.jpg"), upsampling: 0).isEmpty)
    }

    @Test func findsBothPeopleLargestFirst() throws {
        let faces = try sharedDetector.faces(in: TestPhotos.load("fr_two_people.jpg"), upsampling: 0)
        #expect(faces.count == 2)
        if faces.count == 2 { #expect(faces[0].bounds.area >= faces[1].bounds.area) }
    }

    @Test func upsamplingReachesSmallFacesAndKeepsOriginalCoordinates() throws {
        let photo = try TestPhotos.load("2008_002470.jpg")  // 500x332, faces about 40 px
        let plain = try sharedDetector.faces(in: photo, upsampling: 0)
        let upsampled = try sharedDetector.faces(in: photo, upsampling: 1)
        #expect(upsampled.count > plain.count)
        #expect(upsampled.allSatisfy { $0.bounds.maxX <= Double(photo.width) + 2 && $0.bounds.maxY <= Double(photo.height) + 2 })
    }

    @Test func findsTheFaceInAGrayscalePhoto() throws {
        var photo = try TestPhotos.load("fr_obama.jpg")
        for i in stride(from: 0, to: photo.pixels.count, by: 3) {
            let g = photo.pixels[i + 1]
            photo.pixels[i] = g
            photo.pixels[i + 2] = g
        }
        #expect(try sharedDetector.faces(in: photo, upsampling: 0).count == 1)
    }

    @Test func aTinyImageHasNoFaces() throws {
        #expect(try sharedDetector.faces(in: RGBImage(width: 1, height: 1, red: 0, green: 0, blue: 0), upsampling: 0).isEmpty)
    }

    @Test func aMissingModelIsAClearErrorWithoutThePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-model-\(UUID().uuidString).dat").path
        let detector = DlibLandmarkDetector(modelPath: path)
        #expect(!DlibLandmarkDetector.isModelAvailable(at: path))
        #expect(throws: LandmarkError.modelMissing) { try detector.faces(in: RGBImage(width: 8, height: 8, red: 1, green: 2, blue: 3)) }
        #expect(throws: LandmarkError.modelMissing) { try detector.load() }
        #expect(!LandmarkError.modelMissing.userMessage.contains(path))
        #expect(ProductWording.bannedWords(in: LandmarkError.modelMissing.userMessage).isEmpty)
    }

    @Test func aFileThatIsNotAModelIsUnreadable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-landmarks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("model.dat").path
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DlibLandmarkDetector.isModelAvailable(at: path))
        let detector = DlibLandmarkDetector(modelPath: path)
        #expect(throws: LandmarkError.modelUnreadable) { try detector.load() }
        #expect(throws: LandmarkError.modelUnreadable) { try detector.faces(in: RGBImage(width: 8, height: 8, red: 1, green: 2, blue: 3)) }
    }

    @Test func theFirstLoadWritesAPrivateCacheThatLaterLoadsReadAndFindTheSamePoints() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-landmark-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try TestPhotos.load("fr_two_people.jpg")
        let first = DlibLandmarkDetector(cacheDirectory: dir)
        let fromModel = try first.faces(in: photo, upsampling: 0)
        #expect(!first.loadedFromCache)
        let cache = dir.appendingPathComponent(DlibLandmarkDetector.cacheFileName).path
        let attributes = try FileManager.default.attributesOfItem(atPath: cache)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: dir.path)[.posixPermissions] as? NSNumber)?.intValue == 0o700)

        let second = DlibLandmarkDetector(cacheDirectory: dir)
        let fromCache = try second.faces(in: photo, upsampling: 0)
        #expect(second.loadedFromCache)
        #expect(fromCache == fromModel)
        #expect(try sharedDetector.faces(in: photo, upsampling: 0) == fromModel)
    }

    @Test func aDamagedOrCutCacheIsIgnoredAndRewritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-landmark-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try TestPhotos.load("fr_obama.jpg")
        let expected = try DlibLandmarkDetector(cacheDirectory: dir).faces(in: photo, upsampling: 0)
        let cache = dir.appendingPathComponent(DlibLandmarkDetector.cacheFileName)
        let whole = try Data(contentsOf: cache)
        var flipped = whole
        flipped[flipped.count / 2] ^= 0x10  // a leaf value changes: the layout still reads, so only the checksum tells
        for damaged in [flipped, whole.prefix(whole.count / 3), Data("CAIRNLM1 and nothing else".utf8)] {
            try Data(damaged).write(to: cache)
            let detector = DlibLandmarkDetector(cacheDirectory: dir)
            #expect(try detector.faces(in: photo, upsampling: 0) == expected)
            #expect(!detector.loadedFromCache)
            #expect(try Data(contentsOf: cache) == whole)  // rewritten from the model
        }
    }

    @Test func theCacheFolderFollowsXDGThenHome() {
        #expect(DlibLandmarkDetector.defaultCacheDirectory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/a"])?.path == "/x/cache/cairn")
        #expect(
            DlibLandmarkDetector.defaultCacheDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/a"])?.path == "/home/a/.cache/cairn"
        )
        #expect(DlibLandmarkDetector.defaultCacheDirectory(environment: [:]) == nil)
    }

    @Test func theInstalledModelIsAvailable() {
        #expect(DlibLandmarkDetector.isModelAvailable())
    }

    @Test func theInstalledLibraryIsOpenedOnFirstUse() {
        #expect(DlibLandmarkDetector.isLibraryAvailable)
    }

    @Test func errorMessagesUseNoBannedWords() {
        for error in [LandmarkError.modelMissing, .modelUnreadable, .libraryMissing, .detectionFailed] {
            #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
        }
    }
}

@Suite struct MouthCascadeOnRealPhotosTests {
    @Test func cropsTheMouthOfAPortraitWithoutTheEyes() throws {
        let photo = try TestPhotos.load("fr_obama.jpg")
        let face = try #require(try sharedDetector.faces(in: photo, upsampling: 0).first)
        let location = MouthLocator(detector: sharedDetector).locate(in: photo)
        let chosen = try #require(location.chosen)
        #expect(location.candidates.count == 1)
        #expect(chosen.detector == .landmarks)
        #expect(chosen.square.fits(width: photo.width, height: photo.height))
        // Detection ran on the same photo (its long side 1137 > 1000, so on a downscaled copy): allow a few px.
        let lips = try #require(PixelRect(bounding: face.outerLips))
        #expect(abs(chosen.square.rect.centre.x - lips.centre.x) < 6)
        #expect(!face.eyes.contains(where: chosen.square.contains))
    }

    @Test func offersEveryPersonInAGroupPhoto() throws {
        let location = MouthLocator(detector: sharedDetector).locate(in: try TestPhotos.load("fr_two_people.jpg"))
        guard case .severalFaces(let chosen, let others) = location else {
            Issue.record("expected several faces, got \(location)")
            return
        }
        #expect(others.count == 1)
        #expect(chosen.mouthBounds.width >= others[0].mouthBounds.width)
    }

    @Test func aPhotoWithoutPeopleFindsNoMouth() throws {
        let location = MouthLocator(detector: sharedDetector).locate(in: try TestPhotos.load("dogs.jpg"))
        #expect(location.chosen?.detector != .landmarks)
    }
}
