import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

/// A notifier that keeps what it was asked to show and lets a test press a button.
private final class RecordingNotifier: ReminderPosting {
    var posted: [(notice: ReminderNotice, press: (ReminderAction) -> Void)] = []
    func post(_ notice: ReminderNotice, onAction: @escaping (ReminderAction) -> Void) throws { posted.append((notice, onAction)) }
    func pumpEvents() {}
}

/// A vault with "Vitamin D3 Forte" (25 mcg) due daily at 08:00 and 20:00 (Europe/Berlin) from 2026-06-10.
private final class TimetableVault {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-timetable-\(UUID().uuidString)")
    let clock = TravelClock("2026-06-10T05:00:00Z", zone: "Europe/Berlin")
    let app: CairnApplication
    let notifier = RecordingNotifier()
    var locked = false
    lazy var loop = ReminderLoop(
        reminders: app.reminders, isLocked: { [unowned self] in self.locked }, notifier: notifier,
        afterEachCheck: { [unowned self] in self.app.releaseWriterHold() })

    init() throws {
        app = try CairnApplication.open(dataDirectory: directory.path, environment: [:], clock: clock)
        let typed = try Product(
            name: "Vitamin D3 Forte", form: .capsule, servingSize: try Amount(1, .count),
            ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: "Cholecalciferol", amount: try Amount(25, .mcg))])
        let product = try app.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
        try app.regimen.addSchedule(
            try SchedulePlan(
                productID: product.product.id, times: slots("08:00", "20:00"),
                recurrence: .daily, startDay: day("2026-06-10")))
    }

    /// Writes the timetable at 07:00 (Berlin), locks, and lets the 08:00 dose be reminded from the timetable.
    func lockAndRemindTheEightOClockDose() {
        loop.tick()
        locked = true
        clock.set("2026-06-10T06:00:30Z")
        loop.tick()
    }

    var timetableText: String { (try? String(contentsOf: app.vault.reminderTimetableURL, encoding: .utf8)) ?? "" }
    func records() throws -> [LedgerEntry] { try app.regimen.ledger(LedgerQuery(limit: 100)).entries }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

