extension CairnSchema {
    /// The Regimen journal: products and their label revisions, effective-dated schedule revisions, the intake
    /// ledger (append-only; a correction supersedes, never updates) and supply changes.
    ///
    /// Invariants held by the schema itself: exact decimals are TEXT; instants are UTC text plus the IANA zone;
    /// one original check-in per scheduled occurrence (a partial UNIQUE index on revision, day and slot); one
    /// correction per record (UNIQUE supersedes); revisions numbered and effective-dated uniquely per schedule.
    static let regimen = Migration(id: "2026-11-30.regimen") { db in
        try db.executeScript("""
            CREATE TABLE regimen_products (
                id         TEXT PRIMARY KEY,
                created_at TEXT NOT NULL
            );
            CREATE TABLE regimen_product_revisions (
                id            TEXT PRIMARY KEY,
                product_id    TEXT NOT NULL REFERENCES regimen_products(id),
                number        INTEGER NOT NULL CHECK (number >= 1),
                name          TEXT NOT NULL CHECK (length(trim(name)) > 0),
                brand         TEXT NOT NULL,
                form          TEXT NOT NULL CHECK (form IN ('capsule', 'softgel', 'tablet', 'chewable', 'lozenge',
                                  'gummy', 'powder', 'liquid', 'drops', 'spray', 'packet', 'other')),
                serving_value TEXT NOT NULL CHECK (length(serving_value) > 0),
                serving_unit  TEXT NOT NULL CHECK (serving_unit IN ('count', 'g', 'mg', 'mcg', 'ng', 'mL')),
                recorded_at   TEXT NOT NULL,
                UNIQUE (product_id, number)
            );
            CREATE TABLE regimen_product_ingredients (
                revision_id         TEXT NOT NULL REFERENCES regimen_product_revisions(id),
                position            INTEGER NOT NULL CHECK (position >= 0),
                catalogue_id        TEXT,
                name_on_label       TEXT NOT NULL CHECK (length(trim(name_on_label)) > 0),
                amount_value        TEXT,
                amount_unit         TEXT CHECK (amount_unit IN ('g', 'mg', 'mcg', 'ng', 'iu', 'mcgRAE', 'mcgDFE', 'mgNE',
                                        'mgAlphaTocopherol', 'cfu', 'mL', 'count')),
                daily_value_percent TEXT,
                form                TEXT,
                PRIMARY KEY (revision_id, position),
                CHECK ((amount_value IS NULL) = (amount_unit IS NULL))
            ) WITHOUT ROWID;
            CREATE TABLE regimen_schedules (
                id         TEXT PRIMARY KEY,
                product_id TEXT NOT NULL REFERENCES regimen_products(id),
                created_at TEXT NOT NULL
            );
            CREATE TABLE regimen_schedule_revisions (
                id             TEXT PRIMARY KEY,
                schedule_id    TEXT NOT NULL REFERENCES regimen_schedules(id),
                number         INTEGER NOT NULL CHECK (number >= 1),
                effective_from TEXT NOT NULL CHECK (length(effective_from) = 10),
                state          TEXT NOT NULL CHECK (state IN ('active', 'paused', 'stopped')),
                servings       TEXT NOT NULL CHECK (length(servings) > 0),
                times          TEXT NOT NULL,
                recurrence     TEXT NOT NULL CHECK (recurrence IN ('daily', 'weekdays', 'every', 'as-needed')),
                weekdays       INTEGER NOT NULL DEFAULT 0 CHECK (weekdays BETWEEN 0 AND 127),
                interval_days  INTEGER NOT NULL DEFAULT 1 CHECK (interval_days BETWEEN 1 AND 366),
                start_day      TEXT NOT NULL CHECK (length(start_day) = 10),
                end_day        TEXT CHECK (end_day IS NULL OR end_day >= start_day),
                recorded_at    TEXT NOT NULL,
                UNIQUE (schedule_id, number),
                UNIQUE (schedule_id, effective_from),
                CHECK ((recurrence = 'as-needed') = (times = '')),
                CHECK ((recurrence = 'weekdays') = (weekdays > 0))
            );
            CREATE TABLE regimen_intake (
                id                   TEXT PRIMARY KEY,
                kind                 TEXT NOT NULL CHECK (kind IN ('scheduled', 'as-needed', 'extra')),
                status               TEXT NOT NULL CHECK (status IN ('taken', 'skipped')),
                product_id           TEXT NOT NULL REFERENCES regimen_products(id),
                product_revision_id  TEXT NOT NULL REFERENCES regimen_product_revisions(id),
                schedule_revision_id TEXT REFERENCES regimen_schedule_revisions(id),
                occurrence_day       TEXT,
                occurrence_slot      TEXT,
                servings             TEXT NOT NULL CHECK (length(servings) > 0),
                taken_at             TEXT NOT NULL,
                time_zone            TEXT NOT NULL CHECK (length(time_zone) > 0),
                local_day            TEXT NOT NULL CHECK (length(local_day) = 10),
                recorded_at          TEXT NOT NULL,
                supersedes           TEXT UNIQUE REFERENCES regimen_intake(id),
                CHECK ((kind = 'scheduled') = (occurrence_day IS NOT NULL AND occurrence_slot IS NOT NULL)),
                CHECK ((kind = 'extra') = (schedule_revision_id IS NULL))
            );
            CREATE UNIQUE INDEX regimen_intake_one_check_in_per_dose
                ON regimen_intake (schedule_revision_id, occurrence_day, occurrence_slot)
                WHERE kind = 'scheduled' AND supersedes IS NULL;
            CREATE INDEX regimen_intake_by_time ON regimen_intake (taken_at);
            CREATE INDEX regimen_intake_by_product_time ON regimen_intake (product_id, taken_at);
            CREATE INDEX regimen_intake_by_local_day ON regimen_intake (local_day);
            CREATE INDEX regimen_intake_by_occurrence_day ON regimen_intake (occurrence_day) WHERE occurrence_day IS NOT NULL;
            CREATE TABLE regimen_supply_changes (
                id          INTEGER PRIMARY KEY,
                product_id  TEXT NOT NULL REFERENCES regimen_products(id),
                kind        TEXT NOT NULL CHECK (kind IN ('set', 'intake')),
                count       TEXT,
                delta       TEXT,
                intake_id   TEXT UNIQUE REFERENCES regimen_intake(id),
                recorded_at TEXT NOT NULL,
                CHECK ((kind = 'set') = (count IS NOT NULL AND delta IS NULL AND intake_id IS NULL)),
                CHECK ((kind = 'intake') = (count IS NULL AND delta IS NOT NULL AND intake_id IS NOT NULL))
            );
            CREATE INDEX regimen_supply_by_product ON regimen_supply_changes (product_id, id);
            """)
    }
}
