import CairnCore
import Foundation
import Testing
@testable import Imaging

@Suite struct OCRPreprocessingTests {
    /// A grey image: paper (230) with dark "text" strokes inside a box, `surround` outside it.
    static func panel(surround: UInt8, margin: Int) -> [UInt8] {
        let w = 400, h = 300
        var pixels = [UInt8](repeating: surround, count: w * h)
        for y in margin..<(h - margin) {
            for x in margin..<(w - margin) {
                // Text: 6-pixel strokes every 14 pixels on rows of 20.
                let isText = (y / 20) % 2 == 0 && x > margin + 10 && x < w - margin - 10 && (x / 7) % 2 == 0
                pixels[y * w + x] = isText ? 20 : 230
            }
        }
        return pixels
    }

    @Test func aDarkSurroundBecomesPaperAndTheTextStays() throws {
        let pixels = Self.panel(surround: 25, margin: 50)
        let out = try #require(OCRPreprocessing.paperOnly(pixels, width: 400, height: 300))
        #expect(out[10 * 400 + 10] >= 200, "the surround is paper now")
        #expect(out[150 * 400 + 10] >= 200)
        // Text inside the panel is untouched.
        let inside = (0..<400).filter { pixels[55 * 400 + $0] == 20 }
        #expect(!inside.isEmpty && inside.allSatisfy { out[55 * 400 + $0] == 20 })
    }

    @Test func aPanelFillingTheFrameIsLeftAsItIs() {
        #expect(OCRPreprocessing.paperOnly(Self.panel(surround: 230, margin: 0), width: 400, height: 300) == nil)
        // Text reaching the edge (no margin) is not taken for a surround.
        #expect(OCRPreprocessing.paperOnly(Self.panel(surround: 20, margin: 0), width: 400, height: 300) == nil)
    }

    @Test func theBowOfLinesCurvedByABottleIsFoundAndTakenOut() {
        let w = 400, h = 300
        let straight = Self.panel(surround: 230, margin: 0)
        // The lines 8 pixels lower at the edges than in the middle (a label seen from a little above the bottle).
        let bowed = OCRPreprocessing.unbowed(straight, width: w, height: h, bow: -8)
        let found = OCRPreprocessing.bow(pixels: bowed, width: w, height: h, skewDegrees: 0, lineHeight: 20)
        #expect(abs(found - 8) < 1.5, "bow \(found)")
        let restored = OCRPreprocessing.unbowed(bowed, width: w, height: h, bow: found)
        // Away from the top and bottom edges (where the shift left white), the straightened lines are the lines.
        let rows = 20..<(h - 20)
        let differing = rows.flatMap { y in (0..<w).filter { x in abs(Int(restored[y * w + x]) - Int(straight[y * w + x])) > 100 } }.count
        #expect(differing * 100 < rows.count * w, "\(differing) pixels differ")
    }

    @Test func straightLinesHaveNoBowAndATiltIsNoBow() {
        let w = 400, h = 300
        let straight = Self.panel(surround: 230, margin: 0)
        #expect(abs(OCRPreprocessing.bow(pixels: straight, width: w, height: h, skewDegrees: 0, lineHeight: 20)) < 1)
        // A page tilted by 2 degrees: the strips' shifts grow linearly, which is tilt, not bow.
        var tilted = [UInt8](repeating: 230, count: w * h)
        let slope = tan(2 * Double.pi / 180)
        for y in 0..<h {
            for x in 0..<w {
                let source = Int((Double(y) - Double(x - w / 2) * slope).rounded())
                if source >= 0 && source < h { tilted[y * w + x] = straight[source * w + x] }
            }
        }
        #expect(abs(OCRPreprocessing.bow(pixels: tilted, width: w, height: h, skewDegrees: 0, lineHeight: 20)) < 1.5)
    }

    @Test func anImageWithoutTextHasNoBow() {
        let blank = [UInt8](repeating: 240, count: 400 * 300)
        #expect(OCRPreprocessing.bow(pixels: blank, width: 400, height: 300, skewDegrees: 0, lineHeight: 20) == 0)
    }
}
