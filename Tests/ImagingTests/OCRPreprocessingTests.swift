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
}
