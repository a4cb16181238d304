import CairnCore
import Foundation

/// Tag for outcome entries.
public enum OutcomeEntryTag {}
/// The identifier of one outcome entry.
public typealias OutcomeEntryID = Identifier<OutcomeEntryTag>

/// How an entry arrived.
public enum OutcomeOrigin: String, Hashable, Codable, Sendable, CaseIterable {
    /// Typed in on the web page or with `cairn regimen outcomes add`.
    case manual
    /// Read from an outcome CSV.
    case csvImport = "import"
}

/// One value of one metric on one local day. Entries are never changed: a correction is a new entry that
/// `supersedes` an earlier one, and both stay in the history.
public struct OutcomeEntry: Hashable, Sendable {
    /// This entry.
    public let id: OutcomeEntryID
    /// The metric's id.
    public let metricID: String
    /// The local day the value belongs to.
    public let day: LocalDay
    /// The value, inside the metric's range when it was saved.
    public let value: Double
    /// A note; may be empty.
    public let note: String
    /// Typed in or imported.
    public let origin: OutcomeOrigin
    /// When it was saved.
    public let recordedAt: Date
    /// The entry this one corrects, if any.
    public let supersedes: OutcomeEntryID?
    /// The entry that corrects this one, if any (then this one no longer counts).
    public let supersededBy: OutcomeEntryID?

    /// An entry (normally read from storage).
    public init(
        id: OutcomeEntryID, metricID: String, day: LocalDay, value: Double, note: String, origin: OutcomeOrigin,
        recordedAt: Date, supersedes: OutcomeEntryID?, supersededBy: OutcomeEntryID?
    ) {
        self.id = id
        self.metricID = metricID
        self.day = day
        self.value = value
        self.note = note
        self.origin = origin
        self.recordedAt = recordedAt
        self.supersedes = supersedes
        self.supersededBy = supersededBy
    }

    /// True when no later entry corrects this one.
    public var isCurrent: Bool { supersededBy == nil }
}

/// The daily values of one metric: one value per local day that has data.
public struct DailyOutcomeSeries: Hashable, Sendable {
    /// The metric.
    public let metric: MetricDefinition
    /// One value per day with data.
    public let values: [LocalDay: Double]

    /// A series.
    public init(metric: MetricDefinition, values: [LocalDay: Double]) {
        self.metric = metric
        self.values = values
    }

    /// The days with data, oldest first.
    public var days: [LocalDay] { values.keys.sorted() }
}

/// Reduces entries to one value per day by a metric's aggregation.
public enum DailyAggregator {
    /// One value per day. `values` must be in the order they were recorded (it decides `.last`); non-finite
    /// values are left out.
    /// - Complexity: O(n).
    public static func daily(_ values: [(day: LocalDay, value: Double)], by aggregation: DailyAggregation) -> [LocalDay: Double] {
        var sums: [LocalDay: (total: Double, count: Int, last: Double)] = [:]
        for (day, value) in values where value.isFinite {
            let old = sums[day] ?? (0, 0, 0)
            sums[day] = (old.total + value, old.count + 1, value)
        }
        return sums.mapValues { s in
            switch aggregation {
            case .mean: s.total / Double(s.count)
            case .sum: s.total
            case .last: s.last
            }
        }
    }

    /// The series of `metric` from the entries that count (current ones of that metric), by recording order.
    public static func series(of metric: MetricDefinition, from entries: [OutcomeEntry]) -> DailyOutcomeSeries {
        let counted = entries.filter { $0.metricID == metric.id && $0.isCurrent }
            .sorted { ($0.recordedAt, $0.id.rawValue) < ($1.recordedAt, $1.id.rawValue) }
        return DailyOutcomeSeries(metric: metric, values: daily(counted.map { ($0.day, $0.value) }, by: metric.aggregation))
    }
}
