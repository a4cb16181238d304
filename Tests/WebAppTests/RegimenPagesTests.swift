import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

/// A real vault in a temp folder behind the web application, with the Regimen service wired in.
final class RegimenSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-regimen-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init(labelScanner: LabelScanService? = nil, clock: (any Clock)? = nil, reminderStatus: ReminderStatus? = nil) throws {
        let path = directory.path
        cairn =
            try clock.map { try CairnApplication.open(dataDirectory: path, environment: [:], clock: $0) }
            ?? CairnApplication.open(dataDirectory: path, environment: [:])
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        services.labelScanner = labelScanner
        services.reminderStatus = reminderStatus
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var regimen: RegimenService { cairn.regimen }

    /// A capsule product with one label row.
    @discardableResult
    func addProduct(_ name: String = "Vitamin D3") throws -> StoredProduct {
        let product = try Product(
            name: name, form: .capsule, servingSize: try Amount(1, .count),
            ingredients: [
                try ProductIngredient(
                    catalogueID: nil, nameOnLabel: "Vitamin D3",
                    amount: try Amount(25, .mcg))
            ])
        // The row names no catalogue entry (flagged): accepted, as the person would after checking it.
        return try regimen.addProduct(product, decisions: .acceptingEveryRow(of: product))
    }

    /// A daily schedule at midnight (so its dose is due whenever the test runs), plus `extra` later slots.
    @discardableResult
    func addDailySchedule(for product: StoredProduct, times: [String] = ["00:00"]) throws -> ScheduleRevision {
        try regimen.addSchedule(
            try SchedulePlan(
                productID: product.product.id, times: times.compactMap { TimeSlot(parsing: $0) },
                recurrence: .daily, startDay: regimen.today()))
    }

    func get(_ target: String) -> Response { app.handle(Fixture.get(target)) }
    func post(_ target: String, form: [String: String] = [:], csrf: String? = Fixture.csrf) -> Response {
        app.handle(Fixture.post(target, form: form, csrf: csrf))
    }

    /// Every ledger row, corrected ones included.
    func allRecords() throws -> [LedgerEntry] { try regimen.ledger(LedgerQuery(limit: 1000)).entries }
}

@Test func todayStartsEmptyAndOffersToAddAProduct() throws {
    let site = try RegimenSite()
    let page = site.get("/regimen")
    #expect(page.status == 200)
    #expect(page.bodyText.contains("Nothing scheduled yet"))
    #expect(page.bodyText.contains("href=\"/regimen/products/new\" id=\"regimen-add-product\""))
    #expect(ProductWording.bannedWords(in: page.bodyText).isEmpty)
}

@Test func todayShowsTheDueDoseWithTakenAndSkippedForms() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let view = try site.regimen.todayView()
    let dose = try #require(view.currentBatch.first)
    let page = site.get("/regimen").bodyText
    #expect(page.contains("Vitamin D3"))
    #expect(page.contains("action=\"/regimen/doses/\(dose.doseID)/taken\""))
    #expect(page.contains("formaction=\"/regimen/doses/\(dose.doseID)/skipped\""))
    #expect(page.contains("name=\"csrf\" value=\"\(Fixture.csrf)\""))
    #expect(page.contains("not logged yet"))
    #expect(!page.contains("style=") && !page.contains("<script>"))
}

@Test func checkingInWithoutTheCSRFTokenIsRefusedAndSavesNothing() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let refused = site.post("/regimen/doses/\(dose.doseID)/taken", csrf: nil)
    #expect(refused.status == 403)
    #expect(try site.allRecords().isEmpty)
}

@Test func aCheckInCreatesOneRecordAndARepeatKeepsOne() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let first = site.post("/regimen/doses/\(dose.doseID)/taken")
    #expect(first.status == 303)
    let logged = try #require(try site.allRecords().first)
    #expect(first.header("Location") == "/regimen?logged=1&records=\(logged.id.rawValue)")
    #expect(try site.allRecords().count == 1)
    // The notice says what was logged.
    let notice = site.get(try #require(first.header("Location"))).bodyText
    #expect(notice.contains("Logged: \(logged.productName) (\(dose.time)), taken at "), "\(notice)")

    let second = site.post("/regimen/doses/\(dose.doseID)/taken")
    #expect(second.header("Location") == "/regimen?logged=already&records=\(logged.id.rawValue)")
    #expect(try site.allRecords().count == 1)
    let skipAfter = site.post("/regimen/doses/\(dose.doseID)/skipped")
    #expect(skipAfter.header("Location") == "/regimen?logged=already&records=\(logged.id.rawValue)")
    let records = try site.allRecords()
    #expect(records.count == 1 && records.first?.status == .taken)

    let page = site.get("/regimen?logged=already").bodyText
    #expect(page.contains("Already logged. Nothing new was saved."))
    #expect(page.contains("Every dose of today is logged."))
    #expect(page.contains("<span class=\"regimen-state\">taken at"))
    #expect(!page.contains("action=\"/regimen/doses/\(dose.doseID)/taken\""), "a logged dose offers no second check-in")
}

