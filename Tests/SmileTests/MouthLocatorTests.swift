import CairnCore
import Smile
import Testing

@Suite struct MouthLocatorTests {
    let plain = RGBImage(width: 800, height: 600, red: 200, green: 160, blue: 130)

    @Test func squareIsCentredOnTheOuterLipsWithSideOnePointSixTimesTheirWidth() throws {
        let face = syntheticFace(mouth: Point(x: 400, y: 350), mouthWidth: 100)
        let detector = ScriptedDetector { _ in [face] }
        let location = MouthLocator(detector: detector).locate(in: plain)
        let chosen = try #require(location.chosen)
        let lips = try #require(PixelRect(bounding: face.outerLips))
        #expect(chosen.detector == .landmarks)
        #expect(chosen.square.side == Int((1.6 * lips.width).rounded()))
        #expect(abs(chosen.square.rect.centre.x - lips.centre.x) <= 1)
        #expect(abs(chosen.square.rect.centre.y - lips.centre.y) <= 1)
        #expect(face.points[48..<68].allSatisfy(chosen.square.contains))
        #expect(!face.points[36..<48].contains(where: chosen.square.contains))
        #expect(location == .found(chosen))
    }

    @Test func squareIsClampedInsideTheImageAtItsEdgesAndShrunkRatherThanHoldAnEye() throws {
        let face = syntheticFace(mouth: Point(x: 30, y: 580), mouthWidth: 100)
        let chosen = try #require(MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: plain).chosen)
        #expect(chosen.square.fits(width: plain.width, height: plain.height))
        #expect(chosen.square.x == 0)
        #expect(chosen.square.y + chosen.square.side == plain.height)
        #expect(!face.eyes.contains(where: chosen.square.contains), "the 160 px square clamped up would hold the right eye")
        #expect(chosen.square.side < 160 && chosen.shrunkToKeepEyesOut)
        let roomy = syntheticFace(mouth: Point(x: 30, y: 300), mouthWidth: 100)
        let atTheSide = try #require(MouthLocator(detector: ScriptedDetector { _ in [roomy] }).locate(in: plain).chosen)
        #expect(atTheSide.square.x == 0 && atTheSide.square.side == 160)
    }

