import CairnCore
import Foundation
import Testing

@testable import Regimen

/// The calculator groups same-unit doses and counts shared dose arrays; its totals must equal a plain
/// record-by-record sum, whatever the order of records and whether they share their doses array.
@Test func groupedTotalsEqualAPlainSumInAnyOrder() throws {
    var generator = SeededGenerator(seed: 42)
    let zones = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"].map { TimeZone(identifier: $0)! }
    let shared = [
        IngredientDose(ingredientKey: "vitamin-d", amount: try Amount("25", .mcg), context: .vitaminD),
        IngredientDose(ingredientKey: "magnesium", amount: try Amount("0.2", .g)),
    ]
    var records: [IntakeRecord] = []
    for i in 0..<3000 {
        let instant = Date(timeIntervalSince1970: 1_767_225_600 + Double(Int.random(in: 0..<(330 * 86_400), using: &generator)))
        let servings = [Decimal(1), Decimal(2), Decimal(string: "0.5")!][i % 3]
        let doses =
            i % 4 == 0
            ? shared
            : [
                IngredientDose(ingredientKey: "vitamin-d", amount: try Amount(Decimal(1000 + i), .iu), context: .vitaminD),
                IngredientDose(ingredientKey: "magnesium", amount: try Amount(Decimal(i % 7 * 100 + 1), .mg)),
                IngredientDose(ingredientKey: "label:mystery", amount: try Amount(Decimal(i % 5), i % 2 == 0 ? .cfu : .count)),
            ]
        records.append(
            IntakeRecord(
                productID: ProductID("p\(i % 5)"), status: i % 11 == 0 ? .skipped : .taken, servings: servings,
                doses: doses, instant: instant, timeZone: zones[i % zones.count]))
    }
    let range = LocalDay(year: 2026, month: 1, day: 5)!...LocalDay(year: 2026, month: 11, day: 20)!  // across both DST changes
    let report = try ExposureCalculator().exposure(of: records, in: range)
    let shuffled = try ExposureCalculator().exposure(of: records.shuffled(using: &generator), in: range)
    #expect(report == shuffled)
    let sorted = try ExposureCalculator().exposure(of: records.sorted { $0.instant < $1.instant }, in: range)
    #expect(report == sorted)

    // The plain sum: one AmountSum per (day, ingredient), fed every dose of every taken record in range.
    var expected: [String: AmountSum] = [:]
    var servings: [String: Decimal] = [:]
    for record in records where record.status == .taken {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = record.timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: record.instant)
        let day = LocalDay(year: c.year!, month: c.month!, day: c.day!)!
        guard range.contains(day) else { continue }
        servings["\(day) \(record.productID)", default: 0] += record.servings
        for dose in record.doses { try expected["\(day) \(dose.ingredientKey)", default: AmountSum()].add(dose.amount, context: dose.context) }
    }
    #expect(
        Dictionary(grouping: report.ingredients, by: { "\($0.day) \($0.ingredientKey)" }).mapValues { $0.map(\.amount) }
            == expected.mapValues(\.rows))
    #expect(Dictionary(uniqueKeysWithValues: report.products.map { ("\($0.day) \($0.productID)", $0.servings) }) == servings)
    #expect(report.products == report.products.sorted { ($0.day, $0.productID.rawValue) < ($1.day, $1.productID.rawValue) })
}
