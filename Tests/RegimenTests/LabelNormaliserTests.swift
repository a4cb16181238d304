import Foundation
import Testing

@testable import Regimen

@Suite struct LabelNormaliserTests {
    let normaliser = LabelNormaliser(catalogue: try! Catalogue.bundled())

    private func row(_ line: String) throws -> NormalisedLabelRow {
        normaliser.normalise(try #require(LabelParser.parseRow(line)))
    }
    private func kinds(_ r: NormalisedLabelRow) -> Set<LabelFlag.Kind> { Set(r.flags.map(\.kind)) }

    @Test func matchesNamesAndFormsWithoutFlags() throws {
        let r = try row("Zinc (as zinc oxide) 11 mg 100%")
        #expect(r.match?.ingredient.id == "zinc")
        #expect(r.flags.isEmpty)
    }

    @Test func matchesAnOCRMisreadByFuzzyMatchingAndSaysSo() throws {
        let r = try row("Magnesiurn 100 mg 24%")
        #expect(r.match?.ingredient.id == "magnesium")
        #expect(kinds(r).contains(.uncertainMatch))
    }

    @Test func convertsOnlyExactly() throws {
        let d = try row("Vitamin D3 1,000 IU 125%")
        #expect(d.amountInCatalogueUnit == (try Amount(25, .mcg)))
        let a = try row("Vitamin A 2,000 IU 40%")
        #expect(a.match?.ingredient.id == "vitamin-a")
        #expect(a.amountInCatalogueUnit == nil)
    }

    @Test func flagsGramsOfVitaminDAsImpossible() throws {
        #expect(kinds(try row("Vitamin D 5 g")).contains(.impossibleQuantity))
    }

    @Test func flagsAnAmountAboveTheUpperLimit() throws {
        let r = try row("Zinc 50 mg 455%")
        #expect(kinds(r).contains(.aboveUpperLimit))
        #expect(!kinds(r).contains(.dailyValueInconsistent))
    }

    @Test func flagsAnAmountFarOutsideTheCommonRange() throws {
        #expect(kinds(try row("Vitamin B12 10,000 mcg 416667%")).contains(.farOutsideCommonRange))
        #expect(!kinds(try row("Vitamin B12 1,000 mcg 41667%")).contains(.farOutsideCommonRange))
    }

    @Test func flagsADailyValueThatDoesNotFitTheAmount() throws {
        #expect(kinds(try row("Vitamin C 200 mg 20%")).contains(.dailyValueInconsistent))
        // The current (222%) and the pre-2016 (333%) Daily Values both fit.
        #expect(!kinds(try row("Vitamin C 200 mg 222%")).contains(.dailyValueInconsistent))
        #expect(!kinds(try row("Vitamin C 200 mg 333%")).contains(.dailyValueInconsistent))
    }

    @Test func flagsAnUnknownIngredient() throws {
        let r = try row("Directline Technology 20 mg †")
        #expect(r.match == nil)
        #expect(kinds(r).contains(.unknownIngredient))
    }

    @Test func flagsAUnitThatDoesNotFitTheIngredient() throws {
        #expect(kinds(try row("Zinc 100 IU")).contains(.unitAnomaly))
        #expect(!kinds(try row("Vitamin E 30 IU 100%")).contains(.unitAnomaly))
    }

    @Test func flagsBlendMembersWithoutAmounts() throws {
        let label = LabelParser.parse(text: "Supplement Facts\nProprietary Blend 300 mg †\n  Melatonin †\n  Ginger 100 mg †")
        let rows = normaliser.normalise(label)
        #expect(rows.count == 3)
        #expect(!kinds(rows[0]).contains(.unknownIngredient))
        #expect(kinds(rows[1]).contains(.undisclosedBlendAmount))
        #expect(!kinds(rows[2]).contains(.undisclosedBlendAmount))
    }

    @Test func aRowTakenForABlendOnlyByItsIndentedNeighboursIsStillCheckedAsAnIngredient() throws {
        let label = LabelParser.parse(text: "Supplement Facts\nAcid Redux 373 mg\n  Calcium 100 mg\nEnergy Complex 200 mg\n  Ginger 100 mg")
        let rows = normaliser.normalise(label)
        let redux = try #require(rows.first { $0.parsed.nameOnLabel.hasPrefix("Acid Redux") })
        #expect(redux.parsed.isBlend && kinds(redux).contains(.unknownIngredient), "no blend word: a misread ingredient, flagged")
        let complex = try #require(rows.first { $0.parsed.nameOnLabel.hasPrefix("Energy Complex") })
        #expect(complex.parsed.isBlend && !kinds(complex).contains(.unknownIngredient), "a blend's name is not an ingredient")
    }

    @Test func aBlendNameReadWithoutItsFrontIsFlagged() throws {
        // "Proprietary Blend 70 mg" read under uneven light as "a Blend 70 mg" (found by cairn-bench labels).
        let label = LabelParser.parse(text: "Supplement Facts\na Blend 70 mg\n  Royal Jelly\nProprietary Blend 70 mg\n  Royal Jelly")
        let rows = normaliser.normalise(label)
        let stub = try #require(rows.first { $0.parsed.nameOnLabel == "a Blend" })
        #expect(stub.parsed.isBlend && kinds(stub).contains(.unknownIngredient))
        let whole = try #require(rows.first { $0.parsed.nameOnLabel == "Proprietary Blend" })
        #expect(!kinds(whole).contains(.unknownIngredient))
    }

    @Test func aBlendNameWithAMisreadBlendWordOrAStrayMarkIsFlagged() throws {
        // Found by cairn-bench labels: "Proprietary Blend" read as "Proprietary Biend", and as "Proprietary Blend 7".
        for misread in ["Proprietary Biend", "Proprietary Blend 7"] {
            let label = LabelParser.parse(text: "Supplement Facts\n\(misread) 210 mg\n  Royal Jelly")
            let blend = try #require(normaliser.normalise(label).first)
            #expect(blend.parsed.isBlend && kinds(blend).contains(.unknownIngredient), "\(misread)")
        }
        let label = LabelParser.parse(text: "Supplement Facts\nProprietary Blend of 210 mg\n  Royal Jelly")
        #expect(!kinds(try #require(normaliser.normalise(label).first)).contains(.unknownIngredient))
    }

    @Test func flagsAMassUnitAMillionTimesOffTheLabelUnit() throws {
        // OCR's "mg" read as "ng" and "mcg" as "g" (found by cairn-bench labels): no label gives either.
        #expect(kinds(try row("Vitamin A 600 g")).contains(.unitAnomaly))
        #expect(kinds(try row("Zinc 11 ng")).contains(.unitAnomaly))
        #expect(!kinds(try row("Vitamin A 600 mcg")).contains(.unitAnomaly))
        #expect(!kinds(try row("Vitamin B12 1 mg")).contains(.unitAnomaly))
    }

    @Test func flagsFolateInPlainMcgWhenTheAmountReadsAsDietaryFolateEquivalents() throws {
        // "667 mcg DFE" (400 mcg of folic acid) and "680 mcg DFE" with "DFE" lost (found by cairn-bench labels).
        #expect(kinds(try row("Folate 667 mcg 167%")).contains(.unitAnomaly))
        #expect(kinds(try row("Folate 680 mcg")).contains(.unitAnomaly))
        #expect(kinds(try row("Folate 1,333 mcg 333%")).contains(.unitAnomaly))
        #expect(!kinds(try row("Folate 667 mcg DFE 167%")).contains(.unitAnomaly))
        // Folic acid and older folate rows come in round amounts of plain mcg.
        #expect(!kinds(try row("Folic Acid 400 mcg 100%")).contains(.unitAnomaly))
        #expect(!kinds(try row("Folate 800 mcg 200%")).contains(.unitAnomaly))
        #expect(!kinds(try row("Folic Acid 1,000 mcg")).contains(.unitAnomaly))
        // The same rule on a row typed by hand (every door).
        let typed = ParsedLabelRow(nameOnLabel: "Folate", amount: try Amount(667, .mcg))
        #expect(kinds(normaliser.normalise(typed)).contains(.unitAnomaly))
    }

    @Test func flagsLowConfidenceAndMissingAmounts() throws {
        let parsed = try #require(LabelParser.parseRow("Zinc"))
        let r = normaliser.normalise(parsed, confidence: 0.4)
        #expect(kinds(r).contains(.lowConfidence))
        #expect(kinds(r).contains(.missingAmount))
        #expect(!kinds(normaliser.normalise(parsed, confidence: 0.95)).contains(.lowConfidence))
    }

    @Test func flagReasonsUseAllowedWording() throws {
        let rows = [try row("Vitamin D 5 g"), try row("Zinc 50 mg 20%"), try row("Zinc 100 IU"), try row("Xyzzy 1 mg")]
        for flag in rows.flatMap(\.flags) {
            #expect(ProductWordingCheck.banned(in: flag.reason).isEmpty, "\(flag.reason)")
        }
    }
}