@Test func aSkippedDoseReadsSkippedAndDoesNotCountAsTaken() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    #expect(site.post("/regimen/doses/\(dose.doseID)/skipped").status == 303)
    let record = try #require(try site.allRecords().first)
    #expect(record.status == .skipped && !record.countsAsIntake)
    let page = site.get("/regimen").bodyText
    #expect(page.contains("<span class=\"regimen-state\">skipped at"))
    #expect(page.contains("regimen-dose regimen-skipped"))
}

@Test func takeAllLogsTheWholeBatchOnce() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct("Vitamin D3"))
    try site.addDailySchedule(for: try site.addProduct("Magnesium"))
    let batch = try site.regimen.todayView().currentBatch
    #expect(batch.count == 2)
    let page = site.get("/regimen").bodyText
    #expect(page.contains("id=\"regimen-take-all\""))
    let ids = batch.map(\.doseID).joined(separator: ",")
    #expect(site.post("/regimen/batch/taken", form: ["doses": ids]).header("Location")?.hasPrefix("/regimen?logged=1&records=") == true)
    let again = try #require(site.post("/regimen/batch/taken", form: ["doses": ids]).header("Location"))
    #expect(again.hasPrefix("/regimen?logged=already&records="))
    #expect(site.get(again).bodyText.contains("Already logged: "))
    let records = try site.allRecords()
    #expect(records.count == 2 && records.allSatisfy { $0.status == .taken })
}

@Test func anUnknownDoseIsTheRoutersPageNotFoundWithTheServicesSentenceAndSavesNothing() throws {
    let site = try RegimenSite()
    try site.addDailySchedule(for: try site.addProduct())
    let answer = site.post("/regimen/doses/nothing_2020-01-01_0800/taken")
    #expect(answer.status == 404, "an unknown id answers 404 from the router: Today catches only refused input")
    #expect(answer.bodyText.contains("Page not found"))
    #expect(answer.bodyText.contains("There is no scheduled dose with that id."))
    #expect(try site.allRecords().isEmpty)
    #expect(site.post("/regimen/doses/x/missed").status == 404)
    #expect(site.post("/regimen/batch/taken", form: ["doses": ""]).status == 400)
}

@Test func asNeededProductsCanBeLoggedFromToday() throws {
    let site = try RegimenSite()
    let product = try site.addProduct("Ginger chew")
    let schedule = try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: [], recurrence: .asNeeded,
            startDay: site.regimen.today()))
    let page = site.get("/regimen").bodyText
    #expect(page.contains("action=\"/regimen/as-needed/\(schedule.scheduleID.rawValue)\""))
    #expect(page.contains("Log a dose"))
    #expect(site.post("/regimen/as-needed/\(schedule.scheduleID.rawValue)").status == 303)
    #expect(try site.allRecords().count == 1)
}

@Test func everyRegimenPageWithDataKeepsToTheWordingAndTheContentPolicy() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    let schedule = try site.addDailySchedule(for: product)
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let logged = try site.regimen.checkIn(dose.doseID, status: .taken).entry
    _ = try site.regimen.correct(logged.id, status: .skipped)
    let pages =
        [
            "/regimen", "/regimen?logged=1", "/regimen/ledger", "/regimen/products", "/regimen/products/new",
            "/regimen/products/\(product.product.id.rawValue)", "/regimen/schedules",
            "/regimen/ledger?from=bad",
        ].map { site.get($0).bodyText }
        + [
            site.post("/regimen/products/new", form: ["name": "x", "form": "", "serving": "1"]).bodyText,
            site.post("/regimen/schedules/\(schedule.scheduleID.rawValue)/pause", form: ["from": "bad"]).bodyText,
        ]
    for html in pages {
        #expect(ProductWording.bannedWords(in: html).isEmpty)
        #expect(!html.contains("style=") && !html.contains("<style") && !html.contains("<script>"))
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
    }
}

// MARK: Today: each dose once, taken at, undo, focus

private func fixedSite(_ now: String, zone: String = "UTC") throws -> RegimenSite {
    try RegimenSite(clock: FixedClock(ISO8601DateFormatter().date(from: now)!, timeZone: TimeZone(identifier: zone)!))
}

