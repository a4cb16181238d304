import Smile
import Testing

@Suite struct LipGeometryTests {
    let check = LipGeometryCheck()

    @Test func anUprightFaceIsPlausible() {
        #expect(check.problems(with: syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80)).isEmpty)
    }

    @Test func lipCornersTiltedAgainstTheEyesAreImplausible() {
        let face = syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80, cornerTilt: 30)
        #expect(check.problems(with: face).contains(.cornersTiltedAgainstEyes))
        #expect(check.isPlausible(syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80, cornerTilt: 10)))
    }

    @Test func aMouthAtEyeLevelIsImplausible() {
        let face = syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80, eyeDrop: 0.1)
        #expect(check.problems(with: face).contains(.mouthNotBelowEyes))
    }

    @Test func aMouthTallerThanItCanOpenIsImplausible() {
        let face = syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80, mouthHeightRatio: 1.5)
        #expect(check.problems(with: face).contains(.mouthTooTall))
    }

    @Test func aWideOpenButUprightMouthIsPlausible() {
        #expect(check.isPlausible(syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80, mouthHeightRatio: 0.9)))
    }

    @Test func aFaceOnItsSideIsNotUpright() {
        var face = syntheticFace(mouth: Point(x: 200, y: 200), mouthWidth: 80)
        // Rotate every point 90 degrees around the mouth.
        face.points = face.points.map { Point(x: 200 - ($0.y - 200), y: 200 + ($0.x - 200)) }
        #expect(check.problems(with: face).contains(.faceNotUpright))
    }
}
