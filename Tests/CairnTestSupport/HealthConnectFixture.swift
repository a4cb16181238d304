internal import CSQLite
import Foundation

/// Builds a Google Health Connect export for tests and the bench: a SQLite database in Health Connect's schema
/// (the tables and columns of AOSP's `HealthFitness` record helpers: a uuid BLOB per record, epoch milliseconds,
/// zone offsets in seconds, `app_info_id` into `application_info_table`), zipped as `health_connect_export.db`.
/// Only the columns Cairn may read are made, plus one table it does not read (`distance_record_table`).
public struct HealthConnectFixture {
    /// A row of `application_info_table`.
    public struct App {
        public let id: Int64
        public let package: String
        public let name: String?
        public init(id: Int64, package: String, name: String?) {
            self.id = id
            self.package = package
            self.name = name
        }
    }

    /// A row of `device_info_table` (type: 1 watch, 2 phone, 3 scale...).
    public struct Device {
        public let id: Int64
        public let manufacturer: String
        public let model: String
        public let type: Int64
        public init(id: Int64, manufacturer: String, model: String, type: Int64) {
            self.id = id
            self.manufacturer = manufacturer
            self.model = model
            self.type = type
        }
    }

    public var apps: [App] = [App(id: 1, package: "com.google.android.apps.fitness", name: "Fit")]
    public var devices: [Device] = [Device(id: 1, manufacturer: "Google", model: "Pixel 8", type: 2)]
    /// SQL run after the tables are made: the rows of a test.
    public var rows: [String] = []
    /// The tables made (Health Connect's by default; a test of a foreign database gives its own).
    public var schema = HealthConnectFixture.standardSchema

    public init() {}

    /// A uuid for test record `n` (16 bytes), as the SQL literal `X'…'`.
    public static func uuid(_ n: Int) -> String {
        "X'" + String(format: "%032x", n) + "'"
    }

    /// Epoch milliseconds of `text` ("2024-03-01 23:30:00 +0100").
    public static func millis(_ text: String) -> Int64 {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return Int64(formatter.date(from: text)!.timeIntervalSince1970 * 1000)
    }

    /// Adds a step count over [start, end) of app `app` (offsets in seconds).
    public mutating func steps(_ n: Int, app: Int64 = 1, device: Int64 = 1, start: Int64, end: Int64, offset: Int = 3600, count: Int) {
        rows.append(
            "INSERT INTO steps_record_table (uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, local_date, count) VALUES (\(Self.uuid(n)), \(app), \(device), \(start), \(offset), \(end), \(offset), 0, \(count))"
        )
    }

    /// Adds an instant record of `table` with `column` = `value` (a SQL literal).
    public mutating func instant(_ table: String, _ n: Int, app: Int64 = 1, time: Int64, offset: Int = 3600, columns: [String: String]) {
        let names = columns.keys.sorted()
        rows.append(
            "INSERT INTO \(table) (uuid, app_info_id, device_info_id, time, zone_offset, local_date\(names.map { ", " + $0 }.joined())) VALUES (\(Self.uuid(n)), \(app), 1, \(time), \(offset), 0\(names.map { ", " + columns[$0]! }.joined()))"
        )
    }

    /// Adds a weight in grams.
    public mutating func weight(_ n: Int, app: Int64 = 1, time: Int64, offset: Int = 3600, grams: Double) {
        instant("weight_record_table", n, app: app, time: time, offset: offset, columns: ["weight": "\(grams)"])
    }

    /// Adds a blood pressure reading in mmHg.
    public mutating func bloodPressure(_ n: Int, app: Int64 = 1, time: Int64, offset: Int = 3600, systolic: Double, diastolic: Double) {
        instant(
            "blood_pressure_record_table", n, app: app, time: time, offset: offset,
            columns: ["systolic": "\(systolic)", "diastolic": "\(diastolic)", "measurement_location": "'0'", "body_position": "'0'"])
    }

    /// Adds a heart rate record (row id `row`) with its samples (epoch ms, bpm).
    public mutating func heartRate(_ n: Int, row: Int64, app: Int64 = 1, device: Int64 = 1, offset: Int = 3600, samples: [(Int64, Int)]) {
        let start = samples.map(\.0).min() ?? 0
        let end = samples.map(\.0).max() ?? 0
        rows.append(
            "INSERT INTO heart_rate_record_table (row_id, uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, local_date) VALUES (\(row), \(Self.uuid(n)), \(app), \(device), \(start), \(offset), \(end), \(offset), 0)"
        )
        for (at, bpm) in samples {
            rows.append("INSERT INTO heart_rate_record_series_table (parent_key, beats_per_minute, epoch_millis) VALUES (\(row), \(bpm), \(at))")
        }
    }

