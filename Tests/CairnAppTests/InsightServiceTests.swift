import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen
import Storage
import Testing

/// Outcome series the test can change between recomputations.
final class SeriesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [MetricSeriesInput] = []
    var series: [MetricSeriesInput] {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Sleep quality one point higher from 2026-03-01, steps flat, 2026-01-01 ... 2026-04-30.
private func outcomeSeries() -> [MetricSeriesInput] {
    var g = SeededGenerator(seed: 4)
    func normal() -> Double { (-2 * log(max(g.unit(), 1e-12))).squareRoot() * cos(2 * .pi * g.unit()) }
    var sleep: [LocalDay: Double] = [:]
    var steps: [LocalDay: Double] = [:]
    for d in day("2026-01-01").dayNumber...day("2026-04-30").dayNumber {
        let local = LocalDay(dayNumber: d)
        sleep[local] = (local >= day("2026-03-01") ? 4 : 3) + 0.4 * normal()
        steps[local] = 8000 + 900 * normal()
    }
    return [
        MetricSeriesInput(id: "sleep_quality", name: "Sleep quality", unit: "1-5", values: sleep),
        MetricSeriesInput(id: "steps", name: "Steps", unit: "steps", values: steps),
    ]
}

private func logDaily(_ f: RegimenFixture, _ product: StoredProduct, from: String, to: String) throws {
    for d in day(from).dayNumber...day(to).dayNumber {
        _ = try f.service.logExtra(product.product.id, at: Date(timeIntervalSince1970: Double(d) * 86_400 + 8 * 3_600))
    }
}

@Test func insightsAreEmptyBeforeTheFirstComputationAndWithoutData() throws {
    let f = try RegimenFixture(now: "2026-03-20T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock)
    #expect(try service.list().isEmpty)
    #expect(try service.lastRun() == nil)
    let run = try service.recompute()
    #expect(run.total == 0 && run.added == 0 && run.removed == 0)
    #expect(try service.lastRun()?.asOf == day("2026-03-20"))
}

@Test func recomputingStoresInsightsAndUpdatesThemInPlaceWhenTheyMature() throws {
    let f = try RegimenFixture(now: "2026-03-20T12:00:00Z")
    defer { f.remove() }
    let box = SeriesBox()
    box.series = outcomeSeries()
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { box.series })
    let magnesium = try f.magnesium()
    try logDaily(f, magnesium, from: "2026-03-01", to: "2026-03-20")

    let first = try service.recompute()
    #expect(first.total == 2 && first.added == 2 && first.updated == 0)
    let young = try service.list()
    #expect(young.map(\.windowDays) == [14, 14])
    #expect(young.allSatisfy { $0.change.kind == .start && $0.disclaimer == Disclaimer.insight.text })
    let createdAt: String? = try f.database.read { try $0.scalar("SELECT first_computed_at FROM insights WHERE metric_id = 'sleep_quality'") }

    f.clock.set("2026-04-30T12:00:00Z")
    try logDaily(f, magnesium, from: "2026-03-21", to: "2026-04-30")
    let second = try service.recompute()
    #expect(second.added == 0 && second.updated == 2 && second.removed == 0)
    let mature = try service.list()
    #expect(mature.count == 2)
    #expect(mature.map(\.id) == young.sorted { $0.metricID < $1.metricID }.map(\.id), "same identities, sleep (a finding) first")
    #expect(mature.map(\.windowDays) == [28, 28])
    #expect(mature[0].status == .qualifiedFinding && mature[0].metricID == "sleep_quality")
    #expect(mature[1].status == .ongoingObservation)
    #expect(try f.database.read { try $0.scalar("SELECT first_computed_at FROM insights WHERE metric_id = 'sleep_quality'") } == createdAt)
    #expect(try f.database.read { try $0.scalar("SELECT count(*) FROM insights", as: Int.self) } == 2)

    let unchanged = try service.recompute()
    #expect(unchanged.added == 0 && unchanged.updated == 0 && unchanged.removed == 0)

    box.series = Array(box.series.prefix(1))
    let dropped = try service.recompute()
    #expect(dropped.removed == 1 && dropped.total == 1)
    #expect(try service.list().map(\.metricID) == ["sleep_quality"])
}

@Test func insightsAreRecomputedOnceADayWhenStale() throws {
    let f = try RegimenFixture(now: "2026-03-20T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock)
    #expect(try service.recomputeIfStale())
    #expect(try !service.recomputeIfStale())
    f.clock.set("2026-03-21T12:00:00Z")
    #expect(try service.recomputeIfStale())
    #expect(try service.lastRun()?.asOf == day("2026-03-21"))
}

@Test func aFailingSeriesProviderWritesNothing() throws {
    struct Broken: Error {}
    let f = try RegimenFixture(now: "2026-03-20T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { throw Broken() })
    #expect(throws: Broken.self) { try service.recompute() }
    #expect(try service.lastRun() == nil)
}

@Test func anUnreadableStoredInsightIsAPlainError() throws {
    let f = try RegimenFixture(now: "2026-03-20T12:00:00Z")
    defer { f.remove() }
    try f.database.write { db in
        try db.execute(
            """
            INSERT INTO insights (change_id, metric_id, product_id, change_kind, change_day, status, window_days, payload,
                first_computed_at, updated_at) VALUES ('c', 'm', 'p', 'start', '2026-03-01', 'qualified-finding', 14, '{}', 'x', 'x')
            """)
    }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock)
    #expect(throws: InsightServiceError.unreadableRecord) { try service.list() }
    #expect(!InsightServiceError.unreadableRecord.userMessage.isEmpty)
}

@Test func aRecomputationRunsOnlyTheComparisonsWhoseInputsChanged() throws {
    let f = try RegimenFixture(now: "2026-04-30T12:00:00Z")
    defer { f.remove() }
    let box = SeriesBox()
    box.series = outcomeSeries()
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { box.series })
    try logDaily(f, try f.magnesium(), from: "2026-03-01", to: "2026-04-30")
    let first = try service.recompute()
    #expect(first.compared == 2 && first.ledgerRead)
    let before = try service.list()

    let again = try service.recompute()
    #expect(again.compared == 0 && !again.ledgerRead && again.updated == 0)
    #expect(try service.list() == before)

    // One series changes: only its comparison runs again; the other is kept.
    var steps = box.series[1].values
    steps[day("2026-03-03")] = 12_000
    box.series[1] = MetricSeriesInput(id: "steps", name: "Steps", unit: "steps", values: steps)
    let one = try service.recompute()
    #expect(one.compared == 1 && !one.ledgerRead)
    #expect(try service.list().first { $0.metricID == "sleep_quality" } == before.first { $0.metricID == "sleep_quality" })

    // The full recomputation gives the same figures as the incremental ones.
    let incremental = try service.list()
    try service.recompute(full: true)
    #expect(try service.list() == incremental)
}

@Test func servicesMarkInsightsOutOfDateAndTheNextViewCatchesUp() throws {
    let f = try RegimenFixture(now: "2026-04-30T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { outcomeSeries() })
    let magnesium = try f.magnesium()
    try logDaily(f, magnesium, from: "2026-03-01", to: "2026-04-29")
    #expect(try service.needsRecompute())
    #expect(try service.recomputeInBackgroundIfNeeded())
    #expect(try !service.needsRecompute())
    #expect(try !service.recomputeInBackgroundIfNeeded())
    _ = try f.service.logExtra(magnesium.product.id)
    #expect(try service.needsRecompute(), "a new dose marks the ledger changed")
    #expect(try f.database.read { try $0.scalar("SELECT count(*) FROM insight_pending WHERE kind = 'ledger'", as: Int.self) } == 1)
    try service.recompute()
    #expect(try f.database.read { try $0.scalar("SELECT count(*) FROM insight_pending", as: Int.self) } == 0)
    #expect(try service.changes().map(\.kind) == [.start])
}

@Test func inTheBackgroundTheStateSaysWhereItIsAndEndsIdle() throws {
    let f = try RegimenFixture(now: "2026-04-30T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { outcomeSeries() })
    service.recomputesInBackground = true
    try logDaily(f, try f.magnesium(), from: "2026-03-01", to: "2026-04-29")
    #expect(try service.recomputeInBackgroundIfNeeded())
    let deadline = Date().addingTimeInterval(30)
    while service.backgroundState != .idle && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    #expect(service.backgroundState == .idle)
    #expect(try service.list().count == 2)
    #expect(try !service.needsRecompute())
}

@Test func onsetSearchIsAPerMetricOption() throws {
    let f = try RegimenFixture(now: "2026-04-30T12:00:00Z")
    defer { f.remove() }
    let service = InsightService(database: f.database, regimen: f.service, clock: f.clock, series: { outcomeSeries() })
    try logDaily(f, try f.magnesium(), from: "2026-03-01", to: "2026-04-29")
    try service.recompute()
    #expect(try service.list().allSatisfy { $0.onsetsSearched == 1 })
    try service.setSearchesOnset(true, metricID: "steps")
    #expect(try service.metricsSearchingOnset() == ["steps"])
    let run = try service.recompute()
    #expect(run.compared == 1)
    #expect(try service.list().first { $0.metricID == "steps" }?.onsetsSearched == 8)
    #expect(throws: InsightServiceError.unknownMetric("nope")) { try service.setSearchesOnset(true, metricID: "nope") }
}
