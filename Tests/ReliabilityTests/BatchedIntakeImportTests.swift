import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen
import Storage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The intake history import commits in batches like the Health import (`BatchedImport`): a bad line after
/// many batches, a kill midway or a failure leave nothing the ledger reads, and re-running finishes it.
@Suite(.serialized) struct BatchedIntakeImportTests {
    /// `count` lines of one product, one a minute from 2020-01-01 00:00 UTC; `badLast` makes the last line's
    /// status unreadable.
    static func history(lines count: Int, badLast: Bool = false) -> Data {
        var text = "date,time,time zone,product,amount,unit,status\n"
        text.reserveCapacity(count * 48)
        let first = LocalDay(year: 2020, month: 1, day: 1)!
        for i in 0..<count {
            let day = first.adding(days: i / 1440)
            let minute = i % 1440
            let status = badLast && i == count - 1 ? "maybe" : (i % 10 == 9 ? "skipped" : "taken")
            text += "\(day),\(String(format: "%02d:%02d", minute / 60, minute % 60)),UTC,Vitamin D3,1,,\(status)\n"
        }
        return Data(text.utf8)
    }

    static func addProduct(_ app: CairnApplication) throws {
        _ = try app.regimen.addProduct(
            Product(
                name: "Vitamin D3", form: .softgel, servingSize: Amount("1", .count),
                ingredients: [
                    ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: Amount("25", .mcg))
                ]))
    }

    static func counts(_ app: CairnApplication) throws -> (intake: Int, runs: Int) {
        try app.database.read { db in
            (try db.scalar("SELECT count(*) FROM regimen_intake") ?? 0, try db.scalar("SELECT count(*) FROM regimen_intake_import_runs") ?? 0)
        }
    }

    @Test func aBadLineAfterManyBatchesLeavesNothingAndNamesTheLine() throws {
        let vault = try ServedVault(serve: false)
        try Self.addProduct(vault.app)
        let lines = 40_000
        #expect(throws: ImportLinesError.badLines([LineProblem(line: lines + 1, reason: .badStatus)])) {
            try vault.app.regimen.importIntakeHistory(Self.history(lines: lines, badLast: true), keepingLines: false)
        }
        #expect(try Self.counts(vault.app) == (0, 0))
        let markers = try FileManager.default.contentsOfDirectory(atPath: vault.directory).filter { $0.hasPrefix(".intake-") }
        #expect(markers.isEmpty)
    }

    @Test func aRunThatIsNotFinishedIsNotReadByTheLedger() throws {
        let vault = try ServedVault(serve: false)
        try Self.addProduct(vault.app)
        let report = try vault.app.regimen.importIntakeHistory(Self.history(lines: 3))
        #expect(report.added == 3)
        #expect(try vault.app.regimen.ledger().entries.count == 3)
        // As if the import were still running: its run is not finished.
        try vault.app.database.write { try $0.execute("UPDATE regimen_intake_import_runs SET finished_at = NULL") }
        #expect(try vault.app.regimen.ledger().entries.isEmpty)
        #expect(try vault.app.regimen.exportLedger(as: .csv).split(separator: "\r\n").count == 1)  // the header only
        #expect(try vault.app.regimen.record(report.lines[0].entry.id) == nil)
    }

    @Test func anImportKilledMidwayIsRemovedOnTheNextOpenAndRunningItAgainFinishesIt() throws {
        let vault = try ServedVault(serve: false)
        try Self.addProduct(vault.app)
        let lines = 100_000
        let file = vault.scratch.file("history.csv")
        try Self.history(lines: lines).write(to: file)
        let (process, _, _) = try CairnProcess.start(["--data-dir", vault.directory, "regimen", "import", file.path])
        var committed = 0
        for _ in 0..<400 where committed == 0 {
            usleep(25_000)
            committed = (try? Self.counts(vault.app).intake) ?? 0
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(committed > 0 && committed < lines, "the kill did not land midway (\(committed) records committed)")
        #expect(try vault.app.regimen.ledger().entries.isEmpty, "an unfinished import is never read")
        let reopened = try vault.openAgain()
        #expect(try Self.counts(reopened) == (0, 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.directory).filter { $0.hasPrefix(".intake-") }.isEmpty)
        let again = try reopened.regimen.importIntakeHistory(Data(contentsOf: file), keepingLines: false)
        #expect(again.added == lines)
        #expect(try reopened.regimen.importIntakeHistory(Data(contentsOf: file), keepingLines: false).unchanged == lines)
        #expect(try Self.counts(reopened) == (lines, 2))
    }
}
