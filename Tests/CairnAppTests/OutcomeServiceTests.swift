import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen
import Storage
import Testing

/// A fresh vault with an OutcomeService on a fixed clock (2026-03-10 12:00 UTC), optionally with health values.
final class OutcomeFixture {
    let directory: URL
    let database: Database
    let service: OutcomeService

    init(health: @escaping @Sendable () throws -> [String: [LocalDay: Double]] = { [:] }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-outcomes-\(UUID().uuidString)")
        let vault = try Vault(directory: directory)
        let clock = FixedClock(utc("2026-03-10T12:00:00Z"))
        database = try vault.openDatabase(clock: clock)
        service = OutcomeService(database: database, clock: clock, healthDailyValues: health)
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func count() throws -> Int { try database.read { try $0.scalar("SELECT count(*) FROM outcome_entries") ?? -1 } }
}

private func csv(_ text: String) -> Data { Data(text.utf8) }

@Test func definitionsAreTheBuiltInMetricsThenTheOnesThePersonAdds() throws {
    let f = try OutcomeFixture()
    #expect(try f.service.definitions() == BuiltInMetrics.all)
    let headache = try f.service.defineMetric(MetricDefinition.custom(id: "headache", name: "Headache"))
    #expect(try f.service.definitions() == BuiltInMetrics.all + [headache])
    #expect(try f.service.definition("headache") == headache)
    #expect(throws: OutcomeError.metricIDTaken) { try f.service.defineMetric(MetricDefinition.custom(id: "headache", name: "Again")) }
    // A definition built by hand still goes through the custom checks.
    #expect(throws: OutcomeError.metricIDTaken) { try f.service.defineMetric(BuiltInMetrics.energy) }
}

@Test func aMetricNameHoldsAtMost120CharactersAndNoFormatCharacter() throws {
    let f = try OutcomeFixture()
    let long = try f.service.defineMetric(MetricDefinition.custom(id: "long", name: String(repeating: "m", count: 120)))
    #expect(long.name.count == 120)
    #expect(throws: TextInputError.tooLong(field: "metric name", maximum: 120)) {
        try f.service.defineMetric(MetricDefinition.custom(id: "longer", name: String(repeating: "m", count: 121)))
    }
    #expect(throws: TextInputError.formatCharacter(field: "metric name")) {
        try f.service.defineMetric(MetricDefinition.custom(id: "hidden", name: "Head\u{200B}ache"))
    }
}

@Test func aManualEntryIsSavedForTodayByDefaultAndChecked() throws {
    let f = try OutcomeFixture()
    let entry = try f.service.add(metricID: "energy", value: 4, note: "  after a walk ")
    #expect(entry.day == day("2026-03-10") && entry.value == 4 && entry.note == "after a walk" && entry.origin == .manual)
    #expect(try f.service.entry(entry.id) == entry)
    let earlier = try f.service.add(metricID: "mood", value: 2.5, on: day("2026-03-01"))
    #expect(earlier.day == day("2026-03-01"))
    #expect(throws: OutcomeError.unknownMetric) { try f.service.add(metricID: "nope", value: 3) }
    #expect(throws: OutcomeError.metricIsReadOnly) { try f.service.add(metricID: "steps", value: 3000) }
    #expect(throws: OutcomeError.outOfRange(range: "1-5")) { try f.service.add(metricID: "energy", value: 6) }
    #expect(throws: OutcomeError.notANumber) { try f.service.add(metricID: "energy", value: .nan) }
    #expect(throws: OutcomeError.dayInFuture) { try f.service.add(metricID: "energy", value: 3, on: day("2026-03-11")) }
    #expect(throws: TextInputError.tooLong(field: "note", maximum: 500)) {
        try f.service.add(metricID: "energy", value: 3, note: String(repeating: "n", count: 501))
    }
    #expect(try f.count() == 2)
}

@Test func aCorrectionSupersedesAndKeepsTheOldEntry() throws {
    let f = try OutcomeFixture()
    let first = try f.service.add(metricID: "energy", value: 2, on: day("2026-03-09"))
    let fix = try f.service.correct(first.id, value: 4)
    #expect(fix.supersedes == first.id && fix.day == first.day)
    #expect(try f.service.entry(first.id)?.supersededBy == fix.id)
    #expect(try f.service.series("energy").values == [day("2026-03-09"): 4])
    #expect(throws: OutcomeError.entryAlreadyCorrected) { try f.service.correct(first.id, value: 3) }
    #expect(throws: OutcomeError.entryNotFound) { try f.service.correct(OutcomeEntryID("missing"), value: 3) }
    #expect(try f.service.entries().count == 2)
}

@Test func seriesAggregateEachDayByTheMetricsRule() throws {
    let f = try OutcomeFixture()
    try f.service.add(metricID: "energy", value: 2, on: day("2026-03-01"))
    try f.service.add(metricID: "energy", value: 5, on: day("2026-03-01"))
    try f.service.add(metricID: "energy", value: 3, on: day("2026-03-02"))
    try f.service.defineMetric(MetricDefinition.custom(id: "water", name: "Water", unit: "L", range: 0...10, aggregation: .sum))
    try f.service.add(metricID: "water", value: 1.5, on: day("2026-03-01"))
    try f.service.add(metricID: "water", value: 0.5, on: day("2026-03-01"))
    #expect(try f.service.series("energy").values == [day("2026-03-01"): 3.5, day("2026-03-02"): 3])
    #expect(try f.service.series("water").values == [day("2026-03-01"): 2])
    #expect(try f.service.series("mood").values.isEmpty)
    #expect(throws: OutcomeError.unknownMetric) { try f.service.series("nope") }
}

