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
                image.pixels[o] = 170
                image.pixels[o + 1] = 40
                image.pixels[o + 2] = 50
            }
        }
        #expect(ColourMouthFinder().find(in: image) == nil)
    }

    @Test(arguments: [Point(x: 140, y: 110), Point(x: 260, y: 190), Point(x: 200, y: 150)])
    func measuresTheMouthFromCornerToCornerWhereverItIs(mouth: Point) throws {
        let finding = try #require(ColourMouthFinder().find(in: paintedMouth(mouth: mouth, width: 150)))
        #expect(abs(finding.mouthBounds.centre.x - mouth.x) < 12)
        #expect(abs(finding.mouthBounds.centre.y - mouth.y) < 12)
        #expect(finding.mouthBounds.width > 0.85 * 150 && finding.mouthBounds.width < 1.2 * 150)
    }

    @Test func findsAMouthOnDarkSkin() throws {
        let image = paintedMouth(mouth: Point(x: 190, y: 160), width: 150, skin: (112, 74, 52), lips: (92, 42, 46))
        let finding = try #require(ColourMouthFinder().find(in: image))
        #expect(abs(finding.mouthBounds.centre.x - 190) < 12)
        #expect(abs(finding.mouthBounds.centre.y - 160) < 12)
    }

    @Test func hairBesideTheFaceDoesNotWidenTheMouth() throws {
        var image = paintedMouth(mouth: Point(x: 230, y: 150), width: 140)
        paint(&image, x: 0..<70, y: 0..<300, rgb: (40, 28, 22))
        let finding = try #require(ColourMouthFinder().find(in: image))
        #expect(finding.mouthBounds.x > 70 + 0.1 * 140)
        #expect(finding.mouthBounds.width < 1.2 * 140)
    }

    @Test func skinWithoutAMouthGivesNil() {
        var image = RGBImage(width: 400, height: 300, red: 224, green: 172, blue: 140)
        var rng = SeededGenerator(seed: 0x5A11E)
        for i in stride(from: 0, to: image.pixels.count, by: 3) {
            let d = Int.random(in: -6...6, using: &rng)
            for c in 0..<3 { image.pixels[i + c] = UInt8(clamping: Int(image.pixels[i + c]) + d) }
        }
        #expect(ColourMouthFinder().find(in: image) == nil)
    }

    @Test func aPhotoWithLittleSkinGivesNil() {
        // A gray-blue wall with a white sheet and a dark frame: teeth-like and shadow-like, but no skin around them.
        var image = RGBImage(width: 400, height: 300, red: 120, green: 135, blue: 160)
        paint(&image, x: 120..<280, y: 120..<170, rgb: (245, 245, 240))
        paint(&image, x: 110..<290, y: 170..<180, rgb: (30, 30, 35))
        #expect(ColourMouthFinder().find(in: image) == nil)
    }
}

private func paint(_ image: inout RGBImage, x: Range<Int>, y: Range<Int>, rgb: (UInt8, UInt8, UInt8)) {
    for row in y {
        for column in x {
            let o = image.offset(x: column, y: row)
            image.pixels[o] = rgb.0
            image.pixels[o + 1] = rgb.1
            image.pixels[o + 2] = rgb.2
        }
    }
}
