import CairnCore
import Foundation
import Testing

@testable import Regimen

private let catalogue: Catalogue = try! Catalogue.bundled()

@Test func aServingIsACountOfUnitsOrAnAmount() throws {
    #expect(try Amount(serving: " 2 ") == (try Amount(2, .count)))
    #expect(try Amount(serving: "0.5") == (try Amount(Decimal(string: "0.5")!, .count)))
    #expect(try Amount(serving: "5 g") == (try Amount(5, .g)))
    #expect(try Amount(serving: "10 mL") == (try Amount(10, .mL)))
    let refusals: [(RegimenError, String)] = [
        (.unreadableServing, ""), (.unreadableServing, "two"), (.unknownUnit, "2 zorks"), (.invalidServingSize, "0"),
        (.invalidServingSize, "400 IU"), (.negativeAmount, "-1 g"),
    ]
    for (expected, text) in refusals { #expect(throws: expected, "\(text)") { try Amount(serving: text) } }
    for amount in [try Amount(2, .count), try Amount(5, .g), try Amount(Decimal(string: "1.5")!, .mL)] {
        #expect(try Amount(serving: amount.servingText) == amount, "a serving reads back as written")
    }
}

@Test func aFormIsOneOfTheKnownWords() throws {
    #expect(try ProductForm(parsing: " Softgel ") == .softgel)
    #expect(throws: RegimenError.noProductForm) { try ProductForm(parsing: "") }
    #expect(throws: RegimenError.unknownProductForm) { try ProductForm(parsing: "pill") }
    #expect(RegimenError.unknownProductForm.userMessage.contains("capsule, softgel, tablet"))
}

@Test func anEmptyProductIsRefusedWithEveryProblemBesideItsField() throws {
    let input = ProductInput(name: " ", brand: "", form: "", serving: "lots", ingredients: ["Vitamin D3 = 5 zorks", "", "Zinc = -1 mg"])
    let refusal = try #require(throws: FieldProblems<ProductField>.self) { try input.product(catalogue: catalogue) }
    #expect(refusal.messages(for: .name) == [RegimenError.emptyProductName.userMessage])
    #expect(refusal.messages(for: .form) == [RegimenError.noProductForm.userMessage])
    #expect(refusal.messages(for: .serving) == [RegimenError.unreadableServing.userMessage])
    #expect(
        refusal.messages(for: .ingredients) == [
            "Row 1: " + RegimenError.unknownUnit.userMessage,
            "Row 2: " + RegimenError.negativeAmount.userMessage,
        ],
        "rows are numbered without the empty line")
    #expect(refusal.messages(for: .brand).isEmpty)
}

@Test func aRefusalOfTheWholeProductIsPutBesideTheFieldItIsAbout() throws {
    let input = ProductInput(name: "Zinc", form: "capsule", serving: "1", ingredients: ["Zinc = 6 g"])
    let refusal = try #require(throws: FieldProblems<ProductField>.self) { try input.product(catalogue: catalogue) }
    #expect(refusal.messages(for: .ingredients).first?.hasPrefix("One capsule cannot hold") == true)
}

@Test func aNewProductTakesTheDefaultsOfFieldsNotGiven() throws {
    let product = try ProductInput(name: "Daily D3", form: "softgel", ingredients: ["Vitamin D3 = 25 mcg, 125% DV"]).product(catalogue: catalogue)
    #expect(try product.brand == "" && product.servingSize == Amount(1, .count))
    #expect(product.ingredients.first?.catalogueID == "vitamin-d")
    #expect(product.ingredients.first?.dailyValuePercent == 125)
}

@Test func aRevisionKeepsWhatTypingARowLeftOutOfTheRowOfTheSameName() throws {
    let current = try Product(
        name: "Night", form: .capsule, servingSize: Amount(1, .count),
        ingredients: [
            ProductIngredient(
                catalogueID: "magnesium", nameOnLabel: "Magnesium", amount: Amount(200, .mg), dailyValuePercent: 48,
                form: "magnesium glycinate"),
            ProductIngredient(catalogueID: "ashwagandha", nameOnLabel: "Mystery root", amount: Amount(300, .mg)),
        ])
    let sameAmount = try ProductInput(ingredients: ["Magnesium = 200 mg", "Mystery root = 300 mg"]).product(revising: current, catalogue: catalogue)
    #expect(sameAmount == current, "the same rows typed without form and %DV are the same product")
    #expect(sameAmount.id == current.id)
    let newAmount = try ProductInput(ingredients: ["Magnesium = 100 mg"]).product(revising: current, catalogue: catalogue)
    #expect(newAmount.ingredients[0].dailyValuePercent == nil, "a %DV belongs to its amount")
    #expect(newAmount.ingredients[0].form == "magnesium glycinate")
    #expect(newAmount.ingredients[0].catalogueID == "magnesium")
    let written = try ProductInput(ingredients: ["Magnesium (as magnesium citrate) = 200 mg, 50% DV"]).product(
        revising: current, catalogue: catalogue)
    #expect(written.ingredients[0].form == "magnesium citrate" && written.ingredients[0].dailyValuePercent == 50, "what is written wins")
    let renamed = try ProductInput(name: "Night 2").product(revising: current, catalogue: catalogue)
    #expect(renamed.name == "Night 2" && renamed.ingredients == current.ingredients && renamed.form == current.form)
}
