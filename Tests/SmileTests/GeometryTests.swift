import Smile
import Testing

@Suite struct GeometryTests {
    @Test func clampedSquareIsCentredWhenItFits() {
        let s = CropSquare.clamped(centre: Point(x: 100, y: 80), side: 40, imageWidth: 300, imageHeight: 200)
        #expect(s == CropSquare(x: 80, y: 60, side: 40))
    }

    @Test func clampedSquareMovesInsideAtEveryEdge() {
        #expect(CropSquare.clamped(centre: Point(x: 0, y: 0), side: 40, imageWidth: 300, imageHeight: 200) == CropSquare(x: 0, y: 0, side: 40))
        #expect(CropSquare.clamped(centre: Point(x: 299, y: 199), side: 40, imageWidth: 300, imageHeight: 200) == CropSquare(x: 260, y: 160, side: 40))
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

@Test func aLocationScalesToTheLargerPhotoAboutItsCentresAndStaysInside() {
    let candidate = MouthCandidate(square: CropSquare(x: 10, y: 20, side: 30), detector: .landmarks,
                                   mouthBounds: PixelRect(x: 15, y: 25, width: 20, height: 10), faceBounds: nil, confidence: 1)
    let scaled = MouthLocation.found(candidate).scaled(by: 2, toWidth: 200, height: 200)
    #expect(scaled.chosen?.square == CropSquare(x: 20, y: 40, side: 60))
    #expect(scaled.chosen?.mouthBounds == PixelRect(x: 30, y: 50, width: 40, height: 20))
    // Clamped inside the photo.
    let edge = MouthLocation.found(candidate).scaled(by: 2, toWidth: 70, height: 200)
    #expect(edge.chosen.map { $0.square.x + $0.square.side <= 70 } == true)
    #expect(MouthLocation.notFound(.nothingFound).scaled(by: 2, toWidth: 10, height: 10) == .notFound(.nothingFound))
}
