import CairnCore
import Foundation
import Testing

@testable import Regimen

private let utc = TimeZone(identifier: "UTC")!
private let tokyo = TimeZone(identifier: "Asia/Tokyo")!
private let productA = ProductID("a")
private let productB = ProductID("b")

private func instant(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }
private func day(_ y: Int, _ m: Int, _ d: Int) -> LocalDay { LocalDay(year: y, month: m, day: d)! }
private func dose(_ key: String, _ value: Decimal, _ unit: DoseUnit, _ context: ConversionContext = .unspecified) throws -> IngredientDose {
    IngredientDose(ingredientKey: key, amount: try Amount(value, unit), context: context)
}

@Test func anEmptyLogHasNoExposure() throws {
    let report = try ExposureCalculator().exposure(of: [], in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.products.isEmpty && report.ingredients.isEmpty && report.dominantBuckets.isEmpty)
}

@Test func countsTakenRecordsOnly() throws {
    let records = [
        IntakeRecord(
            productID: productA, status: .taken, doses: [try dose("zinc", 10, .mg)], instant: instant("2026-01-05T08:00:00Z"), timeZone: utc),
        IntakeRecord(
            productID: productA, status: .skipped, doses: [try dose("zinc", 10, .mg)], instant: instant("2026-01-05T09:00:00Z"), timeZone: utc),
        IntakeRecord(
            productID: productA, status: .missed, doses: [try dose("zinc", 10, .mg)], instant: instant("2026-01-05T20:00:00Z"), timeZone: utc),
    ]
    let report = try ExposureCalculator().exposure(of: records, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.products.map(\.intakeCount) == [1])
    #expect(report.ingredients.map(\.amount) == [try Amount(10, .mg)])
}

@Test func sumsCompatibleSameDayAmountsAcrossProducts() throws {
    let records = [
        IntakeRecord(
            productID: productA, doses: [try dose("vitamin-d", 1000, .iu, .vitaminD)], instant: instant("2026-01-05T08:00:00Z"), timeZone: utc),
        IntakeRecord(
            productID: productB, doses: [try dose("vitamin-d", 25, .mcg, .vitaminD), try dose("magnesium", 200, .mg)],
            instant: instant("2026-01-05T21:00:00Z"), timeZone: utc),
        IntakeRecord(productID: productB, doses: [try dose("magnesium", 100000, .mcg)], instant: instant("2026-01-05T22:00:00Z"), timeZone: utc),
    ]
    let report = try ExposureCalculator().exposure(of: records, in: day(2026, 1, 5)...day(2026, 1, 5))
    #expect(report.ingredients.map(\.ingredientKey) == ["magnesium", "vitamin-d"])
    #expect(report.ingredients.map(\.amount) == [try Amount(300, .mg), try Amount(50, .mcg)])
    #expect(report.ingredients[1].productIDs == [productA, productB])
}

@Test func keepsIncompatibleIngredientUnitsInSeparateRows() throws {
    let records = [
        IntakeRecord(
            productID: productA, doses: [try dose("vitamin-a", 5000, .iu, .vitaminA(form: nil))], instant: instant("2026-01-05T08:00:00Z"),
            timeZone: utc),
        IntakeRecord(
            productID: productB, doses: [try dose("vitamin-a", 900, .mcgRAE, .vitaminA(form: nil))], instant: instant("2026-01-05T09:00:00Z"),
            timeZone: utc),
        IntakeRecord(
            productID: productB, doses: [try dose("vitamin-a", 1000, .iu, .vitaminA(form: .retinol))], instant: instant("2026-01-05T10:00:00Z"),
            timeZone: utc),
    ]
    let report = try ExposureCalculator().exposure(of: records, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.ingredients.map(\.amount) == [try Amount(5000, .iu), try Amount(1200, .mcgRAE)])
    #expect(report.ingredients.map(\.productIDs) == [[productA], [productB]])
}

