import Foundation
import Testing

@testable import Regimen

/// Real Supplement Facts from the NIH DSLD (see ../shared/data/README.md), used as ground truth.
private func dsldLabels() throws -> [[String: Any]] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let url = root.appendingPathComponent("../shared/data/labels/dsld-labels.json")
    let data = try Data(contentsOf: url)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
}

private let nonIngredientUnits: Set<String> = ["NP", "Not Present", "{Calories}", "Calorie(s)"]
private let nutritionRows = ["calories", "carbohydrate", "sugar", "fat", "protein", "sodium free"]

@Test func readsEveryAmountOnRealLabelsAndBuildsPlausibleProducts() throws {
    let catalogue = try Catalogue.bundled()
    var rows = 0
    var products = 0
    for label in try dsldLabels() {
        let serving = try #require((label["servingSizes"] as? [[String: Any]])?.first)
        let servingUnitText = try #require(serving["unit"] as? String)
        let servingUnit: DoseUnit = servingUnitText.lowercased().contains("gram") ? .g : .count
        let servingSize = try Amount(Decimal(string: "\(try #require(serving["minQuantity"] as? Double))")!, servingUnit)
        var ingredients: [ProductIngredient] = []
        for item in label["activeIngredients"] as? [[String: Any]] ?? [] {
            let name = try #require(item["name"] as? String)
            let unit = try #require(item["unit"] as? String)
            var amount: Amount?
            if !nonIngredientUnits.contains(unit), let q = item["quantity"] as? Double, q > 0 {
                amount = try LabelUnitParser.amount("\(q) \(unit)")
                rows += 1
            }
            let form = (item["forms"] as? [String])?.first { $0 != "unspecified" }
            let match = catalogue.match(name)
            ingredients.append(try ProductIngredient(catalogueID: match?.ingredient.id, nameOnLabel: name, amount: amount, form: form))
        }
        let product = try Product(
            name: try #require(label["product"] as? String), brand: label["brand"] as? String ?? "",
            form: .lozenge, servingSize: servingSize, ingredients: ingredients)
        try catalogue.checkPlausibility(of: product)
        products += 1
    }
    #expect(products == 148)
    #expect(rows > 300)
}

@Test func matchesMostRealIngredientNamesToTheCatalogue() throws {
    let catalogue = try Catalogue.bundled()
    var total = 0
    var matched = 0
    var unmatched: [String] = []
    for label in try dsldLabels() {
        for item in label["activeIngredients"] as? [[String: Any]] ?? [] {
            let name = try #require(item["name"] as? String)
            let lower = name.lowercased()
            if lower.contains("blend") || nutritionRows.contains(where: { lower.contains($0) }) { continue }
            total += 1
            if catalogue.match(name) != nil { matched += 1 } else { unmatched.append(name) }
        }
    }
    let rate = Double(matched) / Double(total)
    print("DSLD ingredient names matched: \(matched)/\(total) (\(Int(rate * 100))%); unmatched: \(Set(unmatched).sorted())")
    #expect(rate >= 0.85)
}

@Test func matchesKnownRealNamesToTheRightEntry() throws {
    let catalogue = try Catalogue.bundled()
    let expected: [(String, String)] = [
        ("Vitamin B12", "vitamin-b12"), ("Folic Acid", "folate"), ("L-5-MTHF", "folate"), ("(6S)-5-Methylfolate", "folate"),
        ("Calcium Folinate", "folate"), ("Pyridoxal 5-Phosphate", "vitamin-b6"), ("White Willow bark ext.", "white-willow-bark"),
        ("Slippery Elm, Powder", "slippery-elm"), ("Echinacea purpurea Herb Powder", "echinacea"), ("CoQ 10", "coq10"),
        ("N-Acetyl-L-Cysteine", "n-acetylcysteine"), ("Streptococcus salivarius K12", "streptococcus-salivarius"),
        ("Limosilactobacillus reuteri DSM 17938", "limosilactobacillus-reuteri"), ("GanedenBC30", "bacillus-coagulans"),
        ("Black Elder Berry Extract", "elderberry"), ("N-acetyl-5-methotryptamine", "melatonin"), ("Velvet Bean", "mucuna"),
        ("Ginger (Zingiber officinale) (rhizome) extract", "ginger"), ("organic Ashwagandha root extract", "ashwagandha"),
    ]
    for (name, id) in expected {
        #expect(catalogue.match(name)?.ingredient.id == id, "\(name)")
    }
}
