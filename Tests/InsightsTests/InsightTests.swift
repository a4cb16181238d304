import CairnCore
import Foundation
import Insights
import Regimen
import Testing

struct InsightTests {
    let engine = InsightEngine()

    /// Magnesium from March 1st; sleep quality one point higher from then on; steps unchanged.
    private func scenario(asOf: String, seed: UInt64 = 11) -> [Insight] {
        var g = SeededGenerator(seed: seed)
        let sleep = Fixture.series("2026-01-01", asOf) { $0 >= 59 ? 4 + 0.4 * Fixture.normal(&g) : 3 + 0.4 * Fixture.normal(&g) }
        let steps = Fixture.series("2026-01-01", asOf, id: "steps", name: "Steps", unit: "steps") { _ in 8000 + 900 * Fixture.normal(&g) }
        return engine.insights(entries: Fixture.daily("2026-03-01", asOf), schedules: [], series: [sleep, steps],
                               asOf: Fixture.day(asOf))
    }

    @Test func aClearShiftIsAQualifiedFindingAndANullIsAnOngoingObservation() throws {
        let insights = scenario(asOf: "2026-04-30")
        #expect(insights.count == 2)
        let first = try #require(insights.first)
        #expect(first.metricID == "sleep_quality")
        #expect(first.status == .qualifiedFinding)
        #expect(first.summary.hasPrefix("Starting Magnesium on 2026-03-01 was associated with higher Sleep quality values"))
        #expect(first.windowDays == 28 && first.beforeCount == 28 && first.afterCount == 28)
        #expect(first.disclaimer == Disclaimer.insight.text)
        #expect(insights[1].metricID == "steps")
        #expect(insights[1].status == .ongoingObservation)
        #expect(insights[1].summary.hasPrefix("No clear difference in Steps around the time of starting Magnesium"))
        #expect(first.points.count == 56)
        #expect(first.summary.contains(" points on the 1-5 scale, 95% interval"))
    }

