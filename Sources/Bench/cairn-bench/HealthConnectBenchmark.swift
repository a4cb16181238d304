import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import HealthExport
import Storage

/// `cairn-bench health-connect [--rows N]`: writes a synthetic Health Connect export of about N rows (1,000,000 by
/// default: a phone and a watch over years, `HealthConnectFixture.writeSynthetic`), zips it, and measures in child
/// processes (each its own peak RSS):
/// 1. Cairn's read of the database (`HealthConnectExport.read`: every row turned into a checked record, handed over
///    and dropped), in MB of database per second (target >= 50 MB/s) and peak RSS (target <= 150 MB): the issue's
///    "database read", set beside
/// 2. the baseline, in the same run: Python's `sqlite3` reading the same rows of the same file (the same SELECTs,
///    every row fetched), when `python3` is installed;
/// 3. the whole import through `HealthService` (the copy out of the zip, the read, the batches into the vault), in
///    MB of database and records per second and peak RSS (target <= 150 MB); its speed is the vault's writing, for
///    information.
enum HealthConnectBenchmark {
    static let targetMBPerSecond = 50.0
    static let targetPeakMB = 150.0

    static func run(arguments: [String]) throws -> Bool {
        if arguments.first == "--child-import", arguments.count == 3 {
            try childImport(file: arguments[1], vault: arguments[2])
            exit(0)
        }
        if arguments.first == "--child-read", arguments.count == 2 {
            try childRead(database: arguments[1])
            exit(0)
        }
        var rows = 1_000_000
        if let index = arguments.firstIndex(of: "--rows"), index + 1 < arguments.count { rows = max(1000, Int(arguments[index + 1]) ?? rows) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-hc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("health-connect: synthetic Health Connect export, \(rows) rows target")
        let database = directory.appendingPathComponent(HealthConnectExport.databaseName)
        let generated = ContinuousClock.now
        let stats = try HealthConnectFixture.writeSynthetic(to: database, rows: rows)
        let megabytes = Double(stats.bytes) / 1_048_576
        print(
            String(
                format: "  generated %.0f MB of database, %d rows, %d days in %.1f s", megabytes, stats.rows, stats.days,
                HealthBenchmark.seconds(ContinuousClock.now - generated)))
        let zip = directory.appendingPathComponent("Health Connect.zip")
        try HealthConnectFixture.zip(directory, members: [HealthConnectExport.databaseName], to: zip)
        let zipBytes = (try? FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? NSNumber)??.int64Value ?? 0
        print(String(format: "  zipped to %.0f MB", Double(zipBytes) / 1_048_576))

        var met = true
        if let fields = child(["health-connect", "--child-read", database.path]) {
            let elapsed = fields["seconds"] ?? 1
            let rate = megabytes / elapsed
            let peak = fields["peakMB"] ?? -1
            print(
                String(
                    format: "  Cairn's read: %.1f s = %.0f MB/s of database (target >= %.0f) %@, %d records; peak RSS %.0f MB (target <= %.0f) %@",
                    elapsed, rate, targetMBPerSecond, rate >= targetMBPerSecond ? "met" : "NOT met", Int(fields["records"] ?? 0), peak,
                    targetPeakMB, peak <= targetPeakMB ? "met" : "NOT met"))
            met = rate >= targetMBPerSecond && peak <= targetPeakMB
        } else {
            met = false
        }
        if let python = Tools.path(of: "python3") {
            let start = ContinuousClock.now
            let output = try? Tools.run(python, ["-c", pythonBaseline, database.path])
            let elapsed = HealthBenchmark.seconds(ContinuousClock.now - start)
            let count = output.map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
            print(
                String(format: "  baseline, Python sqlite3 fetching the same rows: %.1f s = %.0f MB/s (%@ rows)", elapsed, megabytes / elapsed, count)
            )
        } else {
            print("  baseline: skipped (python3 is not installed)")
        }
        if let fields = child(["health-connect", "--child-import", zip.path, directory.appendingPathComponent("vault").path]) {
            let elapsed = fields["seconds"] ?? 1
            let rate = megabytes / elapsed
            let peak = fields["peakMB"] ?? -1
            print(
                String(
                    format:
                        "  whole import (copy out of the zip, read, store in the vault): %.1f s = %.0f MB/s of database, %.0f records/s; CPU %.1f s; peak RSS %.0f MB (target <= %.0f) %@; %d added, %d left out",
                    elapsed, rate, (fields["added"] ?? 0) / elapsed, fields["cpu"] ?? 0, peak, targetPeakMB,
                    peak <= targetPeakMB ? "met" : "NOT met", Int(fields["added"] ?? 0), Int(fields["warnings"] ?? 0)))
            met = met && peak <= targetPeakMB
        } else {
            print("  import: failed")
            met = false
        }
        print("  load average \(HealthBenchmark.loadAverage())")
        return met
    }

    /// The same SELECTs Cairn runs, every row fetched, in Python's sqlite3 (the interpreter's start included).
    static let pythonBaseline = """
        import sqlite3, sys
        db = sqlite3.connect("file:" + sys.argv[1] + "?immutable=1", uri=True)
        queries = [
            "SELECT row_id, package_name, app_name FROM application_info_table",
            "SELECT row_id, manufacturer, model, device_type FROM device_info_table",
            "SELECT uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, count FROM steps_record_table",
            "SELECT uuid, app_info_id, device_info_id, time, zone_offset, weight FROM weight_record_table",
            "SELECT uuid, app_info_id, device_info_id, time, zone_offset, beats_per_minute FROM resting_heart_rate_record_table",
            "SELECT uuid, app_info_id, device_info_id, time, zone_offset, systolic, diastolic FROM blood_pressure_record_table",
            "SELECT p.uuid, p.app_info_id, p.device_info_id, s.epoch_millis, p.start_zone_offset, s.beats_per_minute FROM heart_rate_record_series_table s JOIN heart_rate_record_table p ON p.row_id = s.parent_key",
            "SELECT parent_key, stage_start_time, stage_end_time, stage_type FROM sleep_stages_table",
            "SELECT uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, row_id FROM sleep_session_record_table",
            "SELECT count(*) FROM distance_record_table",
        ]
        rows = 0
        for q in queries:
            for row in db.execute(q):
                rows += 1
        print(rows)
        """

    /// Runs this executable with `arguments` and reads the `name=value` pairs it prints; nil when it failed.
    private static func child(_ arguments: [String]) -> [String: Double]? {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-hc-out-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        guard let handle = try? FileHandle(forWritingTo: output) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.standardOutput = handle
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        try? handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            print("  child \(arguments[1]) failed (status \(process.terminationStatus)): \(text)")
            return nil
        }
        return Dictionary(
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pair -> (String, Double)? in
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let value = Double(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { $1 })
    }

    private static func childImport(file: String, vault: String) throws {
        let app = try CairnApplication(vault: try Vault(directory: URL(fileURLWithPath: vault)))
        let start = ContinuousClock.now
        let cpuStart = HealthBenchmark.cpuSeconds()
        let summary = try app.health.importExport(at: URL(fileURLWithPath: file))
        let elapsed = HealthBenchmark.seconds(ContinuousClock.now - start)
        print(
            "seconds=\(elapsed) cpu=\(HealthBenchmark.cpuSeconds() - cpuStart) peakMB=\(HealthBenchmark.peakRSSMB()) added=\(summary.added) warnings=\(summary.warningCount)"
        )
    }

    private static func childRead(database: String) throws {
        let start = ContinuousClock.now
        var records = 0
        _ = try HealthConnectExport.read(databaseAt: database) { _ in records += 1 }
        print("seconds=\(HealthBenchmark.seconds(ContinuousClock.now - start)) records=\(records) peakMB=\(HealthBenchmark.peakRSSMB())")
    }
}
