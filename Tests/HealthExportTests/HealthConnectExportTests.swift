import CairnCore
import CairnTestSupport
import Foundation
import HealthExport
import Testing

@Suite struct HealthConnectExportTests {
    private typealias F = HealthConnectFixture

    /// Copies the zip's database into a new 0600 file of the scratch folder and reads it.
    private func read(_ zip: URL, in scratch: Scratch, dates: Range<Date>? = nil) throws -> (records: [HealthRecord], summary: HealthReadSummary) {
        let copy = scratch.file("copy-\(UUID().uuidString).sqlite")
        let fd = open(copy.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        _ = try HealthConnectExport.copyDatabase(from: .file(zip), to: fd)
        var records: [HealthRecord] = []
        let summary = try HealthConnectExport.read(databaseAt: copy.path, dates: dates) { records.append($0) }
        return (records, summary)
    }

    private var oneOfEach: HealthConnectFixture {
        var f = F()
        f.devices.append(.init(id: 2, manufacturer: "Google", model: "Pixel Watch 2", type: 1))
        f.steps(1, device: 2, start: F.millis("2024-03-01 08:00:00 +0100"), end: F.millis("2024-03-01 09:00:00 +0100"), count: 1200)
        f.weight(2, time: F.millis("2024-03-01 07:00:00 +0100"), grams: 71_500)
        f.instant("resting_heart_rate_record_table", 3, time: F.millis("2024-03-01 07:05:00 +0100"), columns: ["beats_per_minute": "52"])
        f.bloodPressure(4, time: F.millis("2024-03-01 07:10:00 +0100"), systolic: 118, diastolic: 76)
        f.heartRate(
            5, row: 1, device: 2,
            samples: [(F.millis("2024-03-01 10:00:00 +0100"), 64), (F.millis("2024-03-01 10:01:00 +0100"), 70)])
        f.sleep(
            6, row: 1, device: 2, start: F.millis("2024-02-29 23:00:00 +0100"), end: F.millis("2024-03-01 07:00:00 +0100"),
            stages: [
                (F.millis("2024-02-29 23:00:00 +0100"), F.millis("2024-03-01 03:00:00 +0100"), 4),
                (F.millis("2024-03-01 03:00:00 +0100"), F.millis("2024-03-01 03:30:00 +0100"), 1),
                (F.millis("2024-03-01 03:30:00 +0100"), F.millis("2024-03-01 06:30:00 +0100"), 6),
            ])
        f.rows.append("INSERT INTO distance_record_table (uuid, app_info_id, start_time, end_time, distance) VALUES (\(F.uuid(99)), 1, 0, 1, 5.0)")
        return f
    }

    @Test func readsEveryKindWithItsUUIDAppAndDevice() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let zip = scratch.file("Health Connect.zip")
        try oneOfEach.writeZip(to: zip, in: scratch)
        let (records, summary) = try read(zip, in: scratch)
        #expect(summary.warnings.isEmpty)
        #expect(summary.skippedByType == ["distance_record_table": 1])
        #expect(summary.recordsRead == records.count)
        let kinds = Dictionary(grouping: records, by: \.kind).mapValues(\.count)
        #expect(
            kinds == [
                .stepCount: 1, .bodyMass: 1, .restingHeartRate: 1, .bloodPressureSystolic: 1, .bloodPressureDiastolic: 1,
                .heartRate: 2, .sleepAnalysis: 4,
            ])
        let steps = try #require(records.first { $0.kind == .stepCount })
        #expect(steps.value == 1200 && steps.unit == "count")
        #expect(steps.sourceName == "Fit")
        #expect(steps.device == "Health Connect, manufacturer:Google, model:Pixel Watch 2, type:watch")
        #expect(steps.recordID == Array(repeating: 0, count: 15) + [1])
        #expect(steps.startDate == HealthTimestamp(exportText: "2024-03-01 08:00:00 +0100"))
        #expect(steps.endDate == HealthTimestamp(exportText: "2024-03-01 09:00:00 +0100"))
        let weight = try #require(records.first { $0.kind == .bodyMass })
        #expect(weight.value == 71_500 && weight.unit == "g")
        #expect(records.first { $0.kind == .bloodPressureSystolic }?.value == 118)
        #expect(records.first { $0.kind == .bloodPressureDiastolic }?.value == 76)
        #expect(Set(records.filter { $0.kind == .heartRate }.map(\.value)) == [64, 70])
        let sleep = records.filter { $0.kind == .sleepAnalysis }.compactMap(\.sleepValue)
        #expect(sleep == [.inBed, .asleepCore, .awake, .asleepREM])
        // Every record has an identity of its own.
        #expect(Set(records.map(\.identityBytes)).count == records.count)
    }

    @Test func aSessionWithoutStagesCountsAsAsleepForItsLength() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var f = F()
        f.sleep(1, row: 7, start: F.millis("2024-03-01 23:00:00 +0100"), end: F.millis("2024-03-02 06:00:00 +0100"))
        let zip = scratch.file("export.zip")
        try f.writeZip(to: zip, in: scratch)
        let (records, _) = try read(zip, in: scratch)
        #expect(records.compactMap(\.sleepValue) == [.inBed, .asleepUnspecified])
        #expect(records.allSatisfy { $0.endDate == HealthTimestamp(exportText: "2024-03-02 06:00:00 +0100") })
    }

    @Test func tellsTheTwoExportsApartByTheirContentsNotTheirNames() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let connect = scratch.file("export.zip")
        try oneOfEach.writeZip(to: connect, in: scratch)
        let apple = scratch.file("Health Connect.zip")
        try HealthXML.writeZip(xml: HealthXML.document(""), to: apple, in: scratch)
        #expect(try HealthExportReader.format(of: .file(connect)) == .healthConnect)
        #expect(try HealthExportReader.format(of: .bytes(try Data(contentsOf: connect))) == .healthConnect)
        #expect(try HealthExportReader.format(of: .file(apple)) == .appleHealth)
        #expect(try HealthExportReader.format(of: .file(HealthXML.sample)) == .appleHealth)
    }

    @Test func leavesOutImpossibleValuesUnreadableFieldsAndDatesOutsideTheRange() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var f = F()
        let morning = F.millis("2024-03-01 08:00:00 +0100")
        f.steps(1, start: morning, end: morning + 3_600_000, count: 900)
        f.steps(2, start: morning, end: morning + 60_000, count: 1_000_000_000)
        f.steps(3, start: morning, end: morning + 60_000, count: -5)
        f.weight(4, time: morning, grams: -70_000)
        f.weight(5, time: morning, grams: 9_000_000)
        f.instant("resting_heart_rate_record_table", 6, time: morning, columns: ["beats_per_minute": "0"])
        f.bloodPressure(7, time: morning, systolic: 900, diastolic: 80)
        f.steps(8, start: F.millis("1850-03-01 08:00:00 +0100"), end: F.millis("1850-03-01 09:00:00 +0100"), count: 10)
        f.steps(9, start: F.millis("2999-03-01 08:00:00 +0100"), end: F.millis("2999-03-01 09:00:00 +0100"), count: 10)
        f.steps(10, start: morning, end: morning + 60_000, offset: 7_200_000, count: 10)
        f.steps(11, start: morning, end: morning + 60_000, count: 10)
        f.rows.append("UPDATE steps_record_table SET count = 'many' WHERE uuid = \(F.uuid(11))")
        f.steps(12, start: morning, end: morning + 60_000, count: 10)
        f.rows.append("UPDATE steps_record_table SET count = NULL WHERE uuid = \(F.uuid(12))")
        f.steps(13, start: morning + 60_000, end: morning, count: 10)
        f.rows.append(
            "INSERT INTO steps_record_table (uuid, app_info_id, start_time, start_zone_offset, end_time, end_zone_offset, count) VALUES (X'01', 1, 0, 0, 1, 0, 1)"
        )
        let zip = scratch.file("export.zip")
        try f.writeZip(to: zip, in: scratch)
        let dates = ImportDates.instants(now: Date(timeIntervalSince1970: 1_765_000_000), zone: TimeZone(identifier: "UTC")!)
        let (records, summary) = try read(zip, in: scratch, dates: dates)
        #expect(records.map(\.value) == [900, 80])
        #expect(
            summary.warnings == [
                .impossibleStepCount: 1, .negativeStepCount: 1, .impossibleBodyMass: 2, .impossibleHeartRate: 1,
                .impossibleBloodPressure: 1, .dateOutOfRange: 2, .unreadableDate: 1, .unreadableValue: 1,
                .missingField: 2, .endBeforeStart: 1,
            ])
    }

    @Test func refusesADatabaseThatIsNotHealthConnects() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("members")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Not SQLite at all.
        try Data("this is not a database, only its name is".utf8).write(to: folder.appendingPathComponent(HealthConnectExport.databaseName))
        let text = scratch.file("text.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName], to: text)
        #expect(throws: HealthExportError.notAHealthConnectExport) { try read(text, in: scratch) }
        // SQLite, but another app's tables.
        var other = F()
        other.apps = []
        other.devices = []
        other.schema = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
        try other.writeDatabase(to: folder.appendingPathComponent(HealthConnectExport.databaseName))
        let foreign = scratch.file("foreign.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName], to: foreign)
        #expect(throws: HealthExportError.notAHealthConnectExport) { try read(foreign, in: scratch) }
        // Tables named like Health Connect's without its columns.
        other.schema = "CREATE TABLE application_info_table (x); CREATE TABLE steps_record_table (y);"
        try other.writeDatabase(to: folder.appendingPathComponent(HealthConnectExport.databaseName))
        let renamed = scratch.file("renamed.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName], to: renamed)
        #expect(throws: HealthExportError.notAHealthConnectExport) { try read(renamed, in: scratch) }
    }

    @Test func stopsCopyingAZipBombAtTheLimit() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("bomb")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(count: 8 << 20).write(to: folder.appendingPathComponent(HealthConnectExport.databaseName))
        let zip = scratch.file("bomb.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName], to: zip)
        let zipBytes = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        #expect(zipBytes < 64 << 10)
        let copy = scratch.file("copy.sqlite")
        let fd = open(copy.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        defer { close(fd) }
        #expect(throws: HealthExportError.healthConnectDatabaseTooLarge) {
            try HealthConnectExport.copyDatabase(from: .file(zip), to: fd, maximumBytes: 2 << 20)
        }
        let copied = try #require(try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? Int)
        #expect(copied <= 2 << 20)
    }

    @Test func refusesAZipWithTwoDatabases() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("two")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("old"), withIntermediateDirectories: true)
        try oneOfEach.writeDatabase(to: folder.appendingPathComponent(HealthConnectExport.databaseName))
        try oneOfEach.writeDatabase(to: folder.appendingPathComponent("old/" + HealthConnectExport.databaseName))
        let zip = scratch.file("two.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName, "old/" + HealthConnectExport.databaseName], to: zip)
        #expect(throws: HealthExportError.severalHealthConnectDatabases(count: 2)) { try read(zip, in: scratch) }
    }

    @Test func refusesMoreSleepStagesThanItWillHoldBeforeReadingASession() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var f = F()
        let night = F.millis("2024-03-01 23:00:00 +0100")
        f.sleep(
            1, row: 1, start: night, end: night + 8 * 3_600_000,
            stages: (0..<6).map { (night + Int64($0) * 3_600_000, night + Int64($0 + 1) * 3_600_000, 4) })
        let db = scratch.file("stages.sqlite")
        try f.writeDatabase(to: db)
        var records = 0
        #expect(throws: HealthExportError.tooManySleepStages) {
            try HealthConnectExport.read(databaseAt: db.path, mostSleepStages: 5) { _ in records += 1 }
        }
        #expect(records == 0)
        #expect(try HealthConnectExport.read(databaseAt: db.path, mostSleepStages: 6) { _ in }.recordsRead == 7)
    }
}
