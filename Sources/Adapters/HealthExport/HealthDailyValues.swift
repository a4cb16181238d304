import CairnCore
import Foundation

/// The outcome metrics a health import (Apple Health or Health Connect) feeds, by their pinned ids.
public enum HealthMetric: String, Sendable, Hashable, CaseIterable, Codable {
    /// Resting heart rate, count/min (bpm): the daily mean.
    case restingHeartRate = "resting_heart_rate"
    /// Heart rate variability as SDNN, ms: the daily mean.
    case hrvSDNN = "hrv_sdnn"
    /// Steps: the daily sum.
    case steps = "steps"
    /// Body mass, kg: the last value of the day.
    case bodyMass = "body_mass"
    /// Hours asleep (any asleep stage), attributed to the day the sleep ends on.
    case sleepAsleep = "sleep_asleep"
    /// Hours in bed, attributed to the day the time in bed ends on.
    case sleepInBed = "sleep_in_bed"
    /// Heart rate, count/min (bpm): the daily mean of the samples (Health Connect's heart rate series).
    case heartRate = "heart_rate"
    /// Systolic blood pressure, mmHg: the daily mean.
    case bloodPressureSystolic = "blood_pressure_systolic"
    /// Diastolic blood pressure, mmHg: the daily mean.
    case bloodPressureDiastolic = "blood_pressure_diastolic"

    /// The unit daily values are in.
    public var unit: String {
        switch self {
        case .restingHeartRate, .heartRate: return "bpm"
        case .bloodPressureSystolic, .bloodPressureDiastolic: return "mmHg"
        case .hrvSDNN: return "ms"
        case .steps: return "count"
        case .bodyMass: return "kg"
        case .sleepAsleep, .sleepInBed: return "h"
        }
    }
}

/// A source of records (an app or device) as far as merging needs to know it.
public struct HealthSource: Hashable, Sendable {
    /// The source name, e.g. "Alexandre's Apple Watch".
    public let name: String
    /// The `device` description, or "".
    public let device: String

    /// A source.
    public init(name: String, device: String) {
        self.name = name
        self.device = device
    }

    /// Whether the source is a watch: its device says `model:Watch` (Apple) or `type:watch` (Health Connect's
    /// device type), or, without a device, its name mentions a watch. Watches are worn, so where they cover a time
    /// they are preferred to a phone in a pocket.
    public var isWatch: Bool {
        if !device.isEmpty { return device.contains("model:Watch") || device.contains("type:watch") }
        return name.localizedCaseInsensitiveContains("watch")
    }
}

/// One stored record reduced to what daily values need. Body mass is already in kg.
public struct HealthSample: Sendable, Equatable {
    /// What it measures.
    public let kind: HealthRecordKind
    /// An index into the sources given to `HealthDailyValues.compute`.
    public let source: Int
    /// The value (kg for body mass; the `HealthSleepValue` raw number for sleep).
    public let value: Double
    /// Start of the interval.
    public let start: HealthTimestamp
    /// End of the interval.
    public let end: HealthTimestamp
    /// The record's `HKTimeZone`, if any.
    public let timeZoneIdentifier: String?

