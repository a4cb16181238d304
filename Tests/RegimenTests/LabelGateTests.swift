import Foundation
import Testing

@testable import Regimen

@Suite struct LabelGateTests {
    static let gate = LabelGate(catalogue: try! Catalogue.bundled())

    static func product(_ lines: [String]) throws -> Product {
        try Product(
            name: "Test", form: .capsule, servingSize: Amount(1, .count),
            ingredients: lines.map { try TypedIngredient.parse($0, catalogue: try Catalogue.bundled()) })
    }

    @Test func aTypedAmountAboveTheUpperLimitIsFlaggedAsAScannedOneIs() throws {
        let product = try Self.product(["Vitamin D3=1,000,000 IU", "Magnesium=200 mg"])
        let undecided = Self.gate.undecided(in: product)
        #expect(undecided.map(\.number) == [1])
        #expect(undecided[0].flags.contains { $0.kind == .aboveUpperLimit })
        #expect(throws: FlaggedRowsUndecided.self) { try Self.gate.check(product) }
    }

    @Test func aTypedUnitAMillionTimesOffIsFlaggedAsAScannedOneIs() throws {
        let product = try Self.product(["Zinc=11 ng", "Zinc=11 mg"])
        let undecided = Self.gate.undecided(in: product)
        #expect(undecided.map(\.number) == [1])
        #expect(undecided.first?.flags.contains { $0.kind == .unitAnomaly } == true)
    }

    @Test func anAcceptedRowPassesAndOnlyThatRow() throws {
        let product = try Self.product(["Vitamin D3=1,000,000 IU", "KEEP OUT OF REACH OF CHILDREN"])
        #expect(Self.gate.undecided(in: product, decisions: RowDecisions(accepted: [1])).map(\.number) == [2])
        try Self.gate.check(product, decisions: RowDecisions(accepted: [1, 2]))
    }

    @Test func aRowUnchangedFromTheSavedRevisionKeepsItsDecisionAndAChangedOneDoesNot() throws {
        let earlier = try Self.product(["Vitamin D3=1,000,000 IU", "Zinc=15 mg"])
        try Self.gate.check(try Self.product(["Vitamin D3=1,000,000 IU", "Zinc=20 mg"]), earlier: earlier)
        let changed = try Self.product(["Vitamin D3=2,000,000 IU", "Zinc=15 mg"])
        #expect(Self.gate.undecided(in: changed, earlier: earlier).map(\.number) == [1])
    }

    @Test func flagsRaisedWhileReadingAreAddedToTheGatesOwn() throws {
        let product = try Self.product(["Zinc=15 mg"])
        #expect(Self.gate.undecided(in: product).isEmpty)
        let read = RowDecisions(readFlags: [1: [LabelFlag(.lowConfidence, "hard to read")]])
        #expect(Self.gate.undecided(in: product, decisions: read).first?.flags.map(\.kind) == [.lowConfidence])
    }

    @Test func aBlendMemberReadWithoutAnAmountIsANoteNotADecision() throws {
        let product = try Self.product(["Magnesium"])
        #expect(Self.gate.undecided(in: product).first?.flags.map(\.kind) == [.missingAmount], "typed: no amount, decide")
        let read = RowDecisions(readFlags: [1: [LabelFlag(.undisclosedBlendAmount, "only the blend's total")]])
        #expect(Self.gate.undecided(in: product, decisions: read).isEmpty)
    }

    @Test func theRefusalNamesRowsByNumberWithoutRepeatingTheirText() throws {
        let product = try Self.product(["Zinc=15 mg", "Made up thing=5 mg", "Vitamin D3=1,000,000 IU"])
        let error = try #require(throws: FlaggedRowsUndecided.self) { try Self.gate.check(product) }
        #expect(error.rows.map(\.number) == [2, 3])
        #expect(error.userMessage.hasPrefix("Rows 2 and 3 are flagged"))
        #expect(!error.userMessage.contains("Made up"))
        #expect(error.userMessage.contains("Nothing was saved"))
    }
}

@Suite struct TypedIngredientTests {
    @Test func readsNameFormAmountAndDailyValueAndWritesThemBack() throws {
        let row = try TypedIngredient.parse("Magnesium (as magnesium glycinate) = 1,200 mg, 48% DV", catalogue: try Catalogue.bundled())
        #expect(row.nameOnLabel == "Magnesium")
        #expect(row.form == "magnesium glycinate")
        #expect(row.amount == (try Amount(1200, .mg)))
        #expect(row.dailyValuePercent == 48)
        #expect(row.catalogueID == "magnesium")
        let again = try TypedIngredient.parse(TypedIngredient.line(row), catalogue: try Catalogue.bundled())
        #expect(again == row)
    }

    @Test func aNameAloneIsARowWithoutAnAmount() throws {
        let row = try TypedIngredient.parse("Ashwagandha root", catalogue: nil)
        #expect(row.amount == nil && row.form == nil && row.dailyValuePercent == nil)
    }
}
