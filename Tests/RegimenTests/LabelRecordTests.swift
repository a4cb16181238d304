import Foundation
import Testing

@testable import Regimen

/// DSLD's label format (API v9, bulk download), as public examples show it.
@Suite struct LabelRecordTests {
    static let label = #"""
        {"id": 241222, "fullName": "Vitamin D3 + K2", "brandName": "Example Brand", "upcSku": "0 33984 00140 4",
         "entryDate": "2019-04-02", "offMarket": 0,
         "physicalState": {"langualCode": "E0155", "langualCodeDescription": "Softgel Capsule"},
         "servingSizes": [{"order": 1, "minQuantity": 2, "maxQuantity": 2, "unit": "Softgel(s)"}],
         "ingredientRows": [
           {"order": 1, "name": "Vitamin D3", "forms": [{"name": "Cholecalciferol", "prefix": "as"}],
            "quantity": [{"servingSizeOrder": 1, "quantity": 125, "unit": "mcg",
                          "dailyValueTargetGroup": [{"name": "Adults", "percent": 625}]}]},
           {"order": 2, "name": "Proprietary Blend", "quantity": [{"servingSizeOrder": 1, "quantity": 0.5, "unit": "Gram(s)"}],
            "nestedRows": [{"order": 3, "name": "Turmeric", "quantity": [{"quantity": 0, "unit": "NP"}]}]}
         ],
         "statements": [{"type": "Other", "notes": "ignored"}]}
        """#

    static func record(_ text: String) throws -> LabelRecord {
        try Array(text.utf8).withUnsafeBytes { try DSLDLabel.record(json: $0) }
    }

    @Test func aDSLDLabelGivesItsNameBrandBarcodeServingAndRows() throws {
        let record = try Self.record(Self.label)
        #expect(record.id == 241222)
        #expect(record.name == "Vitamin D3 + K2")
        #expect(record.brand == "Example Brand")
        #expect(record.barcodes == [GTIN("033984001404")!])
        #expect(record.servingText == "2 Softgel(s)")
        #expect(try record.servingSize == (try Amount(2, .count)))
        #expect(record.suggestedForm == .softgel)
        #expect(record.labelDate == "2019-04-02")
        #expect(record.onMarket)
        #expect(record.rows.count == 3)
        #expect(
            try record.rows[0]
                == LabelRecordRow(
                    name: "Vitamin D3", form: "Cholecalciferol", amount: try Amount(125, .mcg), dailyValuePercent: 625, isBlend: false, blendName: nil
                ))
        #expect(try record.rows[1].isBlend && record.rows[1].amount == (try Amount(Decimal(string: "0.5")!, .g)))
        #expect(
            record.rows[2]
                == LabelRecordRow(name: "Turmeric", form: nil, amount: nil, dailyValuePercent: nil, isBlend: false, blendName: "Proprietary Blend"))
    }

    @Test func aSearchHitsSourceIsReadThroughAndOffMarketIsKept() throws {
        let record = try Self.record(
            #"{"_id": "9", "_source": {"id": 9, "fullName": "Zinc", "offMarket": 1, "events": [{"date": "2014-01-02"}, {"date": "2012-05-06"}]}}"#)
        #expect(record.id == 9)
        #expect(!record.onMarket)
        #expect(record.labelDate == "2012-05-06")
        #expect(record.rows.isEmpty)
    }

    @Test func somethingThatIsNotALabelIsRefused() {
        #expect(throws: LabelDatabaseError.notALabel) { try Self.record(#"{"name": "no id"}"#) }
        #expect(throws: LabelDatabaseError.notALabel) { try Self.record(#"[1]"#) }
        #expect(throws: LabelDatabaseError.notALabel) { try Self.record(#"{"id": 4, "fullName": ""}"#) }
    }

    @Test func namesFromTheFileAreCleanedOfControlCharacters() throws {
        let record = try Self.record(#"{"id": 5, "fullName": "Fish\u0007 Oil\n  1000", "brandName": "A\tB"}"#)
        #expect(record.name == "Fish Oil 1000")
        #expect(record.brand == "A B")
    }

    @Test func readRowsAreComparedWithTheDatabasesByName() throws {
        let database = try Self.record(Self.label).rows
        let comparison = LabelComparison(
            read: [("vitamin d3", try Amount(100, .mcg), 500), ("Turmeric", nil, nil), ("Vitamin K2", try Amount(90, .mcg), nil)],
            database: database)
        #expect(comparison.pairs.map(\.readIndex) == [0, 1])
        #expect(comparison.pairs.map(\.differs) == [true, false])
        #expect(comparison.onlyRead == [2])
        #expect(comparison.onlyInDatabase.map(\.name) == ["Proprietary Blend"])
        #expect(comparison.disagrees)
    }
}
