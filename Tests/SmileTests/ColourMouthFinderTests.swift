import CairnCore
import Smile
import Testing

@Suite struct ColourMouthFinderTests {
    @Test func findsRedLipsAroundWhiteTeethOnSkin() throws {
        let finding = try #require(ColourMouthFinder().find(in: paintedMouth(mouth: Point(x: 200, y: 150), width: 160)))
        #expect(abs(finding.mouthBounds.centre.x - 200) < 8)
        #expect(abs(finding.mouthBounds.centre.y - 150) < 8)
        #expect(abs(finding.mouthBounds.width - 160) < 16)
        #expect(finding.confidence >= ColourMouthFinder().minimumConfidence && finding.confidence <= 1)
    }

    @Test func findsClosedLipsWithoutTeeth() throws {
        let finding = try #require(ColourMouthFinder().find(in: paintedMouth(mouth: Point(x: 180, y: 160), width: 140, teeth: false)))
        #expect(abs(finding.mouthBounds.centre.x - 180) < 8)
    }

    @Test func findsNothingInAUniformImage() {
        #expect(ColourMouthFinder().find(in: RGBImage(width: 300, height: 200, red: 224, green: 172, blue: 140)) == nil)
    }

    @Test func findsNothingInAnImageTooSmallToAnalyse() {
        #expect(ColourMouthFinder().find(in: RGBImage(width: 5, height: 5, red: 170, green: 60, blue: 75)) == nil)
    }

    @Test func aRedBandAcrossTheWholeFrameIsNotAMouth() {
        var image = RGBImage(width: 400, height: 300, red: 224, green: 172, blue: 140)
        for y in 250..<300 {
            for x in 0..<400 {
                let o = image.offset(x: x, y: y)
                image.pixels[o] = 170; image.pixels[o + 1] = 40; image.pixels[o + 2] = 50
            }
        }
        #expect(ColourMouthFinder().find(in: image) == nil)
    }
}