@Test func eachDoseOfTodayIsListedOnce() throws {
    let site = try fixedSite("2026-03-10T13:30:00Z")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["08:00", "13:00", "20:00"].compactMap(TimeSlot.init(parsing:)),
            recurrence: .daily, startDay: LocalDay(parsing: "2026-03-01")!))
    let page = site.get("/regimen").bodyText
    for dose in try site.regimen.todayView().doses {
        #expect(page.components(separatedBy: "id=\"dose-\(dose.doseID)\"").count == 2, "\(dose.occurrence.slot) once")
    }
    #expect(page.contains("Later today") && page.contains("Earlier today, not logged yet"))
    #expect(!page.contains("The rest of today"))
}

@Test func takenAtLogsTheTimeGivenAndAFutureTimeIsRefusedBesideItsField() throws {
    let site = try fixedSite("2026-03-10T12:33:00Z", zone: "Europe/Berlin")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["08:00", "21:00"].compactMap(TimeSlot.init(parsing:)),
            recurrence: .daily, startDay: LocalDay(parsing: "2026-03-01")!))
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    let refused = site.post("/regimen/doses/\(dose.doseID)/taken", form: ["at": "14:00"])
    #expect(refused.status == 400)
    #expect(refused.bodyText.contains("id=\"at-error-\(dose.doseID)\""), "the error sits beside the field")
    #expect(refused.bodyText.contains("That time is later than now."))
    #expect(refused.bodyText.contains("aria-invalid=\"true\""))
    #expect(try site.allRecords().isEmpty)
    // An offset beyond ±14:00 is refused beside the field, never wrapped (+25:00 was stored as +02:00).
    let wrapped = site.post("/regimen/doses/\(dose.doseID)/taken", form: ["at": "2026-03-10T09:05+25:00"])
    #expect(wrapped.status == 400 && wrapped.bodyText.contains("id=\"at-error-\(dose.doseID)\""))
    #expect(
        wrapped.bodyText.contains("The time taken has a UTC offset beyond ±14:00, which no place uses.")
            && wrapped.bodyText.components(separatedBy: "Nothing was saved.").count == 2)
    #expect(try site.allRecords().isEmpty)
    let saved = site.post("/regimen/doses/\(dose.doseID)/taken", form: ["at": "08:05"])
    #expect(saved.status == 303)
    let record = try #require(try site.allRecords().first)
    #expect(record.takenAt == ISO8601DateFormatter().date(from: "2026-03-10T07:05:00Z")!)
    let next = try #require(try site.regimen.todayView().nextToLog)
    #expect(saved.header("Location") == "/regimen?logged=1&records=\(record.id.rawValue)&focus=\(next.doseID)", "focus moves to the next dose")
    let page = site.get("/regimen?logged=1&focus=\(next.doseID)").bodyText
    #expect(page.contains("id=\"take-\(next.doseID)\" autofocus"))
    #expect(page.contains("taken at 08:05"))
}

@Test func undoFromTodayPutsTheDoseBackAndTheLedgerKeepsBoth() throws {
    let site = try fixedSite("2026-03-10T12:00:00Z")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["08:00"].compactMap(TimeSlot.init(parsing:)),
            recurrence: .daily, startDay: LocalDay(parsing: "2026-03-01")!))
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    _ = site.post("/regimen/doses/\(dose.doseID)/taken")
    let record = try #require(try site.allRecords().first)
    let page = site.get("/regimen").bodyText
    #expect(page.contains("action=\"/regimen/records/\(record.id.rawValue)/undo\""))
    #expect(!page.contains(">record "), "no record ids in the text")
    let undone = site.post("/regimen/records/\(record.id.rawValue)/undo")
    #expect(undone.header("Location") == "/regimen?logged=undone&focus=\(dose.doseID)")
    #expect(try site.regimen.todayView().doses[0].state == .notLogged)
    #expect(try site.allRecords().count == 2)
    #expect(site.post("/regimen/records/\(record.id.rawValue)/undo").header("Location")?.hasPrefix("/regimen?logged=undone-already") == true)
}

@Test func asNeededDosesLoggedTodayAreListedWithTheirTimes() throws {
    let site = try fixedSite("2026-03-10T15:00:00Z")
    let product = try site.addProduct("Ginger chew")
    let schedule = try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: [], recurrence: .asNeeded,
            startDay: LocalDay(parsing: "2026-03-01")!))
    _ = site.post("/regimen/as-needed/\(schedule.scheduleID.rawValue)")
    let page = site.get("/regimen").bodyText
    #expect(page.contains("Logged today (2026-03-10)"))
    #expect(page.contains("as needed, taken at 15:00"))
}

