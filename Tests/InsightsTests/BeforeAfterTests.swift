import CairnCore
import Foundation
import Insights
import Regimen
import Testing

struct BeforeAfterTests {
    let flat = SeriesProfile(weekdayEffect: Array(repeating: 0, count: 7), autocorrelation: 0)

    private func dense(_ s: MetricSeriesInput) -> DenseSeries { DenseSeries(s.values) }

    @Test func aClearShiftGivesAnIntervalThatExcludesZero() throws {
        var g = SeededGenerator(seed: 1)
        let s = Fixture.series("2026-01-01", "2026-04-30") { $0 >= 59 ? 4 + 0.3 * Fixture.normal(&g) : 3 + 0.3 * Fixture.normal(&g) }
        let d = dense(s)
        // Blocks start anew at the change, as in the app (`PreparedSeries.profile(around:)`): the shift itself is
        // not carry-over. Fitted across it, one block of both levels would read as a near-permanent carry-over.
        let profile = SeriesProfile(dense: d.values, firstDay: d.firstDay, breaks: [Fixture.day("2026-03-01").dayNumber])
        #expect(profile.correlation(lag: 1) < 0.4)
        let r = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: profile,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-04-30"))
        #expect(r.windowDays == 28)
        #expect(r.before == Fixture.day("2026-02-01")...Fixture.day("2026-02-28"))
        #expect(r.after == Fixture.day("2026-03-01")...Fixture.day("2026-03-28"))
        #expect(r.beforeCount == 28 && r.afterCount == 28 && r.enoughData)
        let interval = try #require(r.interval)
        #expect(interval.lowerBound > 0)
        #expect(abs(try #require(r.difference) - 1) < 0.3)
        #expect(try #require(r.hedgesG) > 1)
    }

    @Test func theWindowIsFourteenDaysUntilTwentyEightHavePassed() {
        let s = Fixture.series("2026-01-01", "2026-04-30") { Double($0 % 5) }
        let d = dense(s)
        let young = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: flat,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-03-27"))
        #expect(young.windowDays == 14)
        let mature = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: flat,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-03-28"))
        #expect(mature.windowDays == 28)
    }

    @Test func tooFewValidDaysIsNotEnoughData() {
        // Values only on every other day: 7 of 14 on each side, 10 needed.
        let s = Fixture.series("2026-01-01", "2026-04-30", skip: Set(stride(from: 0, to: 200, by: 2))) { Double($0 % 3) }
        let d = dense(s)
        let r = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: flat,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-03-20"))
        #expect(!r.enoughData)
        #expect(BeforeAfterAnalysis.minimumValidDays(14) == 10)
        #expect(BeforeAfterAnalysis.minimumValidDays(28) == 20)
    }

    @Test func anEmptySeriesGivesNoFigures() {
        let r = BeforeAfterAnalysis().compare(
            dense: [], firstDay: 0, profile: flat, changeDay: Fixture.day("2026-03-01"),
            asOf: Fixture.day("2026-04-01"))
        #expect(r.beforeCount == 0 && r.afterCount == 0 && !r.enoughData)
        #expect(r.difference == nil && r.interval == nil && r.hedgesG == nil && r.beforeMean == nil)
    }

    @Test func autocorrelationWidensTheInterval() throws {
        var g = SeededGenerator(seed: 7)
        let s = Fixture.series("2026-01-01", "2026-04-30") { _ in 3 + Fixture.normal(&g) }
        let d = dense(s)
        let sticky = SeriesProfile(weekdayEffect: Array(repeating: 0, count: 7), autocorrelation: 0.7)
        let plain = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: flat,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-04-30"))
        let wide = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: sticky,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-04-30"))
        let a = try #require(plain.interval)
        let b = try #require(wide.interval)
        #expect(b.upperBound - b.lowerBound > 1.5 * (a.upperBound - a.lowerBound))
    }

    @Test func theProfileFindsTheWeeklyRhythmAndTheAutocorrelation() {
        var g = SeededGenerator(seed: 3)
        var previous = 0.0
        // AR(1) with phi 0.6 plus +2 on Saturdays and Sundays, a year long.
        let s = Fixture.series("2025-01-01", "2025-12-31") { i in
            previous = 0.6 * previous + Fixture.normal(&g)
            let day = Fixture.day("2025-01-01").adding(days: i)
            return 10 + previous + (day.weekday == .saturday || day.weekday == .sunday ? 2 : 0)
        }
        let d = dense(s)
        let profile = SeriesProfile(dense: d.values, firstDay: d.firstDay)
        #expect(abs(profile.weekdayEffect[5] - profile.weekdayEffect[0] - 2) < 0.5)
        #expect(abs(profile.autocorrelation - 0.6) < 0.12)
    }

