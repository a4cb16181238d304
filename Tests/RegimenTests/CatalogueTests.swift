import Foundation
import Testing

@testable import Regimen

private let catalogue: Catalogue = try! Catalogue.bundled()

@Test func loadsTheBundledCatalogueWithAtLeast150SupplementIngredients() throws {
    let supplements = catalogue.ingredients.filter { $0.category.isSupplementIngredient }
    #expect(supplements.count >= 150)
    #expect(catalogue.countsByCategory[.medicationClass, default: 0] >= 20)
    for category in IngredientCategory.allCases {
        #expect(catalogue.countsByCategory[category, default: 0] > 0, "\(category)")
    }
    print("catalogue:", IngredientCategory.allCases.map { "\($0.rawValue)=\(catalogue.countsByCategory[$0, default: 0])" }.joined(separator: " "))
}

@Test func hasUniqueIDsAndNoSynonymNamingTwoEntries() {
    let ids = catalogue.ingredients.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(catalogue.collisions.isEmpty, "\(catalogue.collisions)")
}

@Test func everySourceIDResolvesAndEveryEntryCitesOne() {
    let sourceIDs = Set(catalogue.sources.map(\.id))
    #expect(sourceIDs.count == catalogue.sources.count)
    for ing in catalogue.ingredients {
        #expect(!ing.sourceIDs.isEmpty, "\(ing.id)")
        for id in ing.sourceIDs { #expect(sourceIDs.contains(id), "\(ing.id) cites \(id)") }
    }
    #expect(catalogue.sources.contains { $0.publisher == "FDA" })
    #expect(catalogue.sources.contains { $0.publisher == "NIH ODS" })
}

@Test func everyDailyValueAndUpperLimitIsInAUnitCompatibleWithTheLabelUnit() throws {
    for ing in catalogue.ingredients where ing.category.isSupplementIngredient {
        let label = try #require(ing.labelUnit, "\(ing.id) has no label unit")
        for ref in [ing.dailyValue, ing.upperLimit].compactMap({ $0 }) {
            let form = ref.form.flatMap { ing.form(named: $0) }
            if ref.form != nil { #expect(form != nil, "\(ing.id): reference form not among forms") }
            let context = ing.conversionContext(form: form)
            let converted = try? ref.amount.converted(to: label, context: context)
            #expect(converted != nil, "\(ing.id): \(ref.amount) not compatible with \(label)")
        }
    }
}

@Test func medicationClassesCarryNamesAndMembersOnly() {
    for ing in catalogue.ingredients where ing.category == .medicationClass {
        #expect(!ing.members.isEmpty, "\(ing.id)")
        #expect(ing.dailyValue == nil && ing.upperLimit == nil && ing.labelUnit == nil, "\(ing.id)")
    }
}

@Test func catalogueTextUsesNoBannedWords() {
    for ing in catalogue.ingredients {
        let texts = [ing.note, ing.dailyValue?.note, ing.upperLimit?.note].compactMap { $0 }
        for t in texts { #expect(ProductWordingCheck.banned(in: t).isEmpty, "\(ing.id): \(t)") }
    }
}

@Test func holdsThePublishedFiguresForWellKnownNutrients() throws {
    func figures(_ id: String) throws -> (Amount?, Amount?) {
        let ing = try #require(catalogue.ingredient(id: id))
        return (ing.dailyValue?.amount, ing.upperLimit?.amount)
    }
    #expect(try figures("vitamin-d") == (Amount(20, .mcg), Amount(100, .mcg)))
    #expect(try figures("vitamin-a") == (Amount(900, .mcgRAE), Amount(3000, .mcgRAE)))
    #expect(try figures("vitamin-c") == (Amount(90, .mg), Amount(2000, .mg)))
    #expect(try figures("vitamin-e") == (Amount(15, .mgAlphaTocopherol), Amount(1000, .mgAlphaTocopherol)))
    #expect(try figures("vitamin-k") == (Amount(120, .mcg), nil))
    #expect(try figures("vitamin-b12") == (Amount("2.4", .mcg), nil))
    #expect(try figures("folate") == (Amount(400, .mcgDFE), Amount(1000, .mcg)))
    #expect(try figures("calcium") == (Amount(1300, .mg), Amount(2500, .mg)))
    #expect(try figures("iron") == (Amount(18, .mg), Amount(45, .mg)))
    #expect(try figures("magnesium") == (Amount(420, .mg), Amount(350, .mg)))
    #expect(try figures("zinc") == (Amount(11, .mg), Amount(40, .mg)))
    #expect(try figures("selenium") == (Amount(55, .mcg), Amount(400, .mcg)))
    #expect(try figures("iodine") == (Amount(150, .mcg), Amount(1100, .mcg)))
    #expect(catalogue.ingredient(id: "magnesium")?.upperLimit?.note?.contains("supplements") == true)
    #expect(catalogue.ingredient(id: "calcium")?.upperLimit?.note?.contains("19-50") == true)
    #expect(catalogue.ingredient(id: "folate")?.upperLimit?.form == "Folic acid")
}

@Test func looksUpNamesSynonymsAndFormsIgnoringCaseDiacriticsAndPunctuation() throws {
    #expect(catalogue.lookup("VITAMIN C")?.ingredient.id == "vitamin-c")
    #expect(catalogue.lookup("Magnésium")?.ingredient.id == "magnesium")
    #expect(catalogue.lookup("st johns wort")?.ingredient.id == "st-johns-wort")
    let d3 = try #require(catalogue.lookup("Cholecalciferol"))
    #expect(d3.ingredient.id == "vitamin-d" && d3.form?.name == "Vitamin D3" && d3.kind == .form)
    let glycinate = try #require(catalogue.lookup("Magnesium (as magnesium glycinate)"))
    #expect(glycinate.ingredient.id == "magnesium" && glycinate.form?.name == "Magnesium glycinate")
    let bis = try #require(catalogue.lookup("Magnesium as Magnesium Bisglycinate Chelate"))
    #expect(bis.form?.name == "Magnesium glycinate")
    #expect(catalogue.lookup("Vitamin D (as cholecalciferol)")?.form?.name == "Vitamin D3")
    #expect(catalogue.lookup("atorvastatin")?.ingredient.id == "statins")
    #expect(catalogue.lookup("atorvastatin")?.kind == .member)
    #expect(catalogue.lookup("organic Ashwagandha root extract")?.ingredient.id == "ashwagandha")
}

@Test func aMixtureOfFormsFixesNoSingleForm() throws {
    let a = try #require(catalogue.lookup("Vitamin A (as retinyl palmitate and beta-carotene)"))
    #expect(a.ingredient.id == "vitamin-a")
    #expect(a.form == nil)
    #expect(a.conversionContext == .vitaminA(form: nil))
    let beta = try #require(catalogue.lookup("Vitamin A (Form: as 100% Beta-Carotene)"))
    #expect(beta.conversionContext == .vitaminA(form: .betaCarotene))
}

@Test func givesTheConversionContextOfTheMatchedForm() throws {
    #expect(catalogue.lookup("Folic Acid")?.conversionContext == .folicAcid)
    #expect(catalogue.lookup("L-5-MTHF")?.conversionContext == .unspecified)
    #expect(catalogue.lookup("dl-alpha tocopheryl acetate")?.conversionContext == .vitaminE(form: .synthetic))
    #expect(catalogue.lookup("Vitamin E")?.conversionContext == .vitaminE(form: nil))
    #expect(catalogue.lookup("Vitamin D2")?.conversionContext == .vitaminD)
}

@Test func findsNothingExactForUnknownOrEmptyText() {
    #expect(catalogue.lookup("") == nil)
    #expect(catalogue.lookup("   ") == nil)
    #expect(catalogue.lookup("Unobtainium") == nil)
    #expect(catalogue.match("Unobtainium") == nil)
    #expect(catalogue.candidates(for: "") == [])
    #expect(catalogue.candidates(for: "Vitamin C", limit: 0) == [])
}

@Test func matchesOCRErrorsFuzzily() throws {
    let mg = try #require(catalogue.match("Magnesiurn"))
    #expect(mg.ingredient.id == "magnesium" && mg.kind == .fuzzy && mg.score < 1)
    let d3 = try #require(catalogue.match("Vitamin D3 (as cholecalciferoI)"))
    #expect(d3.ingredient.id == "vitamin-d" && d3.form?.name == "Vitamin D3")
    #expect(catalogue.match("Vitamn B12")?.ingredient.id == "vitamin-b12")
    #expect(catalogue.match("Ashwaganda")?.ingredient.id == "ashwagandha")
    let list = catalogue.candidates(for: "Vitamin B", limit: 5)
    #expect(list.count == 5)
    #expect(zip(list, list.dropFirst()).allSatisfy { $0.score >= $1.score })
}

@Test func rejectsMalformedCatalogueData() {
    #expect(throws: RegimenError.self) { try Catalogue(jsonData: Data("{}".utf8)) }
    #expect(throws: RegimenError.self) { try Catalogue(jsonData: Data("not json".utf8)) }
    let badAmount =
        #"{"sources":[],"ingredients":[{"id":"x","name":"X","category":"vitamin","labelUnit":"mg","synonyms":[],"forms":[],"sourceIDs":[],"dailyValue":{"amount":"-1","unit":"mg"}}]}"#
    #expect(throws: RegimenError.self) { try Catalogue(jsonData: Data(badAmount.utf8)) }
    let badConversion =
        #"{"sources":[],"ingredients":[{"id":"x","name":"X","category":"vitamin","labelUnit":"mg","synonyms":[],"forms":[],"sourceIDs":[],"conversion":"vitaminZ"}]}"#
    #expect(throws: RegimenError.self) { try Catalogue(jsonData: Data(badConversion.utf8)) }
}

@Test func reportsCollisionsInCatalogueData() throws {
    let json =
        #"{"sources":[],"ingredients":[{"id":"a","name":"A one","category":"other","labelUnit":"mg","synonyms":["Shared"],"forms":[],"sourceIDs":[]},{"id":"b","name":"B two","category":"other","labelUnit":"mg","synonyms":["shared!"],"forms":[],"sourceIDs":[]}]}"#
    let c = try Catalogue(jsonData: Data(json.utf8))
    #expect(c.collisions == ["shared": ["a", "b"]])
    #expect(c.lookup("Shared") == nil)
}

@Test func measuresSimilarityWithTranspositionsAndOCRConfusions() {
    #expect(CatalogueText.editDistance("", "") == 0)
    #expect(CatalogueText.editDistance("abc", "") == 3)
    #expect(CatalogueText.editDistance("zinc", "zicn") == 1)
    #expect(CatalogueText.editDistance("kitten", "sitting") == 3)
    #expect(CatalogueText.similarity("magnesiurn", "magnesium") > CatalogueText.similarity("magnesiabc", "magnesium"))
    #expect(CatalogueText.similarity("cholecalciferoi", "cholecalciferol") == 1)
    #expect(CatalogueText.similarity("", "") == 1)
    #expect(CatalogueText.normalised("  St. John’s WORT ") == "st johns wort")
    #expect(CatalogueText.normalised("β-Alanine") == "beta alanine")
    // The early cut-off never lets a distant text through.
    let far = CatalogueText.similarity(.init("abcdefghij"), .init("zyxwvutsrq"), floor: 0.8)
    #expect(far < 0.8)
}

@Test func plainASCIITextIsNormalisedExactlyAsFoundationsFoldingWould() {
    let names = catalogue.ingredients.flatMap { ing in
        [ing.name] + ing.synonyms + ing.members + ing.forms.flatMap { [$0.name] + $0.synonyms }
    }
    let printable = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }
    let mixed = ["  Vitamin B-12 (as Cyanocobalamin) ", "L-5-MTHF\tFolate", "Zinc's\r\nOxide", "", "---", "A1b2C3"]
    var ascii = 0
    for text in names + printable + printable.map { "x\($0)Y" } + mixed {
        guard let fast = CatalogueText.normalisedASCII(text) else { continue }
        ascii += 1
        #expect(fast == CatalogueText.normalisedFolding(text), "\(text)")
    }
    #expect(ascii > 500)
    // Anything beyond ASCII takes the folding path.
    #expect(CatalogueText.normalisedASCII("Magnésium") == nil)
    #expect(CatalogueText.normalised("Magnésium") == "magnesium")
}
