import Foundation
import Outcomes
import Regimen
import Testing

@Test func aDayOfEntriesBecomesOneValueByTheMetricsAggregation() {
    let values: [(day: LocalDay, value: Double)] = [(day("2026-03-01"), 2), (day("2026-03-01"), 4), (day("2026-03-02"), 5)]
    #expect(DailyAggregator.daily(values, by: .mean) == [day("2026-03-01"): 3, day("2026-03-02"): 5])
    #expect(DailyAggregator.daily(values, by: .sum) == [day("2026-03-01"): 6, day("2026-03-02"): 5])
    #expect(DailyAggregator.daily(values, by: .last) == [day("2026-03-01"): 4, day("2026-03-02"): 5])
}

@Test func aggregationOfNothingIsEmptyAndNonFiniteValuesAreLeftOut() {
    #expect(DailyAggregator.daily([], by: .mean).isEmpty)
    #expect(DailyAggregator.daily([(day("2026-03-01"), .nan), (day("2026-03-01"), 3)], by: .mean) == [day("2026-03-01"): 3])
}

@Test func aSeriesCountsOnlyCurrentEntriesOfItsMetricInRecordingOrder() {
    let entries = [
        entry("body_mass", "2026-03-01", 70, at: 20),
        entry("body_mass", "2026-03-01", 71, at: 10),
        entry("body_mass", "2026-03-01", 99, at: 30, superseded: true),
        entry("energy", "2026-03-01", 3, at: 5),
    ]
    let series = DailyAggregator.series(of: BuiltInMetrics.bodyMass, from: entries)
    #expect(series.values == [day("2026-03-01"): 70])  // last by recording time, the corrected 99 left out
    #expect(series.days == [day("2026-03-01")])
    #expect(DailyAggregator.series(of: BuiltInMetrics.mood, from: entries).values.isEmpty)
}
