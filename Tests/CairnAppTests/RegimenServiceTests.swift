import CairnApp
import CairnCore
import Foundation
import Regimen
import Storage
import Testing

// MARK: products

@Test func aProductIsSavedWithExactAmountsAndReadBack() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let saved = try f.service.addProduct(
        Product(
            name: "Fish oil", form: .softgel, servingSize: amount("2", .count),
            ingredients: [
                ProductIngredient(catalogueID: nil, nameOnLabel: "EPA", amount: amount("0.1", .g), dailyValuePercent: Decimal(string: "0.5"))
            ]), decisions: RowDecisions(accepted: [1]))
    let read = try #require(try f.service.product(saved.product.id))
    #expect(read == saved)
    #expect(read.product.ingredients[0].amount?.description == "0.1 g")
    #expect(read.unknownIngredients == ["EPA"])
    let stored: String? = try f.database.read { try $0.scalar("SELECT amount_value FROM regimen_product_ingredients") }
    #expect(stored == "0.1", "decimals are stored as exact text")
    #expect(try f.service.findProduct("fish OIL").product.id == saved.product.id)
    #expect(try f.service.findProduct(saved.product.id.rawValue).product.id == saved.product.id)
    #expect(throws: ScheduleError.productNotFound) { try f.service.findProduct("Krill") }
}

@Test func productAndIngredientNamesHoldAtMost120CharactersAndNoFormatCharacter() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let n120 = String(repeating: "p", count: 120)
    let n121 = String(repeating: "p", count: 121)
    let saved = try f.service.addProduct(
        ProductInput(name: n120, form: "capsule", ingredients: ["\(n120) = 5 mg"]),
        decisions: RowDecisions(accepted: [1]))
    #expect(saved.product.name == n120 && saved.product.ingredients.map(\.nameOnLabel) == [n120])
    // Typed (both doors): each refusal beside its field, an ingredient's with its row.
    do {
        _ = try f.service.addProduct(
            ProductInput(
                name: n121, brand: "Acme\u{202E}", form: "capsule",
                ingredients: ["Zinc = 5 mg", "\(n121) = 5 mg"]))
        Issue.record("expected a refusal")
    } catch let refused as FieldProblems<ProductField> {
        #expect(refused.messages(for: .name) == ["The product name is longer than 120 characters. Shorten it and try again. Nothing was saved."])
        #expect(refused.messages(for: .brand).first?.hasPrefix("The brand contains an invisible formatting character") == true)
        #expect(
            refused.messages(for: .ingredients) == [
                "Row 2: The ingredient name is longer than 120 characters. Shorten it and try again. Nothing was saved."
            ])
    }
    // Built another way (a label scan, JSON): the same rule where the service saves it.
    #expect(throws: FieldProblems<ProductField>.self) {
        try f.service.addProduct(Product(name: n121, form: .capsule, servingSize: amount("1", .count), ingredients: []))
    }
    #expect(throws: FieldProblems<ProductField>.self) {
        try f.service.addProduct(
            Product(
                name: "Zinc", form: .capsule, servingSize: amount("1", .count),
                ingredients: [
                    ProductIngredient(catalogueID: "zinc", nameOnLabel: "Zinc\u{200B}", amount: amount("5", .mg))
                ]))
    }
    #expect(try f.count("regimen_products") == 1)
    // A name an earlier version stored over the limit is still read.
    try f.database.write { try $0.execute("UPDATE regimen_product_revisions SET name = ?", String(repeating: "q", count: 10_000)) }
    #expect(try f.service.product(saved.product.id)?.product.name.count == 10_000)
}

@Test func anImplausibleAmountIsRefusedAndNothingIsWritten() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    #expect(throws: RegimenError.self) { try Amount("5", .g).converted(to: .mcg).scaled(by: 1_000_000) }
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try Amount("5000", .g).scaled(by: 1) }
    let implausible = try Product(
        name: "D", form: .softgel, servingSize: amount("1", .count),
        ingredients: [
            ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D", amount: amount("500", .mg))
        ])
    #expect(throws: RegimenError.self) { try f.service.addProduct(implausible) }
    #expect(try f.count("regimen_products") == 0)
    #expect(try f.count("regimen_product_revisions") == 0)
    #expect(try f.count("regimen_product_ingredients") == 0)
}

@Test func editingAProductAppendsARevisionAndOldRecordsKeepTheirLabel() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let schedule = try f.daily(d, "08:00")
    let first = try f.service.checkIn(DoseOccurrence(revisionID: schedule.id, day: day("2026-03-10"), slot: slots("08:00")[0]).doseID, status: .taken)
    let edited = try f.service.editProduct(
        d.product.id,
        to: Product(
            name: "Vitamin D3 2000", form: .softgel, servingSize: amount("1", .count),
            ingredients: [ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: amount("50", .mcg))]))
    #expect(edited.revisionNumber == 2)
    #expect(try f.service.productHistory(d.product.id).map(\.revisionNumber) == [1, 2])
    #expect(try f.service.product(d.product.id)?.product.name == "Vitamin D3 2000")
    #expect(first.entry.productRevisionID == d.revisionID)
    #expect(try f.service.record(first.entry.id)?.productName == "Vitamin D3", "the ledger shows the label in force then")
    let extra = try f.service.logExtra(d.product.id)
    #expect(extra.productRevisionID == edited.revisionID)
    let exposure = try f.service.exposure(in: day("2026-03-10")...day("2026-03-10"))
    #expect(exposure.ingredients.map(\.amount.description) == ["75 mcg"], "25 mcg (old label) + 50 mcg (new label)")
    #expect(throws: ScheduleError.productNotFound) { try f.service.editProduct("nope", to: d.product) }
}

// MARK: schedules

