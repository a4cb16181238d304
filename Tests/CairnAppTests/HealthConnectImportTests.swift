import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import HealthExport
import Testing

@Suite struct HealthConnectImportTests {
    private typealias F = HealthConnectFixture
    private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

    /// Two apps: Fit on the phone and Fitbit on a watch count the same morning's steps; a night on the watch that
    /// ends on March 2nd; a weight in grams; a blood pressure reading; heart rate samples.
    private var export: HealthConnectFixture {
        var f = F()
        f.apps.append(.init(id: 2, package: "com.fitbit.FitbitMobile", name: "Fitbit"))
        f.devices.append(.init(id: 2, manufacturer: "Google", model: "Pixel Watch 2", type: 1))
        f.steps(1, app: 1, start: F.millis("2024-03-01 08:00:00 +0100"), end: F.millis("2024-03-01 09:00:00 +0100"), count: 1500)
        f.steps(2, app: 2, device: 2, start: F.millis("2024-03-01 08:00:00 +0100"), end: F.millis("2024-03-01 09:00:00 +0100"), count: 1400)
        f.steps(3, app: 1, start: F.millis("2024-03-01 18:00:00 +0100"), end: F.millis("2024-03-01 18:30:00 +0100"), count: 300)
        f.sleep(
            4, row: 1, app: 2, device: 2, start: F.millis("2024-03-01 23:30:00 +0100"), end: F.millis("2024-03-02 07:00:00 +0100"),
            stages: [
                (F.millis("2024-03-01 23:30:00 +0100"), F.millis("2024-03-02 03:30:00 +0100"), 5),
                (F.millis("2024-03-02 03:30:00 +0100"), F.millis("2024-03-02 04:00:00 +0100"), 1),
                (F.millis("2024-03-02 04:00:00 +0100"), F.millis("2024-03-02 06:30:00 +0100"), 6),
            ])
        f.weight(5, time: F.millis("2024-03-01 07:00:00 +0100"), grams: 70_250)
        f.bloodPressure(6, time: F.millis("2024-03-01 07:10:00 +0100"), systolic: 120, diastolic: 80)
        f.bloodPressure(7, time: F.millis("2024-03-01 19:10:00 +0100"), systolic: 116, diastolic: 74)
        f.heartRate(
            8, row: 1, app: 2, device: 2, samples: [(F.millis("2024-03-01 10:00:00 +0100"), 60), (F.millis("2024-03-01 10:05:00 +0100"), 70)])
        return f
    }

