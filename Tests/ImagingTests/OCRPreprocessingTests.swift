import CairnCore
import Foundation
import Testing

@testable import Imaging

@Suite struct OCRPreprocessingTests {
    /// A grey image: paper (230) with dark "text" strokes inside a box, `surround` outside it.
    static func panel(surround: UInt8, margin: Int) -> [UInt8] {
        let w = 400
        let h = 300
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

    /// A grey image like a photographed panel: paper (230) with lines of thin strokes (2 pixels wide, like print
    /// at this size) 20 pixels in from the panel's edge, `surround` outside the panel's `margin`.
    static func printedPanel(surround: UInt8, margin: Int) -> [UInt8] {
        let w = 400
        let h = 300
        var pixels = [UInt8](repeating: surround, count: w * h)
        for y in margin..<(h - margin) {
            for x in margin..<(w - margin) {
                let inside = x >= margin + 20 && x < w - margin - 20 && y >= margin + 20 && y < h - margin - 20
                let isText = inside && (y - margin) % 20 < 12 && x % 5 < 2
                pixels[y * w + x] = isText ? 20 : 230
            }
        }
        return pixels
    }

    /// Grey pixels as an RGB image.
    static func rgb(_ gray: [UInt8], width: Int = 400, height: Int = 300) -> RGBImage {
        RGBImage(width: width, height: height, pixels: gray.flatMap { [$0, $0, $0] })
    }

    @Test func aDarkSurroundIsCroppedAwayToThePanelsBox() throws {
        let crop = try #require(try OCRPreprocessing.panel(in: Self.rgb(Self.printedPanel(surround: 25, margin: 50))))
        #expect(abs(crop.x - 50) <= 2 && abs(crop.y - 50) <= 2, "\(crop)")
        #expect(abs(crop.width - 300) <= 3 && abs(crop.height - 200) <= 3, "\(crop)")
        #expect(crop.linesOutside == 0)
        // A coloured bottle (blue) is a surround too.
        var blue = Self.rgb(Self.printedPanel(surround: 25, margin: 50)).pixels
        for i in stride(from: 0, to: blue.count, by: 3) where blue[i] == 25 {
            blue[i] = 22
            blue[i + 1] = 58
            blue[i + 2] = 140
        }
        let coloured = try #require(try OCRPreprocessing.panel(in: RGBImage(width: 400, height: 300, pixels: blue)))
        #expect(abs(coloured.x - 50) <= 2 && abs(coloured.width - 300) <= 3)
    }

    @Test func aPanelFillingTheFrameOrAShadeAcrossThePaperIsNotCropped() throws {
        #expect(try OCRPreprocessing.panel(in: Self.rgb(Self.printedPanel(surround: 230, margin: 0))) == nil)
        // Blocks of dark print reaching the photo's edge are no surround either.
        #expect(try OCRPreprocessing.panel(in: Self.rgb(Self.panel(surround: 230, margin: 0))) == nil)
        // Light falling off from 230 to 120 across the paper: thresholded, half the paper is "dark", but no edge.
        let shaded = Self.printedPanel(surround: 230, margin: 0).enumerated().map { i, v in
            UInt8(Double(v) * (1 - 0.5 * Double(i % 400) / 400))
        }
        #expect(try OCRPreprocessing.panel(in: Self.rgb(shaded)) == nil)
    }

    @Test func textOnTheSurroundIsCountedAsLinesNotRead() throws {
        var pixels = Self.printedPanel(surround: 25, margin: 50)
        // Two lines of light print on the bottle below the panel (3-pixel strokes, 10 rows tall).
        for y in 262..<272 { for x in 100..<300 where x % 6 < 3 { pixels[y * 400 + x] = 210 } }
        for y in 282..<292 { for x in 100..<300 where x % 6 < 3 { pixels[y * 400 + x] = 210 } }
        let crop = try #require(try OCRPreprocessing.panel(in: Self.rgb(pixels)))
        #expect(crop.linesOutside == 2)
        #expect(abs(crop.y + crop.height - 250) <= 3, "the print is not taken into the panel: \(crop)")
    }

    @Test func thePreparedImageIsThePanelWithItsTiltedCornersPainted() throws {
        // A panel with a 30-pixel paper margin, turned by 2 degrees on a dark surround: the corners of its box
        // are surround.
        var paper = Self.panel(surround: 230, margin: 0)
        for y in 0..<300 { for x in 0..<400 where x < 30 || x >= 370 || y < 30 || y >= 270 { paper[y * 400 + x] = 230 } }
        let turned = try ImageDegradation.rotated(Self.rgb(paper), degrees: 2, background: 25)
        let prepared = try OCRPreprocessing.prepare(turned)
        #expect(prepared.panel != nil)
        // Left dark, the corners would be black slivers along the edges of the image read; painted, the edges
        // are paper.
        let w = prepared.width
        let h = prepared.height
        let band = (0..<h).flatMap { y in (0..<w).filter { x in x < 12 || x >= w - 12 || y < 12 || y >= h - 12 }.map { y * w + $0 } }
        let dark = band.filter { prepared.pixels[$0] < 100 }.count
        #expect(dark * 100 < band.count, "\(dark) of \(band.count) edge pixels dark")
    }

    @Test func theBowOfLinesCurvedByABottleIsFoundAndTakenOut() {
        let w = 400
        let h = 300
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
        let w = 400
        let h = 300
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
