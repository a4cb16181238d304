import Foundation
import Testing

@testable import Regimen

@Suite struct GTINTests {
    @Test func aUPCAWrittenWithSpacesAndTheSameBarsReadAsEAN13AreOneGTIN() throws {
        let dsld = try #require(GTIN("0 33984 00140 4"))
        let scanned = try #require(GTIN("0033984001404"))
        #expect(dsld == scanned)
        #expect(dsld.digits == "00033984001404")
        #expect(dsld.printed == "033984001404")
        #expect(dsld.hasValidCheckDigit)
    }

    @Test func eightTwelveThirteenAndFourteenDigitsAreBarcodesAndNothingElse() {
        #expect(GTIN("96385074")?.digits == "00000096385074")
        #expect(GTIN("4006381333931")?.digits == "04006381333931")
        #expect(GTIN("10012345678902")?.digits == "10012345678902")
        #expect(GTIN("12345") == nil)
        #expect(GTIN("#15585") == nil)
        #expect(GTIN("0 33984 0014O 4") == nil)
    }

    @Test func aUPCEIsExpandedToItsUPCA() throws {
        // UPC-E 04252614 is UPC-A 042100005264.
        #expect(try #require(GTIN(upcE: "04252614")) == GTIN("042100005264"))
        #expect(GTIN(upcE: "24252614") == nil)
    }

    @Test func aWrongCheckDigitIsKeptButSaid() throws {
        let gtin = try #require(GTIN("0 33984 00140 5"))
        #expect(!gtin.hasValidCheckDigit)
    }

    @Test func severalNumbersInOneFieldAreEachFoundOnceAndZeroIsNone() {
        #expect(GTIN.all(in: "0 33984 00140 4, 033984001404; 4006381333931") == [GTIN("033984001404")!, GTIN("4006381333931")!])
        #expect(GTIN.all(in: "0").isEmpty)
        #expect(GTIN.all(in: "00000000000000").isEmpty)
    }

    @Test func aTypedBarcodeIsReadByItsParserOrRefusedPlainly() throws {
        #expect(try GTIN.parse(" 0-33984-00140-4 ") == GTIN("033984001404"))
        #expect(throws: LabelDatabaseError.unreadableBarcode) { try GTIN.parse("abc") }
    }
}
