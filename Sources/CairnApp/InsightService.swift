import CairnCore
import Foundation
import Insights
import Outcomes
import Regimen
import Storage

/// What one recomputation did.
public struct InsightRecomputation: Hashable, Sendable {
    /// The local day the insights are computed for.
    public let asOf: LocalDay
    /// Insights now stored.
    public let total: Int
    /// Of which qualified findings.
    public let qualified: Int
    /// Insights that did not exist before.
    public let added: Int
    /// Insights whose figures changed (for instance a window that matured from 14 to 28 days).
    public let updated: Int
    /// Insights removed because their change no longer exists (a corrected record) or its metric is gone.
    public let removed: Int
}

/// When insights were last computed.
public struct InsightRun: Hashable, Sendable {
    /// The local day they were computed for.
    public let asOf: LocalDay
    /// The instant of the computation.
    public let computedAt: Date
}

/// Why insights could not be read.
public enum InsightServiceError: CairnError, Hashable, Sendable {
    /// A stored insight could not be read back.
    case unreadableRecord

    /// Plain English.
    public var userMessage: String {
        switch self {
        case .unreadableRecord: "A stored insight could not be read. Recompute insights to rebuild them."
        }
    }
}

/// Regimen insights: exposure changes found in the confirmed intake ledger, compared with the outcome series.
///
/// Decisions:
/// - Outcome series come from an injected provider (default: none), so this service does not depend on where
///   outcomes are kept; the integrator wires it to the outcome service.
/// - `recompute()` reads the series first, then reads the ledger and schedules and writes every insight in ONE
///   write transaction: an insight keyed by (change, metric) is updated in place (its `first_computed_at`
///   kept), new ones are inserted, and rows of changes or metrics that no longer exist are deleted.
public final class InsightService: @unchecked Sendable {
    /// Supplies the outcome series, one per metric.
    public typealias SeriesProvider = @Sendable () throws -> [MetricSeriesInput]

    private let database: Database
    private let regimen: RegimenService
    private let clock: any Clock
    private let series: SeriesProvider

    /// A service over a migrated database.
    public init(database: Database, regimen: RegimenService, clock: any Clock, series: @escaping SeriesProvider = { [] }) {
        self.database = database
        self.regimen = regimen
        self.clock = clock
        self.series = series
    }

    /// Recomputes when insights were never computed or were computed for an earlier day, so a page opened on
    /// a new day is current without a click (a same-day change still needs `recompute()`). Returns whether it ran.
    @discardableResult
    public func recomputeIfStale() throws -> Bool {
        let today = LocalDay(clock.now(), in: clock.timeZone)
        if let run = try lastRun(), run.asOf >= today { return false }
        _ = try recompute()
        return true
    }

    /// Recomputes every insight as of today (the local day of now in the person's zone) and stores them.
    @discardableResult
    public func recompute() throws -> InsightRecomputation {
        let outcomes = try series()
        let now = clock.now()
        let asOf = LocalDay(now, in: clock.timeZone)
        let stamp = Timestamp.string(from: now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try database.write { db in
            let (entries, schedules) = try regimen.intakeHistory(db)
            let insights = InsightEngine().insights(entries: entries, schedules: schedules, series: outcomes, asOf: asOf)
            var existing: [String: String] = [:]
            for row in try db.query("SELECT change_id, metric_id, payload FROM insights") {
                existing[try row.get("change_id", as: String.self) + "#" + row.get("metric_id", as: String.self)] = try row.get("payload", as: String.self)
            }
            var added = 0, updated = 0
            for insight in insights {
                let payload = String(decoding: try encoder.encode(insight), as: UTF8.self)
                if let old = existing.removeValue(forKey: insight.id) {
                    guard old != payload else { continue }
                    updated += 1
                    try db.execute("""
                        UPDATE insights SET status = ?, window_days = ?, payload = ?, updated_at = ? WHERE change_id = ? AND metric_id = ?
                        """, insight.status.rawValue, insight.windowDays, payload, stamp, insight.change.id, insight.metricID)
                } else {
                    added += 1
                    try db.execute("""
                        INSERT INTO insights (change_id, metric_id, product_id, change_kind, change_day, status, window_days, payload,
                            first_computed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, insight.change.id, insight.metricID, insight.change.productID.rawValue, insight.change.kind.rawValue,
                        insight.change.day.description, insight.status.rawValue, insight.windowDays, payload, stamp, stamp)
                }
            }
            for key in existing.keys {
                // The key is "<change id>#<metric id>"; change ids never contain "#".
                let hash = key.firstIndex(of: "#")!
                try db.execute("DELETE FROM insights WHERE change_id = ? AND metric_id = ?", String(key[..<hash]),
                               String(key[key.index(after: hash)...]))
            }
            try db.execute("""
                INSERT INTO insight_runs (id, as_of_day, computed_at) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET as_of_day = excluded.as_of_day, computed_at = excluded.computed_at
                """, asOf.description, stamp)
            return InsightRecomputation(asOf: asOf, total: insights.count, qualified: insights.filter { $0.status == .qualifiedFinding }.count,
                                        added: added, updated: updated, removed: existing.count)
        }
    }

    /// Every stored insight: qualified findings first, then ongoing observations; newest change first.
    public func list() throws -> [Insight] {
        let payloads = try database.read { db in
            try db.query("SELECT payload FROM insights").map { try $0.get("payload", as: String.self) }
        }
        let decoder = JSONDecoder()
        return InsightEngine.ordered(try payloads.map { payload in
            do { return try decoder.decode(Insight.self, from: Data(payload.utf8)) } catch { throw InsightServiceError.unreadableRecord }
        })
    }

    /// When insights were last computed, or nil when never.
    public func lastRun() throws -> InsightRun? {
        try database.read { db in
            guard let row = try db.queryFirst("SELECT as_of_day, computed_at FROM insight_runs WHERE id = 1"),
                  let day = LocalDay(parsing: try row.get("as_of_day", as: String.self)),
                  let at = Timestamp.date(from: try row.get("computed_at", as: String.self)) else { return nil }
            return InsightRun(asOf: day, computedAt: at)
        }
    }
}

extension MetricSeriesInput {
    /// The plain values insights read from one daily outcome series.
    init(_ series: DailyOutcomeSeries) {
        self.init(id: series.metric.id, name: series.metric.name, unit: series.metric.unit, values: series.values)
    }
}