    @Test func squareMovesDownWhenAnEyePointWouldFallInside() throws {
        let face = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 100, eyeDrop: 0.8)
        let chosen = try #require(MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: plain).chosen)
        #expect(!face.points[36..<48].contains(where: chosen.square.contains))
        #expect(face.points[48..<68].allSatisfy(chosen.square.contains))
        #expect(chosen.square.side == 160)
    }

    @Test func largestFaceIsChosenAndTheOthersAreOffered() throws {
        let small = syntheticFace(mouth: Point(x: 150, y: 300), mouthWidth: 40)
        let large = syntheticFace(mouth: Point(x: 550, y: 350), mouthWidth: 120)
        let location = MouthLocator(detector: ScriptedDetector { _ in [small, large] }).locate(in: plain)
        guard case .severalFaces(let chosen, let others) = location else {
            Issue.record("expected several faces, got \(location)")
            return
        }
        #expect(chosen.faceBounds == large.bounds)
        #expect(others.map(\.faceBounds) == [small.bounds])
        #expect(location.candidates.count == 2)
    }

    @Test func mouthNarrowerThanTheMinimumIsReportedTooSmall() {
        let tiny = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 15)
        let location = MouthLocator(detector: ScriptedDetector { _ in [tiny] }).locate(in: plain)
        #expect(location == .notFound(.mouthTooSmall(width: 15, minimum: 24)))
        #expect(location.chosen == nil)
    }

    @Test func tooSmallFacesAreLeftOutWhenALargerOneIsUsable() throws {
        let tiny = syntheticFace(mouth: Point(x: 100, y: 100), mouthWidth: 10)
        let usable = syntheticFace(mouth: Point(x: 400, y: 350), mouthWidth: 80)
        let location = MouthLocator(detector: ScriptedDetector { _ in [tiny, usable] }).locate(in: plain)
        #expect(location.candidates.count == 1)
        #expect(location.chosen?.faceBounds == usable.bounds)
    }

    @Test func aDetectionCopyMadeByTheCallerGivesSquaresAndTheSmallestMouthRuleInThePhotosPixels() throws {
        let copy = RGBImage(width: 1000, height: 750, red: 200, green: 160, blue: 130)
        let detector = ScriptedDetector { _ in [syntheticFace(mouth: Point(x: 500, y: 375), mouthWidth: 10)] }
        let chosen = try #require(
            MouthLocator(detector: detector).locate(inDetectionCopy: copy, photoWidth: 4000, photoHeight: 3000).chosen,
            "10 px in the copy is 40 px in the photo: wide enough")
        #expect(detector.calls.first.map { $0.width == 1000 && $0.upsampling == 0 } == true, "the copy is used as it is")
        #expect(abs(chosen.mouthBounds.width - 40) < 1)
        #expect(abs(chosen.square.rect.centre.x - 2000) <= 1 && abs(chosen.square.rect.centre.y - 1500) <= 1)
        #expect(chosen.square.side == 64)
        let narrow = ScriptedDetector { _ in [syntheticFace(mouth: Point(x: 500, y: 375), mouthWidth: 5)] }
        #expect(
            MouthLocator(detector: narrow).locate(inDetectionCopy: copy, photoWidth: 4000, photoHeight: 3000)
                == .notFound(.mouthTooSmall(width: 20, minimum: 24)))
    }

    @Test func detectionRunsOnADownscaledCopyAndMapsBackToFullResolution() throws {
        let big = RGBImage(width: 4000, height: 3000, red: 200, green: 160, blue: 130)
        let detector = ScriptedDetector { image in
            [syntheticFace(mouth: Point(x: Double(image.width) / 2, y: Double(image.height) / 2), mouthWidth: 50)]
        }
        let chosen = try #require(MouthLocator(detector: detector).locate(in: big).chosen)
        let call = try #require(detector.calls.first)
        #expect(max(call.width, call.height) == 1000)
        #expect(call.upsampling == 0)
        #expect(abs(chosen.mouthBounds.width - 200) < 1)
        #expect(abs(chosen.square.rect.centre.x - 2000) <= 1 && abs(chosen.square.rect.centre.y - 1500) <= 1)
        #expect(chosen.square.side == 320)
    }

    @Test func smallPhotosAreUpsampledOnceToReachSmallFaces() throws {
        let detector = ScriptedDetector { _ in [] }
        _ = MouthLocator(detector: detector).locate(in: RGBImage(width: 500, height: 375, red: 90, green: 90, blue: 90))
        #expect(detector.calls.first?.upsampling == 1)
    }

    @Test func implausibleLipCornersArePlacedFromTheNoseBaseAndChinAndChecked() throws {
        let mouth = Point(x: 200, y: 190)
        let image = paintedMouth(mouth: mouth, width: 110)
        let tilted = syntheticFace(mouth: mouth, mouthWidth: 110, cornerTilt: 35)
        let chosen = try #require(MouthLocator(detector: ScriptedDetector { _ in [tilted] }).locate(in: image).chosen)
        #expect(chosen.detector == .landmarks && chosen.lipPointsImplausible)
        #expect(chosen.faceBounds == tilted.bounds)
        #expect(chosen.square.contains(mouth))
        #expect(!chosen.isConfident)
    }

    @Test func implausibleLipsWithoutAnUprightLowerFaceFallThroughToColour() throws {
        let mouth = Point(x: 200, y: 190)
        let image = paintedMouth(mouth: mouth, width: 110)
        var points = syntheticFace(mouth: mouth, mouthWidth: 110, cornerTilt: 35).points
        points[FaceLandmarkIndex.noseBase] = Point(x: 200, y: 40)  // above the eyes: no lower face to measure
        let tilted = DetectedFace(bounds: syntheticFace(mouth: mouth, mouthWidth: 110).bounds, points: points)
        let chosen = try #require(MouthLocator(detector: ScriptedDetector { _ in [tilted] }).locate(in: image).chosen)
        #expect(chosen.detector == .colour)
        #expect(chosen.faceBounds == tilted.bounds)
        #expect(chosen.square.contains(mouth))
        #expect(chosen.doubts.contains(.lipPointsImplausible))
    }

    @Test func aFailingDetectorCountsAsNoFaceAndColourStillRuns() throws {
        let mouth = Point(x: 200, y: 150)
        let detector = ScriptedDetector { _ in throw SomeDetectorFailure() }
        let chosen = try #require(MouthLocator(detector: detector).locate(in: paintedMouth(mouth: mouth, width: 160)).chosen)
        #expect(chosen.detector == .colour)
        #expect(chosen.square.contains(mouth))
    }

    @Test func withoutAModelColourFindsAClosedUpMouth() throws {
        let mouth = Point(x: 210, y: 140)
        let location = MouthLocator(detector: nil).locate(in: paintedMouth(mouth: mouth, width: 180))
        let chosen = try #require(location.chosen)
        #expect(chosen.detector == .colour)
        #expect(chosen.faceBounds == nil)
        #expect(chosen.square.contains(Point(x: mouth.x - 85, y: mouth.y)) && chosen.square.contains(Point(x: mouth.x + 85, y: mouth.y)))
        #expect(chosen.square.fits(width: 400, height: 300))
    }

    @Test func aUniformPhotoHasNothingToFind() {
        let detector = ScriptedDetector { _ in [] }
        #expect(MouthLocator(detector: detector).locate(in: plain) == .notFound(.nothingFound))
        #expect(MouthLocator(detector: nil).locate(in: plain) == .notFound(.nothingFound))
    }

    @Test func grayscalePhotosWithoutAFaceAreNotSearchedByColour() {
        let gray = grayscale(paintedMouth(mouth: Point(x: 200, y: 150), width: 160))
        #expect(MouthLocator(detector: ScriptedDetector { _ in [] }).locate(in: gray) == .notFound(.grayscaleWithoutFace))
        #expect(MouthLocator(detector: nil).locate(in: gray) == .notFound(.grayscaleWithoutFace))
    }

    @Test func grayscalePhotosStillUseLandmarks() throws {
        let face = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 100)
        let gray = grayscale(plain)
        #expect(MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: gray).chosen?.detector == .landmarks)
    }

    @Test func aOnePixelPhotoIsHandled() {
        let dot = RGBImage(width: 1, height: 1, red: 200, green: 50, blue: 50)
        #expect(MouthLocator(detector: ScriptedDetector { _ in [] }).locate(in: dot) == .notFound(.nothingFound))
    }

    @Test func manualStartingSquareIsCentredAndHalfTheShorterSide() {
        let square = MouthLocator.manualStartingSquare(width: 800, height: 600)
        #expect(square == CropSquare(x: 250, y: 150, side: 300))
        #expect(MouthLocator.manualStartingSquare(width: 1, height: 1) == CropSquare(x: 0, y: 0, side: 1))
    }

    @Test func notFoundMessagesUseNoBannedWordsAndNoDetails() {
        for reason in [MouthNotFoundReason.nothingFound, .mouthTooSmall(width: 12, minimum: 24), .grayscaleWithoutFace] {
            #expect(ProductWording.bannedWords(in: reason.userMessage).isEmpty)
            #expect(!reason.userMessage.isEmpty && !reason.userMessage.contains("12"))
        }
    }
}
