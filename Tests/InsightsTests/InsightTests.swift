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
        return engine.insights(
            entries: Fixture.daily("2026-03-01", asOf), schedules: [], series: [sleep, steps],
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
        // 28 days of steps cannot rule out a shift of half their day-to-day spread: never read as reassurance.
        #expect(insights[1].verdict == .tooLittleDataToTell)
        #expect(insights[1].label == "Too little data to tell")
        #expect(insights[1].summary.hasPrefix("Too little data to tell whether Steps differed around the time of starting Magnesium"))
        #expect(insights[1].summary.contains("so this is not a sign of no difference"))
        #expect(first.points.count == 56)
        #expect(first.summary.contains(" points on the 1-5 scale, 95% interval"))
    }

    @Test func lowerValuesAreSaidAsLowerWithoutJudgement() throws {
        var g = SeededGenerator(seed: 5)
        let rhr = Fixture.series("2026-01-01", "2026-04-30", id: "rhr", name: "Resting heart rate", unit: "bpm") {
            $0 >= 59 ? 55 + Fixture.normal(&g) : 60 + Fixture.normal(&g)
        }
        let insight = try #require(
            engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [rhr],
                asOf: Fixture.day("2026-04-30")
            ).first)
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
        #expect(insight.interval != nil)  // figures are kept, but never a finding
    }

    @Test func limitationsNameOtherChangesMissingDaysAndSeasons() throws {
        var g = SeededGenerator(seed: 9)
        let sleep = Fixture.series("2026-01-01", "2026-04-30", skip: [60, 61, 70]) { _ in 3 + Fixture.normal(&g) }
        let entries =
            Fixture.daily("2026-03-01", "2026-04-30")
            + Fixture.daily("2026-03-10", "2026-04-30", product: ProductID("p-d"), name: "Vitamin D")
        let insight = try #require(
            engine.insights(entries: entries, schedules: [], series: [sleep], asOf: Fixture.day("2026-04-30"))
                .first { $0.change.productName == "Magnesium" })
        #expect(insight.limitations.contains { $0.contains("starting Vitamin D on 2026-03-10") })
        #expect(insight.limitations.contains("Days without a value: 0 of 28 before and 3 of 28 after."))
        #expect(insight.limitations.contains { $0.contains("The windows run from February into March") })
        #expect(!insight.plainSummary.isEmpty && InsightWording.violations(in: insight.plainSummary).isEmpty)
    }

    @Test func anInsightReadsInPlainWordsFirstWithoutStatisticsOrCausalWords() throws {
        var g = SeededGenerator(seed: 3)
        let sleep = Fixture.series("2026-01-01", "2026-04-30") { i in (i >= 59 ? 4 : 3) + 0.3 * Fixture.normal(&g) }
        let insight = try #require(
            engine.insights(entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [sleep], asOf: Fixture.day("2026-04-30")).first
        )
        #expect(insight.verdict == .qualified)
        let plain = insight.plainSummary
        #expect(plain.hasPrefix("Sleep quality was about "), "\(plain)")
        #expect(plain.contains(" points on the 1-5 scale higher in the 28 days after starting Magnesium than in the 28 days before."), "\(plain)")
        #expect(plain.contains("unusual in your own records"))
        for statistic in ["interval", "p =", "g =", "effect size"] { #expect(!plain.contains(statistic)) }
        #expect(InsightWording.violations(in: plain).isEmpty)
    }

    @Test func noSeriesOrNoChangesGiveNoInsights() {
        #expect(
            engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [],
                asOf: Fixture.day("2026-04-30")
            ).isEmpty)
        let s = Fixture.series("2026-01-01", "2026-04-30") { Double($0) }
        #expect(engine.insights(entries: [], schedules: [], series: [s], asOf: Fixture.day("2026-04-30")).isEmpty)
    }

    @Test func aSeriesWithNoValueAroundAChangeGivesNoInsightForIt() {
        let old = Fixture.series("2025-01-01", "2025-03-01", id: "steps", name: "Steps", unit: "steps") { _ in 8000 }
        let sparse = MetricSeriesInput(id: "mood", name: "Mood", unit: "1-5", values: [Fixture.day("2026-03-05"): 4])
        let insights = engine.insights(
            entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [old, sparse],
            asOf: Fixture.day("2026-04-30"))
        #expect(insights.map(\.metricID) == ["mood"])
        #expect(insights.first?.enoughData == false)
    }

    @Test func aRepeatedSeriesIdIsUsedOnce() {
        let s = Fixture.series("2026-01-01", "2026-04-30") { Double($0 % 4) }
        let insights = engine.insights(
            entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [s, s],
            asOf: Fixture.day("2026-04-30"))
        #expect(insights.count == 1)
    }

    @Test func benjaminiHochbergAppliesAcrossTheMetricsOfOneChange() throws {
        let insights = scenario(asOf: "2026-04-30")
        let sleep = try #require(insights.first { $0.metricID == "sleep_quality" })
        let p = try #require(sleep.pValue)
        let adjusted = try #require(sleep.adjustedPValue)
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
        let kinds =
            Fixture.daily("2026-01-01", "2026-02-10", hour: 8) + Fixture.daily("2026-02-11", "2026-03-20", hour: 20, servings: 2)
            + Fixture.daily("2026-04-10", "2026-05-20", step: 2)
        let s = Fixture.series("2025-12-01", "2026-06-30") { _ in 3 + Fixture.normal(&g) }
        texts += engine.insights(
            entries: kinds, schedules: [Fixture.schedule("2026-01-01", stoppedFrom: "2026-03-30")], series: [s],
            asOf: Fixture.day("2026-06-30")
        ).flatMap(\.texts)
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

    @Test func aDifferenceThatFailsOnlyTheAdjustmentIsNeverCalledNoClearDifference() throws {
        // One real shift among many flat series: raw p passes, the adjustment across 12 series does not.
        var g = SeededGenerator(seed: 21)
        var series = [Fixture.series("2026-01-01", "2026-03-14") { $0 >= 59 ? 3.75 + 0.5 * Fixture.normal(&g) : 3 + 0.5 * Fixture.normal(&g) }]
        for k in 0..<11 {
            series.append(Fixture.series("2026-01-01", "2026-03-14", id: "flat\(k)", name: "Flat \(k)", unit: "") { _ in 5 + Fixture.normal(&g) })
        }
        var found: Insight?
        for seed in 1...40 as ClosedRange<UInt64> {
            var h = SeededGenerator(seed: seed)
            series[0] = Fixture.series("2026-01-01", "2026-03-14") { $0 >= 59 ? 3.6 + 0.5 * Fixture.normal(&h) : 3 + 0.5 * Fixture.normal(&h) }
            let all = engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-03-14"), schedules: [], series: series,
                asOf: Fixture.day("2026-03-14"))
            if let hit = all.first(where: { $0.verdict == .didNotHoldUpAcrossSeries }) {
                found = hit
                break
            }
        }
        let insight = try #require(found)
        #expect(insight.status == .ongoingObservation)
        #expect(insight.seriesCompared == 12)
        #expect(insight.summary.contains("a difference that did not hold up once 12 series were compared"))
        #expect(!insight.summary.contains("No clear difference"))
        let correction = try #require(insight.conditions.first { $0.id == "correction" })
        #expect(!correction.held && correction.text.contains("12 series"))
        #expect(insight.conditions.first { $0.id == "interval" }?.held == true)
    }

    @Test func everyCardSaysWhichConditionsHeld() throws {
        let sleep = try #require(scenario(asOf: "2026-04-30").first { $0.metricID == "sleep_quality" })
        #expect(sleep.conditions.map(\.id) == ["days", "interval", "effect-size", "look", "correction"])
        #expect(sleep.conditions.allSatisfy { $0.held })
        let young = try #require(scenario(asOf: "2026-03-05").first { $0.metricID == "sleep_quality" })
        #expect(young.conditions.first?.held == false)
        #expect(young.conditions.first?.text.contains("10 needed on each side") == true)
    }

    @Test func bothLooksShareOneErrorRate() {
        // Within Bonferroni's bound, so either look stays at 5% whatever the looks' correlation; the 14-day look,
        // read first, gets the larger share.
        #expect(InsightEngine.lookAlpha(windowDays: 14) + InsightEngine.lookAlpha(windowDays: 28) <= InsightEngine.falseDiscoveryRate + 1e-12)
        #expect(InsightEngine.lookAlpha(windowDays: 14) > InsightEngine.lookAlpha(windowDays: 28))
        #expect(InsightEngine.lookAlpha(windowDays: 28) > 0)
    }

    @Test func aLaterOnsetIsFoundOnlyWhenSearchedAndTheSearchIsCounted() throws {
        var g = SeededGenerator(seed: 8)
        var values: [LocalDay: Double] = [:]
        for d in 0..<120 { values[Fixture.day("2026-01-01").adding(days: d)] = (d >= 59 + 5 ? 4.2 : 3) + 0.4 * Fixture.normal(&g) }
        let plain = MetricSeriesInput(id: "sleep_quality", name: "Sleep quality", unit: "1-5", values: values)
        let searched = MetricSeriesInput(id: "sleep_quality", name: "Sleep quality", unit: "1-5", values: values, searchesOnset: true)
        let entries = Fixture.daily("2026-03-01", "2026-04-30")
        let a = try #require(engine.insights(entries: entries, schedules: [], series: [plain], asOf: Fixture.day("2026-03-20")).first)
        let b = try #require(engine.insights(entries: entries, schedules: [], series: [searched], asOf: Fixture.day("2026-03-20")).first)
        #expect(a.onsetsSearched == 1 && a.result.onsetDays == 0)
        #expect(b.onsetsSearched == 8)
        #expect(b.result.onsetDays >= 3 && b.result.onsetDays <= 7)
        let p = try #require(b.pValue)
        let look = try #require(b.lookPValue)
        #expect(abs(look - min(1, 8 * p)) < 1e-12)
        #expect(b.conditions.first { $0.id == "look" }?.text.contains("8 onsets") == true)
    }

    @Test func noClearDifferenceOnlyWhenTheIntervalRulesOutAShiftThatCounts() throws {
        func result(_ interval: ClosedRange<Double>, meaningful: Double) -> BeforeAfterResult {
            BeforeAfterResult(
                windowDays: 28, before: Fixture.day("2026-02-01")...Fixture.day("2026-02-28"),
                after: Fixture.day("2026-03-01")...Fixture.day("2026-03-28"), beforeCount: 26, afterCount: 25, enoughData: true,
                beforeMean: 3, afterMean: 3.1, difference: (interval.lowerBound + interval.upperBound) / 2, interval: interval,
                hedgesG: 0.1, pValue: 0.5, tStatistic: 0.7, degreesOfFreedom: 40,
                standardError: (interval.upperBound - interval.lowerBound) / 4, meaningfulDifference: meaningful)
        }
        #expect(InsightVerdict(result(-0.2...0.3, meaningful: 0.45), lookPValue: 0.5, adjustedPValue: 0.5, lookAlpha: 0.02) == .noClearDifference)
        #expect(InsightVerdict(result(-0.2...0.9, meaningful: 0.45), lookPValue: 0.5, adjustedPValue: 0.5, lookAlpha: 0.02) == .tooLittleDataToTell)
        #expect(InsightVerdict(result(-0.6...0.3, meaningful: 0.45), lookPValue: 0.5, adjustedPValue: 0.5, lookAlpha: 0.02) == .tooLittleDataToTell)
        let change = ExposureChange(
            productID: ProductID("p"), productName: "Magnesium", kind: .start, kinds: [.start],
            day: Fixture.day("2026-03-01"), description: "starting Magnesium")
        let wide = engine.assemble(
            change: change, series: [MetricSeriesInput(id: "s", name: "Sleep quality", unit: "1-5", values: [:])],
            results: [result(-0.2...0.9, meaningful: 0.45)], placebos: [nil], allChanges: [change],
            dense: [DenseSeries([:])])[0]
        #expect(
            wide.summary.hasPrefix(
                "Too little data to tell whether Sleep quality differed around the time of starting Magnesium on 2026-03-01: the 95% interval −0.20 to +0.90 still includes shifts of 0.45 points on the 1-5 scale or more"
            ))
        let needed = try #require(wide.daysNeeded)
        #expect(needed > 25)
        #expect(wide.summary.contains("about \(needed) days with a value on each side would be needed (there are 26 and 25)"))
        let narrow = engine.assemble(
            change: change, series: [MetricSeriesInput(id: "s", name: "Sleep quality", unit: "1-5", values: [:])],
            results: [result(-0.2...0.3, meaningful: 0.45)], placebos: [nil], allChanges: [change],
            dense: [DenseSeries([:])])[0]
        #expect(
            narrow.summary.hasPrefix(
                "No clear difference in Sleep quality around the time of starting Magnesium on 2026-03-01: the 95% interval rules out a shift of 0.45 points on the 1-5 scale or more either way"
            ))
    }

    @Test func daysBeforeAChangeThatWereNeverLoggedAreNotSaidToBeComing() throws {
        var g = SeededGenerator(seed: 3)
        let late = Fixture.series("2026-02-25", "2026-04-30") { _ in 3 + 0.5 * Fixture.normal(&g) }
        let insight = try #require(
            engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [late],
                asOf: Fixture.day("2026-04-30")
            ).first)
        #expect(insight.verdict == .notEnoughData)
        #expect(insight.summary.hasPrefix("Too little data to compare Sleep quality around the time of starting Magnesium on 2026-03-01"))
        #expect(insight.summary.contains("The days before it are past"))
    }

    @Test func aSlowCarryOverUnderDayNoiseIsFittedAsSuch() {
        // A slow component (φ 0.9) carrying half the variance, under day-to-day noise: lag-1 alone sees ~0.45.
        var g = SeededGenerator(seed: 21)
        var slow = 0.0
        let values: [Double] = (0..<720).map { _ in
            slow = 0.9 * slow + 0.19.squareRoot() * Fixture.normal(&g)
            return 0.71 * slow + 0.71 * Fixture.normal(&g)
        }
        let profile = SeriesProfile(dense: values, firstDay: 0)
        // A plain AR(1) fitted at lag 1 would put the correlation a week apart at ~0.45^7 ≈ 0.004 (true: 0.24).
        #expect(profile.carryOverShare < 1)
        #expect(profile.correlation(lag: 7) > pow(profile.correlation(lag: 1), 7) + 0.05)
    }

    @Test func thePlaceboCheckRunsTheMethodWhereNothingChanged() throws {
        var g = SeededGenerator(seed: 12)
        var x = 0.0
        let long = Fixture.series("2024-01-01", "2026-04-30") { _ in
            x = 0.5 * x + Fixture.normal(&g)
            return 5 + x
        }
        let insight = try #require(
            engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [long],
                asOf: Fixture.day("2026-04-30")
            ).first)
        let placebo = try #require(insight.placebo)
        #expect(placebo.dates == InsightEngine.maximumPlaceboDates)
        #expect(placebo.flagged <= 5)
        #expect(
            InsightsOverview.placeboText(insight)
                == "On your own records, this method flagged \(placebo.flagged) of 40 dates of Sleep quality where nothing changed.")
        let short = try #require(scenario(asOf: "2026-03-20").first)
        #expect((short.placebo?.dates ?? 0) < InsightEngine.minimumPlaceboDates, "too few dates to show, still used to calibrate")
        #expect(InsightsOverview.placeboText(short).hasPrefix("Too few stretches of"))
    }

    @Test func theTwentyEightDayLookIsCalibratedOnItsOwnPlaceboWindowsAndNeverLessThanTheShortOne() throws {
        // A slow carry-over (φ 0.9) under day noise: a longer window's difference spreads wider than the model says.
        var g = SeededGenerator(seed: 40)
        var slow = 0.0
        let series = Fixture.series("2024-01-01", "2026-04-30") { _ in
            slow = 0.9 * slow + 0.19.squareRoot() * Fixture.normal(&g)
            return 5 + 0.71 * slow + 0.71 * Fixture.normal(&g)
        }
        let insight = try #require(
            engine.insights(
                entries: Fixture.daily("2026-03-01", "2026-04-30"), schedules: [], series: [series],
                asOf: Fixture.day("2026-04-30")
            ).first)
        let placebo = try #require(insight.placebo)
        #expect(insight.windowDays == 28)
        #expect(placebo.longVarianceFactor >= placebo.varianceFactor)
        #expect(placebo.varianceFactor(windowDays: 28) == placebo.longVarianceFactor)
        #expect(placebo.varianceFactor(windowDays: 14) == placebo.varianceFactor)
        // A check stored before the 28-day calibration existed reads with the 14-day factor for both looks.
        let old = try JSONDecoder().decode(PlaceboCheck.self, from: Data(#"{"dates":40,"flagged":2,"varianceFactor":1.3}"#.utf8))
        #expect(old.longVarianceFactor == 1.3)
        // Placebo dates a week apart share much of their windows: 1.75 of them carry one date's worth at 14 days.
        #expect(abs(InsightEngine.overlapFactor(windowDays: 14) - 1.75) < 1e-9)
        #expect(InsightEngine.overlapFactor(windowDays: 28) > 2.5)
    }

    @Test func insightsAreGroupedByChangeWithQualifiedChangesFirst() {
        var g = SeededGenerator(seed: 30)
        let sleep = Fixture.series("2025-12-01", "2026-06-30") { d in (d >= 150 ? 4.2 : 3) + 0.3 * Fixture.normal(&g) }
        let steps = Fixture.series("2025-12-01", "2026-06-30", id: "steps", name: "Steps", unit: "steps") { _ in 8000 + 500 * Fixture.normal(&g) }
        // Magnesium from 2026-01-15 (nothing shifts), Vitamin D from 2026-04-30 (sleep shifts): D's group first.
        let entries =
            Fixture.daily("2026-01-15", "2026-06-30")
            + Fixture.daily("2026-04-30", "2026-06-30", product: ProductID("p-d"), name: "Vitamin D")
        let insights = engine.insights(entries: entries, schedules: [], series: [sleep, steps], asOf: Fixture.day("2026-06-30"))
        #expect(insights.map(\.change.productName) == ["Vitamin D", "Vitamin D", "Magnesium", "Magnesium"])
        #expect(insights.first?.status == .qualifiedFinding)
        #expect(InsightsOverview(insights).changes.count == 2)
        #expect(InsightsOverview(insights).summary.hasPrefix("2 changes compared with 2 series: 1 qualified finding"))
    }

    @Test func theEmptyStateSaysWhy() {
        #expect(InsightsOverview.emptyReason(changes: []).contains("single as-needed dose is not one"))
        let change = ExposureChange(
            productID: Fixture.product, productName: "Magnesium", kind: .start, kinds: [.start],
            day: Fixture.day("2026-03-01"), description: "starting Magnesium")
        #expect(InsightsOverview.emptyReason(changes: [change]).contains("no outcome series has a value in the 14 days before or after it"))
    }
}
