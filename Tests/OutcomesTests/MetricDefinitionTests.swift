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
