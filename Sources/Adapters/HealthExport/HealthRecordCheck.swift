import CairnCore

/// The checks every kept record passes, whichever export it comes from (Apple Health's XML, Health Connect's
/// database): the one place that says which dates, units and values a record may have.
public enum HealthRecordCheck {
    /// Why the record must be left out, or nil when it may be kept. Checked in this order: a date outside
    /// `dates` (UTC seconds, `ImportDates`), an end before the start, then the kind's unit and bounds.
    ///
    /// - Parameters:
    ///   - value: the number read (for sleep, the `HealthSleepValue` raw number).
    ///   - unit: the unit as exported ("" for sleep).
    public static func problem(
        kind: HealthRecordKind, value: Double, unit: String, start: HealthTimestamp, end: HealthTimestamp,
        creation: HealthTimestamp?, dates: Range<Int64>?
    ) -> HealthRecordProblem? {
        if let dates {
            guard dates.contains(start.utcSeconds), dates.contains(end.utcSeconds),
                creation.map({ dates.contains($0.utcSeconds) }) ?? true
            else { return .dateOutOfRange }
        }
        guard end.utcSeconds >= start.utcSeconds else { return .endBeforeStart }
        guard value.isFinite else { return .unreadableValue }
        switch kind {
        case .sleepAnalysis:
            guard value == value.rounded(), HealthSleepValue(rawValue: Int(value)) != nil else { return .unreadableValue }
            guard end.utcSeconds - start.utcSeconds <= 48 * 3600 else { return .impossibleSleepLength }
        case .stepCount:
            guard unit == "count" else { return .unexpectedUnit }
            guard value >= 0 else { return .negativeStepCount }
            let seconds = Double(end.utcSeconds - start.utcSeconds)
            let limit =
                seconds == 0
                ? HealthRecordLimits.stepsPerRecord : HealthRecordLimits.stepsPerSecond * seconds + HealthRecordLimits.stepsSlack
            guard value <= limit else { return .impossibleStepCount }
        case .restingHeartRate, .heartRate:
            guard unit == "count/min" else { return .unexpectedUnit }
            guard value > 0, value <= 300 else { return .impossibleHeartRate }
        case .heartRateVariabilitySDNN:
            guard unit == "ms" else { return .unexpectedUnit }
            guard value > 0, value <= 1000 else { return .impossibleHeartRateVariability }
        case .bodyMass:
            guard let kilograms = BodyMassUnit.kilograms(value, unit: unit) else { return .unexpectedUnit }
            guard kilograms > 0, kilograms <= 650 else { return .impossibleBodyMass }
        case .bloodPressureSystolic, .bloodPressureDiastolic:
            guard unit == "mmHg" else { return .unexpectedUnit }
            guard value > 0, value <= HealthRecordLimits.bloodPressure else { return .impossibleBloodPressure }
        }
        return nil
    }
}