@Test func anEditTakesEffectFromItsDayAndPastDaysKeepTheOldRevision() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let first = try f.daily(d, "08:00", "21:00")
    let second = try f.service.editSchedule(
        first.scheduleID,
        plan: SchedulePlan(
            productID: d.product.id, times: slots("09:00"),
            recurrence: .daily, startDay: day("2026-03-01")), effectiveFrom: day("2026-03-15"))
    #expect(second.number == 2)
    #expect(try f.service.doses(on: day("2026-03-14")).map(\.occurrence.slot.description) == ["08:00", "21:00"])
    #expect(try f.service.doses(on: day("2026-03-15")).map(\.occurrence.slot.description) == ["09:00"])
    #expect(try f.service.doses(on: day("2026-03-15")).first?.occurrence.revisionID == second.id)
    #expect(try f.service.scheduleHistory(first.scheduleID).revisions.map(\.number) == [1, 2])
}

@Test func overlappingRevisionsAreRefusedAndNothingIsWritten() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let first = try f.daily(d, "08:00")
    let plan = try SchedulePlan(productID: d.product.id, times: slots("09:00"), recurrence: .daily, startDay: day("2026-03-01"))
    try f.service.editSchedule(first.scheduleID, plan: plan, effectiveFrom: day("2026-03-20"))
    for effective in ["2026-03-20", "2026-03-19", "2026-03-01"] {
        #expect(throws: ScheduleError.overlappingRevision) {
            try f.service.editSchedule(first.scheduleID, plan: plan, effectiveFrom: day(effective))
        }
    }
    #expect(try f.count("regimen_schedule_revisions") == 2)
    let other = try f.magnesium()
    #expect(throws: ScheduleError.productCannotChange) {
        try f.service.editSchedule(
            first.scheduleID,
            plan: SchedulePlan(
                productID: other.product.id, times: slots("09:00"),
                recurrence: .daily, startDay: day("2026-03-01")),
            effectiveFrom: day("2026-04-01"))
    }
    #expect(try f.count("regimen_schedule_revisions") == 2)
}

@Test func aChangeCannotRewriteADayWithLoggedDoses() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let first = try f.daily(d, "08:00")
    try f.service.checkIn(DoseOccurrence(revisionID: first.id, day: day("2026-03-10"), slot: slots("08:00")[0]).doseID, status: .taken)
    #expect(throws: ScheduleError.revisionBeforeLoggedDoses) { try f.service.pauseSchedule(first.scheduleID, from: day("2026-03-10")) }
    #expect(try f.service.pauseSchedule(first.scheduleID, from: day("2026-03-11")).state == .paused)
}

@Test func aScheduleThatEndsBeforeItStartsIsRefused() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let d = try f.vitaminD()
    #expect(throws: ScheduleError.endsBeforeStart) { try f.daily(d, "08:00", start: "2026-03-10", end: "2026-03-09") }
    #expect(try f.count("regimen_schedules") == 0)
    #expect(throws: ScheduleError.productNotFound) {
        try f.service.addSchedule(SchedulePlan(productID: "missing", times: slots("08:00"), recurrence: .daily, startDay: day("2026-03-01")))
    }
    #expect(try f.count("regimen_schedules") == 0)
}

@Test func pausingResumingAndStoppingAreRevisions() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let s = try f.daily(d, "08:00").scheduleID
    try f.service.pauseSchedule(s, from: day("2026-03-12"))
    #expect(throws: ScheduleError.alreadyInThatState) { try f.service.pauseSchedule(s, from: day("2026-03-13")) }
    try f.service.resumeSchedule(s, from: day("2026-03-14"))
    try f.service.stopSchedule(s, from: day("2026-03-20"))
    #expect(throws: ScheduleError.scheduleStopped) { try f.service.resumeSchedule(s, from: day("2026-03-25")) }
    #expect(try f.service.doses(on: day("2026-03-11")).count == 1)
    #expect(try f.service.doses(on: day("2026-03-12")).isEmpty)
    #expect(try f.service.doses(on: day("2026-03-14")).count == 1)
    #expect(try f.service.doses(on: day("2026-03-20")).isEmpty)
    #expect(try f.service.scheduleHistory(s).revisions.map(\.state) == [.active, .paused, .active, .stopped])
    #expect(throws: ScheduleError.scheduleNotFound) { try f.service.scheduleHistory("nope") }
}

// MARK: check-ins

@Test func takenSkippedAndNotLoggedAreThreeStates() throws {
    let f = try RegimenFixture(now: "2026-03-10T22:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "13:00", "21:00")
    let today = try f.service.todayView()
    #expect(today.doses.map(\.state) == [.notLogged, .notLogged, .notLogged])
    try f.service.checkIn(today.doses[0].doseID, status: .taken)
    try f.service.checkIn(today.doses[1].doseID, status: .skipped)
    #expect(try f.service.todayView().doses.map(\.state) == [.taken, .skipped, .notLogged])
    #expect(try f.count("regimen_intake") == 2, "not logged is the absence of a record")
    let exposure = try f.service.exposure(in: day("2026-03-10")...day("2026-03-10"))
    #expect(exposure.products.map(\.intakeCount) == [1], "a skipped dose never counts")
}

@Test func checkingInTheSameDoseTwiceWritesOneRecord() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00")
    let dose = try f.service.todayView().doses[0].doseID
    let first = try f.service.checkIn(dose, status: .taken)
    let second = try f.service.checkIn(dose, status: .taken)
    let third = try f.service.checkIn(dose, status: .skipped)
    #expect(!first.alreadyLogged && second.alreadyLogged && third.alreadyLogged)
    #expect(second.entry.id == first.entry.id && third.entry.status == .taken)
    #expect(try f.count("regimen_intake") == 1)
}

@Test func twoConnectionsCheckingInAtOnceWriteOneRecord() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", start: "2026-02-01")
    let other = try Database(path: f.vault.databaseURL.path)
    defer { other.close() }
    let services = [f.service, RegimenService(database: other, clock: f.clock)]
    for round in 0..<20 {
        let dose = DoseOccurrence(
            revisionID: try f.service.schedules()[0].latest.id, day: day("2026-03-10").adding(days: -round),
            slot: slots("08:00")[0]
        ).doseID
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.append(Result { try services[i].checkIn(dose, status: .taken) })
        }
        let outcomes = try results.all.map { try $0.get() }
        #expect(outcomes.filter { !$0.alreadyLogged }.count == 1)
        #expect(Set(outcomes.map(\.entry.id)).count == 1)
    }
    #expect(try f.count("regimen_intake") == 20)
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Result<CheckInResult, Error>] = []
    func append(_ r: Result<CheckInResult, Error>) { lock.withLock { items.append(r) } }
    var all: [Result<CheckInResult, Error>] { lock.withLock { items } }
}