@Test func dailySeriesListsEveryMetricWithDataAndMergesHealthValues() throws {
    let f = try OutcomeFixture(health: {
        ["steps": [day("2026-03-01"): 8000, day("2026-03-02"): -5], "resting_heart_rate": [:], "energy": [day("2026-03-01"): 1]]
    })
    #expect(try f.service.dailySeries().map(\.metric.id) == ["steps"])
    try f.service.add(metricID: "mood", value: 4, on: day("2026-03-01"))
    let series = try f.service.dailySeries()
    #expect(series.map(\.metric.id) == ["mood", "steps"])
    // Impossible health values are left out; health values never land under a manual metric.
    #expect(series[1].values == [day("2026-03-01"): 8000])
    #expect(series[0].values == [day("2026-03-01"): 4])
    #expect(try f.service.series("steps").values[day("2026-03-01")] == 8000)
}

@Test func anEmptyVaultHasNoSeriesAndNoEntries() throws {
    let f = try OutcomeFixture()
    #expect(try f.service.dailySeries().isEmpty)
    #expect(try f.service.entries().isEmpty)
}

@Test func importingTheSameFileTwiceAddsNothing() throws {
    let f = try OutcomeFixture()
    let file = csv("date,metric,value\n2026-03-01,energy,3\n2026-03-01,energy,4\n2026-03-02,Mood,5\n")
    let first = try f.service.importCSV(file)
    #expect(first.added == 3 && first.unchanged == 0 && first.replaced == 0)
    #expect(first.lines.map(\.line) == [2, 3, 4])
    let second = try f.service.importCSV(file)
    #expect(second.added == 0 && second.unchanged == 3)
    #expect(try f.count() == 3)
    #expect(try f.service.series("energy").values == [day("2026-03-01"): 3.5])
    #expect(try f.service.entries().allSatisfy { $0.origin == .csvImport })
}

@Test func aNewerFileAddsItsNewLinesAndSupersedesAChangedValue() throws {
    let f = try OutcomeFixture()
    try f.service.importCSV(csv("date,metric,value\n2026-03-01,energy,3\n2026-03-02,energy,4\n"))
    let report = try f.service.importCSV(csv("date,metric,value\n2026-03-01,energy,3\n2026-03-02,energy,2\n2026-03-03,energy,5\n"))
    #expect(report.lines.map(\.result) == [.unchanged, .replaced, .added])
    #expect(try f.count() == 4)
    #expect(try f.service.series("energy").values == [day("2026-03-01"): 3, day("2026-03-02"): 2, day("2026-03-03"): 5])
    // Going back to the first value supersedes again; nothing is updated in place.
    let back = try f.service.importCSV(csv("date,metric,value\n2026-03-02,energy,4\n"))
    #expect(back.lines.map(\.result) == [.replaced])
    #expect(try f.service.series("energy").values[day("2026-03-02")] == 4)
    #expect(try f.count() == 5)
}

@Test func aFileWithAnyBadLineImportsNothingAndListsEveryBadLine() throws {
    let f = try OutcomeFixture()
    let file = csv("date,metric,value\n2026-03-01,energy,3\n2026-13-01,energy,3\n2026-03-01,energy,9\n2026-03-01,energy,3\n")
    do {
        try f.service.importCSV(file)
        Issue.record("expected bad lines")
    } catch let error as ImportLinesError {
        #expect(error.problems.map(\.line) == [3, 4])
        #expect(error.problems.map(\.reason) == [.badDate, .outOfRange(range: "1-5")])
        #expect(error.userMessage.contains("nothing was imported"))
    }
    #expect(try f.count() == 0)
    #expect(throws: CSVError.self) { try f.service.importCSV(csv("day,what\n2026-03-01,x\n")) }
    #expect(throws: CSVError.notUTF8) { try f.service.importCSV(Data([0xFF, 0xFE, 0x00])) }
    #expect(try f.count() == 0)
}

@Test func theImportReadsThePersonsOwnMetrics() throws {
    let f = try OutcomeFixture()
    try f.service.defineMetric(MetricDefinition.custom(id: "headache", name: "Headache"))
    let report = try f.service.importCSV(csv("metric,date,value,note\nHeadache,2026-03-05,2,\"short, mild\"\n"))
    #expect(report.added == 1)
    #expect(try f.service.entries(metricID: "headache").first?.note == "short, mild")
}

@Test func entriesFilterByMetricAndDays() throws {
    let f = try OutcomeFixture()
    try f.service.add(metricID: "energy", value: 2, on: day("2026-03-01"))
    try f.service.add(metricID: "energy", value: 3, on: day("2026-03-05"))
    try f.service.add(metricID: "mood", value: 4, on: day("2026-03-05"))
    #expect(try f.service.entries(metricID: "energy").map(\.day) == [day("2026-03-05"), day("2026-03-01")])
    #expect(try f.service.entries(from: day("2026-03-02")).count == 2)
    #expect(try f.service.entries(to: day("2026-03-02")).count == 1)
    #expect(try f.service.entries(limit: 1).count == 1)
}
