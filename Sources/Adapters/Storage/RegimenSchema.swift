extension CairnSchema {
    /// The Regimen journal: products and their label revisions, effective-dated schedule revisions, the intake
    /// ledger (append-only; a correction supersedes, never updates) and supply changes.
    ///
    /// Invariants held by the schema itself: exact decimals are TEXT; instants are UTC text plus the IANA zone;
    /// one original check-in per scheduled occurrence (a partial UNIQUE index on revision, day and slot); one
    /// correction per record (UNIQUE supersedes); revisions numbered and effective-dated uniquely per schedule.
    static let regimen = Migration(id: "2026-11-30.regimen") { db in
        try db.executeScript(
            """
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

    /// Today's undo and the origin of imported doses: `regimen_intake` is rebuilt (the SQLite way: a new table,
    /// the rows copied, the old one dropped, the new one renamed, its indexes made again) so that
    /// - `status` may be `undone`: a record that undoes the record it supersedes (the dose is back to not
    ///   logged; the history keeps both). An undone record always supersedes one;
    /// - `imported_from` names the file an imported record came from (`''` for the records imported before
    ///   this migration, whose file name was not kept); NULL for doses logged in Cairn.
    static let intakeUndo = Migration(id: "2026-12-01.intake-undo") { db in
        try db.executeScript(
            """
            CREATE TABLE regimen_intake_new (
                id                   TEXT PRIMARY KEY,
                kind                 TEXT NOT NULL CHECK (kind IN ('scheduled', 'as-needed', 'extra')),
                status               TEXT NOT NULL CHECK (status IN ('taken', 'skipped', 'undone')),
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
                supersedes           TEXT UNIQUE REFERENCES regimen_intake_new(id),
                imported_from        TEXT,
                import_run           INTEGER REFERENCES regimen_intake_import_runs(id),
                CHECK ((kind = 'scheduled') = (occurrence_day IS NOT NULL AND occurrence_slot IS NOT NULL)),
                CHECK ((kind = 'extra') = (schedule_revision_id IS NULL)),
                CHECK (status <> 'undone' OR supersedes IS NOT NULL)
            );
            INSERT INTO regimen_intake_new (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes, imported_from, import_run)
            SELECT i.id, i.kind, i.status, i.product_id, i.product_revision_id, i.schedule_revision_id, i.occurrence_day,
                i.occurrence_slot, i.servings, i.taken_at, i.time_zone, i.local_day, i.recorded_at, i.supersedes,
                CASE WHEN EXISTS (SELECT 1 FROM regimen_intake_imports m WHERE m.intake_id = i.id) THEN '' END,
                i.import_run
            FROM regimen_intake i ORDER BY i.rowid;
            DROP TABLE regimen_intake;
            ALTER TABLE regimen_intake_new RENAME TO regimen_intake;
            CREATE UNIQUE INDEX regimen_intake_one_check_in_per_dose
                ON regimen_intake (schedule_revision_id, occurrence_day, occurrence_slot)
                WHERE kind = 'scheduled' AND supersedes IS NULL;
            CREATE INDEX regimen_intake_by_time ON regimen_intake (taken_at);
            CREATE INDEX regimen_intake_by_product_time ON regimen_intake (product_id, taken_at);
            CREATE INDEX regimen_intake_by_local_day ON regimen_intake (local_day);
            CREATE INDEX regimen_intake_by_occurrence_day ON regimen_intake (occurrence_day) WHERE occurrence_day IS NOT NULL;
            """)
    }

    /// Reminders: effective-dated preferences (a change is a new row in force from its day on; the newest row of
    /// a day wins), per-schedule on/off switches dated the same way, and what was sent (append-only), so a dose
    /// is reminded once, repeats count, a snooze is kept and a morning summary is sent once a day.
    static let reminders = Migration(id: "2026-12-01.reminders") { db in
        try db.executeScript(
            """
            CREATE TABLE reminder_preferences (
                id              INTEGER PRIMARY KEY,
                effective_from  TEXT NOT NULL CHECK (length(effective_from) = 10),
                quiet_start     TEXT CHECK (quiet_start IS NULL OR length(quiet_start) = 5),
                quiet_end       TEXT CHECK (quiet_end IS NULL OR length(quiet_end) = 5),
                show_names      INTEGER NOT NULL CHECK (show_names IN (0, 1)),
                repeat_minutes  INTEGER NOT NULL CHECK (repeat_minutes BETWEEN 0 AND 720),
                repeat_limit    INTEGER NOT NULL CHECK (repeat_limit BETWEEN 0 AND 20),
                morning_summary INTEGER NOT NULL CHECK (morning_summary IN (0, 1)),
                refill_days     INTEGER NOT NULL CHECK (refill_days BETWEEN 0 AND 90),
                recorded_at     TEXT NOT NULL,
                CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
            );
            CREATE TABLE reminder_schedule_switches (
                id             INTEGER PRIMARY KEY,
                schedule_id    TEXT NOT NULL REFERENCES regimen_schedules(id),
                effective_from TEXT NOT NULL CHECK (length(effective_from) = 10),
                enabled        INTEGER NOT NULL CHECK (enabled IN (0, 1)),
                recorded_at    TEXT NOT NULL
            );
            CREATE INDEX reminder_switches_by_schedule ON reminder_schedule_switches (schedule_id, effective_from);
            CREATE TABLE reminder_deliveries (
                id       INTEGER PRIMARY KEY,
                subject  TEXT NOT NULL CHECK (length(subject) > 0),
                kind     TEXT NOT NULL CHECK (kind IN ('due', 'repeat', 'catch-up', 'snooze', 'summary', 'refill')),
                sent_at  TEXT NOT NULL,
                until    TEXT,
                CHECK ((kind = 'snooze') = (until IS NOT NULL))
            );
            CREATE INDEX reminder_deliveries_by_subject ON reminder_deliveries (subject, id);
            """)
    }

    /// Skin photo reminders: per area, every N weeks after its newest photo (0 off), effective-dated like the
    /// schedule switches; `reminder_deliveries` is rebuilt so its kinds include `photo` (one per area and due day).
    static let photoReminders = Migration(id: "2026-12-01.photo-reminders") { db in
        try db.executeScript(
            """
            CREATE TABLE reminder_area_intervals (
                id             INTEGER PRIMARY KEY,
                area_id        TEXT NOT NULL REFERENCES skin_areas(id) ON DELETE CASCADE,
                effective_from TEXT NOT NULL CHECK (length(effective_from) = 10),
                weeks          INTEGER NOT NULL CHECK (weeks BETWEEN 0 AND 52),
                recorded_at    TEXT NOT NULL
            );
            CREATE INDEX reminder_area_intervals_by_area ON reminder_area_intervals (area_id, effective_from);
            CREATE TABLE reminder_deliveries_new (
                id       INTEGER PRIMARY KEY,
                subject  TEXT NOT NULL CHECK (length(subject) > 0),
                kind     TEXT NOT NULL CHECK (kind IN ('due', 'repeat', 'catch-up', 'snooze', 'summary', 'refill', 'photo')),
                sent_at  TEXT NOT NULL,
                until    TEXT,
                CHECK ((kind = 'snooze') = (until IS NOT NULL))
            );
            INSERT INTO reminder_deliveries_new (id, subject, kind, sent_at, until)
                SELECT id, subject, kind, sent_at, until FROM reminder_deliveries ORDER BY id;
            DROP TABLE reminder_deliveries;
            ALTER TABLE reminder_deliveries_new RENAME TO reminder_deliveries;
            CREATE INDEX reminder_deliveries_by_subject ON reminder_deliveries (subject, id);
            """)
    }

    /// Schedules that name a zone: `time_zone` holds the IANA name whose wall clock the revision's times, start and
    /// end are read on; NULL (every schedule before this) follows the person's current zone.
    static let scheduleZones = Migration(id: "2026-12-01.schedule-zones") { db in
        try db.executeScript(
            """
            ALTER TABLE regimen_schedule_revisions ADD COLUMN time_zone TEXT CHECK (time_zone IS NULL OR length(time_zone) > 0);
            """)
    }

    /// Archiving a product takes it off the lists while its history stays: each archive or restore is a row,
    /// the newest one decides.
    static let productArchive = Migration(id: "2026-12-08.product-archive") { db in
        try db.executeScript(
            """
            CREATE TABLE regimen_product_archive (
                seq         INTEGER PRIMARY KEY,
                product_id  TEXT NOT NULL REFERENCES regimen_products(id),
                archived    INTEGER NOT NULL CHECK (archived IN (0, 1)),
                recorded_at TEXT NOT NULL
            );
            CREATE INDEX regimen_product_archive_product ON regimen_product_archive (product_id, seq);
            """)
    }

    /// Barcodes the person taught: a product's GTIN-14 linked to a product of their own, so a barcode the label
    /// database does not know is found next time. One product per barcode; a product may have several.
    static let productBarcodes = Migration(id: "2026-12-08.product-barcodes") { db in
        try db.executeScript(
            """
            CREATE TABLE regimen_product_barcodes (
                gtin       TEXT PRIMARY KEY CHECK (length(gtin) = 14 AND gtin NOT GLOB '*[^0-9]*'),
                product_id TEXT NOT NULL REFERENCES regimen_products(id),
                taught_at  TEXT NOT NULL
            );
            CREATE INDEX regimen_product_barcodes_by_product ON regimen_product_barcodes (product_id);
            """)
    }
}