@Test func aCheckInForADoseThatDoesNotExistIsRefusedAndNothingIsWritten() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let first = try SchedulePlan(
        productID: d.product.id, times: slots("08:00"), recurrence: .weekdays([.monday, .tuesday]),
        startDay: day("2026-03-02"))
    let revision = try f.service.addSchedule(first)  // 2026-03-10 is a Tuesday
    let newer = try f.service.editSchedule(
        revision.scheduleID,
        plan: SchedulePlan(
            productID: d.product.id, times: slots("09:00"),
            recurrence: .daily, startDay: day("2026-03-02")), effectiveFrom: day("2026-03-10"))
    func dose(_ r: ScheduleRevision, _ d: String, _ s: String) -> String {
        DoseOccurrence(revisionID: r.id, day: day(d), slot: TimeSlot(parsing: s)!).doseID
    }
    let notFound = [
        "garbage", "x_2026-03-10_0800",
        dose(revision, "2026-03-09", "09:00"),  // wrong slot
        dose(revision, "2026-03-04", "08:00"),  // a Wednesday
        dose(revision, "2026-03-10", "08:00"),  // that revision is no longer in force that day
        dose(revision, "2026-03-01", "08:00"),  // before the start
    ]
    for id in notFound {
        #expect(throws: ScheduleError.doseNotFound) { try f.service.checkIn(id, status: .taken) }
    }
    #expect(throws: ScheduleError.doseNotDueYet) { try f.service.checkIn(dose(newer, "2026-03-11", "09:00"), status: .taken) }
    #expect(throws: ScheduleError.statusNotLoggable) { try f.service.checkIn(dose(newer, "2026-03-10", "09:00"), status: .missed) }
    #expect(try f.count("regimen_intake") == 0)
    #expect(
        try f.service.checkIn(dose(revision, "2026-03-09", "08:00"), status: .taken).alreadyLogged == false,
        "a past dose of the revision in force then can still be logged")
}

@Test func unscheduledDosesAreKeptApartFromScheduledOnes() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let m = try f.magnesium()
    let asNeeded = try f.service.addSchedule(SchedulePlan(productID: m.product.id, times: [], recurrence: .asNeeded, startDay: day("2026-03-01")))
    let scheduled = try f.daily(d, "08:00")
    let today = try f.service.todayView()
    #expect(today.doses.count == 1)
    #expect(today.asNeeded.map(\.scheduleID) == [asNeeded.scheduleID])
    #expect(try f.service.logAsNeeded(asNeeded.scheduleID).kind == .asNeeded)
    #expect(try f.service.logExtra(d.product.id, servings: 2).kind == .extra)
    #expect(throws: ScheduleError.notAnAsNeededSchedule) { try f.service.logAsNeeded(scheduled.scheduleID) }
    #expect(throws: ScheduleError.servingsNotPositive) { try f.service.logExtra(d.product.id, servings: 0) }
    #expect(throws: ScheduleError.productNotFound) { try f.service.logExtra("nope") }
    #expect(try f.service.todayView().doses.map(\.state) == [.notLogged], "extra doses do not check in scheduled ones")
    let products = try f.service.exposure(in: day("2026-03-10")...day("2026-03-10")).products
    #expect(products.map(\.servings).reduce(0, +) == 3)
}

// MARK: corrections

@Test func aCorrectionAppendsASupersedingRecordAndTheHistoryShowsBoth() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00")
    let taken = try f.service.checkIn(try f.service.todayView().doses[0].doseID, status: .taken).entry
    let moved = try f.service.correct(taken.id, status: .taken, at: utc("2026-03-10T07:30:00Z"))
    let skipped = try f.service.correct(moved.id, status: .skipped)
    #expect(moved.supersedes == taken.id && skipped.supersedes == moved.id)
    #expect(skipped.takenAt == utc("2026-03-10T07:30:00Z"))
    let ledger = try f.service.ledger().entries
    #expect(ledger.count == 3)
    #expect(ledger.filter(\.isCurrent).map(\.id) == [skipped.id])
    #expect(throws: ScheduleError.recordAlreadyCorrected) { try f.service.correct(taken.id, status: .skipped) }
    #expect(throws: ScheduleError.recordNotFound) { try f.service.correct("nope", status: .skipped) }
    #expect(try f.service.todayView().doses.map(\.state) == [.skipped])
    #expect(try f.service.exposure(in: day("2026-03-10")...day("2026-03-10")).products.isEmpty)
    #expect(try f.count("regimen_intake") == 3)
}

// MARK: Today, DST and travel

@Test func theCurrentBatchIsTheLatestDueSlotAndNextIsTheFollowingOne() throws {
    let f = try RegimenFixture(now: "2026-03-10T13:05:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let m = try f.magnesium()
    try f.daily(d, "08:00", "13:00")
    try f.daily(m, "13:00", "21:00")
    var today = try f.service.todayView()
    #expect(today.doses.count == 4)
    #expect(today.currentBatch.map(\.productName) == ["Magnesium", "Vitamin D3"])
    #expect(today.currentBatch.allSatisfy { $0.occurrence.slot.description == "13:00" })
    #expect(today.next.map(\.occurrence.slot.description) == ["21:00"])
    for dose in today.currentBatch { try f.service.checkIn(dose.doseID, status: .taken, confirmedEarly: true) }
    today = try f.service.todayView()
    #expect(today.currentBatch.map(\.occurrence.slot.description) == ["08:00"], "the forgotten morning dose is still due")
    try f.service.checkIn(today.currentBatch[0].doseID, status: .skipped)
    today = try f.service.todayView()
    #expect(today.currentBatch.map(\.occurrence.slot.description) == ["21:00"], "nothing due: the earliest still to come")
    try f.service.checkIn(today.currentBatch[0].doseID, status: .taken, confirmedEarly: true)
    today = try f.service.todayView()
    #expect(today.currentBatch.isEmpty)
    #expect(today.next.map(\.occurrence.day) == [day("2026-03-11")], "tomorrow's first slot")
    #expect(today.next.map(\.productName) == ["Vitamin D3"])
}

@Test func springForwardKeepsASlotInTheGapAsOneDoseDueAfterTheGap() throws {
    let f = try RegimenFixture(now: "2026-03-29T00:30:00Z", zone: "Europe/Berlin")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "01:30", "02:30", "03:30")
    let today = try f.service.todayView()
    #expect(today.day == day("2026-03-29"))
    #expect(today.doses.map(\.occurrence.slot.description) == ["01:30", "02:30", "03:30"])
    #expect(today.doses.map(\.dueAt) == [utc("2026-03-29T00:30:00Z"), utc("2026-03-29T01:00:00Z"), utc("2026-03-29T01:30:00Z")])
}

