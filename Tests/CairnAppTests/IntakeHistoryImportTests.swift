import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen
import Testing

private func csv(_ lines: String...) -> Data { Data(lines.joined(separator: "\r\n").utf8) }
private let header = "date,time,time zone,product,amount,unit,status"

@Test func importsPastDosesAsLedgerRecordsWithTheirZone() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let d3 = try f.vitaminD()
    let magnesium = try f.magnesium()
    let report = try f.service.importIntakeHistory(
        csv(
            header,
            "2026-03-01,08:00,Europe/Berlin,Vitamin D3,1,softgel,taken",
            "2026-03-01,21:30:15,America/New_York,magnesium,4,capsules,taken",
            "2026-03-02,08:00,Europe/Berlin,\(d3.product.id.rawValue),,,skipped",
            "2026-03-02,09:00,UTC,Magnesium,1,serving,taken"))
    #expect(report.added == 4 && report.unchanged == 0 && report.lines.map(\.line) == [2, 3, 4, 5])
    let entries = report.lines.map(\.entry)
    #expect(entries[0].takenAt == utc("2026-03-01T07:00:00Z") && entries[0].timeZone.identifier == "Europe/Berlin")
    #expect(entries[0].kind == .extra && entries[0].status == .taken && entries[0].servings == 1)
    // 21:30 in New York is 02:30 UTC the next day; the local day stays the 1st.
    #expect(entries[1].takenAt == utc("2026-03-02T02:30:15Z") && entries[1].localDay == day("2026-03-01"))
    #expect(entries[1].servings == 2)  // 4 capsules of a 2-capsule serving
    #expect(entries[2].status == .skipped && entries[2].servings == 1)
    #expect(entries[3].productID == magnesium.product.id && entries[3].servings == 1)
    #expect(try f.count("regimen_intake") == 4)
    // Taken imported doses count towards exposure like any other record.
    let exposure = try f.service.exposure(in: day("2026-03-01")...day("2026-03-02"))
    #expect(exposure.products.contains { $0.productID == d3.product.id && $0.day == day("2026-03-01") })
    #expect(!exposure.products.contains { $0.productID == d3.product.id && $0.day == day("2026-03-02") })
}

@Test func importingTheSameHistoryTwiceAddsNothing() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    _ = try f.vitaminD()
    let file = csv(
        header, "2026-03-01,08:00,UTC,Vitamin D3,1,,taken", "2026-03-01,08:00,UTC,Vitamin D3,1,,taken",
        "2026-03-02,08:00,UTC,Vitamin D3,1,,taken")
    #expect(try f.service.importIntakeHistory(file).added == 3)
    let again = try f.service.importIntakeHistory(file)
    #expect(again.added == 0 && again.unchanged == 3)
    #expect(try f.count("regimen_intake") == 3)
}

@Test func aLineIsKnownByItsNumberAmongTheFilesLinesOfThatProductAndInstant() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let d3 = try f.vitaminD()
    _ = try f.magnesium()
    let once = csv(header, "2026-03-01,08:00,UTC,Vitamin D3,1,,taken")
    try f.service.importIntakeHistory(once)
    // A dose logged in Cairn at the same instant is not an imported line; another product's line is its own.
    _ = try f.service.logExtra(d3.product.id, at: utc("2026-03-01T08:00:00Z"))
    let twice = try f.service.importIntakeHistory(
        csv(
            header, "2026-03-01,08:00,UTC,Vitamin D3,1,,taken",
            "2026-03-01,08:00,UTC,Magnesium,1,,taken",
            "2026-03-01,08:00,UTC,Vitamin D3,1,,taken"))
    #expect(twice.lines.map(\.result) == [.unchanged, .added, .added])
    #expect(try f.service.importIntakeHistory(once).lines.map(\.result) == [.unchanged])
    let corrected = try f.service.importIntakeHistory(
        csv(
            header, "2026-03-01,08:00,UTC,Vitamin D3,1,,taken",
            "2026-03-01,08:00,UTC,Vitamin D3,2,,taken"))
    #expect(corrected.lines.map(\.result) == [.unchanged, .replaced])
    #expect(corrected.lines[1].entry.supersedes == twice.lines[2].entry.id)
    #expect(try f.count("regimen_intake") == 5)
}

