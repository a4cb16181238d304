import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@Suite(.serialized) struct LabelSaveTests {
    static let service = try! LabelScanService.makeDefault()

    @Test func aConfirmedProposalBecomesAProductWithItsRowsAndNothingIsSavedBefore() throws {
        let vault = try TestVault()
        let proposal = Self.service.propose(
            text: """
                Supplement Facts
                Serving Size 1 Softgel
                Vitamin D3 (as cholecalciferol) 25 mcg 125%
                Zinc (as zinc gluconate) 15 mg 136%
                """)
        #expect(proposal.status == .proposed)
        #expect(try vault.app.regimen.products().isEmpty, "proposing saves nothing")

        let product = try Self.service.product(from: proposal, name: "D3 + Zinc", form: .softgel)
        let saved = try vault.app.regimen.addProduct(product)

        #expect(saved.product.name == "D3 + Zinc")
        #expect(saved.product.ingredients.count == proposal.rows.count)
        let d3 = try #require(saved.product.ingredients.first { $0.nameOnLabel.contains("Vitamin D3") })
        #expect(d3.amount == (try Amount(25, .mcg)))
        #expect(try vault.app.regimen.products().count == 1)
    }

    @Test func aLabelThatGaveNoRowsCannotBeSaved() throws {
        let food = Self.service.propose(text: "Nutrition Facts\nCalories 230\nTotal Fat 8g 10%")
        #expect(throws: LabelSaveError.nothingToSave) {
            try Self.service.product(from: food, name: "Snack", form: .other)
        }
    }
}
