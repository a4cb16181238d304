import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import HealthExport
import Regimen
import Testing

@Suite struct HealthServiceTests {
    private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

    private func steps(_ source: (name: String, version: String, device: String), _ value: Int, _ start: String, _ end: String) -> String {
        HealthXML.record("HKQuantityTypeIdentifierStepCount", source: source, unit: "count", value: "\(value)", start: start, end: end)
    }

    /// January: a watch and a phone both count steps in the same hour; a night of watch sleep stages under the
    /// phone's InBed; a resting heart rate; a body mass in lb; skipped types; one impossible value.
    private var januaryBody: String {
        steps(HealthXML.watch, 1000, "2024-01-10 08:00:00 +0100", "2024-01-10 09:00:00 +0100")
            + steps(HealthXML.phone, 1100, "2024-01-10 08:00:00 +0100", "2024-01-10 09:00:00 +0100")
            + steps(HealthXML.phone, 250, "2024-01-10 18:00:00 +0100", "2024-01-10 18:10:00 +0100")
            + HealthXML.record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "-4", start: "2024-01-10 19:00:00 +0100")
            + HealthXML.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "80", start: "2024-01-10 08:00:00 +0100")
            + HealthXML.record("HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", value: "51", start: "2024-01-10 07:00:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierBodyMass", source: (name: "Scale", version: "", device: ""), unit: "lb",
                value: "160", start: "2024-01-10 07:30:00 +0100")
            + HealthXML.record(
                "HKCategoryTypeIdentifierSleepAnalysis", source: HealthXML.phone, unit: nil,
                value: "HKCategoryValueSleepAnalysisInBed", start: "2024-01-09 23:00:00 +0100",
                end: "2024-01-10 07:00:00 +0100", timeZone: "Europe/Amsterdam")
            + HealthXML.record(
                "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisAsleepCore",
                start: "2024-01-09 23:30:00 +0100", end: "2024-01-10 03:30:00 +0100", timeZone: "Europe/Amsterdam")
            + HealthXML.record(
                "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisAwake",
                start: "2024-01-10 03:30:00 +0100", end: "2024-01-10 04:00:00 +0100", timeZone: "Europe/Amsterdam")
            + HealthXML.record(
                "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisAsleepREM",
                start: "2024-01-10 04:00:00 +0100", end: "2024-01-10 06:30:00 +0100", timeZone: "Europe/Amsterdam")
    }

    @Test func importsMergesSourcesAndComputesDailyValues() throws {
        let vault = try TestVault()
        let url = vault.scratch.file("export.xml")
        try HealthXML.write(HealthXML.document(januaryBody), to: url)
        var progress: [(Int64, Int64)] = []
        let summary = try vault.app.health.importExport(at: url) { progress.append(($0, $1)) }
        #expect(summary.added == 9)
        #expect(summary.alreadyPresent == 0)
        #expect(summary.skippedByType == ["HKQuantityTypeIdentifierHeartRate": 1])
        #expect(summary.warnings == [.negativeStepCount: 1])
        #expect(progress.last.map { $0.0 == $0.1 && $0.1 == summary.fileBytes } == true)
        let values = try vault.app.health.dailyValues()
        #expect(values["steps"] == [day("2024-01-10"): 1250])
        #expect(values["resting_heart_rate"] == [day("2024-01-10"): 51])
        #expect(values["body_mass"] == [day("2024-01-10"): 160 * 0.45359237])
        #expect(values["sleep_asleep"] == [day("2024-01-10"): 6.5])
        #expect(values["sleep_in_bed"] == [day("2024-01-10"): 8])
        #expect(values["hrv_sdnn"] == nil)
        #expect(try vault.app.health.importCount() == 1)
    }

    @Test func recordsDatedYear1Year9999OrAfterTomorrowAreLeftOutNamingTheirLines() throws {
        let vault = try TestVault()  // now: 2026-05-28T20:26:40Z in UTC; tomorrow is the 29th
        let url = vault.scratch.file("export.xml")
        let body =
            steps(HealthXML.watch, 10, "0001-01-01 08:00:00 +0000", "0001-01-01 08:01:00 +0000")
            + steps(HealthXML.watch, 20, "2026-05-28 08:00:00 +0000", "2026-05-28 08:01:00 +0000")
            + steps(HealthXML.watch, 30, "9999-12-31 08:00:00 +0000", "9999-12-31 08:01:00 +0000")
            + steps(HealthXML.watch, 40, "2026-05-30 00:00:00 +0000", "2026-05-30 00:01:00 +0000")
            + steps(HealthXML.watch, 50, "2026-05-29 23:59:00 +0000", "2026-05-29 23:59:30 +0000")
        let xml = HealthXML.document(body)
        try HealthXML.write(xml, to: url)
        let summary = try vault.app.health.importExport(at: url)
        #expect(summary.added == 2)
        #expect(summary.warnings == [.dateOutOfRange: 3])
        let lines = xml.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains("<Record") }.map { $0.offset + 1 }
        #expect(
            summary.warningLines == [
                "3 records dated before 1900-01-01 or after tomorrow (export.xml lines \(lines[0]), \(lines[2]) and \(lines[3]))"
            ])
        #expect(try vault.app.health.dailyValues()["steps"] == [day("2026-05-28"): 20, day("2026-05-29"): 50])
    }

    @Test func reimportingANewerExportAddsOnlyWhatIsNew() throws {
        let vault = try TestVault()
        let first = vault.scratch.file("first.xml")
        let second = vault.scratch.file("second.zip")
        try HealthXML.write(HealthXML.document(januaryBody), to: first)
        let februarySteps = steps(HealthXML.watch, 4321, "2024-02-01 10:00:00 +0100", "2024-02-01 11:00:00 +0100")
        try HealthXML.writeZip(xml: HealthXML.document(januaryBody + februarySteps), to: second, in: vault.scratch)
        _ = try vault.app.health.importExport(at: first)
        let again = try vault.app.health.importExport(at: second)
        #expect(again.added == 1)
        #expect(again.alreadyPresent == 9)
        let values = try vault.app.health.dailyValues()
        #expect(values["steps"] == [day("2024-01-10"): 1250, day("2024-02-01"): 4321])
        #expect(try vault.app.health.sampleCounts()[.stepCount] == 4)
        #expect(try vault.app.health.importCount() == 2)
        // The same file a third time adds nothing.
        #expect(try vault.app.health.importExport(at: second).added == 0)
    }

    @Test func aTruncatedExportLeavesNothingBehind() throws {
        let vault = try TestVault()
        let good = vault.scratch.file("good.xml")
        let bad = vault.scratch.file("bad.xml")
        try HealthXML.write(HealthXML.document(januaryBody), to: good)
        _ = try vault.app.health.importExport(at: good)
        let before = try vault.app.health.sampleCounts()
        // A larger export cut off in the middle: its first records are valid and new, but none may stay.
        var body = ""
        for i in 0..<2000 {
            body += steps(HealthXML.phone, i, "2024-03-01 08:00:00 +0100", "2024-03-01 08:\(String(format: "%02d", i % 60)):00 +0100")
        }
        let whole = HealthXML.document(body)
        try HealthXML.write(String(whole.prefix(whole.utf8.count - 500)), to: bad)
        #expect(throws: HealthExportError.self) { try vault.app.health.importExport(at: bad) }
        #expect(try vault.app.health.sampleCounts() == before)
        #expect(try vault.app.health.importCount() == 1)
    }

    @Test func anEmptyVaultHasNoDailyValues() throws {
        let vault = try TestVault()
        #expect(try vault.app.health.dailyValues().isEmpty)
        #expect(try vault.app.health.sampleCounts().isEmpty)
        #expect(throws: HealthExportError.unreadable) { try vault.app.health.importExport(at: vault.scratch.file("missing.zip")) }
        #expect(try vault.app.health.importCount() == 0)
    }

    @Test func importsTheRealSample() throws {
        let vault = try TestVault()
        let summary = try vault.app.health.importExport(at: HealthXML.sample)
        #expect(summary.added == 2)
        #expect(summary.skippedCount == 6)
        let values = try vault.app.health.dailyValues()
        // The export writes +0200, but the records' HKTimeZone is Europe/Amsterdam, +0100 in January: the watch's
        // 12.5 min of core sleep ends at 02:40 on 1 January there, the phone's 85 s in bed at 23:56 on 31 December.
        #expect(values["sleep_asleep"].map { $0.keys.sorted() } == [day("2024-01-01")])
        #expect(abs((values["sleep_asleep"]?[day("2024-01-01")] ?? 0) - 750.0 / 3600) < 1e-9)
        #expect(values["sleep_in_bed"].map { $0.keys.sorted() } == [day("2023-12-31")])
        #expect(abs((values["sleep_in_bed"]?[day("2023-12-31")] ?? 0) - 85.0 / 3600) < 1e-9)
    }

    @Test func anUploadedExportIsReadInMemoryAndNothingIsWrittenBesideTheVault() throws {
        let vault = try TestVault()
        let before = try FileManager.default.contentsOfDirectory(atPath: vault.directory.path)
        let export = Data(HealthXML.document(januaryBody).utf8)
        #expect(try vault.app.health.importExport(contents: export).added > 0)
        #expect(throws: HealthExportError.self) { try vault.app.health.importExport(contents: export.prefix(export.count / 2)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.directory.path) == before)
    }

    @Test func anUploadLeftByACrashIsRemovedWhenTheVaultOpens() throws {
        let vault = try TestVault()
        let leftover = vault.directory.appendingPathComponent(".health-upload-crashed")
        try Data("<HealthData>".utf8).write(to: leftover)
        let reopened = try CairnApplication(vault: vault.app.vault)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(reopened.health.removeLeftoverUploads() == 0)
    }
}
