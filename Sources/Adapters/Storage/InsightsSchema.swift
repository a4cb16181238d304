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
        try db.executeScript(
            """
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

extension CairnSchema {
    /// Incremental, automatic insight recomputation.
    ///
    /// - `insight_pending`: what changed since the last recomputation, written by the services in the same
    ///   transaction as the change ("series" with a metric id, "ledger" with a product id or "*"); a recomputation
    ///   removes the rows it has read, so a change made while it runs is picked up by the next one.
    /// - `insight_series_state`: per metric, a fingerprint of the daily values (and options) the stored insights
    ///   were computed from, and the placebo check of that series (JSON, NULL when there were too few dates).
    /// - `insight_metric_options`: per metric, whether a later onset (0-7 days) is searched.
    /// - `insight_runs.inputs`: the ledger fingerprint and the exposure changes of the last run (JSON), so a run
    ///   with an unchanged ledger on the same day does not re-read every intake record.
    static let insightInputs = Migration(id: "2026-12-01.insight-inputs") { db in
        try db.executeScript(
            """
            CREATE TABLE insight_pending (
                kind       TEXT NOT NULL CHECK (kind IN ('series', 'ledger')),
                key        TEXT NOT NULL CHECK (length(key) > 0),
                changed_at TEXT NOT NULL,
                PRIMARY KEY (kind, key)
            );
            CREATE TABLE insight_series_state (
                metric_id   TEXT PRIMARY KEY CHECK (length(metric_id) > 0),
                fingerprint TEXT NOT NULL,
                placebo     TEXT CHECK (placebo IS NULL OR json_valid(placebo))
            );
            CREATE TABLE insight_metric_options (
                metric_id      TEXT PRIMARY KEY CHECK (length(metric_id) > 0),
                searches_onset INTEGER NOT NULL CHECK (searches_onset IN (0, 1)),
                updated_at     TEXT NOT NULL
            );
            ALTER TABLE insight_runs ADD COLUMN inputs TEXT CHECK (inputs IS NULL OR json_valid(inputs));
            """)
    }
}
