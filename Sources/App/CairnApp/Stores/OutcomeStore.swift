import CairnCore
import Foundation
import Outcomes
import Storage

/// The outcome journal's SQL: the person's metric definitions and the outcome entries, each row mapped to its
/// record type. A store holds no rule: `OutcomeService` decides what may be written and owns the transaction, and
/// the store works on the connection it is handed inside it.
struct OutcomeStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: metrics

    /// The person's own metrics, by name.
    func customMetrics() throws -> [MetricDefinition] {
        try db.query("SELECT * FROM outcome_metrics ORDER BY name COLLATE NOCASE, id").map(MetricDefinition.init(customMetricRow:))
    }

    /// Saves a metric. Throws `DatabaseError` with `constraintKind == .unique` when its id is taken.
    func insert(_ metric: MetricDefinition, at now: Date) throws {
        try db.execute(
            """
            INSERT INTO outcome_metrics (id, name, unit, aggregation, min_value, max_value, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, metric.id, metric.name, metric.unit, metric.aggregation.rawValue, metric.valueRange.lowerBound,
            metric.valueRange.upperBound, now)
    }

    // MARK: entries

    /// Appends an entry (`importKey` nil: typed by the person; else from a CSV line). Throws `DatabaseError` with
    /// `constraintKind == .unique` when `supersedes` is already superseded.
    func insertEntry(
        id: OutcomeEntryID, metric: String, day: LocalDay, value: Double, note: String, importKey: String?,
        supersedes: OutcomeEntryID?, at now: Date
    ) throws {
        try db.execute(
            """
            INSERT INTO outcome_entries (id, metric_id, day, value, note, origin, import_key, recorded_at, supersedes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, id.rawValue, metric, day, value, note,
            importKey == nil ? OutcomeOrigin.manual.rawValue : OutcomeOrigin.csvImport.rawValue, importKey, now,
            supersedes?.rawValue)
    }

    /// One entry, or nil.
    func entry(_ id: OutcomeEntryID) throws -> OutcomeEntry? {
        try db.queryFirst("\(Self.entrySelect) WHERE e.id = ?", id.rawValue).map(OutcomeEntry.init(row:))
    }

    /// Entries newest day first (then newest recorded first), corrected ones included; optionally of one metric
    /// and within a day range; at most `limit`.
    func entries(metricID: String?, from: LocalDay?, to: LocalDay?, limit: Int) throws -> [OutcomeEntry] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let metricID {
            conditions.append("e.metric_id = ?")
            arguments.append(metricID)
        }
        if let from {
            conditions.append("e.day >= ?")
            arguments.append(from)
        }
        if let to {
            conditions.append("e.day <= ?")
            arguments.append(to)
        }
        arguments.append(limit)
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try db.query(
            "\(Self.entrySelect) \(filter) ORDER BY e.day DESC, e.recorded_at DESC, e.rowid DESC LIMIT ?",
            arguments: arguments
        ).map(OutcomeEntry.init(row:))
    }

    /// The import key an entry carries (nil for one typed by the person).
    func importKey(of id: OutcomeEntryID) throws -> String? {
        try db.scalar("SELECT import_key FROM outcome_entries WHERE id = ?", id.rawValue)
    }

    /// The current entry of an import key: the end of the correction chain that starts at its original row.
    func importedHead(_ key: String) throws -> OutcomeEntry? {
        try db.queryFirst(
            """
            \(Self.entrySelect) WHERE e.import_key = ? AND NOT EXISTS (SELECT 1 FROM outcome_entries s2 WHERE s2.supersedes = e.id)
            ORDER BY e.recorded_at DESC, e.rowid DESC LIMIT 1
            """, key
        ).map(OutcomeEntry.init(row:))
    }

    /// Every current (not superseded) value, oldest recorded first.
    func currentValues() throws -> [(metricID: String, day: LocalDay, value: Double)] {
        try db.query(
            """
            SELECT e.metric_id, e.day, e.value FROM outcome_entries e
            WHERE NOT EXISTS (SELECT 1 FROM outcome_entries s WHERE s.supersedes = e.id)
            ORDER BY e.recorded_at, e.rowid
            """
        ).map { row in (try row.get("metric_id"), try row.get("day"), try row.get("value")) }
    }

    private static let entrySelect = """
        SELECT e.*, s.id AS superseded_by FROM outcome_entries e LEFT JOIN outcome_entries s ON s.supersedes = e.id
        """
}

extension OutcomeEntry {
    /// An `outcome_entries` row joined with the id of the entry that supersedes it (`superseded_by`).
    init(row: Row) throws {
        self.init(
            id: OutcomeEntryID(try row.get("id")), metricID: try row.get("metric_id"), day: try row.get("day"),
            value: try row.get("value"), note: try row.get("note"), origin: try row.stored("origin"), recordedAt: try row.get("recorded_at"),
            supersedes: try row.optional("supersedes", as: String.self).map(OutcomeEntryID.init),
            supersededBy: try row.optional("superseded_by", as: String.self).map(OutcomeEntryID.init))
    }
}

extension MetricDefinition {
    /// An `outcome_metrics` row: a metric the person defined.
    init(customMetricRow row: Row) throws {
        self.init(
            id: try row.get("id"), name: try row.get("name"), unit: try row.get("unit"), aggregation: try row.stored("aggregation"),
            valueRange: try row.get("min_value", as: Double.self)...(try row.get("max_value", as: Double.self)),
            source: .manual)
    }
}
