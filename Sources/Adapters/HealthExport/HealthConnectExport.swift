internal import CArchive
internal import CSQLite
import CairnCore
import Foundation

/// Reads Google Health Connect's export: the zip its "Export" writes, holding one SQLite database,
/// `health_connect_export.db`. Times are epoch milliseconds with zone offsets in seconds; each record has a
/// 16-byte uuid, which becomes the record's `HealthRecord.recordID` (a later export re-imported adds only new
/// uuids).
///
/// SQLite reads a file, so the database is first copied out of the zip (`copyDatabase`) into a file the caller
/// made (inside the vault folder, registered as a temporary artefact: see `HealthService`), then read read-only
/// (`read`): never extracted anywhere else, never written to.
///
/// What is read, table by table (columns chosen by name):
/// - `steps_record_table` (`count`) as step counts over their interval;
/// - `weight_record_table` (`weight`, grams) as body mass;
/// - `resting_heart_rate_record_table` (`beats_per_minute`) as resting heart rate;
/// - `heart_rate_record_series_table` (`beats_per_minute` at `epoch_millis`, joined to its parent in
///   `heart_rate_record_table` for the uuid, app and offset) as heart rate samples;
/// - `blood_pressure_record_table` (`systolic`, `diastolic`, mmHg) as two records;
/// - `sleep_session_record_table` with its `sleep_stages_table` rows: the session as time in bed, each stage as
///   asleep (light, deep, REM, or unstaged "sleeping") or awake (awake, out of bed, awake in bed, unknown); a
///   session without stages counts as asleep, unstaged, for its whole length.
/// Every other record table is counted as skipped (heart rate variability there is RMSSD, never mixed with
/// Apple's SDNN). The app of each record is its source (`application_info_table`), with its device
/// (`device_info_table`), so overlapping apps are merged by `HealthDailyValues`' rule, as Apple's sources are.
public enum HealthConnectExport {
    /// The name of the database inside the export's zip.
    public static let databaseName = "health_connect_export.db"
    /// The most bytes the database may unpack to (4 GiB: a phone's export of years of a watch's data is a few
    /// hundred MB); past it the copy stops and the import is refused (`healthConnectDatabaseTooLarge`).
    public static let largestDatabase: Int64 = 4 << 30
    /// The most sleep stages a database may hold (they are gathered per session in memory before their sessions
    /// are read): fifty years of nights with fifty stages each. Past it the import is refused
    /// (`tooManySleepStages`), so a hostile file cannot make the read hold unbounded memory.
    public static let mostSleepStages = 1_000_000

    /// Whether an archive member is the Health Connect database.
    static func isDatabase(_ name: String) -> Bool { name == databaseName || name.hasSuffix("/" + databaseName) }

    // MARK: copy

    /// Copies the database out of the export's zip into `file`, an open descriptor of an empty file the caller
    /// made (0600, in the vault folder), and fsyncs it. Returns the bytes written.
    ///
    /// - Throws: `HealthExportError.severalHealthConnectDatabases` (more than one member named like the database,
    ///   found before anything is written), `.healthConnectDatabaseTooLarge` (more than `largestDatabase` bytes,
    ///   whatever the zip's headers claim), `.noRoomForHealthConnectCopy` (the disk is full),
    ///   `.damagedArchive`, `.noExportInArchive`.
    public static func copyDatabase(
        from source: HealthExportSource, to file: Int32, maximumBytes: Int64 = largestDatabase
    ) throws -> Int64 {
        try HealthExportReader.withArchive(source) { open in
            let count = try HealthExportReader.memberCount(open: open, matching: isDatabase)
            guard count > 0 else { throw HealthExportError.noExportInArchive }
            guard count == 1 else { throw HealthExportError.severalHealthConnectDatabases(count: count) }
            guard let archive = archive_read_new() else { throw HealthExportError.damagedArchive }
            defer { archive_read_free(archive) }
            archive_read_support_format_zip(archive)
            guard open(archive) == ARCHIVE_OK else { throw HealthExportError.damagedArchive }
            var entry: OpaquePointer?
            while true {
                let rc = archive_read_next_header(archive, &entry)
                if rc == ARCHIVE_EOF { throw HealthExportError.noExportInArchive }
                guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let entry else { throw HealthExportError.damagedArchive }
                if let name = archive_entry_pathname(entry), isDatabase(String(cString: name)) { break }
                _ = archive_read_data_skip(archive)
            }
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            var written: Int64 = 0
            while true {
                let count = archive_read_data(archive, buffer.baseAddress, chunk)
                if count < 0 { throw HealthExportError.damagedArchive }
                if count == 0 { break }
                written += Int64(count)
                guard written <= maximumBytes else { throw HealthExportError.healthConnectDatabaseTooLarge }
                var offset = 0
                while offset < count {
                    let n = Glibc.write(file, buffer.baseAddress! + offset, count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw errno == ENOSPC || errno == EDQUOT
                            ? HealthExportError.noRoomForHealthConnectCopy : HealthExportError.unreadable
                    }
                    offset += n
                }
            }
            guard fsync(file) == 0 else { throw HealthExportError.noRoomForHealthConnectCopy }
            return written
        }
    }

