import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

@Test func aPastDoseIsCorrectedFromTheLedgerAndBothEntriesStay() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    let ledger = site.get("/regimen/ledger").bodyText
    #expect(ledger.contains("href=\"/regimen/records/\(first.id.rawValue)\""), "each entry in force links to its corrections")
    let page = site.get("/regimen/records/\(first.id.rawValue)").bodyText
    #expect(page.contains("id=\"record-correct\"") && page.contains("id=\"record-undo-form\""))
    #expect(page.contains("id=\"record-status-taken\" value=\"taken\" checked"))
    let form = ["status": "skipped", "at": ""]
    #expect(site.post("/regimen/records/\(first.id.rawValue)/correct", form: form, csrf: nil).status == 403)
    let saved = site.post("/regimen/records/\(first.id.rawValue)/correct", form: form)
    #expect(saved.status == 303)
    let entries = try site.regimen.ledger().entries
    #expect(entries.count == 2)
    let fix = try #require(entries.first { $0.supersedes == first.id })
    #expect(fix.status == .skipped)
    #expect(saved.header("Location") == "/regimen/records/\(fix.id.rawValue)?saved=corrected")
    #expect(site.get(saved.header("Location")!).bodyText.contains("Corrected."))
    let replaced = site.get("/regimen/records/\(first.id.rawValue)").bodyText
    #expect(replaced.contains("id=\"record-replaced\"") && !replaced.contains("id=\"record-correct\""), "a replaced entry is not changed twice")
    #expect(site.post("/regimen/records/\(first.id.rawValue)/correct", form: form).status == 400)
    #expect(site.get("/regimen/records/nope").status == 404)
}

@Test func aRefusedCorrectionShowsEachErrorBesideItsFieldAndSavesNothing() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    let bad = site.post("/regimen/records/\(first.id.rawValue)/correct", form: ["status": "eaten", "at": "half past"])
    #expect(bad.status == 400)
    #expect(bad.bodyText.contains("id=\"record-status-taken-error\"") && bad.bodyText.contains("id=\"record-at-error\""), "both errors at once")
    #expect(bad.bodyText.contains("value=\"half past\""), "what was typed is kept")
    let future = site.post("/regimen/records/\(first.id.rawValue)/correct", form: ["status": "taken", "at": "23:59"])
    if Date() < WallClock.instant(of: site.regimen.today(), at: TimeSlot(hour: 23, minute: 59)!, in: .current) {
        #expect(future.status == 400 && future.bodyText.contains("id=\"record-at-error\""))
    }
    #expect(try site.regimen.ledger().entries.count == 1, "nothing was saved")
}

@Test func aPastDoseIsUndoneFromItsPageAndTheUndoIsShown() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    let undone = site.post("/regimen/records/\(first.id.rawValue)/undo", form: ["back": "record"])
    #expect(undone.status == 303)
    let undo = try #require(try site.regimen.ledger().entries.first { $0.isUndo })
    #expect(undone.header("Location") == "/regimen/records/\(undo.id.rawValue)?saved=undone")
    let page = site.get(undone.header("Location")!).bodyText
    #expect(page.contains("Undone.") && page.contains("id=\"record-undo\"") && !page.contains("id=\"record-correct\""))
    #expect(try site.regimen.todayView().currentBatch.first?.state == .notLogged, "the dose is back to not logged")
}
