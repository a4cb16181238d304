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