    // MARK: read

    /// Reads the database at `path` read-only (opened `immutable`: no journal or lock file is made beside it),
    /// handing each record that passes `HealthRecordCheck` to `onRecord`, table by table. Rows are read on a
    /// thread of their own while `onRecord` runs on the calling thread (`Handoff`), memory flat.
    ///
    /// - Parameters:
    ///   - dates: the instants a record's start and end must fall in (`ImportDates.instants`); nil: any.
    ///   - progress: (an estimate of the database's bytes read so far from the rows read, its size).
    /// - Throws: `HealthExportError.notAHealthConnectExport` when the file is not SQLite or lacks Health Connect's
    ///   tables (before any record is handed on), `.damagedHealthConnectDatabase` when a read fails midway.
    public static func read(
        databaseAt path: String, dates: Range<Date>? = nil, mostSleepStages: Int = mostSleepStages,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in },
        onRecord: (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        enum Item: Sendable {
            case record(HealthRecord)
            case position(Int64, Int64)
        }
        return try Handoff.run(
            chunk: 1024,
            produce: { emit in
                try readSequentially(databaseAt: path, dates: dates, mostSleepStages: mostSleepStages, progress: { try emit(.position($0, $1)) }) {
                    try emit(.record($0))
                }
            },
            consume: { (item: Item) in
                switch item {
                case .record(let record): try onRecord(record)
                case .position(let read, let total): progress(read, total)
                }
            })
    }

    /// The same read on the calling thread.
    static func readSequentially(
        databaseAt path: String, dates: Range<Date>?, mostSleepStages: Int = mostSleepStages,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) throws -> Void,
        onRecord: (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        let database = try ReadOnlyDatabase(path: path)
        var summary = try withoutActuallyEscaping(onRecord) { onRecord in
            try withoutActuallyEscaping(progress) { progress in
                // The reader keeps both closures only for the length of this read.
                var reader = TableReader(
                    database: database, dates: HealthExportReader.seconds(dates), onRecord: onRecord, progress: progress)
                reader.mostSleepStages = mostSleepStages
                try reader.readAll()
                return reader.summary
            }
        }
        summary.fileBytes = database.fileBytes
        try progress(database.fileBytes, database.fileBytes)
        return summary
    }
}

/// The record tables `HealthConnectExport` reads.
private let readTables: [String] = [
    "steps_record_table", "weight_record_table", "resting_heart_rate_record_table", "heart_rate_record_table",
    "blood_pressure_record_table", "sleep_session_record_table",
]

/// One pass over the tables: rows to records, problems counted.
private struct TableReader {
    let database: ReadOnlyDatabase
    let dates: Range<Int64>?
    let onRecord: (HealthRecord) throws -> Void
    let progress: (Int64, Int64) throws -> Void
    var summary = HealthReadSummary()
    var apps: [Int64: String] = [:]
    var devices: [Int64: String] = [:]
    var rowsRead: Int64 = 0
    var totalRows: Int64 = 1
    var mostSleepStages = HealthConnectExport.mostSleepStages

    init(
        database: ReadOnlyDatabase, dates: Range<Int64>?, onRecord: @escaping (HealthRecord) throws -> Void,
        progress: @escaping (Int64, Int64) throws -> Void
    ) {
        self.database = database
        self.dates = dates
        self.onRecord = onRecord
        self.progress = progress
    }

