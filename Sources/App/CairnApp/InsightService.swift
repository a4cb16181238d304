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
    /// (change, series) comparisons actually run; the others were kept from the last run (nothing they read changed).
    public let compared: Int
    /// Whether the intake ledger was read again (it had changed, or the day had).
    public let ledgerRead: Bool
}

/// When insights were last computed.
public struct InsightRun: Hashable, Sendable {
    /// The local day they were computed for.
    public let asOf: LocalDay
    /// The instant of the computation.
    public let computedAt: Date
}

/// Where a background recomputation is.
public struct InsightProgress: Hashable, Sendable {
    /// "Reading your records", "Comparing", "Saving".
    public let phase: String
    /// Steps done of `total` in this phase.
    public let done: Int
    /// Steps in this phase (0 when not counted).
    public let total: Int

    /// A progress report.
    public init(phase: String, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

/// The state of the background recomputation, for the page.
public enum InsightBackgroundState: Hashable, Sendable {
    /// Nothing running.
    case idle
    /// Running, with its progress.
    case running(InsightProgress)
    /// The last background run failed with this message (the stored insights are those of the run before).
    case failed(String)
}

/// Why insights could not be read.
public enum InsightServiceError: CairnError, Hashable, Sendable {
    /// A stored insight could not be read back.
    case unreadableRecord
    /// No outcome series has this id.
    case unknownMetric(String)

    /// Plain English.
    public var userMessage: String {
        switch self {
        case .unreadableRecord: "A stored insight could not be read. Recompute insights to rebuild them."
        case .unknownMetric(let id):
            "No outcome series is called \"\(id)\". The Outcomes page lists the series (so does 'cairn regimen outcomes metrics')."
        }
    }

    /// An unknown series is a missing record: the page answers 404 with this sentence.
    public var errorKind: ErrorKind {
        if case .unknownMetric = self { return .notFound }
        return .refusedInput
    }
}

/// The one call the services make, inside their own write transaction, when something insights read has changed:
/// it records what changed (`insight_pending`), so the next recomputation (automatic in the web app, or the
/// next `cairn regimen insights`) knows insights are out of date and what to look at.
public enum InsightInputs {
    /// Outcome values of these metrics were added, corrected or imported ("health" for Apple Health data).
    public static func seriesChanged(_ db: Connection, metricIDs: some Sequence<String>, at now: Date) throws {
        for id in Set(metricIDs) where !id.isEmpty { try mark(db, kind: "series", key: id, at: now) }
    }

    /// The intake ledger, a schedule or a product changed.
    public static func ledgerChanged(_ db: Connection, at now: Date) throws {
        try mark(db, kind: "ledger", key: "*", at: now)
    }

    private static func mark(_ db: Connection, kind: String, key: String, at now: Date) throws {
        try InsightStore(db).mark(kind: kind, key: key, at: now)
    }
}

/// Regimen insights: exposure changes found in the confirmed intake ledger, compared with the outcome series.
///
/// Decisions:
/// - Outcome series come from an injected provider (default: none), so this service does not depend on where
///   outcomes are kept; the integrator wires it to the outcome service.
/// - A recomputation is INCREMENTAL: the intake ledger is read again only when its fingerprint (row counts and
///   last row ids of intake, schedule and product records) or the day changed; a (change, series) comparison is
///   run again only when the series' fingerprint changed, the change is new, or its window was still open at
///   the last run; every other comparison is kept from the stored insight. The adjustment across series, the
///   wording and the placebo checks are then redone from those results (cheap).
/// - The work happens outside any transaction; the results are written in ONE write transaction: an insight
///   keyed by (change, metric) is updated in place (its `first_computed_at` kept), new ones are inserted, rows of
///   changes or metrics that no longer exist are deleted, and the pending marks it read are cleared (a mark
///   written meanwhile stays, and the next run picks it up).
/// - In the web app (`recomputesInBackground`), `recomputeInBackgroundIfNeeded()` runs it on a background
///   thread and `backgroundState` says where it is; elsewhere it runs inline.
public final class InsightService: @unchecked Sendable {
    /// Supplies the outcome series, one per metric.
    public typealias SeriesProvider = @Sendable () throws -> [MetricSeriesInput]

    private let database: Database
    private let regimen: RegimenService
    private let clock: any Clock
    private let series: SeriesProvider
    private let lock = NSLock()
    private var state: InsightBackgroundState = .idle
    private var background = false
    private var rerunRequested = false

    /// A service over a migrated database.
    public init(database: Database, regimen: RegimenService, clock: any Clock, series: @escaping SeriesProvider = { [] }) {
        self.database = database
        self.regimen = regimen
        self.clock = clock
        self.series = series
    }

    /// Whether `recomputeInBackgroundIfNeeded()` runs on a background thread (the web app) or inline (default).
    public var recomputesInBackground: Bool {
        get { lock.withLock { background } }
        set { lock.withLock { background = newValue } }
    }

    /// Where the background recomputation is.
    public var backgroundState: InsightBackgroundState { lock.withLock { state } }

    /// Whether stored insights are out of date: never computed, computed for an earlier day, or something they
    /// read has changed since (`InsightInputs`).
    public func needsRecompute() throws -> Bool {
        let today = LocalDay(clock.now(), in: clock.timeZone)
        guard let run = try lastRun(), run.asOf >= today else { return true }
        return try database.read { db in
            // No stored inputs: computed by an earlier version of Cairn, whose stored insights are rebuilt.
            try storedInputs(db) == nil || (try InsightStore(db).pendingCount()) > 0
        }
    }

    /// Recomputes when `needsRecompute()`: inline, or on a background thread when `recomputesInBackground` (one
    /// at a time; a request while one runs makes it run once more). Returns whether a recomputation started.
    @discardableResult
    public func recomputeInBackgroundIfNeeded() throws -> Bool {
        guard try needsRecompute() else { return false }
        let startNow: Bool = lock.withLock {
            if case .running = state {
                rerunRequested = true
                return false
            }
            state = .running(InsightProgress(phase: "Starting", done: 0, total: 0))
            return true
        }
        guard startNow else { return false }
        guard recomputesInBackground else {
            defer { lock.withLock { state = .idle } }
            try recompute()
            return true
        }
        Thread.detachNewThread { [self] in
            while true {
                do {
                    try recompute(progress: { p in self.lock.withLock { self.state = .running(p) } })
                } catch {
                    lock.withLock { state = .failed((error as? any CairnError)?.userMessage ?? "Insights could not be recomputed.") }
                    return
                }
                let again: Bool = lock.withLock {
                    let again = rerunRequested
                    rerunRequested = false
                    if !again { state = .idle }
                    return again
                }
                if !again { return }
            }
        }
        return true
    }

    /// Recomputes when insights were never computed, were computed for an earlier day, or are out of date;
    /// inline. Returns whether it ran.
    @discardableResult
    public func recomputeIfStale() throws -> Bool {
        guard try needsRecompute() else { return false }
        try recompute()
        return true
    }

    /// Sets whether a later onset (0-7 days after a change) is searched for `metricID`; the search is counted in
    /// the p-value. Marks the series changed so its insights are recomputed.
    public func setSearchesOnset(_ on: Bool, metricID: String) throws {
        guard try series().contains(where: { $0.id == metricID }) else { throw InsightServiceError.unknownMetric(metricID) }
        let now = clock.now()
        try database.write { db in
            try InsightStore(db).setSearchesOnset(on, metricID: metricID, at: now)
            try InsightInputs.seriesChanged(db, metricIDs: [metricID], at: now)
        }
    }

    /// The metrics that search a later onset.
    public func metricsSearchingOnset() throws -> Set<String> {
        try database.read { db in try InsightStore(db).metricsSearchingOnset() }
    }

    /// The exposure changes of the last recomputation (oldest first), for marking them on charts.
    public func changes() throws -> [ExposureChange] {
        try storedInputs()?.changes ?? []
    }

    /// Recomputes insights as of today (the local day of now in the person's zone), incrementally unless `full`,
    /// and stores them. `progress` is told where it is.
    @discardableResult
    public func recompute(full: Bool = false, progress: (InsightProgress) -> Void = { _ in }) throws -> InsightRecomputation {
        progress(InsightProgress(phase: "Reading your records", done: 0, total: 0))
        let searching = try metricsSearchingOnset()
        let outcomes = try series().map { s in
            MetricSeriesInput(id: s.id, name: s.name, unit: s.unit, values: s.values, searchesOnset: searching.contains(s.id))
        }
        let now = clock.now()
        let asOf = LocalDay(now, in: clock.timeZone)
        let decoder = JSONDecoder()
        // Everything the last run left, read in one transaction.
        let (previousRun, previousInputs, states, stored, pending, ledgerPrint) = try database.read { db in
            let store = InsightStore(db)
            let states = try store.seriesStates().mapValues { state in
                (fingerprint: state.fingerprint, placebo: state.placebo.flatMap { try? decoder.decode(PlaceboCheck.self, from: Data($0.utf8)) })
            }
            return (try store.lastRun(), try storedInputs(db), states, try store.payloadsByKey(), try store.pending(), try store.ledgerFingerprint())
        }
        // The changes: from the last run when neither the ledger nor the day changed.
        let changes: [ExposureChange]
        let ledgerRead: Bool
        if !full, let previousInputs, previousInputs.ledger == ledgerPrint, previousRun?.asOf == asOf {
            changes = previousInputs.changes
            ledgerRead = false
        } else {
            let (entries, schedules) = try database.read { db in try regimen.intakeHistory(db) }
            changes = ExposureChangeDetector().changes(in: entries, schedules: schedules, asOf: asOf)
            ledgerRead = true
        }
        let engine = InsightEngine()
        var seen = Set<String>()
        let inputs = outcomes.filter { seen.insert($0.id).inserted }
        let prints = inputs.map(Self.fingerprint)
        let prepared = inputs.map { InsightEngine.PreparedSeries($0, changeDays: changes.map(\.day)) }
        let changeSetSame = !full && previousInputs.map { $0.changes.map(\.id) == changes.map(\.id) } == true
        let placebos: [PlaceboCheck?] = prepared.indices.map { i in
            if changeSetSame, let state = states[inputs[i].id], state.fingerprint == prints[i] { return state.placebo }
            return engine.placebo(prepared[i], changeDays: changes.map(\.day), asOf: asOf)
        }
        let previousIDs = Set(previousInputs?.changes.map(\.id) ?? [])
        let lastAsOf = previousRun?.asOf.dayNumber ?? Int.min
        var insights: [Insight] = []
        var compared = 0
        let due = changes.filter { $0.day <= asOf }
        for (n, change) in due.enumerated() {
            progress(InsightProgress(phase: "Comparing", done: n, total: due.count))
            // The window of a change was still filling (or about to mature) at the last run when the change is
            // less than 28 days older than that run's day.
            let open = change.day.dayNumber + BeforeAfterAnalysis.longWindowDays - 1 > lastAsOf || lastAsOf > asOf.dayNumber
            let changeTouched = full || !previousIDs.contains(change.id) || open
            let results: [BeforeAfterResult] = prepared.indices.map { i in
                let key = change.id + "#" + inputs[i].id
                let w = BeforeAfterAnalysis.windowDays(changeDay: change.day, asOf: asOf)
                let sameCalibration = states[inputs[i].id]?.placebo == placebos[i]
                if !changeTouched, changeSetSame, sameCalibration, states[inputs[i].id]?.fingerprint == prints[i],
                    !ledgerRead || previousIDs.contains(change.id)
                {
                    if let payload = stored[key], let old = try? decoder.decode(Insight.self, from: Data(payload.utf8)) { return old.result }
                    if stored[key] == nil {
                        // No insight last time: the series had no value in either window, and nothing changed since.
                        return Self.emptyResult(change: change, asOf: asOf)
                    }
                }
                compared += 1
                return engine.analyse(
                    prepared[i], changeDay: change.day, asOf: asOf,
                    varianceFactor: engine.varianceFactor(
                        prepared[i], changeDay: change.day, asOf: asOf, windowDays: w,
                        placebo: placebos[i]))
            }
            insights += engine.assemble(
                change: change, series: inputs, results: results, placebos: placebos,
                allChanges: changes, dense: prepared.map(\.dense))
        }
        insights = InsightEngine.ordered(insights)
        progress(InsightProgress(phase: "Saving", done: 0, total: 0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let inputsJSON = String(decoding: try encoder.encode(StoredInputs(ledger: ledgerPrint, changes: changes)), as: UTF8.self)
        return try database.write { db in
            let store = InsightStore(db)
            var existing = stored
            var added = 0
            var updated = 0
            for insight in insights {
                let payload = String(decoding: try encoder.encode(insight), as: UTF8.self)
                if let old = existing.removeValue(forKey: insight.id) {
                    guard old != payload else { continue }
                    updated += 1
                    try store.update(insight, payload: payload, at: now)
                } else {
                    added += 1
                    try store.insert(insight, payload: payload, at: now)
                }
            }
            for key in existing.keys {
                // The key is "<change id>#<metric id>"; change ids never contain "#".
                let hash = key.firstIndex(of: "#")!
                try store.delete(changeID: String(key[..<hash]), metricID: String(key[key.index(after: hash)...]))
            }
            try store.replaceSeriesStates(
                try inputs.enumerated().map { i, input in
                    (input.id, prints[i], try placebos[i].map { String(decoding: try encoder.encode($0), as: UTF8.self) })
                })
            // Only the marks this run read; one written while it ran (a later changed_at) stays for the next run.
            for mark in pending {
                try store.clearPending(kind: mark.kind, key: mark.key, changedAt: mark.changedAt, readAt: now)
            }
            try store.saveRun(asOf: asOf, at: now, inputs: inputsJSON)
            return InsightRecomputation(
                asOf: asOf, total: insights.count, qualified: insights.filter { $0.status == .qualifiedFinding }.count,
                added: added, updated: updated, removed: existing.count, compared: compared, ledgerRead: ledgerRead)
        }
    }

    /// Every stored insight, in `InsightEngine.ordered` order (grouped by change, qualified first).
    public func list() throws -> [Insight] {
        let payloads = try database.read { db in try InsightStore(db).payloadsByKey().values }
        let decoder = JSONDecoder()
        return InsightEngine.ordered(
            try payloads.map { payload in
                do { return try decoder.decode(Insight.self, from: Data(payload.utf8)) } catch { throw InsightServiceError.unreadableRecord }
            })
    }

    /// When insights were last computed, or nil when never.
    public func lastRun() throws -> InsightRun? {
        try database.read { db in try InsightStore(db).lastRun() }
    }

    /// The revision of the analysis; stored inputs of another revision make every insight recomputed.
    static let methodRevision = 7

    /// What the last run read: the method revision, the ledger fingerprint and the changes it found.
    private struct StoredInputs: Codable {
        var method = InsightService.methodRevision
        let ledger: String
        let changes: [ExposureChange]
    }

    private func storedInputs() throws -> StoredInputs? { try database.read { db in try storedInputs(db) } }

    private func storedInputs(_ db: Connection) throws -> StoredInputs? {
        guard let text = try InsightStore(db).storedInputs(),
            let inputs = try? JSONDecoder().decode(StoredInputs.self, from: Data(text.utf8)),
            inputs.method == Self.methodRevision
        else { return nil }
        return inputs
    }

    /// A 64-bit FNV-1a hash of a series' days, values, unit, name and options (not a security measure: it only
    /// tells whether the values an insight was computed from have changed).
    static func fingerprint(_ series: MetricSeriesInput) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            var v = value
            for _ in 0..<8 {
                hash = (hash ^ (v & 0xff)) &* 0x100_0000_01b3
                v >>= 8
            }
        }
        for (day, value) in series.values.sorted(by: { $0.key < $1.key }) {
            mix(UInt64(bitPattern: Int64(day.dayNumber)))
            mix(value.bitPattern)
        }
        for byte in (series.name + "\u{1}" + series.unit).utf8 { mix(UInt64(byte)) }
        mix(series.searchesOnset ? 1 : 0)
        return String(hash, radix: 16)
    }

    /// The result of a series with no value around a change (it gives no insight).
    private static func emptyResult(change: ExposureChange, asOf: LocalDay) -> BeforeAfterResult {
        let w = BeforeAfterAnalysis.windowDays(changeDay: change.day, asOf: asOf)
        return BeforeAfterResult(
            windowDays: w, before: change.day.adding(days: -w)...change.day.adding(days: -1),
            after: change.day...change.day.adding(days: w - 1), beforeCount: 0, afterCount: 0, enoughData: false,
            beforeMean: nil, afterMean: nil, difference: nil, interval: nil, hedgesG: nil, pValue: nil)
    }
}

extension MetricSeriesInput {
    /// The plain values insights read from one daily outcome series.
    init(_ series: DailyOutcomeSeries) {
        self.init(id: series.metric.id, name: series.metric.name, unit: series.metric.unit, values: series.values)
    }
}
