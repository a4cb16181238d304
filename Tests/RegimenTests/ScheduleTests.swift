import CairnCore
import Foundation
import Testing

@testable import Regimen

private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }
private func slots(_ texts: String...) -> [TimeSlot] { texts.map { TimeSlot(parsing: $0)! } }
private let product = ProductID("p")

@Test func aPlanSortsItsTimes() throws {
    let plan = try SchedulePlan(productID: product, times: slots("21:00", "08:00"), recurrence: .daily, startDay: day("2026-01-01"))
    #expect(plan.times.map(\.description) == ["08:00", "21:00"])
}

@Test func aPlanRefusesBadInput() {
    let start = day("2026-01-10")
    let cases: [(ScheduleError, () throws -> SchedulePlan)] = [
        (
            .endsBeforeStart,
            { try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .daily, startDay: start, endDay: day("2026-01-09")) }
        ),
        (.servingsNotPositive, { try SchedulePlan(productID: product, servings: 0, times: slots("08:00"), recurrence: .daily, startDay: start) }),
        (.servingsNotPositive, { try SchedulePlan(productID: product, servings: -1, times: slots("08:00"), recurrence: .daily, startDay: start) }),
        (.tooManyServings, { try SchedulePlan(productID: product, servings: 101, times: slots("08:00"), recurrence: .daily, startDay: start) }),
        (.noTimes, { try SchedulePlan(productID: product, times: [], recurrence: .daily, startDay: start) }),
        (.asNeededHasNoTimes, { try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .asNeeded, startDay: start) }),
        (.repeatedTime, { try SchedulePlan(productID: product, times: slots("08:00", "8:00"), recurrence: .daily, startDay: start) }),
        (.noWeekdays, { try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .weekdays([]), startDay: start) }),
        (.intervalOutOfRange, { try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .everyNDays(0), startDay: start) }),
        (.intervalOutOfRange, { try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .everyNDays(367), startDay: start) }),
    ]
    for (expected, make) in cases {
        #expect(throws: expected) { try make() }
    }
    #expect(
        (try? SchedulePlan(productID: product, times: slots("08:00"), recurrence: .daily, startDay: start, endDay: start)) != nil,
        "a one-day schedule is fine")
}

@Test func recurrencesPickTheirDays() {
    let start = day("2026-11-30")  // a Monday
    #expect(Recurrence.daily.includes(day("2027-05-05"), start: start))
    let weekdays = Recurrence.weekdays([.monday, .friday])
    #expect(weekdays.includes(day("2026-12-04"), start: start))
    #expect(!weekdays.includes(day("2026-12-03"), start: start))
    let everyThird = Recurrence.everyNDays(3)
    #expect(everyThird.includes(start, start: start))
    #expect(!everyThird.includes(start.adding(days: 1), start: start))
    #expect(everyThird.includes(start.adding(days: 300), start: start))
    #expect(!Recurrence.asNeeded.includes(start, start: start))
    #expect(weekdays.shareOfDays == Decimal(2) / 7)
    #expect(weekdays.summary == "mon,fri")
}

@Test func aRevisionHasDosesOnlyWhileActiveAndWithinItsDates() throws {
    let plan = try SchedulePlan(
        productID: product, times: slots("08:00", "21:00"), recurrence: .daily,
        startDay: day("2026-01-10"), endDay: day("2026-01-20"))
    let active = ScheduleRevision(
        id: "r1", scheduleID: "s", number: 1, effectiveFrom: day("2026-01-10"), state: .active, plan: plan, recordedAt: Date())
    #expect(active.occurrences(on: day("2026-01-10")).count == 2)
    #expect(active.occurrences(on: day("2026-01-09")).isEmpty)
    #expect(active.occurrences(on: day("2026-01-20")).count == 2)
    #expect(active.occurrences(on: day("2026-01-21")).isEmpty)
    let paused = ScheduleRevision(
        id: "r2", scheduleID: "s", number: 2, effectiveFrom: day("2026-01-12"), state: .paused, plan: plan, recordedAt: Date())
    #expect(paused.occurrences(on: day("2026-01-12")).isEmpty)
}

@Test func theRevisionInForceIsTheLatestStartedOnOrBeforeTheDay() throws {
    let plan = try SchedulePlan(productID: product, times: slots("08:00"), recurrence: .daily, startDay: day("2026-01-01"))
    let later = try SchedulePlan(productID: product, times: slots("09:00"), recurrence: .daily, startDay: day("2026-01-01"))
    let history = ScheduleHistory(revisions: [
        ScheduleRevision(id: "b", scheduleID: "s", number: 2, effectiveFrom: day("2026-02-01"), state: .active, plan: later, recordedAt: Date()),
        ScheduleRevision(id: "a", scheduleID: "s", number: 1, effectiveFrom: day("2026-01-01"), state: .active, plan: plan, recordedAt: Date()),
    ])
    #expect(history.revision(on: day("2025-12-31")) == nil)
    #expect(history.revision(on: day("2026-01-31"))?.id == "a")
    #expect(history.revision(on: day("2026-02-01"))?.id == "b")
    #expect(history.occurrences(on: day("2026-01-31")).map(\.slot.description) == ["08:00"])
    #expect(history.occurrences(on: day("2026-02-01")).map(\.slot.description) == ["09:00"])
    #expect(history.latest?.id == "b")
}

