import CairnCore
import Testing

@Test func checkedInitRefusesAWrongByteCountOrEmptySides() {
    #expect(RGBImage(checkingWidth: 2, height: 2, pixels: [UInt8](repeating: 0, count: 11)) == nil)
    #expect(RGBImage(checkingWidth: 0, height: 2, pixels: []) == nil)
    #expect(RGBImage(checkingWidth: 2, height: 1, pixels: [UInt8](repeating: 9, count: 6)) != nil)
}

@Test func pixelReadsRowMajorRGB() {
    let image = RGBImage(width: 2, height: 2, pixels: [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    #expect(image.pixel(x: 1, y: 0) == (1, 2, 3))
    #expect(image.pixel(x: 1, y: 1) == (7, 8, 9))
}

@Test func uniformImageFillsEveryPixel() {
    let image = RGBImage(width: 3, height: 2, red: 10, green: 20, blue: 30)
    #expect(image.pixels.count == 18)
    #expect((0..<2).allSatisfy { y in (0..<3).allSatisfy { x in image.pixel(x: x, y: y) == (10, 20, 30) } })
}