    mutating func readAll() throws {
        let tables = try database.tableNames()
        guard tables.contains("application_info_table"), !tables.isDisjoint(with: readTables) else {
            throw HealthExportError.notAHealthConnectExport
        }
        if tables.contains("sleep_stages_table"), try database.count("sleep_stages_table") > mostSleepStages {
            throw HealthExportError.tooManySleepStages
        }
        try readSources(hasDevices: tables.contains("device_info_table"))
        var counts: [String: Int64] = [:]
        for table in tables.sorted() where table.hasSuffix("_record_table") || table.hasSuffix("RecordTable") {
            counts[table] = try database.count(table)
        }
        if tables.contains("heart_rate_record_series_table") {
            counts["heart_rate_record_series_table"] = try database.count("heart_rate_record_series_table")
        }
        totalRows = max(1, counts.values.reduce(0, +))
        for (table, count) in counts where count > 0 && !readTables.contains(table) && table != "heart_rate_record_series_table" {
            summary.skippedByType[table] = Int(count)
        }
        if tables.contains("steps_record_table") { try readSteps() }
        if tables.contains("weight_record_table") {
            try readInstants(table: "weight_record_table", column: "weight", kind: .bodyMass, unit: "g")
        }
        if tables.contains("resting_heart_rate_record_table") {
            try readInstants(
                table: "resting_heart_rate_record_table", column: "beats_per_minute", kind: .restingHeartRate, unit: "count/min")
        }
        if tables.contains("blood_pressure_record_table") {
            try readInstants(table: "blood_pressure_record_table", column: "systolic", kind: .bloodPressureSystolic, unit: "mmHg", part: 1)
            try readInstants(table: "blood_pressure_record_table", column: "diastolic", kind: .bloodPressureDiastolic, unit: "mmHg", part: 2)
        }
        if tables.contains("heart_rate_record_table"), tables.contains("heart_rate_record_series_table") { try readHeartRate() }
        if tables.contains("sleep_session_record_table") { try readSleep(hasStages: tables.contains("sleep_stages_table")) }
    }

    // MARK: sources

    mutating func readSources(hasDevices: Bool) throws {
        try database.each("SELECT row_id, package_name, app_name FROM application_info_table") { row in
            guard let id = row.integer(0) else { return }
            let name = row.text(2).flatMap { $0.isEmpty ? nil : $0 } ?? row.text(1) ?? "Health Connect app \(id)"
            apps[id] = String(name.prefix(120))
        }
        guard hasDevices else { return }
        try database.each("SELECT row_id, manufacturer, model, device_type FROM device_info_table") { row in
            guard let id = row.integer(0) else { return }
            devices[id] = Self.deviceText(manufacturer: row.text(1), model: row.text(2), type: row.integer(3))
        }
    }

    /// How a Health Connect device is kept as a source's `device`: "Health Connect, manufacturer:…, model:…,
    /// type:watch". `HealthSource.isWatch` reads the type.
    static func deviceText(manufacturer: String?, model: String?, type: Int64?) -> String {
        let types = [1: "watch", 2: "phone", 3: "scale", 4: "ring", 5: "head-mounted", 6: "fitness-band", 7: "chest-strap", 8: "smart-display"]
        var parts = ["Health Connect"]
        if let manufacturer, !manufacturer.isEmpty { parts.append("manufacturer:\(manufacturer.prefix(60))") }
        if let model, !model.isEmpty { parts.append("model:\(model.prefix(60))") }
        parts.append("type:\(type.flatMap { types[Int($0)] } ?? "unknown")")
        return parts.joined(separator: ", ")
    }

    func source(app: Int64?, device: Int64?) -> (name: String, device: String) {
        let name = app.flatMap { apps[$0] } ?? "Health Connect app \(app.map(String.init) ?? "unknown")"
        return (name, device.flatMap { devices[$0] } ?? "Health Connect, type:unknown")
    }

    // MARK: rows

    /// The uuid, app and device of a record row, in columns 0, 1, 2.
    struct Origin {
        let uuid: [UInt8]
        let app: Int64?
        let device: Int64?
    }

    func origin(_ row: ReadOnlyDatabase.Row) -> Origin? {
        guard let uuid = row.blob(0), uuid.count == 16 else { return nil }
        return Origin(uuid: uuid, app: row.integer(1), device: row.integer(2))
    }

    /// An instant of epoch milliseconds and an offset in seconds; nil when either is missing or the offset is past
    /// ±14 hours.
    static func stamp(_ millis: Int64?, _ offset: Int64?) -> HealthTimestamp?? {
        guard let millis, let offset else { return .none }
        guard abs(offset) <= Int64(InstantInput.largestOffset) else { return .some(nil) }
        let seconds = millis >= 0 ? millis / 1000 : -((-millis + 999) / 1000)
        return .some(HealthTimestamp(utcSeconds: seconds, offsetSeconds: Int32(offset)))
    }

