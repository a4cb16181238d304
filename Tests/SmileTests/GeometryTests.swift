import Smile
import Testing

@Suite struct GeometryTests {
    @Test func clampedSquareIsCentredWhenItFits() {
        let s = CropSquare.clamped(centre: Point(x: 100, y: 80), side: 40, imageWidth: 300, imageHeight: 200)
        #expect(s == CropSquare(x: 80, y: 60, side: 40))
    }

    @Test func clampedSquareMovesInsideAtEveryEdge() {
        #expect(CropSquare.clamped(centre: Point(x: 0, y: 0), side: 40, imageWidth: 300, imageHeight: 200) == CropSquare(x: 0, y: 0, side: 40))
        #expect(
            CropSquare.clamped(centre: Point(x: 299, y: 199), side: 40, imageWidth: 300, imageHeight: 200) == CropSquare(x: 260, y: 160, side: 40))
    }

    @Test func clampedSquareShrinksToTheShorterSideOfASmallImage() {
        let s = CropSquare.clamped(centre: Point(x: 50, y: 20), side: 500, imageWidth: 100, imageHeight: 40)
        #expect(s == CropSquare(x: 30, y: 0, side: 40))
        #expect(s.fits(width: 100, height: 40))
    }

    @Test func containsIncludesTheTopLeftAndExcludesTheFarEdges() {
        let s = CropSquare(x: 10, y: 10, side: 5)
        #expect(s.contains(Point(x: 10, y: 10)))
        #expect(s.contains(Point(x: 14.9, y: 14.9)))
        #expect(!s.contains(Point(x: 15, y: 12)))
        #expect(!s.contains(Point(x: 9.9, y: 12)))
    }

    @Test func boundingRectOfNoPointsIsNil() {
        #expect(PixelRect(bounding: [Point]()) == nil)
        #expect(PixelRect(bounding: [Point(x: 3, y: 4)]) == PixelRect(x: 3, y: 4, width: 0, height: 0))
    }

    @Test func intersectionOverUnionOfDisjointIdenticalAndHalfOverlappingRects() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersectionOverUnion(PixelRect(x: 20, y: 0, width: 10, height: 10)) == 0)
        #expect(a.intersectionOverUnion(a) == 1)
        #expect(abs(a.intersectionOverUnion(PixelRect(x: 5, y: 0, width: 10, height: 10)) - 1.0 / 3) < 1e-9)
    }
}