@Test func fallBackKeepsARepeatedSlotAsOneDose() throws {
    let f = try RegimenFixture(now: "2026-10-25T00:35:00Z", zone: "Europe/Berlin")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "02:30")
    let dose = try #require(try f.service.todayView().doses.first)
    #expect(dose.dueAt == utc("2026-10-25T00:30:00Z"), "the first 02:30")
    #expect(try f.service.checkIn(dose.doseID, status: .taken).alreadyLogged == false)
    f.clock.set("2026-10-25T01:35:00Z")  // 02:35 again, an hour later
    let again = try f.service.todayView()
    #expect(again.doses.count == 1 && again.doses[0].state == .taken && again.currentBatch.isEmpty)
    #expect(try f.service.checkIn(dose.doseID, status: .taken).alreadyLogged)
}

@Test func flyingEastAcrossMidnightNeitherDuplicatesNorLosesASlot() throws {
    // New York -> London. Departs 2026-03-10 20:00 EDT (before the 21:00 dose), lands 2026-03-11 08:00 GMT.
    let f = try RegimenFixture(now: "2026-03-10T12:30:00Z", zone: "America/New_York")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "13:00", "21:00")
    let home = try f.service.todayView()
    #expect(home.day == day("2026-03-10"))
    try f.service.checkIn(home.doses[0].doseID, status: .taken)
    f.clock.set("2026-03-10T17:05:00Z")
    try f.service.checkIn(try f.service.todayView().currentBatch[0].doseID, status: .taken)

    f.clock.set("2026-03-11T08:00:00Z", zone: "Europe/London")
    let away = try f.service.todayView()
    #expect(away.day == day("2026-03-11"))
    #expect(away.doses.map(\.occurrence.slot.description) == ["08:00", "13:00", "21:00"])
    #expect(away.doses.allSatisfy { $0.state == .notLogged && $0.occurrence.day == day("2026-03-11") })
    #expect(away.currentBatch.map(\.occurrence.slot.description) == ["08:00"])
    #expect(away.currentBatch[0].dueAt == utc("2026-03-11T08:00:00Z"), "08:00 wherever the person is")
    // The 21:00 dose of 2026-03-10 fell in the flight: not lost, still one dose, still loggable.
    let missed = try f.service.doses(on: day("2026-03-10"))
    #expect(missed.map(\.state) == [.taken, .taken, .notLogged])
    let late = try f.service.checkIn(missed[2].doseID, status: .skipped)
    #expect(!late.alreadyLogged)
    let twoDays = try f.service.doses(on: day("2026-03-10")) + f.service.doses(on: day("2026-03-11"))
    #expect(Set(twoDays.map(\.occurrence)).count == 6)
}

@Test func aScheduleOnAFixedZoneKeepsItsInstantAcrossATripAndIsListedOnThePersonsDay() throws {
    // 08:00 on New York's clock, with a 08:00 schedule that follows the person beside it.
    let f = try RegimenFixture(now: "2026-03-10T11:00:00Z", zone: "America/New_York")  // 07:00 EDT
    defer { f.remove() }
    let pinned = try f.service.addSchedule(
        SchedulePlan(
            productID: try f.vitaminD().product.id, times: slots("08:00"), recurrence: .daily,
            startDay: day("2026-03-01"), zone: try ScheduleZone(parsing: "America/New_York")))
    try f.daily(try f.magnesium(), "08:00")
    let home = try f.service.todayView()
    #expect(home.doses.map(\.timeText) == ["08:00", "08:00"], "at home both read 08:00, with no zone added")
    #expect(Set(home.doses.map(\.dueAt)) == [utc("2026-03-10T12:00:00Z")])

    // In Paris (13:00 when it is 08:00 in New York): the pinned dose stays at 12:00 UTC, the other is 08:00 Paris.
    f.clock.set("2026-03-10T06:00:00Z", zone: "Europe/Paris")
    let paris = try f.service.todayView()
    let fixed = try #require(paris.doses.first { $0.occurrence.revisionID == pinned.id })
    let follows = try #require(paris.doses.first { $0.occurrence.revisionID != pinned.id })
    #expect(fixed.dueAt == utc("2026-03-10T12:00:00Z") && fixed.time == slots("13:00")[0] && fixed.day == day("2026-03-10"))
    #expect(fixed.timeText == "13:00 (08:00 America/New_York)")
    #expect(follows.dueAt == utc("2026-03-10T07:00:00Z") && follows.timeText == "08:00")
    #expect(paris.doses.map(\.doseID) == [follows.doseID, fixed.doseID], "in the order they fall on the person's clock")
    #expect(paris.currentBatch.map(\.doseID) == [follows.doseID])
    #expect(paris.next.map(\.doseID) == [fixed.doseID])
    #expect(
        try f.service.schedules().map(\.latest.plan.zone).contains(.fixed(TimeZone(identifier: "America/New_York")!)),
        "the zone is stored and read back")
}

