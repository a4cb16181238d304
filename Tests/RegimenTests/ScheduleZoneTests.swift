import CairnCore
import Foundation
import Testing

@testable import Regimen

private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }
private func slot(_ text: String) -> TimeSlot { TimeSlot(parsing: text)! }
private func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
private func zone(_ name: String) -> TimeZone { TimeZone(identifier: name)! }

private func revision(zone: ScheduleZone, times: String...) throws -> ScheduleRevision {
    let plan = try SchedulePlan(productID: ProductID("p"), times: times.map(slot), recurrence: .daily, startDay: day("2026-03-01"), zone: zone)
    return ScheduleRevision(
        id: ScheduleRevisionID("r"), scheduleID: ScheduleID("s"), number: 1, effectiveFrom: day("2026-03-01"),
        state: .active, plan: plan, recordedAt: utc("2026-03-01T00:00:00Z"))
}

@Test func aZoneIsReadFromItsNameInAnyCaseAndNothingOrLocalFollowsThePerson() throws {
    #expect(try ScheduleZone(parsing: "") == .followsYou)
    #expect(try ScheduleZone(parsing: " Local ") == .followsYou)
    #expect(try ScheduleZone(parsing: "america/new_york") == .fixed(zone("America/New_York")))
    #expect(try ScheduleZone(parsing: "America/New_York").identifier == "America/New_York")
    #expect(try ScheduleZone(parsing: "UTC").identifier != nil)
    #expect(ScheduleZone.followsYou.identifier == nil)
    for bad in ["Mars/Olympus_Mons", "+05:00", "New York", "EST5EDT;rm"] {
        #expect(throws: ScheduleError.unknownTimeZone, "\(bad)") { try ScheduleZone(parsing: bad) }
    }
    #expect(ScheduleError.unknownTimeZone.field == .zone)
}

@Test func aDoseThatFollowsThePersonIsListedOnItsOwnDayAndSlotInTheirZone() throws {
    let r = try revision(zone: .followsYou, times: "08:00")
    let occurrence = r.occurrences(on: day("2026-03-10"))[0]
    let paris = r.timing(of: occurrence, personZone: zone("Europe/Paris"))
    #expect(paris == DoseTiming(dueAt: utc("2026-03-10T07:00:00Z"), day: day("2026-03-10"), time: slot("08:00")))
    let tokyo = r.timing(of: occurrence, personZone: zone("Asia/Tokyo"))
    #expect(tokyo.dueAt == utc("2026-03-09T23:00:00Z"))
    #expect(tokyo.day == day("2026-03-10") && tokyo.time == slot("08:00"), "08:00 wherever the person is")
    #expect(DoseTiming.scheduleDays(listedOn: day("2026-03-10"), zone: .followsYou) == [day("2026-03-10")])
}

@Test func aDoseOnAFixedZoneKeepsItsInstantAndMovesOnThePersonsClock() throws {
    let r = try revision(zone: .fixed(zone("America/New_York")), times: "08:00", "20:00")
    let morning = r.occurrences(on: day("2026-03-10"))[0]
    let evening = r.occurrences(on: day("2026-03-10"))[1]
    // 08:00 EDT on 2026-03-10 (New York changed to summer time on 2026-03-08) is 12:00 UTC.
    for person in ["Europe/Paris", "Asia/Tokyo", "America/Los_Angeles", "America/New_York"] {
        #expect(r.timing(of: morning, personZone: zone(person)).dueAt == utc("2026-03-10T12:00:00Z"), "\(person)")
    }
    #expect(r.timing(of: morning, personZone: zone("Europe/Paris")).time == slot("13:00"))
    #expect(r.timing(of: morning, personZone: zone("America/Los_Angeles")).time == slot("05:00"))
    let tokyoEvening = r.timing(of: evening, personZone: zone("Asia/Tokyo"))
    #expect(tokyoEvening.day == day("2026-03-11") && tokyoEvening.time == slot("09:00"), "20:00 in New York is the next morning in Tokyo")
    let home = r.timing(of: evening, personZone: zone("America/New_York"))
    #expect(home.day == day("2026-03-10") && home.time == slot("20:00"))
    #expect(DoseTiming.scheduleDays(listedOn: day("2026-03-11"), zone: r.plan.zone).contains(day("2026-03-10")))
}

@Test func aFixedZonesDaylightSavingGapAppliesInThatZoneNotThePersons() throws {
    // 02:30 does not exist in New York on 2026-03-08; the dose is due at 03:00 EDT (07:00 UTC), whatever the person's zone.
    let r = try revision(zone: .fixed(zone("America/New_York")), times: "02:30")
    let gap = r.occurrences(on: day("2026-03-08"))[0]
    let paris = r.timing(of: gap, personZone: zone("Europe/Paris"))
    #expect(paris.dueAt == utc("2026-03-08T07:00:00Z"))
    #expect(paris.day == day("2026-03-08") && paris.time == slot("08:00"))
}
