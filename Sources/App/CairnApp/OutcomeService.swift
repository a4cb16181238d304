import CairnCore
import Foundation
import Outcomes
import Regimen
import Storage

/// Outcome series: metric definitions (built-in and the person's own), manual entries, the outcome CSV
/// import, and the daily series the insights read. The only way outcome data changes.
///
/// Decisions:
/// - Entries are append-only. A correction is a new entry that supersedes the old one; both stay.
/// - Manual entries and CSV lines are accepted for manual metrics only. Apple Health metrics come only from
///   a Health export (`healthDailyValues`), so a day's steps are never counted from two places.
/// - A CSV import is all-or-nothing: a file with any bad line imports nothing and reports every bad line.
/// - A CSV import is idempotent. An imported line is identified by (metric, day, n), n counting the lines
///   of that metric and day in the file. Importing the same file again adds nothing; a newer file adds its
///   new lines; a line whose value differs from what an earlier import saved for its key supersedes it (a
///   correction, both kept in the history).
public final class OutcomeService: @unchecked Sendable {
    private let database: Database
    private let clock: any Clock
    private let healthDailyValues: @Sendable () throws -> [String: [LocalDay: Double]]

    /// A service over a migrated database. `healthDailyValues` gives the Apple Health daily values keyed by
    /// built-in metric id (see `BuiltInMetrics`); `dailySeries()` merges them in.
    public init(
        database: Database, clock: any Clock,
        healthDailyValues: @escaping @Sendable () throws -> [String: [LocalDay: Double]] = { [:] }
    ) {
        self.database = database
        self.clock = clock
        self.healthDailyValues = healthDailyValues
    }

    /// The current local day in the person's current zone.
    public func today() -> LocalDay { LocalDay(clock.now(), in: clock.timeZone) }

    // MARK: definitions

    /// Every metric: the built-in ones, then the person's own by name.
    public func definitions() throws -> [MetricDefinition] {
        try database.read { db in BuiltInMetrics.all + (try OutcomeStore(db).customMetrics()) }
    }

    /// The metric with this id, or nil.
    public func definition(_ id: String) throws -> MetricDefinition? {
        try definitions().first { $0.id == id }
    }

    /// Saves a metric the person defines (see `MetricDefinition.custom`). Throws `OutcomeError.metricIDTaken`
    /// when the id is used.
    @discardableResult
    public func defineMetric(_ metric: MetricDefinition) throws -> MetricDefinition {
        let checked = try MetricDefinition.custom(
            id: metric.id, name: metric.name, unit: metric.unit, range: metric.valueRange,
            aggregation: metric.aggregation)
        let now = clock.now()
        return try database.write { db in
            do {
                try OutcomeStore(db).insert(checked, at: now)
            } catch let error as DatabaseError where error.constraintKind == .unique {
                throw OutcomeError.metricIDTaken
            }
            return checked
        }
    }

    // MARK: entries

    /// Saves one value of a manual metric for `day` (default today). Throws `OutcomeError` for an unknown or
    /// Apple Health metric, a value outside the range, a day after today or a note over 500 characters.
    @discardableResult
    public func add(metricID: String, value: Double, on day: LocalDay? = nil, note: String = "") throws -> OutcomeEntry {
        let now = clock.now()
        let day = day ?? today()
        let note = try TextInput.note(note, field: "note")
        return try database.write { db in
            let store = OutcomeStore(db)
            let metric = try manualMetric(metricID, store)
            try check(value, of: metric, day: day, note: note)
            let id = OutcomeEntryID.random()
            try store.insertEntry(id: id, metric: metric.id, day: day, value: value, note: note, importKey: nil, supersedes: nil, at: now)
            try InsightInputs.seriesChanged(db, metricIDs: [metric.id], at: now)
            return try store.entry(id)!
        }
    }

    /// Appends an entry that supersedes `id` with a new value (and note; default the old note). Throws
    /// `OutcomeError.entryNotFound` or `.entryAlreadyCorrected`, and the checks of `add`.
    @discardableResult
    public func correct(_ id: OutcomeEntryID, value: Double, note: String? = nil) throws -> OutcomeEntry {
        let now = clock.now()
        return try database.write { db in
            let store = OutcomeStore(db)
            guard let old = try store.entry(id) else { throw OutcomeError.entryNotFound }
            guard old.isCurrent else { throw OutcomeError.entryAlreadyCorrected }
            let metric = try manualMetric(old.metricID, store)
            let newNote = try note.map { try TextInput.note($0, field: "note") } ?? old.note
            try check(value, of: metric, day: old.day, note: newNote)
            let newID = OutcomeEntryID.random()
            let key = try store.importKey(of: id)
            do {
                try store.insertEntry(
                    id: newID, metric: metric.id, day: old.day, value: value, note: newNote, importKey: key,
                    supersedes: id, at: now)
            } catch let error as DatabaseError where error.constraintKind == .unique {
                throw OutcomeError.entryAlreadyCorrected
            }
            try InsightInputs.seriesChanged(db, metricIDs: [metric.id], at: now)
            return try store.entry(newID)!
        }
    }