    mutating func warn(_ problem: HealthRecordProblem) { summary.warnings[problem, default: 0] += 1 }

    /// Checks and hands on one record; counts a problem instead.
    mutating func emit(
        kind: HealthRecordKind, origin: Origin, id: [UInt8], unit: String, value: Double?, start: HealthTimestamp??,
        end: HealthTimestamp??
    ) throws {
        guard let value, case .some(let startField) = start, case .some(let endField) = end else { return warn(.missingField) }
        guard let startStamp = startField, let endStamp = endField else { return warn(.unreadableDate) }
        if let problem = HealthRecordCheck.problem(
            kind: kind, value: value, unit: unit, start: startStamp, end: endStamp, creation: nil, dates: dates)
        {
            return warn(problem)
        }
        let source = source(app: origin.app, device: origin.device)
        guard
            let record = HealthRecord(
                kind: kind, sourceName: source.name, device: source.device, unit: unit, value: value, creationDate: nil,
                startDate: startStamp, endDate: endStamp, recordID: id)
        else { return warn(.unreadableValue) }
        summary.recordsRead += 1
        try onRecord(record)
    }

    mutating func counted() throws {
        rowsRead += 1
        if rowsRead % 8192 == 0 {
            try progress(Int64(Double(database.fileBytes) * min(1, Double(rowsRead) / Double(totalRows))), database.fileBytes)
        }
    }

    /// A numeric column: nil when NULL, `.nan` (an unreadable value) for text or a blob.
    static func number(_ row: ReadOnlyDatabase.Row, _ column: Int32) -> Double? {
        switch row.type(column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER, SQLITE_FLOAT: return row.double(column)
        default: return .nan
        }
    }

    mutating func readSteps() throws {
        try database.each(
            "SELECT uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, count FROM steps_record_table"
        ) { row in
            try counted()
            guard let origin = origin(row) else { return warn(.missingField) }
            try emit(
                kind: .stepCount, origin: origin, id: origin.uuid, unit: "count", value: Self.number(row, 7),
                start: Self.stamp(row.integer(3), row.integer(4)), end: Self.stamp(row.integer(5), row.integer(6)))
        }
    }

    mutating func readInstants(table: String, column: String, kind: HealthRecordKind, unit: String, part: UInt8? = nil) throws {
        try database.each("SELECT uuid, app_info_id, device_info_id, time, zone_offset, \(column) FROM \(table)") { row in
            if part != 2 { try counted() }
            guard let origin = origin(row) else { return warn(.missingField) }
            let at = Self.stamp(row.integer(3), row.integer(4))
            try emit(
                kind: kind, origin: origin, id: origin.uuid + (part.map { [$0] } ?? []), unit: unit, value: Self.number(row, 5),
                start: at, end: at)
        }
    }

    mutating func readHeartRate() throws {
        try database.each(
            """
            SELECT p.uuid, p.app_info_id, p.device_info_id, s.epoch_millis, p.start_zone_offset, s.beats_per_minute
            FROM heart_rate_record_series_table s JOIN heart_rate_record_table p ON p.row_id = s.parent_key
            """
        ) { row in
            try counted()
            guard let origin = origin(row) else { return warn(.missingField) }
            let millis = row.integer(3)
            let at = Self.stamp(millis, row.integer(4))
            try emit(
                kind: .heartRate, origin: origin, id: origin.uuid + bigEndian(millis ?? 0), unit: "count/min",
                value: Self.number(row, 5), start: at, end: at)
        }
    }

    mutating func readSleep(hasStages: Bool) throws {
        var stages: [Int64: [(start: Int64?, end: Int64?, type: Int64?)]] = [:]
        if hasStages {
            try database.each("SELECT parent_key, stage_start_time, stage_end_time, stage_type FROM sleep_stages_table") { row in
                guard let parent = row.integer(0) else { return warn(.missingField) }
                stages[parent, default: []].append((row.integer(1), row.integer(2), row.integer(3)))
            }
        }
        try database.each(
            "SELECT uuid, app_info_id, device_info_id, start_time, start_zone_offset, end_time, end_zone_offset, row_id FROM sleep_session_record_table"
        ) { row in
            try counted()
            guard let origin = origin(row) else { return warn(.missingField) }
            let startOffset = row.integer(4)
            let endOffset = row.integer(6)
            let start = Self.stamp(row.integer(3), startOffset)
            let end = Self.stamp(row.integer(5), endOffset)
            try emit(
                kind: .sleepAnalysis, origin: origin, id: origin.uuid + [0x53], unit: "", value: Double(HealthSleepValue.inBed.rawValue),
                start: start, end: end)
            let own = row.integer(7).flatMap { stages[$0] } ?? []
            if own.isEmpty {
                try emit(
                    kind: .sleepAnalysis, origin: origin, id: origin.uuid + [0x41], unit: "",
                    value: Double(HealthSleepValue.asleepUnspecified.rawValue), start: start, end: end)
            }
            for stage in own {
                let value = stage.type.flatMap(Self.sleepValue).map { Double($0.rawValue) } ?? (stage.type == nil ? nil : -1)
                try emit(
                    kind: .sleepAnalysis, origin: origin, id: origin.uuid + [0x54] + bigEndian(stage.start ?? 0), unit: "",
                    value: value, start: Self.stamp(stage.start, startOffset), end: Self.stamp(stage.end, endOffset))
            }
        }
    }

