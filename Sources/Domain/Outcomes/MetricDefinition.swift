import CairnCore
import Foundation

/// How the entries of one day become that day's single value.
public enum DailyAggregation: String, Hashable, Codable, Sendable, CaseIterable {
    /// The average of the day's values (ratings, heart rate).
    case mean
    /// The total of the day's values (steps, hours asleep).
    case sum
    /// The value recorded last that day (body mass).
    case last
}

/// Where a metric's values come from.
public enum MetricSource: String, Hashable, Codable, Sendable, CaseIterable {
    /// Typed in by the person (web, CLI) or imported from an outcome CSV.
    case manual
    /// Read from a health export, Apple Health's or Health Connect's (read-only; never entered by hand in Cairn).
    /// The raw value keeps the name it had before Health Connect was read.
    case appleHealth = "apple-health"
}

/// What one outcome series measures: its name, unit, per-day aggregation and the values it accepts.
///
/// There is no direction: Cairn never says whether a higher or a lower value is better.
public struct MetricDefinition: Hashable, Sendable {
    /// The stable identifier (lower-case letters, digits and underscores), e.g. "sleep_quality".
    public let id: String
    /// The name shown to the person, e.g. "Sleep quality".
    public let name: String
    /// The unit, e.g. "1-5", "bpm", "ms", "count", "kg", "hours".
    public let unit: String
    /// How a day's entries combine into one value.
    public let aggregation: DailyAggregation
    /// The values accepted (anything outside is refused, never clamped).
    public let valueRange: ClosedRange<Double>
    /// Manual or Apple Health.
    public let source: MetricSource

    /// A definition. Built-in metrics come from `BuiltInMetrics`; people define their own with
    /// `MetricDefinition.custom(id:name:unit:range:aggregation:)`.
    public init(
        id: String, name: String, unit: String, aggregation: DailyAggregation, valueRange: ClosedRange<Double>,
        source: MetricSource
    ) {
        self.id = id
        self.name = name
        self.unit = unit
        self.aggregation = aggregation
        self.valueRange = valueRange
        self.source = source
    }

    /// The largest span a custom metric's range may have, and the largest magnitude of either end.
    public static let largestMagnitude = 1_000_000_000.0

    /// A metric the person defines (a manual metric such as "Headache, 1-5"), validated. Throws
    /// `OutcomeError.invalidMetricID`, `.metricIDTaken` (a built-in id), `.emptyMetricName`, `.invalidRange`.
    public static func custom(
        id: String, name: String, unit: String = "1-5", range: ClosedRange<Double> = 1...5,
        aggregation: DailyAggregation = .mean
    ) throws -> MetricDefinition {
        guard isValidID(id) else { throw OutcomeError.invalidMetricID }
        guard !BuiltInMetrics.all.contains(where: { $0.id == id }) else { throw OutcomeError.metricIDTaken }
        let trimmedName = try TextInput.name(name, field: "metric name").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmedName.isEmpty else { throw OutcomeError.emptyMetricName }
        let trimmedUnit = try TextInput.name(unit, field: "metric unit").trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmedUnit.count <= 20 else { throw OutcomeError.unitTooLong }
        guard range.lowerBound.isFinite, range.upperBound.isFinite, range.lowerBound < range.upperBound,
            abs(range.lowerBound) <= largestMagnitude, abs(range.upperBound) <= largestMagnitude
        else {
            throw OutcomeError.invalidRange
        }
        return MetricDefinition(
            id: id, name: trimmedName, unit: trimmedUnit, aggregation: aggregation, valueRange: range,
            source: .manual)
    }

