extension CairnSchema {
    /// Regimen insights: one row per (exposure change, metric), the last recomputation's result.
    ///
    /// Decision: an insight is UPDATED IN PLACE when it is recomputed (for instance when its window matures from
    /// 14 to 28 days), never versioned: its identity is (change_id, metric_id), `first_computed_at` keeps when it
    /// first appeared, `updated_at` when its figures last changed. History is not kept because every figure can
    /// be recomputed from the append-only ledger and the outcome series. A recomputation deletes the rows whose
    /// change no longer exists (a corrected ledger record can remove a change).
    ///
    /// - `change_id`: "<product id>|<kind>|<day>"; `metric_id`: the outcome series id ("sleep_quality").
    /// - `payload`: the whole insight as JSON (change, window, counts, interval, effect size, wording,
    ///   limitations, chart points); the other columns are copies for ordering and filtering.
    /// - `insight_runs`: a single row saying when insights were last computed and for which local day.
    static let insights = Migration(id: "2026-11-30.insights") { db in
        try db.executeScript("""
            CREATE TABLE insights (
                change_id         TEXT NOT NULL CHECK (length(change_id) > 0),
                metric_id         TEXT NOT NULL CHECK (length(metric_id) > 0),
                product_id        TEXT NOT NULL,
                change_kind       TEXT NOT NULL CHECK (change_kind IN ('start', 'interruption', 'deactivation', 'dose-change',
                                      'frequency-change', 'timing-change')),
                change_day        TEXT NOT NULL CHECK (length(change_day) = 10),
                status            TEXT NOT NULL CHECK (status IN ('qualified-finding', 'ongoing-observation')),
                window_days       INTEGER NOT NULL CHECK (window_days IN (14, 28)),
                payload           TEXT NOT NULL CHECK (json_valid(payload)),
                first_computed_at TEXT NOT NULL,
                updated_at        TEXT NOT NULL,
                PRIMARY KEY (change_id, metric_id)
            );
            CREATE INDEX insights_by_status ON insights(status, change_day);
            CREATE TABLE insight_runs (
                id          INTEGER PRIMARY KEY CHECK (id = 1),
                as_of_day   TEXT NOT NULL CHECK (length(as_of_day) = 10),
                computed_at TEXT NOT NULL
            );
            """)
    }
}
