import CairnCore
import Foundation
import Testing

@testable import Regimen

private let catalogue: Catalogue = try! Catalogue.bundled()

private func row(_ id: String?, _ name: String, _ amount: Amount?, form: String? = nil) throws -> ProductIngredient {
    try ProductIngredient(catalogueID: id, nameOnLabel: name, amount: amount, form: form)
}

@Test func buildsAProductWithKnownAndUnknownIngredients() throws {
    let p = try Product(
        name: "Evening Magnesium", brand: "Acme", form: .capsule, servingSize: Amount(2, .count),
        ingredients: [
            row("magnesium", "Magnesium", Amount(200, .mg), form: "magnesium bisglycinate"),
            row(nil, "Proprietary calm blend", Amount(150, .mg)),
            row(nil, "Lemon balm leaf", nil),
        ])
    #expect(p.ingredients.count == 3)
    try catalogue.checkPlausibility(of: p)
}

@Test func acceptsAProductWithNoIngredientRows() throws {
    let p = try Product(name: "Empty", form: .powder, servingSize: Amount(5, .g), ingredients: [])
    #expect(p.ingredients.isEmpty)
    try catalogue.checkPlausibility(of: p)
}

@Test func rejectsAnEmptyNameAndInvalidServingSizes() throws {
    #expect(throws: RegimenError.emptyProductName) {
        try Product(name: "  ", form: .tablet, servingSize: Amount(1, .count), ingredients: [])
    }
    #expect(throws: RegimenError.invalidServingSize) {
        try Product(name: "X", form: .tablet, servingSize: Amount(0, .count), ingredients: [])
    }
    #expect(throws: RegimenError.invalidServingSize) {
        try Product(name: "X", form: .tablet, servingSize: Amount(1, .iu), ingredients: [])
    }
    #expect(throws: RegimenError.emptyIngredientName) { try row(nil, " ", nil) }
    #expect(throws: RegimenError.negativeDailyValuePercent) {
        try ProductIngredient(catalogueID: nil, nameOnLabel: "C", amount: nil, dailyValuePercent: -5)
    }
}

@Test func rejectsMoreThanOneUnitCanHold() throws {
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try row("calcium", "Calcium", LabelUnitParser.amount("5 kg")) }
    #expect(throws: RegimenError.amountDoesNotFitForm(form: "capsule", limit: "5 g")) {
        try Product(name: "X", form: .capsule, servingSize: Amount(1, .count), ingredients: [row(nil, "Blend", Amount(6, .g))])
    }
    // 8 g over 2 capsules is 4 g each: fits. A powder has no per-unit bound.
    _ = try Product(name: "X", form: .capsule, servingSize: Amount(2, .count), ingredients: [row(nil, "Blend", Amount(8, .g))])
    _ = try Product(name: "X", form: .powder, servingSize: Amount(30, .g), ingredients: [row(nil, "Protein", Amount(25, .g))])
}

@Test func refusesAmountsFarBeyondAnyProductForTheIngredient() throws {
    let absurdD = try Product(
        name: "X", form: .softgel, servingSize: Amount(1, .count),
        ingredients: [
            row("vitamin-d", "Vitamin D3", Amount(500, .mg))
        ])
    #expect(throws: RegimenError.implausibleForIngredient(ingredient: "Vitamin D", limit: "10,000 times the Daily Value")) {
        try catalogue.checkPlausibility(of: absurdD)
    }
    let highButReal = try Product(
        name: "B12", form: .lozenge, servingSize: Amount(1, .count),
        ingredients: [
            row("vitamin-b12", "Vitamin B12", Amount(5000, .mcg)), row("vitamin-d", "Vitamin D", Amount(50000, .iu)),
        ])
    try catalogue.checkPlausibility(of: highButReal)
    let boron = try Product(name: "X", form: .powder, servingSize: Amount(10, .g), ingredients: [row("boron", "Boron", Amount(25, .g))])
    #expect(throws: RegimenError.implausibleForIngredient(ingredient: "Boron", limit: "1,000 times the upper limit")) {
        try catalogue.checkPlausibility(of: boron)
    }
    let unknownID = try Product(name: "X", form: .tablet, servingSize: Amount(1, .count), ingredients: [row("nope", "Nope", nil)])
    #expect(throws: RegimenError.unknownCatalogueIngredient) { try catalogue.checkPlausibility(of: unknownID) }
}

@Test func roundTripsThroughJSONAndValidatesOnDecoding() throws {
    let p = try Product(
        name: "C", brand: "B", form: .tablet, servingSize: Amount(1, .count),
        ingredients: [
            ProductIngredient(
                catalogueID: "vitamin-c", nameOnLabel: "Vitamin C", amount: Amount(500, .mg), dailyValuePercent: Decimal(string: "555.5"),
                form: "ascorbic acid")
        ])
    let data = try JSONEncoder().encode(p)
    #expect(try JSONDecoder().decode(Product.self, from: data) == p)
    let bad = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"name\":\"C\"", with: "\"name\":\"\"")
    #expect(throws: RegimenError.emptyProductName) { try JSONDecoder().decode(Product.self, from: Data(bad.utf8)) }
}

@Test func errorMessagesNameNoUserContentAndNoBannedWords() {
    let errors: [RegimenError] = [
        .negativeAmount, .notANumber, .absurdAmount(limit: "1 kg"), .unknownUnit, .unreadableNumber,
        .conversionRefused(.vitaminAFormUnknown), .emptyProductName, .invalidServingSize, .negativeDailyValuePercent,
        .emptyIngredientName, .amountDoesNotFitForm(form: "capsule", limit: "5 g"),
        .implausibleForIngredient(ingredient: "Vitamin D", limit: "x"), .unknownCatalogueIngredient, .catalogueUnreadable("x"),
    ]
    for e in errors {
        #expect(!e.userMessage.isEmpty)
        #expect(ProductWordingCheck.banned(in: e.userMessage).isEmpty, "\(e.userMessage)")
    }
}