    /// Adds a sleep session (row id `row`) with its stages (start ms, end ms, Health Connect stage type).
    public mutating func sleep(
        _ n: Int, row: Int64, app: Int64 = 1, device: Int64 = 1, start: Int64, end: Int64, offset: Int = 3600,
        stages: [(Int64, Int64, Int)] = []
    ) {
        rows.append(
            "INSERT INTO sleep_session_record_table (row_id, uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, local_date) VALUES (\(row), \(Self.uuid(n)), \(app), \(device), \(start), \(offset), \(end), \(offset), 0)"
        )
        for (from, to, type) in stages {
            rows.append(
                "INSERT INTO sleep_stages_table (parent_key, stage_start_time, stage_end_time, stage_type) VALUES (\(row), \(from), \(to), \(type))")
        }
    }

    /// The tables, as Health Connect makes them (the columns Cairn reads and the common prefix).
    public static let standardSchema = """
        CREATE TABLE application_info_table (row_id INTEGER PRIMARY KEY, package_name TEXT NOT NULL UNIQUE, app_name TEXT, app_icon BLOB, record_types_used TEXT);
        CREATE TABLE device_info_table (row_id INTEGER PRIMARY KEY, manufacturer TEXT, model TEXT, device_type INTEGER);
        CREATE TABLE steps_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, start_time INTEGER, start_zone_offset INTEGER, end_time INTEGER, end_zone_offset INTEGER, local_date INTEGER, count INTEGER);
        CREATE TABLE weight_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, time INTEGER, zone_offset INTEGER, local_date INTEGER, weight REAL);
        CREATE TABLE resting_heart_rate_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, time INTEGER, zone_offset INTEGER, local_date INTEGER, beats_per_minute INTEGER);
        CREATE TABLE blood_pressure_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, time INTEGER, zone_offset INTEGER, local_date INTEGER, measurement_location TEXT NOT NULL, systolic REAL, diastolic REAL, body_position TEXT NOT NULL);
        CREATE TABLE heart_rate_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, start_time INTEGER, start_zone_offset INTEGER, end_time INTEGER, end_zone_offset INTEGER, local_date INTEGER);
        CREATE TABLE heart_rate_record_series_table (parent_key INTEGER, beats_per_minute INTEGER, epoch_millis INTEGER, FOREIGN KEY (parent_key) REFERENCES heart_rate_record_table(row_id) ON DELETE CASCADE);
        CREATE TABLE sleep_session_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, last_modified_time INTEGER, client_record_id TEXT, client_record_version TEXT, device_info_id INTEGER, app_info_id INTEGER, recording_method INTEGER, dedupe_hash BLOB UNIQUE, start_time INTEGER, start_zone_offset INTEGER, end_time INTEGER, end_zone_offset INTEGER, local_date INTEGER, notes TEXT, title TEXT);
        CREATE TABLE sleep_stages_table (parent_key INTEGER NOT NULL, stage_start_time INTEGER NOT NULL, stage_end_time INTEGER NOT NULL, stage_type INTEGER NOT NULL, FOREIGN KEY (parent_key) REFERENCES sleep_session_record_table(row_id) ON DELETE CASCADE);
        CREATE TABLE distance_record_table (row_id INTEGER PRIMARY KEY AUTOINCREMENT, uuid BLOB NOT NULL UNIQUE, app_info_id INTEGER, device_info_id INTEGER, start_time INTEGER, start_zone_offset INTEGER, end_time INTEGER, end_zone_offset INTEGER, local_date INTEGER, distance REAL);
        """

    /// Writes the database to `url` (replacing a file there).
    public func writeDatabase(to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK else { throw ToolFailure(tool: "sqlite", message: "open \(url.path)") }
        defer { sqlite3_close(db) }
        var script = "BEGIN;\n" + schema + "\n"
        for app in apps {
            script +=
                "INSERT INTO application_info_table (row_id, package_name, app_name) VALUES (\(app.id), \(Self.quote(app.package)), \(app.name.map(Self.quote) ?? "NULL"));\n"
        }
        for d in devices {
            script += "INSERT INTO device_info_table VALUES (\(d.id), \(Self.quote(d.manufacturer)), \(Self.quote(d.model)), \(d.type));\n"
        }
        script += rows.joined(separator: ";\n") + (rows.isEmpty ? "" : ";\n") + "COMMIT;"
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, script, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw ToolFailure(tool: "sqlite", message: text)
        }
    }

    /// Writes the database and zips it as `health_connect_export.db` (with the zip tool) into `zipURL`.
    public func writeZip(to zipURL: URL, in scratch: Scratch) throws {
        let folder = scratch.url.appendingPathComponent("hc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try writeDatabase(to: folder.appendingPathComponent("health_connect_export.db"))
        try Self.zip(folder, members: ["health_connect_export.db"], to: zipURL)
        try FileManager.default.removeItem(at: folder)
    }

    /// Zips `members` of `folder` (relative paths) into `zipURL` with the zip tool.
    public static func zip(_ folder: URL, members: [String], to zipURL: URL) throws {
        try? FileManager.default.removeItem(at: zipURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tools.path(of: "zip") ?? "/usr/bin/zip")
        process.currentDirectoryURL = folder
        process.arguments = ["-q", zipURL.path] + members
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolFailure(tool: "zip", message: "exit \(process.terminationStatus)") }
    }

    private static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

