import CairnCore
import Foundation
import Regimen
import Testing

private func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

/// Runs the planner once a minute from `from` to `to` like the loop does, recording what it sends, and
/// returns every notice.
private func simulate(
    _ doses: [OpenDose], from: String, to: String, zone: TimeZone, preferences: ReminderPreferences = .standard,
    off: Set<ScheduleID> = [], step: TimeInterval = 60
) -> [(Date, ReminderNotice)] {
    var history: [String: ReminderHistory] = [:]
    var sent: [(Date, ReminderNotice)] = []
    var now = instant(from)
    while now <= instant(to) {
        for notice in ReminderPlanner().plan(open: doses, history: history, preferences: preferences, remindersOff: off, now: now, zone: zone) {
            sent.append((now, notice))
            for id in notice.doseIDs { history[id] = ReminderHistory(sent: (history[id]?.sent ?? 0) + 1, lastSentAt: now, snoozedUntil: nil) }
        }
        now += step
    }
    return sent
}

private func dose(_ day: String, _ slot: String, zone: TimeZone, schedule: String = "s-1", name: String = "Vitamin D3") -> OpenDose {
    let d = LocalDay(parsing: day)!
    let s = TimeSlot(parsing: slot)!
    return OpenDose(
        doseID: "r-\(schedule)_\(day)_\(slot)", scheduleID: ScheduleID(schedule), productName: name, day: d, slot: s,
        dueAt: WallClock.instant(of: d, at: s, in: zone))
}

private let berlin = TimeZone(identifier: "Europe/Berlin")!

@Test func aDoseAt0230OnASpringForwardDayFiresOnceAfterTheGap() {
    // 2026-03-29: 02:00 jumps to 03:00 in Berlin.
    let sent = simulate([dose("2026-03-29", "02:30", zone: berlin)], from: "2026-03-29T00:00:00Z", to: "2026-03-29T03:00:00Z", zone: berlin)
    #expect(sent.count == 1)
    #expect(sent.first?.0 == instant("2026-03-29T01:00:00Z"), "03:00 CEST, the first minute after the gap")
    #expect(sent.first?.1.body == "A dose is due at 02:30.")
}

@Test func aDoseAt0130OnAFallBackDayFiresOnceAtTheFirst0130() {
    // 2026-10-25: 03:00 falls back to 02:00 in Berlin; in New York 2026-11-01 01:30 happens twice.
    let newYork = TimeZone(identifier: "America/New_York")!
    let sent = simulate([dose("2026-11-01", "01:30", zone: newYork)], from: "2026-11-01T04:00:00Z", to: "2026-11-01T08:00:00Z", zone: newYork)
    #expect(sent.count == 1, "the second 01:30 does not fire again")
    #expect(sent.first?.0 == instant("2026-11-01T05:30:00Z"), "01:30 EDT, the first one")
}

@Test func afterAZoneChangeADoseFollowsTheWallClockOfTheNewZoneAndFiresOnce() {
    // The schedule's rule: times follow the person (the machine's zone). A dose due at 08:00 Berlin time was
    // already reminded; after flying to New York the same day's 08:00 is not reminded again, the next day's is
    // at 08:00 New York time.
    let newYork = TimeZone(identifier: "America/New_York")!
    let first = dose("2026-06-10", "08:00", zone: berlin)
    var history = [first.doseID: ReminderHistory(sent: 1, lastSentAt: first.dueAt, snoozedUntil: nil)]
    let sameDoseInNewYork = dose("2026-06-10", "08:00", zone: newYork)
    #expect(sameDoseInNewYork.doseID == first.doseID)
    #expect(
        ReminderPlanner().plan(
            open: [sameDoseInNewYork], history: history, preferences: .standard, remindersOff: [],
            now: sameDoseInNewYork.dueAt, zone: newYork
        ).isEmpty)
    history = [:]
    let sent = simulate([dose("2026-06-11", "08:00", zone: newYork)], from: "2026-06-11T10:00:00Z", to: "2026-06-11T13:00:00Z", zone: newYork)
    #expect(sent.map(\.0) == [instant("2026-06-11T12:00:00Z")], "08:00 EDT")
}

@Test func aMachineAsleepPastSeveralRemindersShowsOneCatchUp() {
    let doses = [
        dose("2026-06-10", "08:00", zone: berlin), dose("2026-06-10", "09:00", zone: berlin, schedule: "s-2"),
        dose("2026-06-10", "12:00", zone: berlin, schedule: "s-3"),
    ]
    // Asleep from 07:00 to 12:30 Berlin time: the first check after waking.
    let notices = ReminderPlanner().plan(
        open: doses, history: [:], preferences: .standard, remindersOff: [],
        now: instant("2026-06-10T10:30:00Z"), zone: berlin)
    #expect(notices.count == 1)
    #expect(notices[0].kind == .catchUp && notices[0].doseIDs.count == 3, "12:00 is 30 minutes late too: one notice, not a burst")
    #expect(notices[0].body.hasPrefix("3 doses were due earlier (08:00, 09:00, 12:00)"))
    #expect(notices[0].actions == [.taken, .skip, .snooze])
}