@Test func ignoresRecordsOutsideTheRangeByTheirOwnLocalDay() throws {
    // 2026-01-31T20:00Z is already February 1 in Tokyo.
    let records = [
        IntakeRecord(productID: productA, doses: [try dose("zinc", 10, .mg)], instant: instant("2026-01-31T20:00:00Z"), timeZone: tokyo),
        IntakeRecord(productID: productA, doses: [try dose("zinc", 5, .mg)], instant: instant("2026-01-31T20:00:00Z"), timeZone: utc),
        IntakeRecord(productID: productA, doses: [try dose("zinc", 7, .mg)], instant: instant("2025-12-31T23:59:00Z"), timeZone: utc),
    ]
    let report = try ExposureCalculator().exposure(of: records, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.ingredients.map(\.amount) == [try Amount(5, .mg)])
    #expect(report.ingredients.map(\.day) == [day(2026, 1, 31)])
    #expect(report.products.map(\.servings) == [1])
}

@Test func choosesADominantTimeOfDayOnlyOnAStrictMajority() throws {
    func record(_ iso: String, _ product: ProductID = productA) -> IntakeRecord {
        IntakeRecord(productID: product, doses: [], instant: instant(iso), timeZone: utc)
    }
    let majority = [record("2026-01-05T08:00:00Z"), record("2026-01-06T09:00:00Z"), record("2026-01-07T20:00:00Z")]
    var report = try ExposureCalculator().exposure(of: majority, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.dominantBuckets[productA] == .morning)
    let tie = [record("2026-01-05T08:00:00Z"), record("2026-01-06T20:00:00Z")]
    report = try ExposureCalculator().exposure(of: tie, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.dominantBuckets[productA] == nil)
    let plurality = [
        record("2026-01-05T08:00:00Z"), record("2026-01-06T08:30:00Z"), record("2026-01-07T13:00:00Z"),
        record("2026-01-08T20:00:00Z"), record("2026-01-09T23:00:00Z"),
    ]
    report = try ExposureCalculator().exposure(of: plurality, in: day(2026, 1, 1)...day(2026, 1, 31))
    #expect(report.dominantBuckets[productA] == nil)
    #expect(report.products.allSatisfy { $0.dominantBucket != nil })
}

@Test func bucketsUseTheRecordsOwnTimeZone() {
    let t = instant("2026-01-05T23:30:00Z")
    #expect(TimeOfDayBucket(t, in: utc) == .night)
    #expect(TimeOfDayBucket(t, in: tokyo) == .morning)
    #expect(TimeOfDayBucket.dominant(in: []) == nil)
}

@Test func rejectsImpossibleDays() {
    #expect(LocalDay(year: 2026, month: 2, day: 30) == nil)
    #expect(LocalDay(year: 2026, month: 13, day: 1) == nil)
    #expect(day(2024, 2, 29).description == "2024-02-29")
}

@Test func buildsRecordsFromAProductScaledByServings() throws {
    let catalogue = try Catalogue.bundled()
    let product = try Product(
        id: productA, name: "Multi", form: .tablet, servingSize: Amount(1, .count),
        ingredients: [
            ProductIngredient(catalogueID: "folate", nameOnLabel: "Folate", amount: Amount(400, .mcg), form: "Folic acid"),
            ProductIngredient(catalogueID: nil, nameOnLabel: "House Blend", amount: Amount(50, .mg)),
            ProductIngredient(catalogueID: nil, nameOnLabel: "Flavour", amount: nil),
        ])
    let record = try IntakeRecord(taking: 2, of: product, catalogue: catalogue, instant: instant("2026-01-05T08:00:00Z"), timeZone: utc)
    #expect(
        record.doses == [
            IngredientDose(ingredientKey: "folate", amount: try Amount(800, .mcg), context: .folicAcid),
            IngredientDose(ingredientKey: "label:house blend", amount: try Amount(100, .mg)),
        ])
    let report = try ExposureCalculator().exposure(of: [record], in: day(2026, 1, 5)...day(2026, 1, 5))
    #expect(report.ingredients.first { $0.ingredientKey == "folate" }?.amount == (try Amount(1360, .mcgDFE)))
    #expect(report.products.map(\.servings) == [2])
}