@Test func theHomePageSaysWhatIsDueNowAndWhatWasLoggedToday() throws {
    let site = try fixedSite("2026-03-10T08:30:00Z")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["08:00", "20:00"].compactMap(TimeSlot.init(parsing:)),
            recurrence: .daily, startDay: LocalDay(parsing: "2026-03-01")!))
    let before = site.get("/").bodyText
    #expect(before.contains("Due now (08:00):</strong>"))
    #expect(before.contains("Nothing logged yet today."))
    let dose = try #require(try site.regimen.todayView().currentBatch.first)
    _ = site.post("/regimen/doses/\(dose.doseID)/taken")
    let after = site.get("/").bodyText
    #expect(after.contains("Nothing due now. Next at 20:00:"))
    #expect(after.contains("Logged today: 1 dose taken."))
}

@Test func aDoseMoreThanAnHourEarlyIsLoggedOnlyAfterTheConfirmationStep() throws {
    let site = try fixedSite("2026-03-10T14:57:00Z")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["20:00"].compactMap(TimeSlot.init(parsing:)), recurrence: .daily,
            startDay: LocalDay(parsing: "2026-03-01")!))
    let dose = try #require(try site.regimen.todayView().doses.first)
    let asked = site.post("/regimen/doses/\(dose.doseID)/taken")
    #expect(asked.status == 200 && asked.bodyText.contains("id=\"early-confirm\""))
    #expect(asked.bodyText.contains("Vitamin D3 is due at 20:00, more than an hour later. Log it as taken anyway?"))
    #expect(try site.regimen.ledger().entries.isEmpty, "nothing is logged by the question")
    #expect(site.post("/regimen/doses/\(dose.doseID)/skipped").status == 303, "skipping early is not asked about")
    _ = try site.regimen.undo(try #require(try site.regimen.ledger().entries.first).id)
    let confirmed = site.post("/regimen/doses/\(dose.doseID)/taken", form: ["early": "yes"])
    #expect(confirmed.status == 303)
    #expect(try site.regimen.todayView().doses.first?.state == .taken)
    let batch = try fixedSite("2026-03-10T05:00:00Z")
    let other = try batch.addProduct()
    try batch.regimen.addSchedule(
        try SchedulePlan(
            productID: other.product.id, times: ["08:00"].compactMap(TimeSlot.init(parsing:)), recurrence: .daily,
            startDay: LocalDay(parsing: "2026-03-01")!))
    let ids = try batch.regimen.todayView().doses.map(\.doseID).joined(separator: ",")
    #expect(batch.post("/regimen/batch/taken", form: ["doses": ids]).bodyText.contains("id=\"early-confirm\""), "take all asks too")
}

@Test func yesterdayAndTheLastSevenDaysAreOneStepFromTodayAndDosesAreLoggedThere() throws {
    let site = try fixedSite("2026-03-10T13:30:00Z")
    let product = try site.addProduct()
    try site.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: ["08:00", "20:00"].compactMap(TimeSlot.init(parsing:)), recurrence: .daily,
            startDay: LocalDay(parsing: "2026-03-01")!))
    let yesterday = try site.regimen.doses(on: LocalDay(parsing: "2026-03-09")!)
    try site.regimen.checkIn(yesterday[0].doseID, status: .taken)
    let today = site.get("/regimen").bodyText
    #expect(today.contains("<a href=\"/regimen/day/2026-03-09\">Yesterday, 9 Mar 2026</a>: 1 of 2 taken, 1 not logged"))
    #expect(today.contains("<a href=\"/regimen/day/2026-03-03\">Tuesday, 3 Mar 2026</a>: 0 of 2 taken, 2 not logged"))
    let day = site.get("/regimen/day/2026-03-09").bodyText
    #expect(day.contains("<h1>Monday, 9 Mar 2026</h1>") && day.contains("1 of 2 taken, 1 not logged"))
    #expect(day.contains("href=\"/regimen/records/"), "the logged dose links to its correction")
    #expect(day.contains("name=\"day\" value=\"2026-03-09\""), "the open dose's forms come back here")
    let logged = site.post("/regimen/doses/\(yesterday[1].doseID)/taken", form: ["day": "2026-03-09"])
    #expect(logged.status == 303 && logged.header("Location")?.hasPrefix("/regimen/day/2026-03-09?logged=1") == true)
    let entry = try #require(try site.regimen.ledger().entries.first { $0.occurrence?.doseID == yesterday[1].doseID })
    #expect(DateText.string(entry.takenAt, .numericMinute, in: entry.timeZone) == "2026-03-09 20:00", "at its own time")
    #expect(site.get("/regimen/day/2026-03-10").header("Location") == "/regimen")
    #expect(site.get("/regimen/day/2026-03-11").status == 404)
    #expect(site.get("/regimen/day/2025-01-01").status == 404)
    let ledger = site.get("/regimen/ledger").bodyText
    #expect(ledger.contains("id=\"ledger-week\"") && ledger.contains("2 of 13 taken, 11 not logged"))
}