    /// The entries, newest day first (then newest recorded first), corrected ones included; optionally of one
    /// metric and within a day range.
    public func entries(metricID: String? = nil, from: LocalDay? = nil, to: LocalDay? = nil, limit: Int = 1000) throws -> [OutcomeEntry] {
        try database.read { db in
            try OutcomeStore(db).entries(metricID: metricID, from: from, to: to, limit: max(1, min(limit, 100_000)))
        }
    }

    /// One entry, or nil.
    public func entry(_ id: OutcomeEntryID) throws -> OutcomeEntry? {
        try database.read { try OutcomeStore($0).entry(id) }
    }

    // MARK: series

    /// The daily series of one metric, as `dailySeries()` gives it (empty values when it has no data). Throws
    /// `OutcomeError.unknownMetric`.
    public func series(_ metricID: String) throws -> DailyOutcomeSeries {
        guard let metric = try definition(metricID) else { throw OutcomeError.unknownMetric }
        return try dailySeries().first { $0.metric.id == metric.id } ?? DailyOutcomeSeries(metric: metric, values: [:])
    }

    /// One series per metric with data: manual metrics from their entries, Apple Health metrics from
    /// `healthDailyValues` (values outside a metric's range are left out). In `definitions()` order.
    public func dailySeries() throws -> [DailyOutcomeSeries] {
        let metrics = try definitions()
        let health = try healthDailyValues()
        var byMetric: [String: [(day: LocalDay, value: Double)]] = [:]
        for value in try database.read({ try OutcomeStore($0).currentValues() }) {
            byMetric[value.metricID, default: []].append((value.day, value.value))
        }
        return metrics.compactMap { metric in
            let values: [LocalDay: Double]
            switch metric.source {
            case .manual: values = DailyAggregator.daily(byMetric[metric.id] ?? [], by: metric.aggregation)
            case .appleHealth: values = (health[metric.id] ?? [:]).filter { metric.accepts($0.value) }
            }
            return values.isEmpty ? nil : DailyOutcomeSeries(metric: metric, values: values)
        }
    }

    // MARK: CSV import

    /// Imports an outcome CSV (see `OutcomeCSV` for the columns) in one transaction. Throws `CSVError` for a
    /// file that is not CSV or has the wrong columns, and `ImportLinesError.badLines` (listing every bad
    /// line) when any line cannot be read; then nothing is saved.
    @discardableResult
    public func importCSV(_ data: Data) throws -> OutcomeImportReport {
        let now = clock.now()
        let today = today()
        return try database.write { db in
            let store = OutcomeStore(db)
            let metrics = BuiltInMetrics.all + (try store.customMetrics())
            let parsed = try OutcomeCSV.parse(data, metrics: metrics, today: today)
            guard parsed.problems.isEmpty else { throw ImportLinesError.badLines(parsed.problems) }
            var ordinals: [String: Int] = [:]
            var lines: [OutcomeImportReport.Line] = []
            for row in parsed.rows {
                let base = "\(row.metricID)|\(row.day)"
                ordinals[base, default: 0] += 1
                let key = "\(base)|\(ordinals[base]!)"
                let result: OutcomeImportReport.Result
                if let head = try store.importedHead(key) {
                    if head.value == row.value && head.note == row.note {
                        result = .unchanged
                    } else {
                        try store.insertEntry(
                            id: .random(), metric: row.metricID, day: row.day, value: row.value, note: row.note,
                            importKey: key, supersedes: head.id, at: now)
                        result = .replaced
                    }
                } else {
                    try store.insertEntry(
                        id: .random(), metric: row.metricID, day: row.day, value: row.value, note: row.note,
                        importKey: key, supersedes: nil, at: now)
                    result = .added
                }
                lines.append(.init(line: row.line, metricID: row.metricID, day: row.day, value: row.value, result: result))
            }
            try InsightInputs.seriesChanged(db, metricIDs: lines.filter { $0.result != .unchanged }.map(\.metricID), at: now)
            return OutcomeImportReport(lines: lines)
        }
    }

    // MARK: internals

    private func manualMetric(_ id: String, _ store: OutcomeStore) throws -> MetricDefinition {
        guard let metric = (BuiltInMetrics.all + (try store.customMetrics())).first(where: { $0.id == id }) else {
            throw OutcomeError.unknownMetric
        }
        guard metric.source == .manual else { throw OutcomeError.metricIsReadOnly }
        return metric
    }

    private func check(_ value: Double, of metric: MetricDefinition, day: LocalDay, note: String) throws {
        guard value.isFinite else { throw OutcomeError.notANumber }
        guard metric.accepts(value) else { throw OutcomeError.outOfRange(range: metric.rangeText) }
        guard day <= today() else { throw OutcomeError.dayInFuture }
    }
}

/// What an outcome CSV import did, line by line.
public struct OutcomeImportReport: LineImportReport, Hashable, Sendable {
    /// What happened to one line.
    public typealias Result = ImportLineResult

    /// One line of the file.
    public struct Line: Hashable, Sendable {
        /// The file line.
        public let line: Int
        /// The metric.
        public let metricID: String
        /// The day.
        public let day: LocalDay
        /// The value.
        public let value: Double
        /// What happened.
        public let result: Result
    }

    /// Every data line, in file order.
    public let lines: [Line]

    /// What happened to each line.
    public var lineResults: [ImportLineResult] { lines.map(\.result) }
}
