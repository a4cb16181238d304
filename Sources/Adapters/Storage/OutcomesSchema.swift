extension CairnSchema {
    /// Outcome series (issue 7): custom metric definitions, outcome entries, and the import keys of intake
    /// history rows imported from CSV.
    ///
    /// - `outcome_metrics`: metrics the person defined (built-in metrics live in code, `BuiltInMetrics`).
    ///   Never changed once saved.
    /// - `outcome_entries`: one value of one metric on one local day. Append-only: a correction is a new row
    ///   whose `supersedes` names the row it replaces (one correction per row: UNIQUE). Imported rows carry an
    ///   `import_key` (metric, day, and the row's ordinal for that metric and day in its file); one original row
    ///   per key (a partial UNIQUE index), so importing the same file again adds nothing.
    /// - `regimen_intake_imports`: the import key of each intake record that came from an intake history CSV
    ///   (product, instant, ordinal), UNIQUE, so a re-import adds nothing. Written until December 2026; since
    ///   then the same pairing is read from the records themselves (`RegimenStore.importedRecord`), the rows
    ///   already here are kept as they are.
    static let outcomes = Migration(id: "2026-11-30.outcomes") { db in
        try db.executeScript(
            """
            CREATE TABLE outcome_metrics (
                id          TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 40),
                name        TEXT NOT NULL CHECK (length(trim(name)) > 0),
                unit        TEXT NOT NULL,
                aggregation TEXT NOT NULL CHECK (aggregation IN ('mean', 'sum', 'last')),
                min_value   REAL NOT NULL,
                max_value   REAL NOT NULL,
                created_at  TEXT NOT NULL,
                CHECK (min_value < max_value)
            );
            CREATE TABLE outcome_entries (
                id          TEXT PRIMARY KEY,
                metric_id   TEXT NOT NULL CHECK (length(metric_id) BETWEEN 1 AND 40),
                day         TEXT NOT NULL CHECK (length(day) = 10),
                value       REAL NOT NULL,
                note        TEXT NOT NULL DEFAULT '',
                origin      TEXT NOT NULL CHECK (origin IN ('manual', 'import')),
                import_key  TEXT,
                recorded_at TEXT NOT NULL,
                supersedes  TEXT UNIQUE REFERENCES outcome_entries(id),
                CHECK ((origin = 'import') = (import_key IS NOT NULL))
            );
            CREATE UNIQUE INDEX outcome_entries_one_original_per_import_key
                ON outcome_entries (import_key) WHERE import_key IS NOT NULL AND supersedes IS NULL;
            CREATE INDEX outcome_entries_by_import_key ON outcome_entries (import_key) WHERE import_key IS NOT NULL;
            CREATE INDEX outcome_entries_by_metric_day ON outcome_entries (metric_id, day);
            CREATE TABLE regimen_intake_imports (
                intake_id  TEXT PRIMARY KEY REFERENCES regimen_intake(id),
                import_key TEXT NOT NULL UNIQUE
            ) WITHOUT ROWID;
            """)
    }
}

extension CairnSchema {
    /// Intake history imports in batches (issue 13): each import is a run; every intake record it writes (an
    /// original or a correction) names its run in `import_run`. The ledger reads a run's records only once the
    /// run is finished (`finished_at` set); an unfinished run (a failed or interrupted import) is removed with
    /// its records and their import keys. Records from before this migration have no run and count as always.
    static let intakeImportRuns = Migration(id: "2026-12-01.intake-import-runs") { db in
        try db.executeScript(
            """
            CREATE TABLE regimen_intake_import_runs (
                id          INTEGER PRIMARY KEY,
                started_at  TEXT NOT NULL,
                finished_at TEXT
            );
            ALTER TABLE regimen_intake ADD COLUMN import_run INTEGER REFERENCES regimen_intake_import_runs(id);
            """)
    }
}