    /// Health Connect's stage types (0 unknown, 1 awake, 2 sleeping, 3 out of bed, 4 light, 5 deep, 6 REM,
    /// 7 awake in bed) as Apple's sleep values; nil for a number Health Connect does not define.
    static func sleepValue(_ type: Int64) -> HealthSleepValue? {
        switch type {
        case 0, 1, 3, 7: return .awake
        case 2: return .asleepUnspecified
        case 4: return .asleepCore
        case 5: return .asleepDeep
        case 6: return .asleepREM
        default: return nil
        }
    }
}

private func bigEndian(_ value: Int64) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// A SQLite database opened read-only and immutable, with untrusted schema objects kept from calling functions.
final class ReadOnlyDatabase {
    private var handle: OpaquePointer?
    let fileBytes: Int64

    init(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw HealthExportError.unreadable }
        fileBytes = Int64(info.st_size)
        // A URI, so that `immutable` holds: no -wal, -shm or journal is looked for or made beside the copy.
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-._~")
        let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        let rc = sqlite3_open_v2("file:\(escaped)?immutable=1", &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard rc == SQLITE_OK, handle != nil else {
            sqlite3_close(handle)
            handle = nil
            throw HealthExportError.notAHealthConnectExport
        }
        do {
            try execute("PRAGMA trusted_schema = OFF")
            try execute("PRAGMA query_only = ON")
            // Nothing of the read goes to a temporary file (SQLite's would be in the system's temporary folder), and
            // no transient index is built: the one join looks its parent up by row id.
            try execute("PRAGMA temp_store = MEMORY")
            try execute("PRAGMA automatic_index = OFF")
        } catch {
            sqlite3_close(handle)
            handle = nil
            throw HealthExportError.notAHealthConnectExport
        }
    }

    deinit { sqlite3_close(handle) }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw HealthExportError.notAHealthConnectExport }
    }

    /// The names of the database's tables (views are not tables: a view named like a record table is not read).
    func tableNames() throws -> Set<String> {
        var names: Set<String> = []
        // A file that is not SQLite fails here, at the first read of its header.
        try each("SELECT name FROM sqlite_master WHERE type = 'table'", preparing: .notAHealthConnectExport) { row in
            if let name = row.text(0) { names.insert(name) }
        }
        return names
    }

    /// The rows in `table`.
    func count(_ table: String) throws -> Int64 {
        var count: Int64 = 0
        try each("SELECT count(*) FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"") { count = $0.integer(0) ?? 0 }
        return count
    }

    /// One row of a statement being stepped.
    struct Row {
        let statement: OpaquePointer

        func type(_ column: Int32) -> Int32 { sqlite3_column_type(statement, column) }
        func integer(_ column: Int32) -> Int64? {
            type(column) == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : nil
        }
        func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
        func text(_ column: Int32) -> String? {
            guard type(column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: bytes)
        }
        func blob(_ column: Int32) -> [UInt8]? {
            guard type(column) == SQLITE_BLOB else { return nil }
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
    }

    /// Runs `sql`, calling `body` for each row. A statement that cannot be prepared (a table without the columns
    /// Health Connect's has) throws `preparing`; a step that fails midway throws `damagedHealthConnectDatabase`.
    func each(
        _ sql: String, preparing: HealthExportError = .notAHealthConnectExport, _ body: (Row) throws -> Void
    ) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw preparing
        }
        defer { sqlite3_finalize(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                throw rc == SQLITE_NOTADB ? HealthExportError.notAHealthConnectExport : HealthExportError.damagedHealthConnectDatabase
            }
            try body(Row(statement: statement))
        }
    }
}
