import CairnCore
import Foundation
import Testing

private func utc(_ text: String) -> Date {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: text)!
}

private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }
private func slot(_ text: String) -> TimeSlot { TimeSlot(parsing: text)! }
private let berlin = TimeZone(identifier: "Europe/Berlin")!
private let newYork = TimeZone(identifier: "America/New_York")!

@Test func aTimeOfDayDecodedFromJSONThatIsNoTimeIsADecodingError() throws {
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(TimeSlot.self, from: Data("\"25:00\"".utf8)) }
    #expect(try JSONDecoder().decode(TimeSlot.self, from: Data("\"08:05\"".utf8)) == slot("08:05"))
}

@Test func dayNumbersRoundTripAcrossCenturiesAndLeapDays() {
    #expect(day("1970-01-01").dayNumber == 0)
    #expect(day("1969-12-31").dayNumber == -1)
    #expect(day("2000-03-01").dayNumber - day("2000-02-28").dayNumber == 2, "2000 is a leap year")
    #expect(day("1900-03-01").dayNumber - day("1900-02-28").dayNumber == 1, "1900 is not")
    for n in stride(from: -300_000, through: 300_000, by: 997) {
        #expect(LocalDay(dayNumber: n).dayNumber == n)
    }
    #expect(day("2026-12-31").adding(days: 1) == day("2027-01-01"))
    #expect(day("2026-03-01").adding(days: -1) == day("2026-02-28"))
    #expect(day("2026-01-01").days(to: day("2027-01-01")) == 365)
}

@Test func weekdaysFollowTheCalendar() {
    #expect(day("2026-11-30").weekday == .monday)
    #expect(day("1970-01-01").weekday == .thursday)
    #expect(day("2026-12-06").weekday == .sunday)
    #expect(day("1969-12-28").weekday == .sunday)
}

@Test func localDayParsingAcceptsOnlyRealIsoDates() {
    #expect(LocalDay(parsing: "2026-02-29") == nil)
    #expect(LocalDay(parsing: "2028-02-29") != nil)
    for bad in ["", "2026-1-01", "26-01-01", "2026/01/01", "2026-01-01T00:00", "２０２６-01-01", "2026-13-01"] {
        #expect(LocalDay(parsing: bad) == nil, "\(bad)")
    }
}

@Test func weekdayNamesParseByPrefixOfTheEnglishName() {
    #expect(Weekday(parsing: "mon") == .monday)
    #expect(Weekday(parsing: "Wednesday") == .wednesday)
    #expect(Weekday(parsing: "SUN") == .sunday)
    #expect(Weekday(parsing: "mo") == nil)
    #expect(Weekday(parsing: "monk") == nil)
    #expect(Weekday(parsing: "") == nil)
}

@Test func timeSlotsParseAndPrintAsHoursAndMinutes() {
    #expect(slot("8:05").description == "08:05")
    #expect(slot("2359").description == "23:59")
    #expect(slot("00:00").minuteOfDay == 0)
    for bad in ["24:00", "12:60", "8", "8:5", "", "ab:cd", "-1:00", "12:00:00"] {
        #expect(TimeSlot(parsing: bad) == nil, "\(bad)")
    }
    #expect(slot("07:30") < slot("21:00"))
}

@Test func anOrdinaryWallClockTimeIsThatTimeInTheZone() {
    #expect(WallClock.instant(of: day("2026-01-10"), at: slot("08:00"), in: berlin) == utc("2026-01-10T07:00:00Z"))
    #expect(WallClock.instant(of: day("2026-07-10"), at: slot("08:00"), in: berlin) == utc("2026-07-10T06:00:00Z"))
    #expect(WallClock.instant(of: day("2026-07-10"), at: slot("23:30"), in: TimeZone(identifier: "UTC")!) == utc("2026-07-10T23:30:00Z"))
}

