import CairnCore
import Foundation
import Outcomes
import Testing

@Test func theBuiltInMetricIdsArePinned() {
    #expect(
        BuiltInMetrics.all.map(\.id) == [
            "sleep_quality", "energy", "skin", "mood", "resting_heart_rate", "hrv_sdnn",
            "steps", "body_mass", "sleep_asleep", "sleep_in_bed", "heart_rate", "blood_pressure_systolic",
            "blood_pressure_diastolic",
        ])
    #expect(BuiltInMetrics.bloodPressureSystolic.unit == "mmHg" && BuiltInMetrics.bloodPressureDiastolic.aggregation == .mean)
    #expect(BuiltInMetrics.all.filter { $0.source == .manual }.allSatisfy { $0.valueRange == 1...5 && $0.aggregation == .mean })
    #expect(BuiltInMetrics.steps.aggregation == .sum && BuiltInMetrics.bodyMass.aggregation == .last)
    #expect(BuiltInMetrics.hrvSDNN.unit == "ms" && BuiltInMetrics.hrvSDNN.name.contains("SDNN"))
    #expect(BuiltInMetrics.definition("steps") == BuiltInMetrics.steps)
    #expect(BuiltInMetrics.definition("nope") == nil)
}

@Test func aCustomMetricIsValidated() throws {
    let headache = try MetricDefinition.custom(id: "headache", name: " Headache ")
    #expect(headache.name == "Headache" && headache.valueRange == 1...5 && headache.source == .manual && headache.aggregation == .mean)
    let water = try MetricDefinition.custom(id: "water_l", name: "Water", unit: "L", range: 0...10, aggregation: .sum)
    #expect(water.rangeText == "0-10")
    #expect(throws: OutcomeError.invalidMetricID) { try MetricDefinition.custom(id: "Headache", name: "x") }
    #expect(throws: OutcomeError.invalidMetricID) { try MetricDefinition.custom(id: "", name: "x") }
    #expect(throws: OutcomeError.invalidMetricID) { try MetricDefinition.custom(id: "1st", name: "x") }
    #expect(throws: OutcomeError.invalidMetricID) { try MetricDefinition.custom(id: String(repeating: "a", count: 41), name: "x") }
    #expect(throws: OutcomeError.metricIDTaken) { try MetricDefinition.custom(id: "energy", name: "x") }
    #expect(throws: OutcomeError.emptyMetricName) { try MetricDefinition.custom(id: "a", name: "  ") }
    #expect(throws: OutcomeError.invalidRange) { try MetricDefinition.custom(id: "a", name: "A", range: 5...5) }
    #expect(throws: OutcomeError.invalidRange) { try MetricDefinition.custom(id: "a", name: "A", range: 0...Double.infinity) }
    #expect(throws: OutcomeError.unitTooLong) { try MetricDefinition.custom(id: "a", name: "A", unit: String(repeating: "u", count: 21)) }
}

@Test func acceptsOnlyFiniteValuesInsideTheRange() {
    let mood = BuiltInMetrics.mood
    #expect(mood.accepts(1) && mood.accepts(5) && mood.accepts(3.5))
    #expect(!mood.accepts(0.99) && !mood.accepts(5.01) && !mood.accepts(.nan) && !mood.accepts(.infinity))
}

@Test func numbersReadWithoutNeedlessDecimals() {
    #expect(MetricDefinition.number(3) == "3")
    #expect(MetricDefinition.number(3.5) == "3.5")
    #expect(MetricDefinition.number(61.256) == "61.26")
    #expect(MetricDefinition.number(-2) == "-2")
}

@Test func noMetricTextUsesABannedWordOrAJudgement() {
    for metric in BuiltInMetrics.all {
        let text = "\(metric.name) \(metric.unit)".lowercased()
        #expect(ProductWordingCheck.clean(text))
        #expect(!text.contains("better") && !text.contains("worse") && !text.contains("good") && !text.contains("bad"))
    }
}

@Test func aChartAxisShowsARatingOnItsWholeScaleAndNeverGoesPastTheMetricsRange() {
    #expect(BuiltInMetrics.sleepQuality.chartAxis(for: [3, 4, 5]).low == 1, "a 1-5 rating is drawn on 1-5, not 2-5")
    let bed = BuiltInMetrics.sleepInBed.chartAxis(for: [0.02])
    #expect(bed.low >= 0 && bed.ticks.allSatisfy { $0 >= 0 }, "no hour in bed below zero: \(bed)")
    let steps = BuiltInMetrics.steps.chartAxis(for: [3870, 10638])
    #expect(steps.ticks == [12500, 10000, 7500, 5000, 2500] && steps.low == 2500 && steps.high == 12500)
}
