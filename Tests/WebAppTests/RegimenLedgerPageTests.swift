import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

@Test func theLedgerStartsEmptyAndSaysWhereDosesComeFrom() throws {
    let site = try RegimenSite()
    let page = site.get("/regimen/ledger")
    #expect(page.status == 200)
    #expect(page.bodyText.contains("id=\"regimen-ledger-empty\""))
    #expect(ProductWording.bannedWords(in: page.bodyText).isEmpty)
}

@Test func aCorrectionKeepsTheOldRowVisibleAndMarkedReplaced() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    let fix = try site.regimen.correct(first.id, status: .skipped)
    let page = site.get("/regimen/ledger").bodyText
    let short = RegimenLedgerPage.short
    let when = DateText.string(first.takenAt, .numericMinute, in: first.timeZone)
    #expect(page.contains("replaced: corrected to skipped at \(when)"))
    #expect(page.contains("corrects the entry taken at \(when)"))
    #expect(!page.contains("record \(short(first.id))") && !page.contains("record \(short(fix.id))"), "no record ids in the page's text")
    #expect(page.contains("<s>taken</s> (replaced)"))
    #expect(page.contains("<td class=\"regimen-status\">skipped</td>"))
    #expect(page.contains("regimen-row regimen-taken regimen-replaced"))
    // Newest first: the correction comes before the row it replaces.
    let newer = try #require(page.range(of: "id=\"record-\(short(fix.id))\""))
    let older = try #require(page.range(of: "id=\"record-\(short(first.id))\""))
    #expect(newer.lowerBound < older.lowerBound)
}

@Test func theLedgerFiltersByProductAndRefusesBadDates() throws {
    let site = try RegimenSite()
    let d3 = try site.addProduct("Vitamin D3")
    let magnesium = try site.addProduct("Magnesium")
    _ = try site.regimen.logExtra(d3.product.id)
    _ = try site.regimen.logExtra(magnesium.product.id)
    let only = site.get("/regimen/ledger?product=\(magnesium.product.id.rawValue)").bodyText
    #expect(only.contains("<td>Magnesium</td>") && !only.contains("<td>Vitamin D3</td>"))
    let today = site.regimen.today()
    let ranged = site.get("/regimen/ledger?from=\(today)&to=\(today)").bodyText
    #expect(ranged.contains("<td>Magnesium</td>") && ranged.contains("<td>Vitamin D3</td>"))
    let before = site.get("/regimen/ledger?to=\(today.adding(days: -1))").bodyText
    #expect(before.contains("id=\"regimen-ledger-empty\""))
    let bad = site.get("/regimen/ledger?from=yesterday")
    #expect(bad.status == 400 && bad.bodyText.contains("First day: A date must be written as YYYY-MM-DD"))
    let backwards = site.get("/regimen/ledger?from=\(today)&to=\(today.adding(days: -1))")
    #expect(backwards.status == 400)
    #expect(site.get("/regimen/ledger?product=nope").status == 400)
}

@Test func theLedgerShowsFiftyRowsAPageWithALinkToOlderRows() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    for _ in 0..<(RegimenLedgerPage.pageSize + 1) { _ = try site.regimen.logExtra(product.product.id) }
    let first = site.get("/regimen/ledger").bodyText
    #expect(first.components(separatedBy: "<tr class=\"regimen-row").count - 1 == RegimenLedgerPage.pageSize)
    #expect(first.contains("rel=\"next\"") && !first.contains("rel=\"prev\""))
    let second = site.get("/regimen/ledger?page=2").bodyText
    #expect(second.components(separatedBy: "<tr class=\"regimen-row").count - 1 == 1)
    #expect(second.contains("rel=\"prev\"") && !second.contains("rel=\"next\""))
}

/// A multipart upload of an intake history file to the ledger, as the server's form parser hands it over.
private func historyUpload(_ site: RegimenSite, _ text: String, csrf: String? = Fixture.csrf) -> Response {
    var fields = ["file": Data(text.utf8)]
    if let csrf { fields["csrf"] = Data(csrf.utf8) }
    return site.app.handle(
        Request(
            method: .post, path: "/regimen/ledger/import",
            headers: [
                "Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)",
                "Content-Type": "multipart/form-data; boundary=x",
            ], formFields: fields))
}

@Test func theLedgerImportsPastDosesOnceAndListsEveryLine() throws {
    let site = try RegimenSite()
    try site.addProduct("Magnesium")
    #expect(site.get("/regimen/ledger").bodyText.contains("action=\"/regimen/ledger/import\""))
    let file = "date,time,time zone,product,amount,unit,status\n2026-01-05,08:00,Europe/Berlin,magnesium,1,capsule,taken\n"
    #expect(historyUpload(site, file, csrf: nil).status == 403)
    let done = historyUpload(site, file)
    #expect(done.status == 200)
    #expect(done.bodyText.contains("Read 1 line: 1 new, 0 replaced an earlier import, 0 already there."))
    #expect(done.bodyText.contains("Line 2: Magnesium, taken, 2026-01-05 08:00: added"))
    #expect(done.bodyText.contains("<td>Magnesium</td>"))
    #expect(historyUpload(site, file).bodyText.contains("0 new, 0 replaced an earlier import, 1 already there."))
    #expect(try site.allRecords().count == 1)
    let bad = historyUpload(site, "date,time,time zone,product,amount,unit,status\n2026-01-05,08:00,Nowhere/Town,Secret,1,,taken\n")
    #expect(bad.status == 400 && bad.bodyText.contains("Line 2: the time zone is not a zone name"))
    #expect(!bad.bodyText.contains("Secret") && !bad.bodyText.contains("Nowhere"))
    #expect(historyUpload(site, "").bodyText.contains("Choose a CSV file to import."))
    #expect(historyUpload(site, "a,b\n1,2\n").bodyText.contains("does not have the right columns"))
    #expect(try site.allRecords().count == 1)
    #expect(site.get("/regimen/ledger/import").status == 405)
    #expect(ProductWording.bannedWords(in: done.bodyText + bad.bodyText).isEmpty)
}

@Test func anUndoReadsAsAnUndoOfWhatItCorrectsAndImportedDosesNameTheirFile() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    try site.addDailySchedule(for: product)
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    try site.regimen.undo(first.id)
    let csv = "date,time,time zone,product,amount,status\n2026-01-09,08:00,UTC,Vitamin D3,1,taken\n"
    try site.regimen.importIntakeHistory(Data(csv.utf8), sourceName: "history.csv")
    let page = site.get("/regimen/ledger").bodyText
    let when = DateText.string(first.takenAt, .numericMinute, in: first.timeZone)
    #expect(page.contains("undoes the entry taken at \(when)"))
    #expect(page.contains("<td class=\"regimen-status\">undone</td>"))
    #expect(page.contains("imported from history.csv"))
    #expect(!page.contains("extra dose"), "an imported dose reads as imported, not as an extra dose")
    #expect(!page.contains("record "), "no internal record ids")
}

@Test func theWholeLogDownloadsAsCSVOrJSONAsTheCommandLineWritesIt() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    _ = try site.regimen.checkIn(dose.doseID, status: .taken)
    #expect(site.get("/regimen/ledger").bodyText.contains("href=\"/regimen/ledger/export.csv\""))
    for format in LedgerExportFormat.allCases {
        let download = site.get("/regimen/ledger/export.\(format.rawValue)")
        #expect(download.status == 200 && download.header("Content-Disposition")?.hasPrefix("attachment; filename=\"cairn-ledger-") == true)
        #expect(download.bodyText == (try site.regimen.exportLedger(as: format)))
    }
}