@Test func aTimeInTheSpringForwardGapMapsToTheFirstInstantAfterIt() {
    // Berlin, 2026-03-29: 02:00 jumps to 03:00. 02:30 does not exist; it is due at 03:00 CEST (01:00 UTC).
    #expect(WallClock.instant(of: day("2026-03-29"), at: slot("02:30"), in: berlin) == utc("2026-03-29T01:00:00Z"))
    #expect(WallClock.instant(of: day("2026-03-29"), at: slot("02:00"), in: berlin) == utc("2026-03-29T01:00:00Z"))
    #expect(WallClock.instant(of: day("2026-03-29"), at: slot("03:00"), in: berlin) == utc("2026-03-29T01:00:00Z"))
    #expect(WallClock.instant(of: day("2026-03-08"), at: slot("02:15"), in: newYork) == utc("2026-03-08T07:00:00Z"))
}

@Test func aTimeInTheSpringForwardGapDoesNotExistForAnImportAndOthersDo() {
    let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!
    #expect(WallClock.existingInstant(of: day("2026-03-29"), at: slot("02:30"), in: amsterdam) == nil)
    #expect(WallClock.existingInstant(of: day("2026-03-29"), at: slot("02:00"), in: amsterdam) == nil)
    #expect(WallClock.existingInstant(of: day("2026-03-29"), at: slot("03:00"), in: amsterdam) == utc("2026-03-29T01:00:00Z"))
    #expect(WallClock.existingInstant(of: day("2026-03-29"), at: slot("01:59"), in: amsterdam) == utc("2026-03-29T00:59:00Z"))
    // A repeated time exists (its first instant); so does the same clock time on any other day.
    #expect(WallClock.existingInstant(of: day("2026-10-25"), at: slot("02:30"), in: amsterdam) == utc("2026-10-25T00:30:00Z"))
    #expect(WallClock.existingInstant(of: day("2026-03-28"), at: slot("02:30"), in: amsterdam) == utc("2026-03-28T01:30:00Z"))
}

@Test func aRepeatedFallBackTimeIsItsFirstInstant() {
    // Berlin, 2026-10-25: 03:00 CEST goes back to 02:00 CET; 02:30 happens twice. The first is 00:30 UTC.
    #expect(WallClock.instant(of: day("2026-10-25"), at: slot("02:30"), in: berlin) == utc("2026-10-25T00:30:00Z"))
    #expect(WallClock.instant(of: day("2026-11-01"), at: slot("01:30"), in: newYork) == utc("2026-11-01T05:30:00Z"))
}

@Test func aWholeSkippedDayMapsToTheStartOfTheNextDay() {
    // Samoa skipped 2011-12-30 entirely; the first valid instant after 08:00 that day is 2011-12-31 00:00 local.
    let apia = TimeZone(identifier: "Pacific/Apia")!
    #expect(WallClock.instant(of: day("2011-12-30"), at: slot("08:00"), in: apia) == utc("2011-12-30T10:00:00Z"))
}

@Test func everyDayOfAYearHasEachSlotExactlyOnceAcrossBothDstChanges() {
    let slots = ["00:30", "01:30", "02:00", "02:30", "03:00", "08:00", "21:00"].map(slot)
    var previous: Date?
    var d = day("2026-01-01")
    while d <= day("2026-12-31") {
        for s in slots {
            let instant = WallClock.instant(of: d, at: s, in: berlin)
            if let previous { #expect(instant >= previous, "slots stay in order on \(d)") }
            previous = instant
        }
        d = d.adding(days: 1)
    }
}

@Test func theWallClockMinuteOfAnInstantIsReadInItsZoneAcrossMidnightAndDaylightSaving() {
    #expect(TimeSlot(utc("2026-03-10T23:59:59Z"), in: TimeZone(identifier: "UTC")!) == slot("23:59"))
    #expect(TimeSlot(utc("2026-03-10T23:30:00Z"), in: TimeZone(identifier: "Asia/Tokyo")!) == slot("08:30"))
    #expect(TimeSlot(utc("2026-03-10T03:15:00Z"), in: TimeZone(identifier: "America/Los_Angeles")!) == slot("20:15"), "the day before, west of UTC")
    #expect(TimeSlot(utc("2026-03-29T01:00:00Z"), in: TimeZone(identifier: "Europe/Berlin")!) == slot("03:00"), "just after the spring-forward gap")
    #expect(TimeSlot(utc("1969-12-31T23:00:00Z"), in: TimeZone(identifier: "UTC")!) == slot("23:00"), "before 1970")
}
