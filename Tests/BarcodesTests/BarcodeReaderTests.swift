import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Testing

@testable import Barcodes
@testable import Regimen

/// Barcodes drawn from GS1's tables (no real photos are available), read back through zbar.
@Suite struct BarcodeReaderTests {
    static let upcA = "033984001404"

    @Test func drawnEAN13BarsAreReadAsTheirGTIN() throws {
        let grey = BarcodeDrawing.grey(ean13: "4006381333931", width: 800, height: 400, x: 150, y: 100, moduleWidth: 4, barHeight: 180)
        #expect(BarcodeReader().read(grey: grey, width: 800, height: 400) == [GTIN("4006381333931")!])
    }

    @Test func aUPCAReadFromAPhotoMatchesTheNumberDSLDWritesWithSpaces() throws {
        let width = 2400
        let height = 1600
        let rgb = BarcodeDrawing.rgb(ean13: "0" + Self.upcA, width: width, height: height, x: 900, y: 700, moduleWidth: 5, barHeight: 300)
        let jpeg = try ImagePipeline().encodeJPEG(RGBImage(width: width, height: height, pixels: rgb), quality: 85)
        let found = try BarcodeReader().read(imageData: jpeg)
        #expect(found == [GTIN("0 33984 00140 4")!])
    }

    @Test func aPhotoWithoutABarcodeGivesNothing() throws {
        let rgb = [UInt8](repeating: 180, count: 640 * 480 * 3)
        let jpeg = try ImagePipeline().encodeJPEG(RGBImage(width: 640, height: 480, pixels: rgb), quality: 85)
        #expect(try BarcodeReader().read(imageData: jpeg).isEmpty)
    }

    @Test func bytesThatAreNotAPhotoAreRefused() {
        #expect(throws: (any Error).self) { try BarcodeReader().read(imageData: Data("not a photo".utf8)) }
    }
}