    /// A sample; body mass in kg.
    public init(
        kind: HealthRecordKind, source: Int, value: Double, start: HealthTimestamp, end: HealthTimestamp,
        timeZoneIdentifier: String?
    ) {
        self.kind = kind
        self.source = source
        self.value = value
        self.start = start
        self.end = end
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The sample of a record (body mass converted to kg); nil for a body mass in a unit that is not a mass.
    public init?(_ record: HealthRecord, source: Int) {
        var value = record.value
        if record.kind == .bodyMass {
            guard let kilograms = BodyMassUnit.kilograms(record.value, unit: record.unit) else { return nil }
            value = kilograms
        }
        self.init(
            kind: record.kind, source: source, value: value, start: record.startDate, end: record.endDate,
            timeZoneIdentifier: record.timeZoneIdentifier)
    }
}

/// Turns samples from several sources into one value per metric and local day, never counting the same time
/// twice.
///
/// The rule (per metric):
/// 1. **Source priority.** Sources are ranked: an Apple Watch first (worn, so where it covers a time it saw
///    that time), then by coverage of that metric (seconds covered for steps and sleep, samples for the others),
///    then by name. The ranking is per metric: a phone can lead steps while a watch leads sleep.
/// 2. **Interval metrics (steps, sleep).** For each stretch of time, the highest-ranked source that covers it
///    wins; lower-ranked sources count only for time no higher-ranked source covers. A step sample partly
///    covered counts in proportion to its uncovered time. For sleep, a source covers the time of all its stage
///    samples (awake included), so a lower-ranked source cannot add sleep inside a higher-ranked source's
///    night; InBed is merged the same way, separately.
/// 3. **Point metrics (resting heart rate, heart rate, HRV, body mass, blood pressure).** For each day, the samples of the highest-ranked
///    source that has any that day: their mean (body mass: the last one).
///
/// Days are local days: in the record's `HKTimeZone` when it has one (exports write every date in the zone of
/// the phone at export time, so the metadata is what says where the person was), else in the record's own
/// `±HHMM` offset. A step sample counts on the day it starts. Sleep is gathered into sessions (asleep time with
/// gaps under two hours between pieces) and a session counts, whole, on the day it ends: a night that runs past
/// midnight belongs to the morning after, an afternoon nap to its own day.
public enum HealthDailyValues {
    /// Gaps shorter than this join two pieces of sleep into one session.
    public static let sleepSessionGap: Int64 = 2 * 3600

    /// Daily values keyed by `HealthMetric` raw value; a metric with no days is absent.
    /// - Complexity: O(n log n) in the number of samples.
    public static func compute(_ samples: [HealthSample], sources: [HealthSource]) -> [String: [LocalDay: Double]] {
        var days = DayResolver()
        var byKind: [HealthRecordKind: [HealthSample]] = [:]
        for sample in samples { byKind[sample.kind, default: []].append(sample) }
        var result: [String: [LocalDay: Double]] = [:]
        func put(_ metric: HealthMetric, _ values: [LocalDay: Double]) {
            if !values.isEmpty { result[metric.rawValue] = values }
        }
        put(.restingHeartRate, pointValues(byKind[.restingHeartRate] ?? [], sources: sources, last: false, &days))
        put(.hrvSDNN, pointValues(byKind[.heartRateVariabilitySDNN] ?? [], sources: sources, last: false, &days))
        put(.bodyMass, pointValues(byKind[.bodyMass] ?? [], sources: sources, last: true, &days))
        put(.heartRate, pointValues(byKind[.heartRate] ?? [], sources: sources, last: false, &days))
        put(.bloodPressureSystolic, pointValues(byKind[.bloodPressureSystolic] ?? [], sources: sources, last: false, &days))
        put(.bloodPressureDiastolic, pointValues(byKind[.bloodPressureDiastolic] ?? [], sources: sources, last: false, &days))
        put(.steps, stepValues(byKind[.stepCount] ?? [], sources: sources, &days))
        let sleep = byKind[.sleepAnalysis] ?? []
        let stages = sleep.filter { $0.value != Double(HealthSleepValue.inBed.rawValue) }
        let asleep = mergedIntervals(stages, sources: sources) { HealthSleepValue(rawValue: Int($0.value))?.isAsleep ?? false }
        put(.sleepAsleep, sessionHours(asleep, &days))
        let inBed = mergedIntervals(sleep.filter { $0.value == Double(HealthSleepValue.inBed.rawValue) }, sources: sources) { _ in true }
        put(.sleepInBed, sessionHours(inBed, &days))
        return result
    }

    // MARK: ranking