extension HealthConnectFixture {
    /// What `writeSynthetic` wrote.
    public struct SyntheticStats {
        public var rows = 0
        public var days = 0
        public var bytes: Int64 = 0
    }

    /// Writes a synthetic Health Connect database of about `rows` rows to `url`, with the mix of a phone and a
    /// watch over years: per day, 200 heart rate samples (under 24 hourly series), 48 half-hour step counts from
    /// each of the phone and the watch (the same time counted twice, as Fit and Fitbit do), one night's session
    /// with 12 stages, a weight, a resting heart rate, a blood pressure reading and 48 distances (a table Cairn
    /// skips). Every record row has what a real one has (uuid, dedupe hash, client id, modification time), so the
    /// file's size per row is close to a real export's. The days end a month before `now`.
    public static func writeSynthetic(to url: URL, rows target: Int, now: Date = Date()) throws -> SyntheticStats {
        try? FileManager.default.removeItem(at: url)
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK else { throw ToolFailure(tool: "sqlite", message: "open \(url.path)") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw ToolFailure(tool: "sqlite", message: String(cString: sqlite3_errmsg(db)))
            }
        }
        try exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;")
        try exec(standardSchema)
        try exec(
            """
            INSERT INTO application_info_table (row_id, package_name, app_name) VALUES (1, 'com.google.android.apps.fitness', 'Fit'), (2, 'com.fitbit.FitbitMobile', 'Fitbit');
            INSERT INTO device_info_table VALUES (1, 'Google', 'Pixel 8', 2), (2, 'Google', 'Pixel Watch 2', 1);
            """)
        let perDay = 200 + 24 + 96 + 13 + 1 + 1 + 1 + 48
        let days = max(1, target / perDay)
        let firstDay = Int64(now.timeIntervalSince1970 / 86_400) - 30 - Int64(days)
        var uuid: UInt64 = 0
        var stats = SyntheticStats()
        stats.days = days
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw ToolFailure(tool: "sqlite", message: String(cString: sqlite3_errmsg(db)))
            }
            return statement
        }
        let common =
            "uuid, last_modified_time, client_record_id, client_record_version, device_info_id, app_info_id, recording_method, dedupe_hash"
        let interval = try prepare(
            "INSERT INTO %T (\(common), start_time, start_zone_offset, end_time, end_zone_offset, local_date, %C) VALUES (?, ?, ?, '0', ?, ?, 2, ?, ?, 3600, ?, 3600, ?, ?)"
                .replacingOccurrences(of: "%T", with: "steps_record_table").replacingOccurrences(of: "%C", with: "count"))
        let distance = try prepare(
            "INSERT INTO distance_record_table (uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, local_date, distance) VALUES (?, ?, ?, ?, 3600, ?, 3600, ?, ?)"
        )
        let heartParent = try prepare(
            "INSERT INTO heart_rate_record_table (row_id, \(common), start_time, start_zone_offset, end_time, end_zone_offset, local_date) VALUES (?, ?, ?, ?, '0', 2, 2, 2, ?, ?, 3600, ?, 3600, ?)"
        )
        let heartSample = try prepare("INSERT INTO heart_rate_record_series_table (parent_key, beats_per_minute, epoch_millis) VALUES (?, ?, ?)")
        let session = try prepare(
            "INSERT INTO sleep_session_record_table (row_id, \(common), start_time, start_zone_offset, end_time, end_zone_offset, local_date) VALUES (?, ?, ?, ?, '0', 2, 2, 2, ?, ?, 3600, ?, 3600, ?)"
        )
        let stage = try prepare("INSERT INTO sleep_stages_table (parent_key, stage_start_time, stage_end_time, stage_type) VALUES (?, ?, ?, ?)")
        let weight = try prepare(
            "INSERT INTO weight_record_table (\(common), time, zone_offset, local_date, weight) VALUES (?, ?, ?, '0', 1, 1, 3, ?, ?, 3600, ?, ?)")
        let resting = try prepare(
            "INSERT INTO resting_heart_rate_record_table (\(common), time, zone_offset, local_date, beats_per_minute) VALUES (?, ?, ?, '0', 2, 2, 2, ?, ?, 3600, ?, ?)"
        )
        let pressure = try prepare(
            "INSERT INTO blood_pressure_record_table (\(common), time, zone_offset, local_date, measurement_location, systolic, diastolic, body_position) VALUES (?, ?, ?, '0', 1, 1, 3, ?, ?, 3600, ?, '0', ?, ?, '0')"
        )
        let statements = [interval, distance, heartParent, heartSample, session, stage, weight, resting, pressure]
        defer { if db != nil { for s in statements { sqlite3_finalize(s) } } }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func run(_ s: OpaquePointer, _ values: [Any]) throws {
            sqlite3_reset(s)
            for (i, value) in values.enumerated() {
                let index = Int32(i + 1)
                switch value {
                case let v as Int64: sqlite3_bind_int64(s, index, v)
                case let v as Int: sqlite3_bind_int64(s, index, Int64(v))
                case let v as Double: sqlite3_bind_double(s, index, v)
                case let v as String: sqlite3_bind_text(s, index, v, -1, transient)
                case let v as [UInt8]: sqlite3_bind_blob(s, index, v, Int32(v.count), transient)
                default: sqlite3_bind_null(s, index)
                }
            }
            guard sqlite3_step(s) == SQLITE_DONE else { throw ToolFailure(tool: "sqlite", message: String(cString: sqlite3_errmsg(db))) }
            stats.rows += 1
        }
        func nextUUID() -> [UInt8] {
            uuid += 1
            return withUnsafeBytes(of: uuid.bigEndian) { Array($0) } + withUnsafeBytes(of: (uuid &* 0x9E37_79B9_7F4A_7C15).bigEndian) { Array($0) }
        }
        func hash(_ parts: Int64...) -> [UInt8] { parts.flatMap { p in withUnsafeBytes(of: p.bigEndian) { Array($0) } } }
        var noise: UInt64 = 0x2545_F491_4F6C_DD1D
        func random(_ range: Int) -> Int {
            noise ^= noise << 13
            noise ^= noise >> 7
            noise ^= noise << 17
            return Int(noise % UInt64(range))
        }
        var parentRow: Int64 = 0
        for d in 0..<Int64(days) {
            let day = firstDay + d
            let midnight = (day * 86_400 - 3600) * 1000
            let modified = (day + 1) * 86_400_000
            for hour in 0..<24 {
                parentRow += 1
                let start = midnight + Int64(hour) * 3_600_000
                try run(
                    heartParent,
                    [parentRow, nextUUID(), modified, "hr-\(parentRow)", hash(2, 2, start, start + 3_599_000), start, start + 3_599_000, day])
                let samples = hour < 8 ? 8 : 9
                for i in 0..<samples {
                    try run(heartSample, [parentRow, 55 + random(60), start + Int64(i) * 3_600_000 / Int64(samples)])
                }
            }
            for app in [Int64(1), 2] {
                for slot in 0..<48 {
                    let start = midnight + Int64(slot) * 1_800_000
                    try run(
                        interval,
                        [
                            nextUUID(), modified, "steps-\(uuid)", app, app, hash(app, app, start, start + 1_800_000), start, start + 1_800_000, day,
                            random(slot >= 14 && slot < 44 ? 900 : 40),
                        ])
                    if app == 1 { try run(distance, [nextUUID(), app, app, start, start + 1_800_000, day, Double(random(700))]) }
                }
            }
            parentRow += 1
            let bed = midnight - 3_600_000
            try run(session, [parentRow, nextUUID(), modified, "sleep-\(day)", hash(2, 2, bed, bed + 8 * 3_600_000), bed, bed + 8 * 3_600_000, day])
            for s in 0..<12 {
                let from = bed + Int64(s) * 2_400_000
                try run(stage, [parentRow, from, from + 2_400_000, [4, 5, 4, 6, 1, 4, 5, 6, 4, 6, 1, 4][s]])
            }
            let morning = midnight + 7 * 3_600_000
            try run(weight, [nextUUID(), modified, "w-\(day)", hash(1, 1, morning), morning, day, 70_000.0 + Double(random(3000))])
            try run(resting, [nextUUID(), modified, "r-\(day)", hash(2, 2, morning), morning, day, 50 + random(15)])
            try run(
                pressure,
                [
                    nextUUID(), modified, "bp-\(day)", hash(1, 1, morning + 60_000), morning + 60_000, day, 110.0 + Double(random(20)),
                    70.0 + Double(random(15)),
                ])
        }
        try exec("COMMIT;")
        for s in statements { sqlite3_finalize(s) }
        sqlite3_close(db)
        db = nil
        stats.bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)??.int64Value ?? 0
        return stats
    }
}
