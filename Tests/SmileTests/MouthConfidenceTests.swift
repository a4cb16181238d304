import CairnCore
import Foundation
import Smile
import Testing

/// `MouthConfidenceRule`: which proposals may be kept without the person's look, and the squares that keep the
/// eyes out (issue 45).
@Suite struct MouthConfidenceTests {
    let plain = RGBImage(width: 800, height: 600, red: 200, green: 160, blue: 130)

    func chosen(_ face: DetectedFace, in image: RGBImage? = nil) throws -> MouthCandidate {
        try #require(MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: image ?? plain).chosen)
    }

    @Test func anOrdinaryFaceWithRoomAroundItsMouthIsConfident() throws {
        let c = try chosen(syntheticFace(mouth: Point(x: 400, y: 350), mouthWidth: 100))
        #expect(c.detector == .landmarks)
        #expect(c.doubts == [] && c.isConfident)
    }

    @Test func aFaceWhoseLipPointsAreImplausibleIsNeverConfidentWhateverPlacedItsSquare() throws {
        // Lip corners tilted 40 degrees against level eyes: the lip points are rejected.
        let c = try chosen(syntheticFace(mouth: Point(x: 400, y: 350), mouthWidth: 100, cornerTilt: 40))
        #expect(c.lipPointsImplausible)
        #expect(c.doubts.contains(.lipPointsImplausible))
        #expect(!c.isConfident)
    }

    @Test func aSquareFromColourWithoutAFaceIsNeverConfidentHoweverHighItScores() throws {
        let image = paintedMouth(mouth: Point(x: 200, y: 150), width: 160)
        let c = try #require(MouthLocator(detector: ScriptedDetector { _ in [] }).locate(in: image).chosen)
        #expect(c.detector == .colour && c.faceBounds == nil)
        #expect(c.doubts.contains(.noFace))
        var sure = c
        sure.confidence = 1
        #expect(!sure.isConfident, "a colour score alone never makes a square confident")
    }

    @Test func aMouthCutByThePhotosEdgeIsNotConfident() throws {
        let c = try chosen(syntheticFace(mouth: Point(x: 30, y: 350), mouthWidth: 100))
        #expect(c.square.x == 0)
        #expect(c.doubts.contains(.mouthNearTheSquaresEdge))
    }

    @Test func aDroppedJawIsAWideOpenMouthPlacedFromTheNoseBaseToTheChinAndChecked() throws {
        // The lip points stay where a closed mouth would be (as landmark models place them on a wide-open mouth),
        // but the chin has dropped 1.2 mouth widths: the lower lip is far below the lip points.
        let face = syntheticFace(mouth: Point(x: 400, y: 200), mouthWidth: 100, jawDrop: 1.2)
        #expect(MouthPose().isWideOpen(face))
        #expect(!MouthPose().isWideOpen(syntheticFace(mouth: Point(x: 400, y: 200), mouthWidth: 100)))
        let c = try chosen(face)
        #expect(c.wideOpen)
        #expect(c.doubts.contains(.mouthWideOpen) && !c.isConfident)
        let lowerLip = Point(x: 400, y: 200 + 0.2 * 100 + 1.0 * 100)  // where the lower lip went with the jaw
        #expect(c.square.contains(lowerLip), "the square reaches down to the dropped lower lip: \(c.square)")
        #expect(c.square.contains(face.points[51]), "and holds the upper lip")
        #expect(!face.eyes.contains(where: c.square.contains))
    }

    @Test func lipsThatPartWideAreAWideOpenMouth() {
        let face = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 100, mouthHeightRatio: 0.9)
        #expect(MouthPose().isWideOpen(face))
    }

    @Test func aFaceAtTheBottomEdgeGetsASmallerSquareBelowItsEyesAndIsChecked() throws {
        // The photo's edge would push the usual 160 px square up over the eyes (at y 455-465).
        let face = syntheticFace(mouth: Point(x: 400, y: 560), mouthWidth: 100)
        let c = try chosen(face)
        #expect(!face.eyes.contains(where: c.square.contains), "no eye point in \(c.square)")
        #expect(c.square.side < 160)
        #expect(c.square.fits(width: plain.width, height: plain.height))
        #expect(face.outerLips.allSatisfy(c.square.contains), "the lips still fit")
        #expect(c.shrunkToKeepEyesOut)
        #expect(c.doubts.contains(.shrunkToKeepEyesOut) && !c.isConfident)
    }

    @Test func whenNoUsefulSquareCanKeepTheEyesOutNoneIsProposed() {
        // A small face whose mouth sits on the photo's bottom edge: below its eyes there are 20 px, less than the
        // smallest useful square (38 px).
        let face = syntheticFace(mouth: Point(x: 400, y: 595), mouthWidth: 30, eyeDrop: 0.7)
        let location = MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: plain)
        #expect(location == .notFound(.eyesTooClose))
    }

    @Test func aTiltedFacesSquareKeepsTheEyesOutThroughItsOwnPoints() throws {
        // A face turned 30 degrees: its eye points, rotated with it, are what the square keeps out.
        let upright = syntheticFace(mouth: Point(x: 400, y: 330), mouthWidth: 100)
        let angle = 30 * Double.pi / 180
        let pivot = Point(x: 400, y: 330)
        let turned = upright.points.map { p in
            Point(
                x: pivot.x + (p.x - pivot.x) * cos(angle) - (p.y - pivot.y) * sin(angle),
                y: pivot.y + (p.x - pivot.x) * sin(angle) + (p.y - pivot.y) * cos(angle))
        }
        let face = DetectedFace(bounds: upright.bounds, points: turned)
        let c = try chosen(face)
        #expect(!face.eyes.contains(where: c.square.contains))
    }
}

