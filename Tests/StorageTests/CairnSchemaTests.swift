import CairnCore
import Foundation
import Testing

@testable import Storage

/// Database fixtures: one real SQLite file per landed migration, `Fixtures/<migration id>.sqlite`, holding
/// the schema after that migration plus representative rows. Each must migrate to today's schema with its
/// data intact. Whoever appends a migration adds its sample rows below and writes its fixture with
/// `scripts/storage-fixture.sh` (which runs `writeMissingFixtures` with `CAIRN_WRITE_FIXTURE=1`).
@Suite struct CairnSchemaTests {
    /// Representative rows inserted right after each migration when its fixture is written. Later fixtures
    /// contain the rows of every earlier step too. Use literal SQL only: never app types.
    static let sampleRows: [String: @Sendable (Connection) throws -> Void] = [
        "2026-11-30.foundation": { db in
            try db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", "onboarding.complete", "true")
            try db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", "flag.show-comparison-details", "false")
            try db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", "note", "Ünïcode ✓ 'quoted' \"text\"")
            try db.execute(
                """
                INSERT INTO photos (id, relative_path, purpose, media_type, width, height, byte_count, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87", "photos/0b/0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87.jpg", "skin",
                "image/jpeg", 4032, 3024, 2_481_113, String(repeating: "ab", count: 32), "2026-11-30T09:15:00.000Z")
            try db.execute(
                """
                INSERT INTO photos (id, relative_path, purpose, media_type, width, height, byte_count, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "e7a1f3d2-0c4b-4e6a-9b8d-1f2e3d4c5b6a", "photos/e7/e7a1f3d2-0c4b-4e6a-9b8d-1f2e3d4c5b6a.heic", "label",
                "image/heic", 3024, 4032, 1_200_000, String(repeating: "0f", count: 32), "2026-11-30T09:16:30.250Z")
        },
        "2026-11-30.smile": { db in
            try db.execute(
                """
                INSERT INTO photos (id, relative_path, purpose, media_type, width, height, byte_count, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "5a1e0c3b-7d2f-4e8a-b6c9-0d1e2f3a4b5c", "photos/5a/5a1e0c3b-7d2f-4e8a-b6c9-0d1e2f3a4b5c.jpg", "smile",
                "image/jpeg", 768, 768, 98_304, String(repeating: "cd", count: 32), "2026-11-30T10:00:00.000Z")
            try db.execute(
                """
                INSERT INTO photos (id, relative_path, purpose, media_type, width, height, byte_count, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "6b2f1d4c-8e3a-4f9b-a7d0-1e2f3a4b5c6d", "photos/6b/6b2f1d4c-8e3a-4f9b-a7d0-1e2f3a4b5c6d.jpg", "smile",
                "image/jpeg", 768, 768, 101_000, String(repeating: "ef", count: 32), "2026-11-30T10:05:00.000Z")
            try db.execute(
                """
                INSERT INTO smile_entries (id, photo_id, captured_local, captured_offset_seconds, note, detector,
                    square_x, square_y, square_side, source_width, source_height, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "1c3e5a7b-9d0f-4a2c-8e4b-6d8f0a1c3e5b", "5a1e0c3b-7d2f-4e8a-b6c9-0d1e2f3a4b5c", "2026-11-29T08:30:00",
                3600, "Ünïcode ✓ 'after' \"braces\"", "landmarks", 812, 1400, 604, 3024, 4032, "2026-11-30T10:00:00.000Z")
            try db.execute(
                """
                INSERT INTO smile_entries (id, photo_id, captured_local, captured_offset_seconds, note, detector,
                    square_x, square_y, square_side, source_width, source_height, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "2d4f6b8c-0e1a-4b3d-9f5c-7e9a1b2d4f6c", "6b2f1d4c-8e3a-4f9b-a7d0-1e2f3a4b5c6d", nil, nil, "",
                "manual", 0, 0, 300, 300, 400, "2026-11-30T10:05:00.000Z")
        },
        "2026-11-30.regimen": { db in
            try db.executeScript(
                """
                INSERT INTO regimen_products (id, created_at) VALUES ('p-1', '2026-11-30T08:00:00.000Z');
                INSERT INTO regimen_product_revisions (id, product_id, number, name, brand, form, serving_value, serving_unit, recorded_at)
                    VALUES ('pr-1', 'p-1', 1, 'Vitamin D3 1000 IU', 'Ünïcode ✓', 'softgel', '1', 'count', '2026-11-30T08:00:00.000Z'),
                           ('pr-2', 'p-1', 2, 'Vitamin D3 2000 IU', '', 'softgel', '1', 'count', '2026-11-30T08:30:00.000Z');
                INSERT INTO regimen_product_ingredients (revision_id, position, catalogue_id, name_on_label, amount_value, amount_unit,
                    daily_value_percent, form)
                    VALUES ('pr-1', 0, 'vitamin-d', 'Vitamin D3', '25', 'mcg', '125', 'Vitamin D3'),
                           ('pr-2', 0, 'vitamin-d', 'Vitamin D3', '50', 'mcg', '250', NULL),
                           ('pr-2', 1, NULL, 'Olive oil', NULL, NULL, NULL, NULL);
                INSERT INTO regimen_schedules (id, product_id, created_at) VALUES ('s-1', 'p-1', '2026-11-30T08:00:00.000Z');
                INSERT INTO regimen_schedule_revisions (id, schedule_id, number, effective_from, state, servings, times, recurrence,
                    weekdays, interval_days, start_day, end_day, recorded_at)
                    VALUES ('sr-1', 's-1', 1, '2026-11-30', 'active', '1', '08:00,21:00', 'daily', 0, 1, '2026-11-30', NULL,
                            '2026-11-30T08:00:00.000Z'),
                           ('sr-2', 's-1', 2, '2026-12-07', 'active', '0.5', '08:00', 'weekdays', 21, 1, '2026-11-30',
                            '2027-06-30', '2026-11-30T08:30:00.000Z');
                INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id, occurrence_day,
                    occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes)
                    VALUES ('i-1', 'scheduled', 'taken', 'p-1', 'pr-1', 'sr-1', '2026-11-30', '08:00', '1',
                            '2026-11-30T07:05:00.000Z', 'Europe/Berlin', '2026-11-30', '2026-11-30T07:05:01.000Z', NULL),
                           ('i-2', 'scheduled', 'skipped', 'p-1', 'pr-1', 'sr-1', '2026-11-30', '08:00', '1',
                            '2026-11-30T07:05:00.000Z', 'Europe/Berlin', '2026-11-30', '2026-11-30T09:00:00.000Z', 'i-1'),
                           ('i-3', 'extra', 'taken', 'p-1', 'pr-2', NULL, NULL, NULL, '2', '2026-11-30T12:00:00.000Z',
                            'America/New_York', '2026-11-30', '2026-11-30T12:00:00.000Z', NULL);
                INSERT INTO regimen_supply_changes (id, product_id, kind, count, delta, intake_id, recorded_at)
                    VALUES (1, 'p-1', 'set', '90', NULL, NULL, '2026-11-30T08:00:00.000Z'),
                           (2, 'p-1', 'intake', NULL, '-2', 'i-3', '2026-11-30T12:00:00.000Z');
                """)
        },
        "2026-11-30.skin": { db in
            try db.execute(
                """
                INSERT INTO skin_areas (id, name, body_location, guidance, created_at) VALUES (?, ?, ?, ?, ?)
                """, "5a1c9e20-3b7d-4f6a-8e2c-9d0b1a2c3e4f", "Left forearm ✓", "forearm", "Arm flat on the desk, window light.",
                "2026-11-30T09:20:00.000Z")
            for (id, photo, thumb, at) in [
                (
                    "a1000000-0000-4000-8000-000000000001", "0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87", "e7a1f3d2-0c4b-4e6a-9b8d-1f2e3d4c5b6a",
                    "2026-11-30T09:21:00.000Z"
                ),
                (
                    "a1000000-0000-4000-8000-000000000002", "e7a1f3d2-0c4b-4e6a-9b8d-1f2e3d4c5b6a", "0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87",
                    "2026-12-07T09:21:00.000Z"
                ),
            ] {
                try db.execute(
                    """
                    INSERT INTO skin_entries (id, area_id, captured_at, time_zone, photo_id, thumbnail_id, note, brightness,
                    dark_clipped, bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, id, "5a1c9e20-3b7d-4f6a-8e2c-9d0b1a2c3e4f", at, "Europe/Berlin", photo, thumb, "after 'sun' \"day\"",
                    0.52, 0.01, 0.002, 11.5, Data([1, 0, 0, 0, 2, 3]), 1, at)
            }
            try db.execute(
                """
                INSERT INTO skin_comparisons (entry_id, baseline_id, area_id, revision, comparable, similarity, raw_score, reason,
                change_map, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "a1000000-0000-4000-8000-000000000002", "a1000000-0000-4000-8000-000000000001",
                "5a1c9e20-3b7d-4f6a-8e2c-9d0b1a2c3e4f", 1, 1, 87.5, 0.61, nil as String?, Data(repeating: 7, count: 4096), "{}")
        },
        "2026-11-30.insights": { db in
            try db.execute(
                """
                INSERT INTO insights (change_id, metric_id, product_id, change_kind, change_day, status, window_days, payload,
                    first_computed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "p1|start|2026-03-01", "sleep_quality", "p1", "start", "2026-03-01", "qualified-finding", 28,
                #"{"summary":"Starting Magnesium ✓ on 2026-03-01 was associated with higher \"Sleep\" values","windowDays":28}"#,
                "2026-03-15T08:00:00.000Z", "2026-03-29T08:00:00.000Z")
            try db.execute(
                """
                INSERT INTO insights (change_id, metric_id, product_id, change_kind, change_day, status, window_days, payload,
                    first_computed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, "p1|start|2026-03-01", "steps", "p1", "start", "2026-03-01", "ongoing-observation", 14,
                #"{"summary":"No clear difference","windowDays":14}"#, "2026-03-15T08:00:00.000Z", "2026-03-15T08:00:00.000Z")
            try db.execute("INSERT INTO insight_runs (id, as_of_day, computed_at) VALUES (1, ?, ?)", "2026-03-29", "2026-03-29T08:00:00.000Z")
        },
        "2026-12-01.skin-notes": { db in
            // The fixture's two entries arrive with their notes as version 1; the second is edited, then removed.
            try db.executeScript(
                """
                INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at) VALUES
                    ('a1000000-0000-4000-8000-000000000002', 2, 'Ünïcode ✓ ''edited''
                second line', '2026-12-08T10:00:00.000Z'),
                    ('a1000000-0000-4000-8000-000000000002', 3, '', '2026-12-09T10:00:00.000Z');
                """)
        },
        "2026-12-01.insight-inputs": { db in
            try db.execute(
                "INSERT INTO insight_pending (kind, key, changed_at) VALUES (?, ?, ?)", "series", "sleep_quality", "2026-03-30T08:00:00.000Z")
            try db.execute("INSERT INTO insight_pending (kind, key, changed_at) VALUES (?, ?, ?)", "ledger", "*", "2026-03-30T08:00:00.000Z")
            try db.execute(
                "INSERT INTO insight_series_state (metric_id, fingerprint, placebo) VALUES (?, ?, ?)", "sleep_quality",
                "9f2c", #"{"dates":40,"flagged":1}"#)
            try db.execute("INSERT INTO insight_series_state (metric_id, fingerprint, placebo) VALUES (?, ?, ?)", "steps", "41aa", nil as String?)
            try db.execute(
                "INSERT INTO insight_metric_options (metric_id, searches_onset, updated_at) VALUES (?, ?, ?)", "steps", 1,
                "2026-03-30T08:00:00.000Z")
            try db.execute("UPDATE insight_runs SET inputs = ? WHERE id = 1", #"{"ledger":"3:3|0:0|1:1","changes":[]}"#)
        },
        "2026-12-01.intake-import-runs": { db in
            // The outcomes fixture's imported record came from a finished run.
            try db.execute(
                "INSERT INTO regimen_intake_import_runs (id, started_at, finished_at) VALUES (1, ?, ?)",
                "2026-11-30T10:05:00.000Z", "2026-11-30T10:05:01.000Z")
            try db.execute("UPDATE regimen_intake SET import_run = 1 WHERE id = 'i-4'")
        },
        "2026-12-01.intake-undo": { db in
            try db.executeScript(
                """
                INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id, occurrence_day,
                    occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes, imported_from)
                    VALUES ('i-5', 'scheduled', 'taken', 'p-1', 'pr-1', 'sr-1', '2026-11-30', '21:00', '1',
                            '2026-11-30T20:00:00.000Z', 'Europe/Berlin', '2026-11-30', '2026-11-30T20:00:01.000Z', NULL, NULL),
                           ('i-6', 'scheduled', 'undone', 'p-1', 'pr-1', 'sr-1', '2026-11-30', '21:00', '1',
                            '2026-11-30T20:00:00.000Z', 'Europe/Berlin', '2026-11-30', '2026-11-30T20:01:00.000Z', 'i-5', NULL),
                           ('i-7', 'extra', 'taken', 'p-1', 'pr-1', NULL, NULL, NULL, '1', '2026-11-21T07:30:00.000Z',
                            'Europe/Berlin', '2026-11-21', '2026-11-30T20:02:00.000Z', NULL, 'history ✓.csv');
                INSERT INTO regimen_intake_imports (intake_id, import_key) VALUES ('i-7', 'p-1|2026-11-21T07:30:00.000Z|1');
                """)
        },
        "2026-12-01.reminders": { db in
            try db.executeScript(
                """
                INSERT INTO reminder_preferences (effective_from, quiet_start, quiet_end, show_names, repeat_minutes, repeat_limit,
                    morning_summary, refill_days, recorded_at)
                    VALUES ('2026-11-30', '22:00', '07:00', 0, 15, 3, 1, 7, '2026-11-30T08:00:00.000Z');
                INSERT INTO reminder_schedule_switches (schedule_id, effective_from, enabled, recorded_at)
                    VALUES ('s-1', '2026-11-30', 0, '2026-11-30T08:00:00.000Z');
                INSERT INTO reminder_deliveries (subject, kind, sent_at, until)
                    VALUES ('sr-1_2026-11-30_0800', 'due', '2026-11-30T07:00:00.000Z', NULL),
                           ('sr-1_2026-11-30_0800', 'snooze', '2026-11-30T07:01:00.000Z', '2026-11-30T07:11:00.000Z');
                """)
        },
        "2026-12-01.photo-reminders": { db in
            try db.executeScript(
                """
                INSERT INTO reminder_area_intervals (area_id, effective_from, weeks, recorded_at)
                    VALUES ('5a1c9e20-3b7d-4f6a-8e2c-9d0b1a2c3e4f', '2026-11-30', 4, '2026-11-30T08:00:00.000Z');
                INSERT INTO reminder_deliveries (subject, kind, sent_at, until)
                    VALUES ('photo:5a1c9e20-3b7d-4f6a-8e2c-9d0b1a2c3e4f:2026-12-28', 'photo', '2026-12-28T07:00:00.000Z', NULL);
                """)
        },
        "2026-12-01.schedule-zones": { db in
            try db.executeScript(
                """
                INSERT INTO regimen_schedule_revisions (id, schedule_id, number, effective_from, state, servings, times, recurrence,
                    weekdays, interval_days, start_day, end_day, recorded_at, time_zone)
                    VALUES ('sr-3', 's-1', 3, '2027-01-04', 'active', '1', '08:00', 'daily', 0, 1, '2026-11-30', NULL,
                            '2026-12-01T08:00:00.000Z', 'America/New_York');
                """)
        },
        "2026-12-08.product-archive": { db in
            try db.executeScript(
                """
                INSERT INTO regimen_product_archive (product_id, archived, recorded_at) VALUES ('p-1', 1, '2026-12-08T08:00:00.000Z');
                INSERT INTO regimen_product_archive (product_id, archived, recorded_at) VALUES ('p-1', 0, '2026-12-08T09:00:00.000Z');
                """)
        },
        "2026-12-08.product-barcodes": { db in
            try db.executeScript(
                """
                INSERT INTO regimen_product_barcodes (gtin, product_id, taught_at)
                    VALUES ('00033984001404', 'p-1', '2026-12-08T08:00:00.000Z');
                """)
        },
        "2026-11-30.outcomes": { db in
            try db.executeScript(
                """
                INSERT INTO outcome_metrics (id, name, unit, aggregation, min_value, max_value, created_at)
                    VALUES ('headache', 'Headache ✓', '1-5', 'mean', 1, 5, '2026-11-30T10:00:00.000Z');
                INSERT INTO outcome_entries (id, metric_id, day, value, note, origin, import_key, recorded_at, supersedes)
                    VALUES ('o-1', 'energy', '2026-11-29', 3, 'Ünïcode ✓ ''quoted'' "text"', 'manual', NULL, '2026-11-30T10:01:00.000Z', NULL),
                           ('o-2', 'energy', '2026-11-29', 4, '', 'manual', NULL, '2026-11-30T10:02:00.000Z', 'o-1'),
                           ('o-3', 'headache', '2026-11-28', 2.5, '', 'import', 'headache|2026-11-28|1', '2026-11-30T10:03:00.000Z', NULL),
                           ('o-4', 'headache', '2026-11-28', 3, '', 'import', 'headache|2026-11-28|1', '2026-11-30T10:04:00.000Z', 'o-3');
                INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id, occurrence_day,
                    occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes)
                    VALUES ('i-4', 'extra', 'taken', 'p-1', 'pr-1', NULL, NULL, NULL, '1', '2026-11-20T07:30:00.000Z',
                            'Europe/Berlin', '2026-11-20', '2026-11-30T10:05:00.000Z', NULL);
                INSERT INTO regimen_intake_imports (intake_id, import_key) VALUES ('i-4', 'p-1|2026-11-20T07:30:00.000Z|1');
                """)
        },
        "2026-12-08.health-connect-kinds": { db in
            try db.executeScript(
                """
                INSERT INTO health_imports (id, imported_at, file_bytes, records_read, added, already_present, skipped, warnings)
                    VALUES (2, '2026-12-08T09:00:00.000Z', 20480, 3, 3, 0, 0, 0);
                INSERT INTO health_sources (id, name, version, device) VALUES
                    (3, 'Fitbit', '', 'Health Connect, manufacturer:Google, model:Pixel Watch 2, type:watch');
                """)
            for (index, kind, value) in [(0, "heart_rate", 64.0), (1, "blood_pressure_systolic", 118.0), (2, "blood_pressure_diastolic", 76.0)] {
                try db.execute(
                    """
                    INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, created_at, created_offset,
                        start_at, start_offset, end_at, end_offset, time_zone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, Data(repeating: UInt8(0xC0 + index), count: 16), 2, kind, 3, kind == "heart_rate" ? "count/min" : "mmHg",
                    value, nil as Int?, nil as Int?, 1_765_180_800 + index, 3600, 1_765_180_800 + index, 3600, nil as String?)
            }
        },
        "2026-11-30.health": { db in
            try db.executeScript(
                """
                INSERT INTO health_imports (id, imported_at, file_bytes, records_read, added, already_present, skipped, warnings)
                    VALUES (1, '2026-11-30T11:00:00.000Z', 3790, 2, 2, 0, 6, 0);
                INSERT INTO health_sources (id, name, version, device) VALUES
                    (1, 'Alexandre''s Apple Watch ✓', '10.2', '<<HKDevice: 0x3012772a0>, name:Apple Watch, model:Watch>'),
                    (2, 'Alexandre''s iPhone', '17.2.1', '');
                """)
            try db.execute(
                """
                INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, created_at, created_offset,
                    start_at, start_offset, end_at, end_offset, time_zone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, Data(repeating: 0xA1, count: 16), 1, "sleep_analysis", 1, "", 3.0, 1_704_095_184, 7200,
                1_704_072_473, 7200, 1_704_073_223, 7200, "Europe/Amsterdam")
            try db.execute(
                """
                INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, created_at, created_offset,
                    start_at, start_offset, end_at, end_offset, time_zone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, Data(repeating: 0x5B, count: 16), 1, "body_mass", 2, "lb", 150.5, nil as Int?, nil as Int?,
                1_704_063_600, -18_000, 1_704_063_600, -18_000, nil as String?)
        },
    ]

    static func fixtureURL(_ id: String) -> URL { fixturesDirectory.appendingPathComponent("\(id).sqlite") }

    @Test func everyLandedMigrationHasSampleRowsAndAFixture() {
        let ids = CairnSchema.migrations.map(\.id)
        #expect(Set(ids).count == ids.count, "migration IDs must be unique")
        for id in ids {
            #expect(Self.sampleRows[id] != nil, "add sample rows for \(id) to CairnSchemaTests.sampleRows")
            #expect(
                FileManager.default.fileExists(atPath: Self.fixtureURL(id).path),
                "no fixture for \(id): run scripts/storage-fixture.sh")
        }
        let stray = ((try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)) ?? [])
            .filter { $0.hasSuffix(".sqlite") && !ids.contains(String($0.dropLast(".sqlite".count))) }
        #expect(stray.isEmpty, "fixtures for migrations that are not in CairnSchema.migrations: \(stray)")
    }

    @Test(arguments: CairnSchema.migrations.map(\.id))
    func fixtureMigratesToTodaysSchemaWithItsDataIntact(id: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let copy = dir.url.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: Self.fixtureURL(id), to: copy)
        let database = try Database(path: copy.path)
        defer { database.close() }
        let before = try Self.contents(of: database)
        #expect(!before.isEmpty, "the fixture has no rows")

        try Migrator(CairnSchema.migrations).migrate(database)
        #expect(try Migrator(CairnSchema.migrations).appliedIDs(in: database) == CairnSchema.migrations.map(\.id))
        try database.read { db in
            #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
            #expect(try db.query("PRAGMA foreign_key_check").isEmpty)
            // Every old row is still there with every old column's value (new columns may be added).
            for (table, rows) in before {
                for row in rows {
                    let condition = row.columnNames.map { "\"\($0)\" IS ?" }.joined(separator: " AND ")
                    let count = try db.scalar(
                        "SELECT count(*) FROM \"\(table)\" WHERE \(condition)",
                        arguments: row.values.map { $0 }, as: Int.self)
                    #expect(count == 1, "a row of \(table) changed or vanished")
                }
            }
        }
    }

    @Test func todaysSchemaReadsTheFoundationFixturesPhotos() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let vault = try Vault(directory: dir.url)
        try FileManager.default.copyItem(at: Self.fixtureURL("2026-11-30.foundation"), to: vault.databaseURL)
        let database = try vault.openDatabase()
        defer { database.close() }
        let store = PhotoFileStore(vault: vault, database: database)
        let photo = try #require(try store.photo(PhotoID("0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87")))
        #expect(photo.mediaType == .jpeg)
        #expect(photo.width == 4032 && photo.height == 3024)
        #expect(Timestamp.string(from: photo.createdAt) == "2026-11-30T09:15:00.000Z")
        #expect(try store.photos(purpose: "label").map(\.mediaType) == [.heic])
    }

    /// Proves a landed migration was not edited: the schema the list builds today up to `id` must equal the
    /// schema stored in that migration's fixture.
    @Test(arguments: CairnSchema.migrations.map(\.id))
    func landedMigrationStillBuildsItsFixturesSchema(id: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fresh = try Database(path: dir.url.appendingPathComponent("fresh.sqlite").path)
        defer { fresh.close() }
        try Migrator(CairnSchema.migrations).migrate(fresh, upTo: id)
        try FileManager.default.copyItem(at: Self.fixtureURL(id), to: dir.url.appendingPathComponent("f.sqlite"))
        let fixture = try Database(path: dir.url.appendingPathComponent("f.sqlite").path)
        defer { fixture.close() }
        #expect(try Self.schema(of: fresh) == Self.schema(of: fixture), "migration \(id) was edited after it landed")
    }

    /// Writes the fixture of every migration that has none yet (never overwrites a landed one).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CAIRN_WRITE_FIXTURE"] != nil))
    func writeMissingFixtures() throws {
        let ids = CairnSchema.migrations.map(\.id)
        for (index, id) in ids.enumerated() where !FileManager.default.fileExists(atPath: Self.fixtureURL(id).path) {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let path = dir.url.appendingPathComponent("fixture.sqlite").path
            let database = try Database(path: path)
            let migrator = Migrator(CairnSchema.migrations, clock: fixedClock)
            for step in ids[...index] {
                try migrator.migrate(database, upTo: step)
                let insert = try #require(Self.sampleRows[step], "add sample rows for \(step)")
                try database.write { try insert($0) }
            }
            // A self-contained file: fold the WAL in and leave rollback-journal mode.
            try database.withoutTransaction { db in
                try db.execute("VACUUM")
                _ = try db.query("PRAGMA journal_mode = DELETE")
            }
            database.close()
            try FileManager.default.createDirectory(at: fixturesDirectory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: Self.fixtureURL(id).path)
            print("wrote fixture \(Self.fixtureURL(id).lastPathComponent)")
        }
    }

    static func contents(of database: Database) throws -> [String: [Row]] {
        try database.read { db in
            var result: [String: [Row]] = [:]
            let tables = try db.query(
                """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name <> 'schema_migrations'
                """
            ).map { try $0.get("name", as: String.self) }
            for table in tables { result[table] = try db.query("SELECT * FROM \"\(table)\"") }
            return result
        }
    }

    static func schema(of database: Database) throws -> [String] {
        try database.read { db in
            try db.query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
                .map {
                    "\(try $0.get("type", as: String.self)) \(try $0.get("name", as: String.self)): \(try $0.optional("sql", as: String.self) ?? "")"
                }
        }
    }
}