@Test func aNewerExportAddsNewLinesAndCorrectsAChangedStatus() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    _ = try f.vitaminD()
    try f.service.importIntakeHistory(csv(header, "2026-03-01,08:00,UTC,Vitamin D3,1,,taken"))
    let newer = try f.service.importIntakeHistory(
        csv(
            header, "2026-03-01,08:00,UTC,Vitamin D3,1,,skipped",
            "2026-03-02,08:00,UTC,Vitamin D3,1,,taken"))
    #expect(newer.lines.map(\.result) == [.replaced, .added])
    let correction = newer.lines[0].entry
    #expect(correction.status == .skipped && correction.supersedes != nil)
    let original = try #require(try f.service.record(correction.supersedes!))
    #expect(original.status == .taken && original.supersededBy == correction.id)
    #expect(try f.count("regimen_intake") == 3)
    // The same newer file again changes nothing.
    let again = try f.service.importIntakeHistory(csv(header, "2026-03-01,08:00,UTC,Vitamin D3,1,,skipped"))
    #expect(again.lines.map(\.result) == [.unchanged])
}

@Test func aFileWithBadLinesImportsNothingAndNamesEachLine() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    _ = try f.vitaminD()
    _ = try f.vitaminD(name: "Twin")
    _ = try f.vitaminD(name: "twin")
    let file = csv(
        header,
        "2026-03-01,08:00,UTC,Vitamin D3,1,,taken",
        "2026-03-01,08:00,UTC,Secret Pills,1,,taken",
        "2026-03-01,08:00,Mars/Olympus,Vitamin D3,1,,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,1,,maybe",
        "2026-03-01,08:00,UTC,Vitamin D3,0,,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,500,,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,25,mcg,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,1,furlongs,taken",
        "2026-03-01,25:00,UTC,Vitamin D3,1,,taken",
        "2026-03-32,08:00,UTC,Vitamin D3,1,,taken",
        "2026-03-11,08:00,UTC,Vitamin D3,1,,taken",
        "2026-03-01,08:00,UTC,twin,1,,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,1,taken",
        "2026-03-01,08:00,EST,Vitamin D3,1,,taken",
        "2026-03-01,08:00,UTC,Vitamin D3,-1,,taken")
    do {
        try f.service.importIntakeHistory(file)
        Issue.record("expected bad lines")
    } catch let error as ImportLinesError {
        #expect(error.problems.map(\.line) == Array(3...16))
        #expect(
            error.problems.map(\.reason) == [
                .unknownProduct, .badTimeZone, .badStatus, .impossibleAmount, .impossibleAmount,
                .unitDoesNotMatchServing, .unknownUnit, .badTime, .badDate, .timeInFuture,
                .ambiguousProduct, .wrongFieldCount(expected: 7, found: 6), .badTimeZone,
                .impossibleAmount,
            ])
        for problem in error.problems {
            #expect(!problem.message.contains("Secret") && !problem.message.contains("Mars") && !problem.message.contains("furlongs"))
            #expect(ProductWording.bannedWords(in: problem.message).isEmpty)
        }
    }
    #expect(try f.count("regimen_intake") == 0)
    #expect(throws: CSVError.self) { try f.service.importIntakeHistory(csv("date,product,status", "2026-03-01,Vitamin D3,taken")) }
    #expect(throws: CSVError.empty) { try f.service.importIntakeHistory(Data()) }
}