    /// Source indices, best first, for one metric's samples.
    static func ranked(_ samples: [HealthSample], sources: [HealthSource], byDuration: Bool) -> [Int] {
        var coverage: [Int: Int64] = [:]
        for s in samples { coverage[s.source, default: 0] += byDuration ? s.end.utcSeconds - s.start.utcSeconds : 1 }
        func watch(_ i: Int) -> Bool { sources.indices.contains(i) && sources[i].isWatch }
        func name(_ i: Int) -> String { sources.indices.contains(i) ? sources[i].name : "" }
        return coverage.keys.sorted { a, b in
            if watch(a) != watch(b) { return watch(a) }
            if coverage[a]! != coverage[b]! { return coverage[a]! > coverage[b]! }
            if name(a) != name(b) { return name(a) < name(b) }
            return a < b
        }
    }

    // MARK: point metrics

    private static func pointValues(
        _ samples: [HealthSample], sources: [HealthSource], last: Bool,
        _ days: inout DayResolver
    ) -> [LocalDay: Double] {
        guard !samples.isEmpty else { return [:] }
        let rank = Dictionary(uniqueKeysWithValues: ranked(samples, sources: sources, byDuration: false).enumerated().map { ($1, $0) })
        var best: [LocalDay: (rank: Int, samples: [HealthSample])] = [:]
        for sample in samples {
            let day = days.day(of: sample.start, zone: sample.timeZoneIdentifier)
            let r = rank[sample.source]!
            if let current = best[day], current.rank < r { continue }
            if let current = best[day], current.rank == r {
                best[day]!.samples.append(sample)
            } else {
                best[day] = (r, [sample])
            }
        }
        return best.mapValues { entry in
            if last {
                return entry.samples.max { ($0.end, $0.start) < ($1.end, $1.start) }!.value
            }
            return entry.samples.reduce(0) { $0 + $1.value } / Double(entry.samples.count)
        }
    }

    // MARK: steps

    private static func stepValues(
        _ samples: [HealthSample], sources: [HealthSource],
        _ days: inout DayResolver
    ) -> [LocalDay: Double] {
        guard !samples.isEmpty else { return [:] }
        var bySource: [Int: [HealthSample]] = [:]
        for s in samples { bySource[s.source, default: []].append(s) }
        var covered = IntervalSet()
        var totals: [LocalDay: Double] = [:]
        for source in ranked(samples, sources: sources, byDuration: true) {
            let own = bySource[source]!
            for sample in own {
                let start = sample.start.utcSeconds
                let end = sample.end.utcSeconds
                let share: Double
                if end == start {
                    share = covered.contains(start) ? 0 : 1
                } else {
                    let free = (end - start) - covered.overlap(start, end)
                    share = Double(free) / Double(end - start)
                }
                guard share > 0 else { continue }
                totals[days.day(of: sample.start, zone: sample.timeZoneIdentifier), default: 0] += sample.value * share
            }
            covered.formUnion(own.map { Interval(start: $0.start.utcSeconds, end: $0.end.utcSeconds) })
        }
        return totals
    }

    // MARK: sleep

    /// A piece of time kept after merging, with the timestamp and zone of the record it ends with.
    struct Piece {
        var start: Int64
        var end: HealthTimestamp
        var zone: String?
    }

    /// The time, across sources by rank, where the winning source's samples satisfy `counts`.
    private static func mergedIntervals(
        _ samples: [HealthSample], sources: [HealthSource],
        counts: (HealthSample) -> Bool
    ) -> [Piece] {
        guard !samples.isEmpty else { return [] }
        var bySource: [Int: [HealthSample]] = [:]
        for s in samples { bySource[s.source, default: []].append(s) }
        var covered = IntervalSet()
        var pieces: [Piece] = []
        for source in ranked(samples, sources: sources, byDuration: true) {
            let own = bySource[source]!
            for sample in own where counts(sample) {
                for free in covered.gaps(sample.start.utcSeconds, sample.end.utcSeconds) {
                    let endStamp =
                        free.end == sample.end.utcSeconds
                        ? sample.end
                        : HealthTimestamp(utcSeconds: free.end, offsetSeconds: sample.end.offsetSeconds)!
                    pieces.append(Piece(start: free.start, end: endStamp, zone: sample.timeZoneIdentifier))
                }
            }
            covered.formUnion(own.map { Interval(start: $0.start.utcSeconds, end: $0.end.utcSeconds) })
        }
        return pieces
    }