    private func leftovers(in vault: TestVault) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault.app.vault.directory.path).filter { $0.hasPrefix(".health-connect-") }
            + ((try? FileManager.default.contentsOfDirectory(atPath: vault.app.vault.directory.appendingPathComponent(".artefacts").path)) ?? [])
    }

    @Test func importsIntoTheSameMetricsKeepingOneAppWhereTheyOverlap() throws {
        let vault = try TestVault()
        let zip = vault.scratch.file("Health Connect.zip")
        try export.writeZip(to: zip, in: vault.scratch)
        var copies: [(name: String, mode: mode_t)] = []
        let summary = try vault.app.health.importExport(at: zip) { _, _ in
            // While the read runs, its copy of the database is a 0600 file inside the vault folder.
            let folder = vault.app.vault.directory.path
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(".health-connect-") {
                var info = stat()
                if stat(folder + "/" + name, &info) == 0 { copies.append((name, info.st_mode & 0o777)) }
            }
        }
        #expect(summary.added == 14)
        #expect(summary.warnings.isEmpty)
        #expect(!copies.isEmpty && copies.allSatisfy { $0.mode == 0o600 && $0.name.hasSuffix(".sqlite") })
        #expect(try leftovers(in: vault).isEmpty)
        let values = try vault.app.health.dailyValues()
        // The watch's hour is kept (a watch is worn), never the sum of both apps; the phone adds the evening.
        #expect(values["steps"] == [day("2024-03-01"): 1700])
        #expect(values["sleep_asleep"] == [day("2024-03-02"): 6.5])
        #expect(values["sleep_in_bed"] == [day("2024-03-02"): 7.5])
        #expect(values["body_mass"] == [day("2024-03-01"): 70.25])
        #expect(values["blood_pressure_systolic"] == [day("2024-03-01"): 118])
        #expect(values["blood_pressure_diastolic"] == [day("2024-03-01"): 77])
        #expect(values["heart_rate"] == [day("2024-03-01"): 65])
        let series = try vault.app.outcomes.dailySeries()
        #expect(series.first { $0.metric.id == "blood_pressure_systolic" }?.values == [day("2024-03-01"): 118])
    }

    @Test func aLaterExportAddsOnlyNewUUIDs() throws {
        let vault = try TestVault()
        let first = vault.scratch.file("first.zip")
        try export.writeZip(to: first, in: vault.scratch)
        _ = try vault.app.health.importExport(at: first)
        var later = export
        later.steps(20, start: F.millis("2024-03-02 09:00:00 +0100"), end: F.millis("2024-03-02 09:30:00 +0100"), count: 800)
        let second = vault.scratch.file("second.zip")
        try later.writeZip(to: second, in: vault.scratch)
        let summary = try vault.app.health.importExport(contents: try Data(contentsOf: second))
        #expect(summary.added == 1)
        #expect(summary.alreadyPresent == 14)
        #expect(try vault.app.health.dailyValues()["steps"] == [day("2024-03-01"): 1700, day("2024-03-02"): 800])
        #expect(try leftovers(in: vault).isEmpty)
    }

    @Test func appleAndHealthConnectValuesForTheSameTimeAreCountedOnce() throws {
        let vault = try TestVault()
        let xml = vault.scratch.file("export.xml")
        try HealthXML.write(
            HealthXML.document(
                HealthXML.record(
                    "HKQuantityTypeIdentifierStepCount", source: HealthXML.phone, unit: "count", value: "1000",
                    start: "2024-03-01 08:00:00 +0100", end: "2024-03-01 09:00:00 +0100")), to: xml)
        _ = try vault.app.health.importExport(at: xml)
        var f = F()
        f.steps(1, start: F.millis("2024-03-01 08:00:00 +0100"), end: F.millis("2024-03-01 09:00:00 +0100"), count: 1500)
        let zip = vault.scratch.file("export.zip")
        try f.writeZip(to: zip, in: vault.scratch)
        _ = try vault.app.health.importExport(at: zip)
        let steps = try #require(try vault.app.health.dailyValues()["steps"]?[day("2024-03-01")])
        #expect(steps == 1000 || steps == 1500)
    }

    @Test func aDamagedDatabaseImportsNothingAndLeavesNoCopy() throws {
        let vault = try TestVault()
        var f = export
        // Enough rows that the damage is met after the first batch was written.
        for n in 100..<3100 {
            let start = F.millis("2024-02-01 08:00:00 +0100") + Int64(n) * 60_000
            f.steps(n, start: start, end: start + 60_000, count: 10)
        }
        let folder = vault.scratch.file("damaged")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent(HealthConnectExport.databaseName)
        try f.writeDatabase(to: db)
        // Cut the file short: the last pages are gone.
        let bytes = try Data(contentsOf: db)
        try bytes.prefix(bytes.count * 2 / 3).write(to: db)
        let zip = vault.scratch.file("damaged.zip")
        try F.zip(folder, members: [HealthConnectExport.databaseName], to: zip)
        #expect(throws: HealthExportError.self) { try vault.app.health.importExport(at: zip) }
        #expect(try vault.app.health.sampleCounts().isEmpty)
        #expect(try vault.app.health.importCount() == 0)
        #expect(try leftovers(in: vault).isEmpty)
    }
}