@Test func quietHoursHoldRemindersBackAndTheyComeAsOneCatchUpAfterwards() throws {
    let quiet = try ReminderPreferences(quietStart: TimeSlot(parsing: "22:00"), quietEnd: TimeSlot(parsing: "07:00"))
    let doses = [dose("2026-06-10", "06:00", zone: berlin), dose("2026-06-10", "06:30", zone: berlin, schedule: "s-2")]
    let sent = simulate(doses, from: "2026-06-10T03:00:00Z", to: "2026-06-10T06:00:00Z", zone: berlin, preferences: quiet)
    #expect(sent.count == 1)
    #expect(sent.first?.0 == instant("2026-06-10T05:00:00Z"), "07:00, when the quiet hours end")
    #expect(sent.first?.1.kind == .catchUp)
}

@Test func repeatsComeEveryNMinutesUpToTheLimitAndASwitchedOffScheduleIsQuiet() throws {
    let repeating = try ReminderPreferences(repeatMinutes: 15, repeatLimit: 2)
    let sent = simulate(
        [dose("2026-06-10", "08:00", zone: berlin)], from: "2026-06-10T06:00:00Z", to: "2026-06-10T09:00:00Z",
        zone: berlin, preferences: repeating)
    #expect(sent.map(\.1.kind) == [.due, .repeated, .repeated])
    #expect(sent.map(\.0) == [instant("2026-06-10T06:00:00Z"), instant("2026-06-10T06:15:00Z"), instant("2026-06-10T06:30:00Z")])
    #expect(
        simulate(
            [dose("2026-06-10", "08:00", zone: berlin)], from: "2026-06-10T06:00:00Z", to: "2026-06-10T07:00:00Z",
            zone: berlin, off: [ScheduleID("s-1")]
        ).isEmpty)
}

@Test func theTextIsDiscreetUnlessProductNamesAreOn() throws {
    let doses = [dose("2026-06-10", "08:00", zone: berlin), dose("2026-06-10", "08:00", zone: berlin, schedule: "s-2", name: "Magnesium")]
    let now = instant("2026-06-10T06:00:00Z")
    let discreet = ReminderPlanner().plan(open: doses, history: [:], preferences: .standard, remindersOff: [], now: now, zone: berlin)
    #expect(discreet.map(\.body) == ["2 doses are due at 08:00."])
    #expect(!discreet[0].body.contains("Vitamin") && discreet[0].title == "Cairn")
    let named = ReminderPlanner().plan(
        open: doses, history: [:], preferences: try ReminderPreferences(showProductNames: true),
        remindersOff: [], now: now, zone: berlin)
    #expect(named.map(\.body) == ["Vitamin D3 and Magnesium are due at 08:00."])
}

@Test func theMorningSummaryCountsYesterdaysUnloggedDoses() throws {
    let planner = ReminderPlanner()
    let doses = [dose("2026-06-09", "08:00", zone: berlin), dose("2026-06-09", "21:00", zone: berlin)]
    #expect(
        planner.morningSummary(unloggedYesterday: doses, preferences: .standard)?.body
            == "2 doses of yesterday were not logged. Open Cairn to log them.")
    #expect(planner.morningSummary(unloggedYesterday: [], preferences: .standard) == nil)
    #expect(planner.morningSummary(unloggedYesterday: doses, preferences: try ReminderPreferences(morningSummary: false)) == nil)
}

@Test func aPhotoReminderNamesItsAreasOnlyWhenNamesAreOn() throws {
    let planner = ReminderPlanner()
    #expect(planner.photoReminder(areas: [], preferences: .standard) == nil)
    #expect(planner.photoReminder(areas: ["Left forearm"], preferences: .standard)?.body == "A skin area is due for a new photo.")
    #expect(planner.photoReminder(areas: ["Left forearm", "Knee"], preferences: .standard)?.body == "2 skin areas are due for a new photo.")
    let named = try ReminderPreferences(showProductNames: true)
    #expect(planner.photoReminder(areas: ["Left forearm", "Knee"], preferences: named)?.body == "Time for a new photo of Left forearm and Knee.")
    #expect(planner.photoReminder(areas: ["Knee"], preferences: named)?.kind == .photo)
}

@Test func preferencesRefuseHalfQuietHoursAndNumbersOutOfRange() {
    #expect(throws: ReminderError.quietHoursIncomplete) { try ReminderPreferences(quietStart: TimeSlot(parsing: "22:00")) }
    #expect(throws: ReminderError.repeatOutOfRange) { try ReminderPreferences(repeatMinutes: 721) }
    #expect(throws: ReminderError.refillDaysOutOfRange) { try ReminderPreferences(refillDays: 91) }
}