/// Wide-open mouths found from the pixels under the lip points, and close-ups (issue 45 items 2 and 4).
@Suite struct OpenMouthAndCloseUpTests {
    /// Skin with a dark open mouth painted from `top` to `bottom` across `left...right`, and a band of teeth on top.
    func openMouthImage(left: Int, right: Int, top: Int, bottom: Int) -> RGBImage {
        var image = RGBImage(width: 800, height: 700, red: 205, green: 160, blue: 135)
        for y in top..<bottom {
            for x in left..<right {
                let o = image.offset(x: x, y: y)
                let teeth = y < top + (bottom - top) / 4
                image.pixels[o] = teeth ? 240 : 60
                image.pixels[o + 1] = teeth ? 236 : 20
                image.pixels[o + 2] = teeth ? 222 : 25
            }
        }
        return image
    }

    @Test func aMouthThatGoesOnBelowItsLipPointsIsWideOpenAndItsSquareReachesItsBottom() throws {
        // The lip points say a closed mouth at y 300 (lower lip at 320), but the open mouth goes down to 430.
        let face = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 100)
        let image = openMouthImage(left: 360, right: 440, top: 300, bottom: 430)
        let pose = MouthPose()
        #expect(pose.mouthContinuesBelowLips(face, in: image, scale: 1))
        let bottom = try #require(pose.openMouthBottom(face, in: image, scale: 1))
        #expect(bottom >= 430 && bottom <= 470, "the mouth's end plus a lower lip: \(bottom)")
        let c = try #require(MouthLocator(detector: ScriptedDetector { _ in [face] }).locate(in: image).chosen)
        #expect(c.wideOpen && c.doubts.contains(.mouthWideOpen) && !c.isConfident)
        #expect(c.square.contains(Point(x: 400, y: 440)), "the square holds the open mouth's bottom: \(c.square)")
        #expect(!face.eyes.contains(where: c.square.contains))
    }

    @Test func skinBelowTheLowerLipIsAnOrdinaryMouth() {
        let face = syntheticFace(mouth: Point(x: 400, y: 300), mouthWidth: 100)
        let image = RGBImage(width: 800, height: 700, red: 205, green: 160, blue: 135)
        #expect(!MouthPose().mouthContinuesBelowLips(face, in: image, scale: 1))
        #expect(MouthPose().openMouthBottom(face, in: image, scale: 1) == nil)
    }

    @Test func aCloseUpWithoutAFaceGetsTheLargestSquareThatFitsHoldingTheMouth() throws {
        // Lips half the photo's width: the usual square (1.6 widths) would not fit, so the largest one does, on
        // the photo's middle, holding both lip corners.
        let image = paintedMouth(imageWidth: 400, imageHeight: 240, mouth: Point(x: 210, y: 120), width: 200)
        let c = try #require(MouthLocator(detector: ScriptedDetector { _ in [] }).locate(in: image).chosen)
        #expect(c.square.side == 240)
        #expect(c.square.contains(Point(x: 112, y: 120)) && c.square.contains(Point(x: 308, y: 120)), "\(c.square)")
        #expect(c.doubts.contains(.noFace))
    }

    @Test func aSmallMouthWithoutAFaceKeepsTheUsualSquare() throws {
        let image = paintedMouth(imageWidth: 800, imageHeight: 600, mouth: Point(x: 300, y: 260), width: 120)
        let c = try #require(MouthLocator(detector: ScriptedDetector { _ in [] }).locate(in: image).chosen)
        #expect(c.square.side < 300, "a mouth that does not fill the photo is not a close-up: \(c.square)")
        #expect(c.square.contains(Point(x: 300, y: 260)))
    }
}

extension OpenMouthAndCloseUpTests {
    @Test func aPhotoWithoutAnUprightFaceIsSearchedTurnedAQuarterEachWay() {
        let detector = ScriptedDetector(allowedCalls: 3) { _ in [] }
        _ = MouthLocator(detector: detector).locate(in: RGBImage(width: 640, height: 480, red: 90, green: 90, blue: 90))
        #expect(detector.calls.map { "\($0.width)x\($0.height)" } == ["640x480", "375x500", "375x500"], "turned, at 500 px")
        var settings = MouthLocator.Configuration()
        settings.searchSideways = false
        let once = ScriptedDetector { _ in [] }
        _ = MouthLocator(detector: once, configuration: settings).locate(in: RGBImage(width: 640, height: 480, red: 90, green: 90, blue: 90))
        #expect(once.calls.count == 1)
    }
}