@Test func doseIdsRoundTripAndRejectOtherText() throws {
    let occurrence = DoseOccurrence(revisionID: "0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87", day: day("2026-03-29"), slot: TimeSlot(parsing: "02:30")!)
    #expect(occurrence.doseID == "0b5d2c64-9f0e-4d7b-8a51-3c2e1f0a9b87_2026-03-29_0230")
    #expect(DoseOccurrence(doseID: occurrence.doseID) == occurrence)
    for bad in ["", "abc", "_2026-03-29_0230", "r_2026-02-30_0800", "r_2026-03-29_2400", "r_2026-03-29_08:00", "r_2026-03-29_0800_x"] {
        #expect(DoseOccurrence(doseID: bad) == nil, "\(bad)")
    }
}

@Test func scheduleErrorsArePlainAndFreeOfBannedWords() {
    let all: [ScheduleError] = [
        .servingsNotPositive, .tooManyServings, .noTimes, .asNeededHasNoTimes, .repeatedTime, .noWeekdays,
        .intervalOutOfRange, .endsBeforeStart, .overlappingRevision, .revisionBeforeLoggedDoses,
        .scheduleStopped, .alreadyInThatState, .unreadableTime, .unreadableWeekday,
        .doseNotFound, .doseNotDueYet, .scheduleNotFound, .productNotFound, .productNameAmbiguous,
        .recordNotFound, .recordAlreadyCorrected, .notAnAsNeededSchedule, .statusNotLoggable,
        .supplyOutOfRange, .pageOutOfRange, .rangeEndsBeforeStart, .productCannotChange,
        .unknownRecurrence, .unreadableServings, .noProductChosen, .unknownTimeZone,
    ]
    for error in all {
        #expect(!error.userMessage.isEmpty)
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty, "\(error)")
    }
}

@Test func aRecurrenceIsReadFromOneWordOrFromTheFormsChoiceAndFields() throws {
    #expect(try Recurrence(parsing: "daily") == .daily)
    #expect(try Recurrence(parsing: " As-Needed ") == .asNeeded)
    #expect(try Recurrence(parsing: "every:3") == .everyNDays(3))
    #expect(try Recurrence(parsing: "mon,wed, fri") == .weekdays([.monday, .wednesday, .friday]))
    #expect(try Recurrence(parsing: "Tue Thu") == .weekdays([.tuesday, .thursday]))
    #expect(try Recurrence(kind: "every", interval: " 2 ", weekdays: "ignored") == .everyNDays(2))
    #expect(try Recurrence(kind: "weekdays", interval: "x", weekdays: "sat, sun") == .weekdays([.saturday, .sunday]))
    #expect(try Recurrence(kind: "as-needed", interval: "", weekdays: "") == .asNeeded)
    for kind in Recurrence.Kind.allCases where kind != .every && kind != .weekdays {
        #expect(try Recurrence(kind: kind.rawValue, interval: "", weekdays: "").kind == kind)
    }
    let refusals: [(ScheduleError, () throws -> Recurrence)] = [
        (.unknownRecurrence, { try Recurrence(parsing: "someday") }),
        (.unknownRecurrence, { try Recurrence(parsing: "") }),
        (.unknownRecurrence, { try Recurrence(kind: "weekly", interval: "", weekdays: "") }),
        (.intervalOutOfRange, { try Recurrence(parsing: "every:0") }),
        (.intervalOutOfRange, { try Recurrence(parsing: "every:367") }),
        (.intervalOutOfRange, { try Recurrence(parsing: "every:two") }),
        (.intervalOutOfRange, { try Recurrence(kind: "every", interval: "1.5", weekdays: "") }),
        (.noWeekdays, { try Recurrence(kind: "weekdays", interval: "", weekdays: " , ") }),
        (.unreadableWeekday, { try Recurrence(kind: "weekdays", interval: "", weekdays: "mon, someday") }),
    ]
    for (expected, parse) in refusals { #expect(throws: expected) { try parse() } }
}

@Test func servingsPerDoseArePlainDecimalNumbers() throws {
    #expect(try DoseServings.parse(" 0.5 ").value == Decimal(string: "0.5"))
    #expect(try DoseServings.parse("2").value == 2)
    for bad in ["", "two", "1,5", "-1", "1e3", "1.2.3", "."] {
        #expect(throws: ScheduleError.unreadableServings) { try DoseServings.parse(bad) }
    }
}

@Test func everyRefusalOfAPlanNamesTheFieldItIsAbout() {
    #expect(ScheduleError.tooManyServings.field == .servings)
    #expect(ScheduleError.repeatedTime.field == .times)
    #expect(ScheduleError.intervalOutOfRange.field == .interval)
    #expect(ScheduleError.noWeekdays.field == .weekdays)
    #expect(ScheduleError.unknownRecurrence.field == .recurrence)
    #expect(ScheduleError.endsBeforeStart.field == .end)
    #expect(ScheduleError.scheduleStopped.field == nil)
}
