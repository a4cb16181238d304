import CairnApp
import CairnCore
import Foundation
import Regimen
import Skin
import Testing

/// A vault on a clock the test moves, with one skin area photographed on 2026-03-02 (Europe/Berlin).
private final class PhotoReminderVault {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-reminders-\(UUID().uuidString)")
    let clock = TravelClock("2026-03-02T09:00:00Z", zone: "Europe/Berlin")
    let app: CairnApplication
    let area: TrackingArea

    init() throws {
        app = try CairnApplication.open(dataDirectory: directory.path, environment: [:], clock: clock)
        area = try app.skin.addArea(name: "Left forearm")
        try app.skin.log(photo: try SkinDemo.jpeg(index: 0, count: 2, seed: 3), in: area.id, capturedAt: utc("2026-03-02T09:00:00Z"))
    }

    func photoNotices(at instant: String) throws -> [ReminderNotice] {
        clock.set(instant)
        return try app.reminders.dueNotices().filter { $0.kind == .photo }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

@Test func photoRemindersAreOffUntilSetThenComeOnceWhenTheAreaIsDue() throws {
    let v = try PhotoReminderVault()
    #expect(try v.photoNotices(at: "2026-06-01T08:00:00Z").isEmpty, "off by default, however long ago the last photo")
    try v.app.reminders.setPhotoReminder(every: 4, for: v.area.id, from: day("2026-03-02"))
    #expect(try v.app.reminders.photoReminders(on: day("2026-03-02")) == [v.area.id: 4])
    #expect(try v.photoNotices(at: "2026-03-29T08:00:00Z").isEmpty, "day 27 of 28: not yet")
    let due = try v.photoNotices(at: "2026-03-30T08:00:00Z")
    #expect(due.map(\.body) == ["A skin area is due for a new photo."], "discreet: no area name")
    #expect(due.first?.actions.isEmpty == true)
    #expect(try v.photoNotices(at: "2026-03-30T15:00:00Z").isEmpty, "once per due day")
    #expect(try v.photoNotices(at: "2026-03-31T08:00:00Z").isEmpty, "and not again the next morning")
}

@Test func aNewPhotoMovesThePhotoReminderAndNamesShowOnlyWhenTurnedOn() throws {
    let v = try PhotoReminderVault()
    try v.app.reminders.setPhotoReminder(every: 2, for: v.area.id, from: day("2026-03-02"))
    try v.app.skin.log(photo: try SkinDemo.jpeg(index: 1, count: 2, seed: 3), in: v.area.id, capturedAt: utc("2026-03-10T09:00:00Z"))
    try v.app.reminders.setPreferences(try ReminderPreferences(showProductNames: true), from: day("2026-03-02"))
    #expect(try v.photoNotices(at: "2026-03-16T08:00:00Z").isEmpty, "two weeks after the first photo, but one after the newest")
    #expect(try v.photoNotices(at: "2026-03-24T08:00:00Z").map(\.body) == ["Time for a new photo of Left forearm."])
}

@Test func photoRemindersWaitForTheMorningAndQuietHoursAndCanBeTurnedOff() throws {
    let v = try PhotoReminderVault()
    try v.app.reminders.setPhotoReminder(every: 1, for: v.area.id, from: day("2026-03-02"))
    try v.app.reminders.setPreferences(
        try ReminderPreferences(quietStart: TimeSlot(parsing: "07:00"), quietEnd: TimeSlot(parsing: "10:00")),
        from: day("2026-03-02"))
    #expect(try v.photoNotices(at: "2026-03-09T05:30:00Z").isEmpty, "06:30 in Berlin: before the morning check")
    #expect(try v.photoNotices(at: "2026-03-09T07:30:00Z").isEmpty, "08:30 in Berlin: quiet hours")
    #expect(try v.photoNotices(at: "2026-03-09T09:30:00Z").count == 1, "10:30 in Berlin")
    try v.app.reminders.setPhotoReminder(every: 0, for: v.area.id, from: day("2026-03-10"))
    #expect(try v.app.reminders.photoReminders(on: day("2026-03-10")).isEmpty)
    #expect(try v.app.reminders.photoReminders(on: day("2026-03-09")) == [v.area.id: 1], "earlier days keep what was set then")
    #expect(throws: ReminderError.photoWeeksOutOfRange) { try v.app.reminders.setPhotoReminder(every: 53, for: v.area.id) }
    #expect(throws: SkinJournalError.areaNotFound) { try v.app.reminders.setPhotoReminder(every: 2, for: AreaID("nope")) }
}
