import CairnCore
import Foundation
import Testing

@testable import Imaging

@Suite struct ChangeOverlayTests {
    private let pipeline = ImagePipeline()

    private func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * image.width + x) * 3
        return (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
    }

    @Test func aChangedCornerOfTheMapIsTintedOverTheWholePictureAndEverythingElseStaysBlack() throws {
        // An 8 x 8 map changed fully in its top-left quarter, stretched over 200 x 100 (revision 11 compares the whole frame).
        var values = [Float](repeating: 0, count: 64)
        for y in 0..<4 { for x in 0..<4 { values[y * 8 + x] = 1 } }
        let image = try pipeline.changeOverlay(values, mapWidth: 8, mapHeight: 8, width: 200, height: 100, layer: .change(outline: false))
        #expect(image.width == 200 && image.height == 100)
        let hot = pixel(image, 20, 10)
        #expect(hot.0 > 240 && hot.1 > 150 && hot.1 < 180 && hot.2 < 50)
        #expect(pixel(image, 150, 75) == (0, 0, 0))
        #expect(pixel(image, 199, 99) == (0, 0, 0))
    }

    @Test func cellsNotComparedAreHatchedAndTheChangeLayerLeavesThemBlack() throws {
        // The left half of a 4 x 4 map was not compared.
        var values = [Float](repeating: 0.9, count: 16)
        for y in 0..<4 { for x in 0..<2 { values[y * 4 + x] = -1 } }
        let hatch = try pipeline.changeOverlay(values, mapWidth: 4, mapHeight: 4, width: 80, height: 80, layer: .notCompared)
        let left = (0..<30).flatMap { y in (0..<30).map { pixel(hatch, $0, y) } }
        #expect(left.contains { $0 == (190, 190, 190) } && left.contains { $0 == (0, 0, 0) }, "stripes, not a fill")
        #expect((50..<80).allSatisfy { x in (0..<80).allSatisfy { pixel(hatch, x, $0) == (0, 0, 0) } }, "nothing over the compared half")
        let change = try pipeline.changeOverlay(values, mapWidth: 4, mapHeight: 4, width: 80, height: 80, layer: .change(outline: false))
        #expect(pixel(change, 5, 40) == (0, 0, 0))
        #expect(pixel(change, 75, 40).0 > 200)
    }

    @Test func changeBelowATenthOfTheCeilingIsDrawnAsNone() throws {
        let faint = [Float](repeating: 0.08, count: 16)
        let image = try pipeline.changeOverlay(faint, mapWidth: 4, mapHeight: 4, width: 40, height: 40, layer: .change(outline: false))
        #expect(image.pixels.allSatisfy { $0 == 0 })
        let half = [Float](repeating: 0.55, count: 16)
        let tinted = try pipeline.changeOverlay(half, mapWidth: 4, mapHeight: 4, width: 40, height: 40, layer: .change(outline: false))
        let (r, g, _) = pixel(tinted, 20, 20)
        #expect(r > 120 && r < 135 && g > 80 && g < 90)
    }

    @Test func anOutlineDrawsOnlyTheEdgeOfAClearChangeSoTheSpotStaysVisible() throws {
        // A 16 x 16 map with a clear change in its middle 8 x 8, drawn 160 x 160.
        var values = [Float](repeating: 0, count: 256)
        for y in 4..<12 { for x in 4..<12 { values[y * 16 + x] = 1 } }
        let image = try pipeline.changeOverlay(values, mapWidth: 16, mapHeight: 16, width: 160, height: 160, layer: .change(outline: true))
        #expect(pixel(image, 80, 80) == (0, 0, 0), "the middle of the changed region is left clear")
        #expect(pixel(image, 10, 10) == (0, 0, 0), "no change, nothing drawn")
        // Somewhere along the row through the middle, the region's left edge is drawn at full strength.
        let edge = (20..<80).map { pixel(image, $0, 80) }.filter { $0.0 == 255 }
        #expect(!edge.isEmpty && edge.count <= 6, "a thin ring, \(edge.count) px wide")
    }
}