@Test func aFixedZoneDoseFallingOnTheNextScheduleDayIsListedAndLoggableToday() throws {
    // 08:00 on Tokyo's clock for a person in New York: 2026-03-11 08:00 JST is 2026-03-10 19:00 EDT.
    let f = try RegimenFixture(now: "2026-03-10T22:00:00Z", zone: "America/New_York")  // 18:00 EDT on 2026-03-10
    defer { f.remove() }
    let pinned = try f.service.addSchedule(
        SchedulePlan(
            productID: try f.vitaminD().product.id, times: slots("08:00"), recurrence: .daily,
            startDay: day("2026-03-01"), zone: try ScheduleZone(parsing: "Asia/Tokyo")))
    let today = try f.service.todayView()
    #expect(today.day == day("2026-03-10"))
    #expect(today.doses.map(\.occurrence.day) == [day("2026-03-11")], "Tokyo's 03-11 dose falls this evening in New York")
    #expect(today.doses.map(\.timeText) == ["19:00 (08:00 Asia/Tokyo)"])
    let tonight = today.doses[0]
    #expect(try f.service.doses(on: day("2026-03-11")).allSatisfy { $0.occurrence.day == day("2026-03-12") })

    // Logged on the person's day: a time of this evening is on the dose's own day; a day later is not.
    let at = try TakenTime.parse("19:05", doseDay: tonight.day, now: utc("2026-03-11T00:00:00Z"), zone: TimeZone(identifier: "America/New_York")!)
    f.clock.set("2026-03-11T00:00:00Z")
    let logged = try f.service.checkIn(tonight.doseID, status: .taken, at: at)
    #expect(logged.entry.takenAt == utc("2026-03-10T23:05:00Z") && !logged.alreadyLogged)
    #expect(throws: ScheduleError.doseNotDueYet) {
        try f.service.checkIn(DoseOccurrence(revisionID: pinned.id, day: day("2026-03-12"), slot: slots("08:00")[0]).doseID, status: .taken)
    }

    // A missed pinned dose of an earlier day, logged without a time, is recorded at its due instant.
    f.clock.set("2026-03-12T15:00:00Z")
    let earlier = try f.service.doses(on: day("2026-03-09"))
    #expect(earlier.map(\.occurrence.day) == [day("2026-03-10")])
    let late = try f.service.checkIn(earlier[0].doseID, status: .taken)
    #expect(late.atScheduledTime && late.entry.takenAt == utc("2026-03-09T23:00:00Z"))
}

@Test func flyingWestAcrossMidnightNeitherDuplicatesNorLosesASlot() throws {
    // Tokyo -> Honolulu. The 2026-03-11 08:00 dose is taken in Tokyo; the flight lands on 2026-03-10 local time.
    let f = try RegimenFixture(now: "2026-03-10T00:00:00Z", zone: "Asia/Tokyo")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "13:00", "21:00")
    for dose in try f.service.todayView().doses { try f.service.checkIn(dose.doseID, status: .taken, confirmedEarly: true) }  // 2026-03-10, Tokyo
    f.clock.set("2026-03-10T23:10:00Z")  // 08:10 on 2026-03-11 in Tokyo
    let tokyo = try f.service.todayView()
    #expect(tokyo.day == day("2026-03-11"))
    try f.service.checkIn(tokyo.currentBatch[0].doseID, status: .taken)

    f.clock.set("2026-03-11T07:30:00Z", zone: "Pacific/Honolulu")  // 21:30 on 2026-03-10 in Honolulu
    let landed = try f.service.todayView()
    #expect(landed.day == day("2026-03-10"))
    #expect(landed.doses.map(\.state) == [.taken, .taken, .taken], "the day already lived in Tokyo is not due again")
    #expect(landed.currentBatch.isEmpty)
    #expect(landed.next.map(\.occurrence.slot.description) == ["13:00"], "tomorrow's 08:00 was already taken")

    f.clock.set("2026-03-11T18:30:00Z")  // 08:30 on 2026-03-11 in Honolulu
    let morning = try f.service.todayView()
    #expect(morning.doses.map(\.state) == [.taken, .notLogged, .notLogged])
    #expect(morning.currentBatch.map(\.occurrence.slot.description) == ["13:00"])
    #expect(try f.count("regimen_intake") == 4)
}

// MARK: ledger, export