    @Test func withoutCarryOverTheStepIsTheDifferenceOfMeans() throws {
        var g = SeededGenerator(seed: 5)
        let s = Fixture.series("2026-01-01", "2026-04-30", skip: [40, 50, 66]) { _ in 3 + Fixture.normal(&g) }
        let d = dense(s)
        let r = BeforeAfterAnalysis().compare(
            dense: d.values, firstDay: d.firstDay, profile: flat,
            changeDay: Fixture.day("2026-03-01"), asOf: Fixture.day("2026-04-30"))
        let diff = try #require(r.difference)
        #expect(abs(diff - (try #require(r.afterMean) - (try #require(r.beforeMean)))) < 1e-9)
    }

    @Test func theProfileCarriesTheVarianceOfTheWholeHistory() throws {
        var g = SeededGenerator(seed: 6)
        let s = Fixture.series("2025-01-01", "2025-12-31") { _ in 10 + 2 * Fixture.normal(&g) }
        let d = dense(s)
        let profile = SeriesProfile(dense: d.values, firstDay: d.firstDay)
        #expect(abs(try #require(profile.variance) - 4) < 0.8)
        #expect(profile.varianceWeight > 300)
    }

    @Test func aSlowCarryOverIsKeptFromAFewMonthsOfHistory() {
        // A slow component (φ 0.9) carrying half the variance under day noise, 120 days: the correlation of days
        // two weeks apart is 0.5 · 0.9^14 ≈ 0.11. Demeaned in 28-day blocks, most of it went with the block means
        // (median estimate about 0.03), which is what narrowed intervals and made false findings.
        var g = SeededGenerator(seed: 77)
        var estimates: [Double] = []
        for _ in 0..<61 {
            var slow = Fixture.normal(&g)
            let values: [Double] = (0..<120).map { i in
                if i > 0 { slow = 0.9 * slow + 0.19.squareRoot() * Fixture.normal(&g) }
                return 0.71 * slow + 0.71 * Fixture.normal(&g)
            }
            estimates.append(SeriesProfile(dense: values, firstDay: 0).correlation(lag: 14))
        }
        #expect(estimates.sorted()[30] > 0.06)
    }

    @Test func aShortSeriesGetsACautiousAutocorrelation() {
        let s = Fixture.series("2026-03-01", "2026-03-20") { Double($0 % 2) }
        let d = dense(s)
        #expect(SeriesProfile(dense: d.values, firstDay: d.firstDay).autocorrelation >= SeriesProfile.shortSeriesAutocorrelation)
    }
}

/// A small version of the `cairn-bench insights` simulation: it guards the calibration of the interval.
struct CalibrationTests {
    private func findingRate(phi: Double, shift: Double, runs: Int, seed: UInt64) -> Double {
        var g = SeededGenerator(seed: seed)
        let length = 148
        let change = 120
        let first = LocalDay(parsing: "2026-01-05")!.dayNumber
        var values = [Double](repeating: .nan, count: length)
        var findings = 0
        for _ in 0..<runs {
            var x = Fixture.normal(&g)
            for i in 0..<length {
                if i > 0 { x = phi * x + (1 - phi * phi).squareRoot() * Fixture.normal(&g) }
                let weekend = LocalDay(dayNumber: first + i).weekday.rawValue >= 6
                values[i] = g.unit() < 0.1 ? .nan : x + (weekend ? 0.6 : -0.2) + (i >= change ? shift : 0)
            }
            // As the app does: the profile is fitted with the change's own 28 days masked (`profile(around:)`), so
            // the shift does not pass for carry-over; the 28-day look's profile, before any calibration (the
            // simulation only ever widens this look).
            let prepared = InsightEngine.PreparedSeries(
                MetricSeriesInput(id: "m", name: "M", unit: "", values: [:]),
                dense: DenseSeries(firstDay: first, values: values))
            let changeDay = LocalDay(dayNumber: first + change)
            let r = BeforeAfterAnalysis().compare(
                dense: values, firstDay: first, profile: prepared.profile(around: changeDay, windowDays: 28),
                changeDay: changeDay, asOf: LocalDay(dayNumber: first + length - 1))
            if InsightEngine.qualifies(r, adjustedPValue: r.pValue) { findings += 1 }
        }
        return Double(findings) / Double(runs)
    }

    @Test func autocorrelatedSeriesWithoutAShiftRarelyGiveAFinding() {
        // 400 runs: a true rate of 5% would exceed 8% less than 1% of the time.
        #expect(findingRate(phi: 0.5, shift: 0, runs: 400, seed: 1) <= 0.08)
        #expect(findingRate(phi: 0.7, shift: 0, runs: 400, seed: 2) <= 0.08)
    }

    @Test func aLargeShiftIsUsuallyFound() {
        #expect(findingRate(phi: 0.3, shift: 1.5, runs: 200, seed: 3) >= 0.8)
    }
}