    /// Hours per day of sessions of pieces (union, then gaps under `sleepSessionGap` joined), each session on
    /// the local day of its end.
    private static func sessionHours(_ pieces: [Piece], _ days: inout DayResolver) -> [LocalDay: Double] {
        guard !pieces.isEmpty else { return [:] }
        let sorted = pieces.sorted { $0.start < $1.start }
        var totals: [LocalDay: Double] = [:]
        var seconds: Int64 = 0
        var unionEnd = sorted[0].start
        var sessionEnd = sorted[0]
        func close() {
            if seconds > 0 {
                totals[days.day(of: sessionEnd.end, zone: sessionEnd.zone), default: 0] += Double(seconds) / 3600
            }
            seconds = 0
        }
        for piece in sorted {
            if piece.start - unionEnd >= sleepSessionGap { close() }
            let from = max(piece.start, unionEnd)
            if piece.end.utcSeconds > from { seconds += piece.end.utcSeconds - from }
            if piece.end.utcSeconds >= sessionEnd.end.utcSeconds || seconds == 0 { sessionEnd = piece }
            unionEnd = max(unionEnd, piece.end.utcSeconds)
        }
        close()
        return totals
    }
}

/// A half-open interval of UTC seconds.
struct Interval: Equatable {
    var start: Int64
    var end: Int64
}

/// Disjoint, sorted intervals.
struct IntervalSet {
    private(set) var intervals: [Interval] = []

    /// Whether `instant` lies inside an interval (start inclusive, end exclusive).
    func contains(_ instant: Int64) -> Bool {
        let i = firstEndingAfter(instant)
        return i < intervals.count && intervals[i].start <= instant
    }

    /// Seconds of [start, end) inside the set.
    func overlap(_ start: Int64, _ end: Int64) -> Int64 {
        var total: Int64 = 0
        var i = firstEndingAfter(start)
        while i < intervals.count, intervals[i].start < end {
            total += min(end, intervals[i].end) - max(start, intervals[i].start)
            i += 1
        }
        return total
    }

    /// The parts of [start, end) outside the set.
    func gaps(_ start: Int64, _ end: Int64) -> [Interval] {
        var result: [Interval] = []
        var cursor = start
        var i = firstEndingAfter(start)
        while i < intervals.count, intervals[i].start < end {
            if intervals[i].start > cursor { result.append(Interval(start: cursor, end: intervals[i].start)) }
            cursor = max(cursor, intervals[i].end)
            i += 1
        }
        if cursor < end { result.append(Interval(start: cursor, end: end)) }
        return result
    }

    /// Adds `more` (any order, may overlap).
    mutating func formUnion(_ more: [Interval]) {
        let all = (intervals + more.filter { $0.end > $0.start }).sorted { $0.start < $1.start }
        var merged: [Interval] = []
        merged.reserveCapacity(all.count)
        for interval in all {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1].end = max(last.end, interval.end)
            } else {
                merged.append(interval)
            }
        }
        intervals = merged
    }

    /// The index of the first interval whose end is after `instant` (binary search).
    private func firstEndingAfter(_ instant: Int64) -> Int {
        var low = 0
        var high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if intervals[mid].end <= instant { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// Local days of instants, with the zones looked up once each.
struct DayResolver {
    private var zones: [String: TimeZone?] = [:]

    /// The local day of `stamp`: in `zone` when it is a known IANA zone, else in the stamp's own offset.
    mutating func day(of stamp: HealthTimestamp, zone: String?) -> LocalDay {
        var offset = Int64(stamp.offsetSeconds)
        if let zone {
            if zones[zone] == nil { zones[zone] = .some(TimeZone(identifier: zone)) }
            if let timeZone = zones[zone]! {
                offset = Int64(timeZone.secondsFromGMT(for: stamp.date))
            }
        }
        let local = stamp.utcSeconds + offset
        let dayNumber = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return LocalDay(dayNumber: Int(dayNumber))
    }
}