@Test func theLedgerPagesNewestFirstWithFilters() throws {
    let f = try RegimenFixture(now: "2026-03-10T23:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let m = try f.magnesium()
    for hour in 0..<5 { try f.service.logExtra(d.product.id, at: utc("2026-03-0\(hour + 1)T10:00:00Z")) }
    try f.service.logExtra(m.product.id, at: utc("2026-03-03T11:00:00Z"))
    let first = try f.service.ledger(LedgerQuery(productID: d.product.id, limit: 2))
    #expect(first.entries.map(\.localDay) == [day("2026-03-05"), day("2026-03-04")])
    #expect(first.nextOffset == 2)
    let last = try f.service.ledger(LedgerQuery(productID: d.product.id, limit: 2, offset: 4))
    #expect(last.entries.count == 1 && last.nextOffset == nil)
    let ranged = try f.service.ledger(LedgerQuery(from: day("2026-03-03"), to: day("2026-03-03")))
    #expect(ranged.entries.map(\.productName) == ["Magnesium", "Vitamin D3"])
    #expect(try f.service.ledger(LedgerQuery(from: day("2027-01-01"))).entries.isEmpty)
    #expect(throws: ScheduleError.pageOutOfRange) { try f.service.ledger(LedgerQuery(limit: 0)) }
    #expect(throws: ScheduleError.pageOutOfRange) { try f.service.ledger(LedgerQuery(offset: -1)) }
    #expect(throws: ScheduleError.rangeEndsBeforeStart) { try f.service.ledger(LedgerQuery(from: day("2026-03-03"), to: day("2026-03-02"))) }
}

@Test func theExportHoldsEveryRecordAsCsvAndJson() throws {
    let f = try RegimenFixture(now: "2026-03-10T23:00:00Z", zone: "Europe/Berlin")
    defer { f.remove() }
    #expect(try f.service.exportLedger(as: .csv) == LedgerEntry.csvHeader + "\r\n")
    #expect(try f.service.exportLedger(as: .json) == "[\n\n]" || f.service.exportLedger(as: .json) == "[]")
    let d = try f.vitaminD(name: "D3, \"sunny\"")
    let taken = try f.service.logExtra(d.product.id, servings: Decimal(string: "0.5")!)
    try f.service.correct(taken.id, status: .skipped)
    let csv = try f.service.exportLedger(as: .csv).components(separatedBy: "\r\n")
    #expect(csv.count == 4 && csv[3].isEmpty)
    #expect(csv[1].contains(",extra,taken,") && csv[1].contains(",\"D3, \"\"sunny\"\"\",") && csv[1].contains(",0.5,"))
    #expect(csv[1].contains(",Europe/Berlin,2026-03-11,"), "the local day in the zone of the record")
    let json = try JSONSerialization.jsonObject(with: Data(try f.service.exportLedger(as: .json).utf8)) as? [[String: Any]]
    #expect(json?.count == 2)
    #expect(json?.first?["supersededBy"] as? String == json?.last?["id"] as? String)
}

// MARK: exposure

@Test func exposureSumsCompatibleAmountsAndKeepsIncompatibleUnitsApart() throws {
    let f = try RegimenFixture(now: "2026-03-11T23:00:00Z")
    defer { f.remove() }
    let mcg = try f.vitaminD(name: "D mcg")
    let iu = try f.vitaminD(name: "D IU", mcg: "1000", unit: .iu)
    let m = try f.magnesium()
    try f.service.logExtra(mcg.product.id, at: utc("2026-03-10T07:00:00Z"))
    try f.service.logExtra(iu.product.id, at: utc("2026-03-10T08:00:00Z"))
    try f.service.logExtra(m.product.id, at: utc("2026-03-10T19:00:00Z"))
    try f.service.logExtra(m.product.id, at: utc("2026-03-09T19:00:00Z"))  // outside the range
    try f.service.logExtra(m.product.id, at: utc("2026-03-11T08:00:00Z"))  // outside the range
    let report = try f.service.exposure(in: day("2026-03-10")...day("2026-03-10"))
    let rows = Dictionary(grouping: report.ingredients, by: \.ingredientKey).mapValues { $0.map(\.amount.description) }
    #expect(rows["vitamin-d"] == ["50 mcg"], "25 mcg + 1000 IU (= 25 mcg) of vitamin D")
    #expect(rows["magnesium"] == ["200 mg"])
    #expect(rows["label:zeolite blend"] == ["5 count"])
    #expect(report.products.count == 3)
    #expect(report.dominantBuckets[m.product.id] == .evening)
}

@Test func theDominantTimeOfDayNeedsAStrictMajority() throws {
    let f = try RegimenFixture(now: "2026-03-10T23:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.service.logExtra(d.product.id, at: utc("2026-03-09T07:00:00Z"))
    try f.service.logExtra(d.product.id, at: utc("2026-03-10T19:00:00Z"))
    #expect(try f.service.exposure(in: day("2026-03-09")...day("2026-03-10")).dominantBuckets[d.product.id] == nil)
    try f.service.logExtra(d.product.id, at: utc("2026-03-10T20:00:00Z"))
    #expect(try f.service.exposure(in: day("2026-03-09")...day("2026-03-10")).dominantBuckets[d.product.id] == .evening)
}

// MARK: supply

@Test func takenDosesCountTheSupplyDownAndCorrectionsGiveItBack() throws {
    let f = try RegimenFixture(now: "2026-03-10T22:00:00Z")
    defer { f.remove() }
    let m = try f.magnesium()  // two capsules per serving
    #expect(try f.service.supply(m.product.id) == nil)
    try f.daily(m, "08:00", "20:00")
    try f.service.setSupply(m.product.id, count: 60)
    let dose = try f.service.todayView().doses[0].doseID
    let taken = try f.service.checkIn(dose, status: .taken).entry
    try f.service.checkIn(dose, status: .taken)
    var supply = try #require(try f.service.supply(m.product.id))
    #expect(supply.onHand == 58 && supply.countsUnits)
    #expect(supply.dailyUse == 4)
    #expect(supply.runsOutAround == day("2026-03-24"), "58 / 4 = 14.5 days")
    try f.service.correct(taken.id, status: .skipped)
    supply = try #require(try f.service.supply(m.product.id))
    #expect(supply.onHand == 60)
    try f.service.checkIn(try f.service.todayView().doses[1].doseID, status: .skipped)
    #expect(try f.service.supply(m.product.id)?.onHand == 60, "a skipped dose takes nothing from the supply")
    #expect(try f.service.supplies().map(\.productID) == [m.product.id])
    #expect(throws: ScheduleError.supplyOutOfRange) { try f.service.setSupply(m.product.id, count: -1) }
    #expect(throws: ScheduleError.productNotFound) { try f.service.setSupply("nope", count: 1) }
}

@Test func aCheckInAndItsSupplyChangeAreOneTransaction() throws {
    let f = try RegimenFixture(now: "2026-03-10T22:00:00Z")
    defer { f.remove() }
    let m = try f.magnesium()
    try f.daily(m, "08:00")
    try f.service.setSupply(m.product.id, count: 60)
    // A trigger that refuses supply rows makes the second half of the check-in fail: the intake row must go too.
    try f.database.write {
        try $0.execute(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON regimen_supply_changes WHEN NEW.kind = 'intake' BEGIN SELECT RAISE(ABORT, 'refused'); END")
    }
    #expect(throws: DatabaseError.self) { try f.service.checkIn(try f.service.todayView().doses[0].doseID, status: .taken) }
    #expect(try f.count("regimen_intake") == 0)
}

@Test func theBatchIsDueNowOnlyOnceItsTimeHasCome() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "21:00")
    let morning = try f.service.todayView()
    #expect(morning.isBatchDue && morning.batchHeading == "Due now (08:00)")
    try f.service.checkIn(morning.currentBatch[0].doseID, status: .taken)
    let afterwards = try f.service.todayView()
    #expect(!afterwards.isBatchDue)
    #expect(afterwards.batchHeading == "Coming up at 21:00", "a 21:00 dose is not 'due now' at 09:00")
}

@Test func aDoseHoursPastItsTimeReadsDueAtItsTimeNotDueNow() throws {
    let f = try RegimenFixture(now: "2026-03-10T14:30:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "21:00")
    let view = try f.service.todayView()
    #expect(view.isBatchDue && view.batchHeading == "Due at 08:00, not logged yet")
}

@Test func everyDoorIntoTheServiceStopsAFlaggedRowUntilItIsAccepted() throws {
    let f = try RegimenFixture()
    defer { f.remove() }
    let typed = try Product(
        name: "D3", form: .softgel, servingSize: amount("1", .count),
        ingredients: [
            ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: amount("1000000", .iu))
        ])
    let refusal = try #require(throws: FlaggedRowsUndecided.self) { try f.service.addProduct(typed) }
    #expect(refusal.rows.first?.flags.contains { $0.kind == .aboveUpperLimit } == true)
    #expect(try f.service.products().isEmpty, "nothing saved")
    let saved = try f.service.addProduct(typed, decisions: RowDecisions(accepted: [1]))

    // An edit: the accepted row kept as it was passes; a new flagged row is stopped, and nothing is written.
    let renamed = try Product(name: "D3 high", form: .softgel, servingSize: amount("1", .count), ingredients: typed.ingredients)
    #expect(try f.service.editProduct(saved.product.id, to: renamed).revisionNumber == 2)
    let junk = try Product(
        name: "D3 high", form: .softgel, servingSize: amount("1", .count),
        ingredients: typed.ingredients + [
            ProductIngredient(catalogueID: nil, nameOnLabel: "KEEP OUT OF REACH OF CHILDREN", amount: nil)
        ])
    #expect(throws: FlaggedRowsUndecided.self) { try f.service.editProduct(saved.product.id, to: junk) }
    #expect(try f.service.productHistory(saved.product.id).count == 2)
}

@Test func aTypedEditMergesWithTheCurrentRowsAndAnEditThatChangesNothingSavesNoRevision() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let added = try f.service.addProduct(ProductInput(name: "Daily D3", form: "softgel", ingredients: ["Vitamin D3 = 25 mcg, 125% DV"]))
    let unchanged = try f.service.editProduct(added.product.id, ProductInput(ingredients: ["Vitamin D3 = 25 mcg"]))
    guard case .unchanged(let kept) = unchanged else {
        Issue.record("an edit to the same rows saved a revision")
        return
    }
    #expect(kept.revisionNumber == 1)
    #expect(try f.service.productHistory(added.product.id).count == 1)
    let saved = try f.service.editProduct(added.product.id, ProductInput(brand: "Acme"))
    #expect(saved.product.revisionNumber == 2 && saved.product.product.ingredients.first?.dailyValuePercent == 125)
    let implausible = try #require(throws: FieldProblems<ProductField>.self) {
        try f.service.editProduct(added.product.id, ProductInput(ingredients: ["Vitamin D3 = 500 mg"]))
    }
    #expect(implausible.messages(for: .ingredients).first?.contains("far beyond any product sold") == true)
    #expect(throws: ScheduleError.productNotFound) { try f.service.editProduct("nope", ProductInput(name: "X")) }
}