@Test func theTimetableHoldsDoseTimesAndIdsButNoProductNameOrAmountAndIsPrivate() throws {
    let v = try TimetableVault()
    v.loop.tick()
    let text = v.timetableText
    #expect(text.contains("\"slot\":\"08:00\"") && text.contains("\"day\":\"2026-06-17\""), "today and the next 7 days")
    #expect(!text.contains("2026-06-18"))
    for secret in ["Vitamin", "Forte", "Cholecalciferol", "mcg", "capsule"] { #expect(!text.contains(secret), "\(secret) is not in the timetable") }
    let mode = try FileManager.default.attributesOfItem(atPath: v.app.vault.reminderTimetableURL.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
}

@Test func aDoseLoggedOnThePageLeavesTheTimetableAtTheNextCheck() throws {
    let v = try TimetableVault()
    v.loop.tick()
    let dose = try #require(try v.app.regimen.todayView().doses.first)
    #expect(v.timetableText.contains(dose.doseID))
    try v.app.regimen.checkIn(dose.doseID, status: .taken)
    v.loop.tick()
    #expect(!v.timetableText.contains(dose.doseID))
}

@Test func whileLockedADoseIsRemindedOnceFromTheTimetableAndTakenIsLoggedOnceAtTheUnlock() throws {
    let v = try TimetableVault()
    v.loop.tick()  // 07:00 in Berlin: nothing due; writes the timetable
    #expect(v.notifier.posted.isEmpty)
    v.locked = true
    v.clock.set("2026-06-10T06:00:30Z")  // 08:00:30 in Berlin
    let shown = v.loop.tick()
    #expect(shown.map(\.body) == ["A dose is due at 08:00."], "discreet, from the timetable")
    #expect(v.loop.tick().isEmpty, "once")
    v.notifier.posted[0].press(.taken)
    #expect(try v.records().isEmpty, "nothing is written while locked")
    v.clock.set("2026-06-10T06:20:00Z")
    #expect(v.loop.tick().isEmpty, "a dose taken while locked is not reminded again")
    // Unlocked: the queued Taken is logged at the moment it was pressed, once; nothing is shown again.
    v.locked = false
    v.clock.set("2026-06-10T06:25:00Z")
    #expect(v.loop.tick().isEmpty)
    let records = try v.records()
    #expect(records.count == 1 && records.first?.status == .taken)
    #expect(records.first?.takenAt == utc("2026-06-10T06:00:30Z"))
    #expect(!FileManager.default.fileExists(atPath: v.app.vault.reminderQueueURL.path), "the queue is gone once logged")
}

@Test func aDoseShownWhileLockedIsNotShownAgainAfterTheUnlockAndAPageCheckInKeepsOneRecord() throws {
    let v = try TimetableVault()
    v.loop.tick()
    v.locked = true
    v.clock.set("2026-06-10T06:00:30Z")
    #expect(v.loop.tick().count == 1)
    v.notifier.posted[0].press(.taken)
    // Before the unlock is replayed, the dose was also logged on the page (another door).
    v.locked = false
    let dose = try #require(try v.app.regimen.todayView().doses.first)
    try v.app.regimen.checkIn(dose.doseID, status: .taken)
    v.clock.set("2026-06-10T06:05:00Z")
    #expect(v.loop.tick().isEmpty, "shown while locked: not shown again")
    #expect(try v.records().count == 1, "the queued Taken after the page's keeps one record")
}

@Test func aTornLastQueueLineIsSkippedAndTheRestIsLogged() throws {
    let v = try TimetableVault()
    v.lockAndRemindTheEightOClockDose()
    v.notifier.posted[0].press(.skip)
    let queued = try String(contentsOf: v.app.vault.reminderQueueURL, encoding: .utf8)
    #expect(queued.contains("\"event\":\"skip\"") && queued.contains("\"event\":\"shown\""))
    #expect(!queued.contains("Vitamin"))
    // A torn last line (a crash mid-write) is skipped; the rest is replayed.
    let handle = try FileHandle(forWritingTo: v.app.vault.reminderQueueURL)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("{\"event\":\"tak".utf8))
    try handle.close()
    v.locked = false
    v.clock.set("2026-06-10T06:05:00Z")
    v.loop.tick()
    #expect(try v.records().map(\.status) == [.skipped])
}

@Test func aQueueTheVaultCannotTakeNowIsKeptForTheNextCheck() throws {
    let v = try TimetableVault()
    v.lockAndRemindTheEightOClockDose()
    v.notifier.posted[0].press(.taken)
    // Unlocked, but a server holds the vault (it could start: the loop let go of its hold after its check): the
    // check-in is refused, so the queue stays.
    let server = try CairnApplication.open(dataDirectory: v.directory.path, environment: [:], clock: v.clock)
    try server.claimVaultForServing()
    v.locked = false
    v.loop.tick()
    #expect(FileManager.default.fileExists(atPath: v.app.vault.reminderQueueURL.path), "kept while the vault is held")
    server.releaseVault()
    v.loop.tick()
    #expect(try v.records().map(\.status) == [.taken])
    #expect(!FileManager.default.fileExists(atPath: v.app.vault.reminderQueueURL.path))
}

@Test func deleteAllDataRemovesTheTimetableAndTheQueue() throws {
    let v = try TimetableVault()
    v.lockAndRemindTheEightOClockDose()
    #expect(FileManager.default.fileExists(atPath: v.app.vault.reminderTimetableURL.path))
    #expect(FileManager.default.fileExists(atPath: v.app.vault.reminderQueueURL.path))
    try v.app.settings.deleteAllData()
    #expect(!FileManager.default.fileExists(atPath: v.app.vault.reminderTimetableURL.path))
    #expect(!FileManager.default.fileExists(atPath: v.app.vault.reminderQueueURL.path))
}

@Test func aDoseOnAFixedZoneIsRemindedOnceAtItsInstantOnThePersonsClockAfterATrip() throws {
    let v = try TimetableVault()
    let product = try #require(try v.app.regimen.products().first)
    // 08:00 New York time: 12:00 UTC in June, 14:00 in Berlin, 21:00 in Tokyo.
    try v.app.regimen.addSchedule(
        try SchedulePlan(
            productID: product.product.id, times: slots("08:00"), recurrence: .daily,
            startDay: day("2026-06-10"), zone: try ScheduleZone(parsing: "America/New_York")))
    v.clock.set("2026-06-10T11:59:00Z")
    #expect(!v.loop.tick().map(\.body).contains("A dose is due at 14:00."), "not before its instant")
    v.clock.set("2026-06-10T12:00:30Z")
    #expect(v.loop.tick().map(\.body).contains("A dose is due at 14:00."), "at its instant, on Berlin's clock")
    v.clock.set("2026-06-10T12:05:00Z")
    #expect(!v.loop.tick().map(\.body).contains("A dose is due at 14:00."), "once")

    v.clock.set("2026-06-11T11:59:00Z", zone: "Asia/Tokyo")  // 20:59 in Tokyo
    #expect(!v.loop.tick().map(\.body).contains("A dose is due at 21:00."))
    v.clock.set("2026-06-11T12:00:30Z")
    #expect(v.loop.tick().map(\.body).contains("A dose is due at 21:00."), "the next day's dose at the same instant, on Tokyo's clock")
}

@Test func twoProcessesRemindingFromOneLockedVaultShowEachReminderOnceAndShareWhatWasPressed() throws {
    let v = try TimetableVault()
    v.loop.tick()  // writes the timetable
    // `cairn serve` locked and a `cairn remind` service: two loops on the timetable alone, each with its own state.
    let other = RecordingNotifier()
    let serveLoop = ReminderLoop(current: { nil }, locked: LockedReminders(vault: v.app.vault, clock: v.clock), notifier: v.notifier)
    let remindLoop = ReminderLoop(current: { nil }, locked: LockedReminders(vault: v.app.vault, clock: v.clock), notifier: other)
    v.clock.set("2026-06-10T06:00:30Z")
    #expect(serveLoop.tick().count == 1)
    #expect(remindLoop.tick().isEmpty, "the other process sees it was shown")
    v.notifier.posted[0].press(.snooze)
    v.clock.set("2026-06-10T06:05:00Z")
    #expect(remindLoop.tick().isEmpty && serveLoop.tick().isEmpty, "snoozed for both")
    v.clock.set("2026-06-10T06:11:00Z")
    let again = remindLoop.tick()
    #expect(again.count == 1 && serveLoop.tick().isEmpty, "the snooze ends once, in one process")
    other.posted[0].press(.taken)
    v.clock.set("2026-06-10T06:40:00Z")
    #expect(serveLoop.tick().isEmpty && remindLoop.tick().isEmpty)
    // At the unlock the queue is logged once: one record, taken.
    v.loop.tick()
    #expect(try v.records().map(\.status) == [.taken])
}

@Test func aTestReminderAskedFromAPageIsShownByTheLoopWithNoDoseAndNoButton() throws {
    let v = try TimetableVault()
    let status = ReminderStatus(.on(service: nil))
    let stop = NSLock()
    nonisolated(unsafe) var stopped = false
    nonisolated(unsafe) let loop = v.loop
    let ended = DispatchSemaphore(value: 0)
    let thread = Thread {
        loop.run(interval: 3600, status: status, shouldStop: { stop.withLock { stopped } })
        ended.signal()
    }
    thread.start()
    #expect(status.sendTest(timeout: 5) == true)
    stop.withLock { stopped = true }
    ended.wait()
    let test = v.notifier.posted.map(\.notice).filter { $0 == ReminderLoop.testNotice }
    #expect(test.count == 1 && test[0].actions.isEmpty && test[0].doseIDs.isEmpty)
    #expect(ReminderStatus(.off).sendTest(timeout: 0.1) == nil, "nothing is asked while reminders are off")
}