    /// True for 1...40 characters of a-z, 0-9 and "_", starting with a letter.
    public static func isValidID(_ id: String) -> Bool {
        guard (1...40).contains(id.count), let first = id.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The value axis of a chart of `values`, the same on the page and in the PDF: a manual metric's whole range
    /// (so a rating of 3 sits where a 3 belongs, never on an axis starting at 2) with its ends and middle; for
    /// other metrics the data's own spread, widened to round steps of 1, 2, 2.5 or 5 times a power of ten, and
    /// never past the metric's own range (no hour of sleep below zero). Ticks from the top down.
    public func chartAxis(for values: [Double]) -> (low: Double, high: Double, ticks: [Double]) {
        let range = valueRange
        if source == .manual, range.upperBound - range.lowerBound <= 20 {
            return (range.lowerBound, range.upperBound, [range.upperBound, (range.lowerBound + range.upperBound) / 2, range.lowerBound])
        }
        var low = values.min() ?? range.lowerBound
        var high = values.max() ?? range.lowerBound + 1
        if high - low < 1e-9 {
            low -= max(1, abs(low) * 0.05)
            high += max(1, abs(high) * 0.05)
        }
        low = max(low, range.lowerBound)
        high = min(high, range.upperBound)
        let rough = max((high - low) / 3, 1e-9)
        let magnitude = pow(10, log10(rough).rounded(.down))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let first = max((low / step).rounded(.down) * step, range.lowerBound)
        let last = min((high / step).rounded(.up) * step, range.upperBound)
        let ticks = stride(from: last, through: first - step / 2, by: -step).map { $0 }.filter { $0 >= first - 1e-9 }
        return (first, last, ticks)
    }

    /// Whether `value` is a finite number inside `valueRange`.
    public func accepts(_ value: Double) -> Bool { value.isFinite && valueRange.contains(value) }

    /// "1-5", "0-24": the range as the person reads it.
    public var rangeText: String { "\(Self.number(valueRange.lowerBound))-\(Self.number(valueRange.upperBound))" }

    /// A value without a needless ".0" and with at most two decimals ("3", "3.5", "61.25").
    public static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// The metrics every vault has. Their ids are pinned: the Apple Health import keys its daily values by them,
/// and the insights engine names them.
public enum BuiltInMetrics {
    /// Sleep quality, rated 1-5 (manual).
    public static let sleepQuality = rating("sleep_quality", "Sleep quality")
    /// Energy, rated 1-5 (manual).
    public static let energy = rating("energy", "Energy")
    /// Skin, rated 1-5 (manual).
    public static let skin = rating("skin", "Skin")
    /// Mood, rated 1-5 (manual).
    public static let mood = rating("mood", "Mood")
    /// Resting heart rate in beats per minute, the day's mean (Apple Health RestingHeartRate).
    public static let restingHeartRate = MetricDefinition(
        id: "resting_heart_rate", name: "Resting heart rate", unit: "bpm",
        aggregation: .mean, valueRange: 20...250, source: .appleHealth)
    /// Heart rate variability as SDNN in milliseconds, the day's mean (never RMSSD).
    public static let hrvSDNN = MetricDefinition(
        id: "hrv_sdnn", name: "Heart rate variability (SDNN)", unit: "ms",
        aggregation: .mean, valueRange: 1...500, source: .appleHealth)
    /// Steps, the day's total.
    public static let steps = MetricDefinition(
        id: "steps", name: "Steps", unit: "count", aggregation: .sum,
        valueRange: 0...200_000, source: .appleHealth)
    /// Body mass in kilograms, the day's last value.
    public static let bodyMass = MetricDefinition(
        id: "body_mass", name: "Body mass", unit: "kg", aggregation: .last,
        valueRange: 1...500, source: .appleHealth)
    /// Hours asleep (any sleep stage), the day's total.
    public static let sleepAsleep = MetricDefinition(
        id: "sleep_asleep", name: "Time asleep", unit: "hours", aggregation: .sum,
        valueRange: 0...24, source: .appleHealth)
    /// Hours in bed, the day's total.
    public static let sleepInBed = MetricDefinition(
        id: "sleep_in_bed", name: "Time in bed", unit: "hours", aggregation: .sum,
        valueRange: 0...24, source: .appleHealth)

    /// Heart rate in beats per minute, the day's mean of every sample (Health Connect's heart rate series).
    public static let heartRate = MetricDefinition(
        id: "heart_rate", name: "Heart rate", unit: "bpm",
        aggregation: .mean, valueRange: 20...250, source: .appleHealth)
    /// Systolic blood pressure in mmHg, the day's mean.
    public static let bloodPressureSystolic = MetricDefinition(
        id: "blood_pressure_systolic", name: "Blood pressure, systolic", unit: "mmHg",
        aggregation: .mean, valueRange: 20...300, source: .appleHealth)
    /// Diastolic blood pressure in mmHg, the day's mean.
    public static let bloodPressureDiastolic = MetricDefinition(
        id: "blood_pressure_diastolic", name: "Blood pressure, diastolic", unit: "mmHg",
        aggregation: .mean, valueRange: 10...250, source: .appleHealth)

    /// Every built-in metric: the four manual ratings, then the health export metrics.
    public static let all: [MetricDefinition] = [
        sleepQuality, energy, skin, mood, restingHeartRate, hrvSDNN, steps, bodyMass,
        sleepAsleep, sleepInBed, heartRate, bloodPressureSystolic, bloodPressureDiastolic,
    ]

    /// The built-in metric with this id, or nil.
    public static func definition(_ id: String) -> MetricDefinition? { all.first { $0.id == id } }

    private static func rating(_ id: String, _ name: String) -> MetricDefinition {
        MetricDefinition(id: id, name: name, unit: "1-5", aggregation: .mean, valueRange: 1...5, source: .manual)
    }
}