// MARK: Today: taken at, undo, as-needed doses, imported doses

@Test func aPastDoseLoggedWithoutATimeIsRecordedAtItsScheduledTimeOnItsOwnDay() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:33:00Z", zone: "Europe/Berlin")
    defer { f.remove() }
    let d = try f.vitaminD()
    let schedule = try f.daily(d, "08:00")
    let yesterday = DoseOccurrence(revisionID: schedule.id, day: day("2026-03-09"), slot: slots("08:00")[0])
    let result = try f.service.checkIn(yesterday.doseID, status: .taken)
    #expect(result.atScheduledTime)
    #expect(result.entry.takenAt == utc("2026-03-09T07:00:00Z"), "08:00 in Berlin, not the moment of logging")
    #expect(result.entry.localDay == day("2026-03-09"))
    let exposure = try f.service.exposure(in: day("2026-03-09")...day("2026-03-10"))
    #expect(exposure.products.map(\.day) == [day("2026-03-09")], "exposure counts the dose on the day it was due")
    let todays = try f.service.checkIn(f.service.todayView().doses[0].doseID, status: .taken)
    #expect(!todays.atScheduledTime && todays.entry.takenAt == utc("2026-03-10T12:33:00Z"), "a dose of today without a time: now")
}

@Test func takenAtIsEarlierTodayOrOnTheDosesDayAndNeverInTheFuture() throws {
    let f = try RegimenFixture(now: "2026-03-10T12:33:20Z", zone: "Europe/Berlin")  // 13:33 in Berlin
    defer { f.remove() }
    let d = try f.vitaminD()
    let schedule = try f.daily(d, "08:00")
    let dose = try f.service.todayView().doses[0]
    let at = try f.service.takenTime("08:05", forDoseOn: dose.occurrence.day)
    #expect(at == utc("2026-03-10T07:05:00Z"))
    #expect(try f.service.takenTime("13:33", forDoseOn: dose.occurrence.day) == utc("2026-03-10T12:33:00Z"), "this minute is now")
    #expect(throws: ScheduleError.takenInFuture) { try f.service.takenTime("13:34", forDoseOn: dose.occurrence.day) }
    #expect(throws: ScheduleError.unreadableTakenTime) { try f.service.takenTime("8 o'clock", forDoseOn: dose.occurrence.day) }
    #expect(throws: ScheduleError.takenOutsideDoseDay) { try f.service.takenTime("2026-03-08 22:00", forDoseOn: dose.occurrence.day) }
    // Yesterday's dose: its own day or today, not before.
    let yesterday = DoseOccurrence(revisionID: schedule.id, day: day("2026-03-09"), slot: slots("08:00")[0])
    #expect(try f.service.takenTime("2026-03-10 00:30", forDoseOn: yesterday.day) == utc("2026-03-09T23:30:00Z"))
    #expect(try f.service.takenTime("2026-03-09T09:00:00Z", forDoseOn: yesterday.day) == utc("2026-03-09T09:00:00Z"))
    // Every door: the service refuses a future instant whatever parsed it, and writes nothing.
    #expect(throws: ScheduleError.takenInFuture) { try f.service.checkIn(dose.doseID, status: .taken, at: utc("2026-03-10T14:00:00Z")) }
    #expect(throws: ScheduleError.takenInFuture) { try f.service.logExtra(d.product.id, at: utc("2026-03-11T08:00:00Z")) }
    #expect(try f.count("regimen_intake") == 0)
    let logged = try f.service.checkIn(dose.doseID, status: .taken, at: at)
    #expect(logged.entry.takenAt == at && !logged.atScheduledTime)
}

