import CairnCore
import Foundation
import Insights
import Storage

/// The insight journal's SQL: the pending marks (what changed since the last run), the per-metric options, the
/// per-series state of the last run, the stored insights and the run record. A store holds no rule:
/// `InsightService` decides what is recomputed and owns the transaction; `InsightInputs` decides what marks what.
struct InsightStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: pending marks

    /// Records that `key` of `kind` changed at `now` (one mark per kind and key; the newest time wins).
    func mark(kind: String, key: String, at now: Date) throws {
        try db.execute(
            """
            INSERT INTO insight_pending (kind, key, changed_at) VALUES (?, ?, ?)
            ON CONFLICT(kind, key) DO UPDATE SET changed_at = excluded.changed_at
            """, kind, key, now)
    }

    /// How many marks wait.
    func pendingCount() throws -> Int {
        try db.scalar("SELECT count(*) FROM insight_pending", as: Int.self) ?? 0
    }

    /// Every mark, with its time as stored.
    func pending() throws -> [(kind: String, key: String, changedAt: String)] {
        try db.query("SELECT kind, key, changed_at FROM insight_pending").map {
            (try $0.get("kind", as: String.self), try $0.get("key", as: String.self), try $0.get("changed_at", as: String.self))
        }
    }

    /// Removes a mark read by a run, unless it was written again after `readAt`.
    func clearPending(kind: String, key: String, changedAt: String, readAt: Date) throws {
        try db.execute(
            "DELETE FROM insight_pending WHERE kind = ? AND key = ? AND changed_at = ? AND changed_at <= ?",
            kind, key, changedAt, readAt)
    }

    // MARK: metric options

    /// Sets whether a later onset is searched for `metricID`.
    func setSearchesOnset(_ on: Bool, metricID: String, at now: Date) throws {
        try db.execute(
            """
            INSERT INTO insight_metric_options (metric_id, searches_onset, updated_at) VALUES (?, ?, ?)
            ON CONFLICT(metric_id) DO UPDATE SET searches_onset = excluded.searches_onset, updated_at = excluded.updated_at
            """, metricID, on, now)
    }

    /// The metrics that search a later onset.
    func metricsSearchingOnset() throws -> Set<String> {
        Set(try db.query("SELECT metric_id FROM insight_metric_options WHERE searches_onset = 1").map { try $0.get("metric_id", as: String.self) })
    }

    // MARK: series state

    /// Each series' fingerprint and stored placebo check (JSON text) at the last run, by metric id.
    func seriesStates() throws -> [String: (fingerprint: String, placebo: String?)] {
        var states: [String: (fingerprint: String, placebo: String?)] = [:]
        for row in try db.query("SELECT metric_id, fingerprint, placebo FROM insight_series_state") {
            states[try row.get("metric_id", as: String.self)] = (
                try row.get("fingerprint", as: String.self), try row.optional("placebo", as: String.self)
            )
        }
        return states
    }

    /// Replaces every series state with these.
    func replaceSeriesStates(_ states: [(metricID: String, fingerprint: String, placebo: String?)]) throws {
        try db.execute("DELETE FROM insight_series_state")
        for state in states {
            try db.execute(
                "INSERT INTO insight_series_state (metric_id, fingerprint, placebo) VALUES (?, ?, ?)",
                state.metricID, state.fingerprint, state.placebo)
        }
    }

    // MARK: insights

    /// Every stored insight's payload (JSON text), keyed "<change id>#<metric id>".
    func payloadsByKey() throws -> [String: String] {
        var stored: [String: String] = [:]
        for row in try db.query("SELECT change_id, metric_id, payload FROM insights") {
            stored[try row.get("change_id", as: String.self) + "#" + row.get("metric_id", as: String.self)] = try row.get("payload", as: String.self)
        }
        return stored
    }

    /// Saves a new insight.
    func insert(_ insight: Insight, payload: String, at now: Date) throws {
        try db.execute(
            """
            INSERT INTO insights (change_id, metric_id, product_id, change_kind, change_day, status, window_days, payload,
                first_computed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, insight.change.id, insight.metricID, insight.change.productID.rawValue, insight.change.kind.rawValue,
            insight.change.day, insight.status.rawValue, insight.windowDays, payload, now, now)
    }

    /// Updates a stored insight in place (its first computation time kept).
    func update(_ insight: Insight, payload: String, at now: Date) throws {
        try db.execute(
            """
            UPDATE insights SET status = ?, window_days = ?, payload = ?, updated_at = ? WHERE change_id = ? AND metric_id = ?
            """, insight.status.rawValue, insight.windowDays, payload, now, insight.change.id, insight.metricID)
    }

    /// Removes the insight of `changeID` and `metricID`.
    func delete(changeID: String, metricID: String) throws {
        try db.execute("DELETE FROM insights WHERE change_id = ? AND metric_id = ?", changeID, metricID)
    }

    // MARK: runs

    /// The last run's day and time, or nil when never run (or its row is unreadable).
    func lastRun() throws -> InsightRun? {
        guard let row = try db.queryFirst("SELECT as_of_day, computed_at FROM insight_runs WHERE id = 1"),
            let day = try? row.get("as_of_day", as: LocalDay.self), let at = try? row.get("computed_at", as: Date.self)
        else { return nil }
        return InsightRun(asOf: day, computedAt: at)
    }

    /// The inputs the last run recorded (JSON text), or nil.
    func storedInputs() throws -> String? {
        try db.scalar("SELECT inputs FROM insight_runs WHERE id = 1", as: String.self)
    }

    /// Records a run.
    func saveRun(asOf: LocalDay, at now: Date, inputs: String) throws {
        try db.execute(
            """
            INSERT INTO insight_runs (id, as_of_day, computed_at, inputs) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET as_of_day = excluded.as_of_day, computed_at = excluded.computed_at, inputs = excluded.inputs
            """, asOf, now, inputs)
    }

    /// Row counts and last row ids of the intake, schedule-revision and product-revision records: every change to
    /// them appends a row (the ledger and revisions are append-only), so an unchanged fingerprint means unchanged inputs.
    func ledgerFingerprint() throws -> String {
        try ["regimen_intake", "regimen_schedule_revisions", "regimen_product_revisions"].map { table in
            let row = try db.queryFirst("SELECT count(*) AS n, coalesce(max(rowid), 0) AS last FROM \(table)")
            return "\(try row?.get("n", as: Int.self) ?? 0):\(try row?.get("last", as: Int.self) ?? 0)"
        }.joined(separator: "|")
    }
}