    @Test func lowerValuesAreSaidAsLowerWithoutJudgement() throws {
        var g = SeededGenerator(seed: 5)
        let rhr = Fixture.series("2026-01-01", "2026-04-30", id: "rhr", name: "Resting heart rate", unit: "bpm") {
            $0 >= 59 ? 55 + Fixture.normal(&g) : 60 + Fixture.normal(&g)
        }
        let insight = try #require(engine.insights(entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [rhr],
                                                   asOf: Fixture.day("2026-04-30")).first)
        #expect(insight.status == .qualifiedFinding)
        #expect(insight.summary.contains("was associated with lower Resting heart rate values"))
        #expect(insight.summary.contains("−"))
    }

    @Test func theIdentityStaysTheSameWhenTheWindowMatures() throws {
        let young = try #require(scenario(asOf: "2026-03-20").first { $0.metricID == "sleep_quality" })
        let mature = try #require(scenario(asOf: "2026-04-30").first { $0.metricID == "sleep_quality" })
        #expect(young.id == mature.id)
        #expect(young.windowDays == 14 && mature.windowDays == 28)
        #expect(young.limitations.contains { $0.contains("updated when 28 days have passed") })
    }

    @Test func anUnfinishedWindowIsNotEnoughData() throws {
        let insight = try #require(scenario(asOf: "2026-03-05").first { $0.metricID == "sleep_quality" })
        #expect(!insight.enoughData)
        #expect(insight.status == .ongoingObservation)
        #expect(insight.summary.hasPrefix("Not enough data yet to compare Sleep quality around the time of starting Magnesium"))
        #expect(insight.interval != nil) // figures are kept, but never a finding
    }

    @Test func limitationsNameOtherChangesMissingDaysAndSeasons() throws {
        var g = SeededGenerator(seed: 9)
        let sleep = Fixture.series("2026-01-01", "2026-04-30", skip: [60, 61, 70]) { _ in 3 + Fixture.normal(&g) }
        let entries = Fixture.daily("2026-03-01", "2026-04-30")
            + Fixture.daily("2026-03-10", "2026-04-30", product: ProductID("p-d"), name: "Vitamin D")
        let insight = try #require(engine.insights(entries: entries, schedules: [], series: [sleep], asOf: Fixture.day("2026-04-30"))
            .first { $0.change.productName == "Magnesium" })
        #expect(insight.limitations.contains { $0.contains("starting Vitamin D on 2026-03-10") })
        #expect(insight.limitations.contains("Days without a value: 0 of 28 before and 3 of 28 after."))
        #expect(insight.limitations.contains { $0.contains("two seasons (December to February, then March to May)") })
    }

    @Test func noSeriesOrNoChangesGiveNoInsights() {
        #expect(engine.insights(entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [],
                                asOf: Fixture.day("2026-04-30")).isEmpty)
        let s = Fixture.series("2026-01-01", "2026-04-30") { Double($0) }
        #expect(engine.insights(entries: [], schedules: [], series: [s], asOf: Fixture.day("2026-04-30")).isEmpty)
    }

    @Test func aSeriesWithNoValueAroundAChangeGivesNoInsightForIt() {
        let old = Fixture.series("2025-01-01", "2025-03-01", id: "steps", name: "Steps", unit: "steps") { _ in 8000 }
        let sparse = MetricSeriesInput(id: "mood", name: "Mood", unit: "1-5", values: [Fixture.day("2026-03-05"): 4])
        let insights = engine.insights(entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [old, sparse],
                                       asOf: Fixture.day("2026-04-30"))
        #expect(insights.map(\.metricID) == ["mood"])
        #expect(insights.first?.enoughData == false)
    }

    @Test func aRepeatedSeriesIdIsUsedOnce() {
        let s = Fixture.series("2026-01-01", "2026-04-30") { Double($0 % 4) }
        let insights = engine.insights(entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [s, s],
                                       asOf: Fixture.day("2026-04-30"))
        #expect(insights.count == 1)
    }

    @Test func benjaminiHochbergAppliesAcrossTheMetricsOfOneChange() throws {
        let insights = scenario(asOf: "2026-04-30")
        let sleep = try #require(insights.first { $0.metricID == "sleep_quality" })
        let p = try #require(sleep.pValue), adjusted = try #require(sleep.adjustedPValue)
        #expect(adjusted >= p)
        #expect(adjusted <= min(1, 2 * p) + 1e-12)
    }

    @Test func qualifiedFindingsComeFirst() {
        let insights = scenario(asOf: "2026-04-30")
        let statuses = insights.map(\.status)
        #expect(statuses == statuses.sorted { ($0 == .qualifiedFinding ? 0 : 1) < ($1 == .qualifiedFinding ? 0 : 1) })
    }

    @Test func noGeneratedTextUsesAForbiddenWord() {
        var texts: [String] = []
        for seed in 1...20 as ClosedRange<UInt64> {
            for asOf in ["2026-03-05", "2026-03-20", "2026-04-30"] { texts += scenario(asOf: asOf, seed: seed).flatMap(\.texts) }
        }
        var g = SeededGenerator(seed: 2)
        let kinds = Fixture.daily("2026-01-01", "2026-02-10", hour: 8) + Fixture.daily("2026-02-11", "2026-03-20", hour: 20, servings: 2)
            + Fixture.daily("2026-04-10", "2026-05-20", step: 2)
        let s = Fixture.series("2025-12-01", "2026-06-30") { _ in 3 + Fixture.normal(&g) }
        texts += engine.insights(entries: kinds, schedules: [Fixture.schedule("2026-01-01", stoppedFrom: "2026-03-30")], series: [s],
                                 asOf: Fixture.day("2026-06-30")).flatMap(\.texts)
        #expect(texts.count > 100)
        for text in texts { #expect(InsightWording.violations(in: text).isEmpty, "\(text)") }
    }

    @Test func theWordingCheckCatchesForbiddenWords() {
        #expect(InsightWording.violations(in: "Magnesium improved sleep") == ["improved"])
        #expect(InsightWording.violations(in: "Sleep was better") == ["better"])
        #expect(InsightWording.violations(in: "This caused it") == ["caused"])
        #expect(InsightWording.violations(in: Disclaimer.insight.text).isEmpty)
    }

    @Test func anInsightRoundTripsThroughJSONWithTheDisclaimer() throws {
        let insight = try #require(scenario(asOf: "2026-04-30").first)
        let data = try JSONEncoder().encode(insight)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(Disclaimer.insight.text))
        #expect(text.contains("\"status\":\"qualified-finding\""))
        #expect(try JSONDecoder().decode(Insight.self, from: data) == insight)
    }
}