@Test func datesBefore1900OrAfterTomorrowAndTimesTheClocksSkippedAreRefusedWithTheirLine() throws {
    let f = try RegimenFixture()  // now: 2026-03-10T12:00Z, the person in UTC
    defer { f.remove() }
    _ = try f.vitaminD()
    let file = csv(
        header,
        "0001-01-01,08:00,UTC,Vitamin D3,1,,taken",
        "9999-12-31,08:00,UTC,Vitamin D3,1,,taken",
        "2026-03-12,08:00,UTC,Vitamin D3,1,,taken",
        "1899-12-31,23:59,UTC,Vitamin D3,1,,taken",
        "2025-03-30,02:30,Europe/Amsterdam,Vitamin D3,1,,taken",
        "1900-01-01,00:00,UTC,Vitamin D3,1,,taken",
        "2025-03-30,03:00,Europe/Amsterdam,Vitamin D3,1,,taken",
        "2025-10-26,02:30,Europe/Amsterdam,Vitamin D3,1,,taken")
    do {
        try f.service.importIntakeHistory(file)
        Issue.record("expected bad lines")
    } catch let error as ImportLinesError {
        #expect(error.problems.map(\.line) == [2, 3, 4, 5, 6])
        #expect(error.problems.map(\.reason) == [.dateOutOfRange, .dateOutOfRange, .dateOutOfRange, .dateOutOfRange, .timeDoesNotExist])
        #expect(
            error.listedProblems[0] == "Line 2: the date is before 1900-01-01 or after tomorrow; Cairn imports dates from 1900-01-01 to tomorrow.")
        #expect(error.listedProblems[4].hasPrefix("Line 6: the time does not exist on that day in that time zone"))
    }
    #expect(try f.count("regimen_intake") == 0)
    // The first day, the first minute after the gap and a repeated time are imported.
    let report = try f.service.importIntakeHistory(
        csv(
            header,
            "1900-01-01,00:00,UTC,Vitamin D3,1,,taken",
            "2025-03-30,03:00,Europe/Amsterdam,Vitamin D3,1,,taken",
            "2025-10-26,02:30,Europe/Amsterdam,Vitamin D3,1,,taken"))
    #expect(report.added == 3)
}

@Test func aFileWithThousandsOfBadLinesListsTheFirstTwentyAndHowManyMore() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    _ = try f.vitaminD()
    let lines = [header] + Array(repeating: "2026-03-01,08:00,UTC,Vitamin D3,1,,maybe", count: 5_000)
    do {
        try f.service.importIntakeHistory(Data(lines.joined(separator: "\n").utf8))
        Issue.record("expected bad lines")
    } catch let error as ImportLinesError {
        #expect(error.userMessage.hasPrefix("5,000 lines could not be read"))
        #expect(error.listedProblems.count == 21)
        #expect(error.listedProblems[19].hasPrefix("Line 21: ") && error.listedProblems[20] == "… and 4,980 more.")
    }
}

@Test func massAmountsBecomeServingsOfAPowderAndTheAmountMayCarryItsUnit() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    try f.service.addProduct(
        Product(
            name: "Creatine", form: .powder, servingSize: amount("5", .g),
            ingredients: [
                ProductIngredient(catalogueID: nil, nameOnLabel: "Creatine monohydrate", amount: amount("5", .g))
            ]), decisions: RowDecisions(accepted: [1]))
    let report = try f.service.importIntakeHistory(
        csv(
            "Date,Time,TimeZone,Product,Amount,Status",
            "2026-03-01,08:00,UTC,Creatine,10 g,taken",
            "2026-03-02,08:00,UTC,Creatine,2500mg,taken",
            "2026-03-03,08:00,UTC,Creatine,2,taken"))
    #expect(report.lines.map(\.entry.servings) == [2, Decimal(string: "0.5")!, 2])
}

@Test func aDoseBeforeALabelChangeUsesTheRevisionInForceThen() throws {
    let f = try RegimenFixture(now: "2026-02-20T12:00:00Z")
    defer { f.remove() }
    let d3 = try f.vitaminD()
    f.clock.set("2026-03-05T12:00:00Z")
    let revised = try f.service.editProduct(
        d3.product.id,
        to: Product(
            name: "Vitamin D3", form: .softgel, servingSize: amount("2", .count),
            ingredients: d3.product.ingredients))
    f.clock.set("2026-03-10T12:00:00Z")
    let report = try f.service.importIntakeHistory(
        csv(
            header, "2026-03-06,08:00,UTC,Vitamin D3,2,softgels,taken",
            "2026-02-01,08:00,UTC,Vitamin D3,2,softgels,taken"))
    #expect(report.lines[0].entry.productRevisionID == revised.revisionID && report.lines[0].entry.servings == 1)
    #expect(report.lines[1].entry.productRevisionID == d3.revisionID && report.lines[1].entry.servings == 2)
}

@Test func anEmptyHistoryImportsNothing() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    #expect(try f.service.importIntakeHistory(csv(header)).lines.isEmpty)
}