@Test func undoAppendsARecordTheDoseIsNotLoggedAndCanBeLoggedAgainOnce() throws {
    let f = try RegimenFixture(now: "2026-03-10T09:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.service.setSupply(d.product.id, count: 30)
    try f.daily(d, "08:00")
    let dose = try f.service.todayView().doses[0].doseID
    let taken = try f.service.checkIn(dose, status: .taken)
    #expect(try f.service.supply(d.product.id)?.onHand == 29)
    let undo = try f.service.undo(taken.entry.id)
    #expect(!undo.alreadyUndone && undo.entry.isUndo && undo.entry.supersedes == taken.entry.id)
    #expect(try f.service.undo(taken.entry.id).alreadyUndone, "undoing twice writes nothing new")
    #expect(try f.service.todayView().doses[0].state == .notLogged)
    #expect(try f.service.supply(d.product.id)?.onHand == 30, "the undone dose gives its units back")
    #expect(try f.service.exposure(in: day("2026-03-10")...day("2026-03-10")).products.isEmpty)
    // Logged again (from any door): one new record that supersedes the undo; a second "taken" keeps it.
    let again = try f.service.checkIn(dose, status: .taken)
    #expect(!again.alreadyLogged && again.entry.supersedes == undo.entry.id)
    #expect(try f.service.checkIn(dose, status: .taken).alreadyLogged)
    #expect(try f.service.todayView().doses[0].state == .taken)
    #expect(try f.service.supply(d.product.id)?.onHand == 29)
    let history = try f.service.ledger().entries
    #expect(history.count == 3, "append-only: taken, undone, taken again")
    #expect(history.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.taken, .taken, .undone])
    #expect(throws: ScheduleError.recordAlreadyCorrected) { try f.service.undo(IntakeRecordID(undo.entry.id.rawValue)) }
}

@Test func asNeededAndExtraDosesLoggedTodayAreOnTodayWithTheirTimes() throws {
    let f = try RegimenFixture(now: "2026-03-10T15:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let plan = try SchedulePlan(productID: d.product.id, times: [], recurrence: .asNeeded, startDay: day("2026-03-01"))
    let schedule = try f.service.addSchedule(plan)
    let first = try f.service.logAsNeeded(schedule.scheduleID, at: utc("2026-03-10T09:30:00Z"))
    try f.service.logExtra(d.product.id, at: utc("2026-03-09T09:30:00Z"))
    let view = try f.service.todayView()
    #expect(view.unscheduledLogged.map(\.id) == [first.id], "yesterday's extra dose is not today's")
    try f.service.undo(first.id)
    #expect(try f.service.todayView().unscheduledLogged.isEmpty)
}

@Test func eachDoseOfTodayIsInOneGroupAndTheNextToLogIsTheFirstOpenDose() throws {
    let f = try RegimenFixture(now: "2026-03-10T13:30:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    try f.daily(d, "08:00", "13:00", "20:00", "22:00")
    let view = try f.service.todayView()
    #expect(view.currentBatch.map(\.occurrence.slot.description) == ["13:00"])
    #expect(view.earlierOpen.map(\.occurrence.slot.description) == ["08:00"])
    #expect(view.laterToday.map(\.occurrence.slot.description) == ["20:00", "22:00"])
    #expect(view.tomorrow.isEmpty, "tomorrow shows only when today has nothing left after the batch")
    #expect(view.nextToLog?.occurrence.slot.description == "13:00")
    for dose in view.doses { try f.service.checkIn(dose.doseID, status: .taken, confirmedEarly: true) }
    let done = try f.service.todayView()
    #expect(done.nextToLog == nil && done.loggedToday.count == 4)
    #expect(done.tomorrow.map(\.occurrence.day) == [day("2026-03-11")])
}

@Test func importedDosesKeepTheNameOfTheirFile() throws {
    let f = try RegimenFixture(now: "2026-03-10T15:00:00Z")
    defer { f.remove() }
    let d = try f.vitaminD()
    let csv = "date,time,time zone,product,amount,status\n2026-03-09,08:00,UTC,\(d.product.name),1,taken\n"
    try f.service.importIntakeHistory(Data(csv.utf8), sourceName: "/home/me/Downloads/history.csv")
    let entry = try #require(try f.service.ledger().entries.first)
    #expect(entry.importedFrom == "history.csv" && entry.status == .taken)
}

@Test func aDoseTakenMoreThanAnHourEarlyIsAskedAboutOnceAndAnHourEarlyIsNot() throws {
    let f = try RegimenFixture(now: "2026-03-10T13:05:00Z")
    defer { f.remove() }
    try f.daily(try f.vitaminD(), "14:00", "21:00")
    let doses = try f.service.todayView().doses
    #expect(throws: Never.self) { try f.service.checkIn(doses[0].doseID, status: .taken) }
    #expect(throws: EarlyDoseQuestion.self) { try f.service.checkIn(doses[1].doseID, status: .taken) }
    #expect(try f.service.ledger().entries.count == 1, "the question wrote nothing")
    #expect(try f.service.checkIn(doses[1].doseID, status: .skipped).entry.status == .skipped, "skipping early is not asked about")
    #expect(try f.service.checkIn(doses[1].doseID, status: .taken).alreadyLogged, "a dose logged already is never asked about")
}
