import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import HealthExport
import Storage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Finding 4: an 8-million-record Health import held the write lock for 42 s; every other command (even
/// read-only ones) failed with "The journal is busy".
@Suite(.serialized) struct BatchedImportTests {
    /// An export of `count` hourly step records (one source, distinct hours), optionally cut off before its end.
    static func export(records count: Int, truncated: Bool = false) -> String {
        var body = ""
        body.reserveCapacity(count * 260)
        let start = 946_684_800  // 2000-01-01 00:00 UTC: 150,000 hourly records end in 2017, before "tomorrow"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for i in 0..<count {
            let from = formatter.string(from: Date(timeIntervalSince1970: Double(start + i * 3600))) + " +0000"
            let to = formatter.string(from: Date(timeIntervalSince1970: Double(start + i * 3600 + 3000))) + " +0000"
            body += HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", source: (name: "Phone", version: "1", device: ""),
                unit: "count", value: "\(100 + i % 900)", start: from, end: to)
        }
        let document = HealthXML.document(body)
        return truncated ? String(document.dropLast(400)) : document
    }

    static func counts(_ app: CairnApplication) throws -> (samples: Int, imports: Int, sources: Int) {
        try app.database.read { db in
            (
                try db.scalar("SELECT count(*) FROM health_samples") ?? 0, try db.scalar("SELECT count(*) FROM health_imports") ?? 0,
                try db.scalar("SELECT count(*) FROM health_sources") ?? 0
            )
        }
    }

    @Test func readsAndWritesDuringALongImportAreAnsweredWithinASecond() throws {
        let vault = try ServedVault(serve: false)
        let file = vault.scratch.file("export.xml")
        try HealthXML.write(Self.export(records: 30_000), to: file)
        let other = try vault.openAgain()
        let done = DispatchSemaphore(value: 0)
        let importer = Thread {
            _ = try? vault.app.health.importExport(at: file)
            done.signal()
        }
        let started = ContinuousClock.now
        importer.start()
        var slowest: Duration = .zero
        var rounds = 0
        var sawImportRunning = false
        var finished = false
        while rounds < 100 {
            // The import's signal is taken once: here, or in the wait below (never both, or that wait lasts its
            // whole timeout: the 120 s this test once took were that wait, not the import).
            if done.wait(timeout: .now() + 0.05) == .success {
                finished = true
                break
            }
            let started = ContinuousClock.now
            _ = try other.skin.areas()  // another process reads
            try other.skin.addArea(name: "Area \(rounds)")  // another process writes
            try vault.app.settings.setFlag("probe", rounds % 2 == 0)  // this process writes beside the import
            _ = try other.health.importCount()  // another process reads the import's table
            slowest = max(slowest, ContinuousClock.now - started)
            sawImportRunning = true
            rounds += 1
        }
        if !finished { finished = done.wait(timeout: .now() + 120) == .success }
        #expect(finished, "the import of 30,000 records did not finish within \(ContinuousClock.now - started)")
        #expect(sawImportRunning, "the import finished before anything ran beside it")
        #expect(slowest < .seconds(1), "the slowest read and writes beside the import took \(slowest)")
        #expect(try Self.counts(vault.app) == (30_000, 1, 1))
        #expect(try vault.app.health.importCount() == 1)
    }

    @Test func aFailedImportLeavesNothingEvenAfterManyBatches() throws {
        let vault = try ServedVault(serve: false)
        let file = vault.scratch.file("export.xml")
        try HealthXML.write(Self.export(records: 60_000, truncated: true), to: file)
        #expect(throws: HealthExportError.self) { try vault.app.health.importExport(at: file) }
        #expect(try Self.counts(vault.app) == (0, 0, 0))
        let markers = try FileManager.default.contentsOfDirectory(atPath: vault.directory).filter { $0.hasPrefix(".health-") }
        #expect(markers.isEmpty)
    }

    @Test func anImportKilledMidwayIsRemovedTheNextTimeTheVaultIsOpened() throws {
        let vault = try ServedVault(serve: false)
        let file = vault.scratch.file("export.xml")
        try HealthXML.write(Self.export(records: 150_000), to: file)
        let (process, _, _) = try CairnProcess.start(["--data-dir", vault.directory, "regimen", "outcomes", "import-health", file.path])
        // Wait until some batches are committed, then kill it.
        var committed = 0
        for _ in 0..<200 where committed == 0 {
            usleep(50_000)
            committed = (try? Self.counts(vault.app).samples) ?? 0
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(committed > 0, "the import never committed a batch")
        #expect(try vault.app.health.importCount() == 0)
        #expect(try vault.app.health.sampleCounts().isEmpty)  // an unfinished import is never read
        let reopened = try vault.openAgain()
        #expect(try Self.counts(reopened) == (0, 0, 0))
        let markers = try FileManager.default.contentsOfDirectory(atPath: vault.directory).filter { $0.hasPrefix(".health-") }
        #expect(markers.isEmpty)
    }

    @Test func impossibleStepCountsAreCountedAsRefusedNotImported() throws {
        let vault = try ServedVault(serve: false)
        let file = vault.scratch.file("export.xml")
        let body =
            HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1e308",
                start: "2024-01-10 08:00:00 +0100", end: "2024-01-10 09:00:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", unit: "count", value: "40000",
                start: "2024-01-10 10:00:00 +0100", end: "2024-01-10 10:01:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", unit: "count", value: "1200",
                start: "2024-01-10 11:00:00 +0100", end: "2024-01-10 12:00:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", unit: "count", value: "12000",
                start: "2024-01-10 20:00:00 +0100")  // a day's total entered by hand at one instant
        try HealthXML.write(HealthXML.document(body), to: file)
        let summary = try vault.app.health.importExport(at: file)
        #expect(summary.added == 2)
        #expect(summary.warnings == [.impossibleStepCount: 2])
        let steps = try vault.app.health.dailyValues()["steps"] ?? [:]
        #expect(steps.values.reduce(0, +) == 13_200)
    }
}
