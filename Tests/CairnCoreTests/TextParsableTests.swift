import CairnCore
import Foundation
import Testing

@Test func aDayIsReadOnlyAsARealDateWrittenYearMonthDay() throws {
    #expect(try LocalDay.parse(" 2026-03-01 ") == LocalDay(year: 2026, month: 3, day: 1))
    for bad in ["", "March", "2026-3-1", "2026-02-30", "01/03/2026", "2026-03-01T08:00"] {
        #expect(throws: InputError.unreadableDay, "\(bad)") { try LocalDay.parse(bad) }
    }
}

@Test func aPlainDecimalHasDigitsAndAtMostOnePointWhateverTheLocale() throws {
    #expect(try PlainDecimal.parse("2").value == 2)
    #expect(try PlainDecimal.parse(" 0.5 ").value == Decimal(string: "0.5"))
    #expect(try PlainDecimal.parse(".5").value == Decimal(string: "0.5"))
    for bad in ["", ".", "1.2.3", "1,5", "-1", "+1", "1e3", "١", "½", "1 000"] {
        #expect(PlainDecimal(bad) == nil, "\(bad)")
        #expect(throws: InputError.unreadableNumber, "\(bad)") { try PlainDecimal.parse(bad) }
    }
}

@Test func anIdentifierPrefixIsFourToThirtySixHexDigitsAndDashesInLowerCase() throws {
    #expect(try IdentifierPrefix.parse("ABCD").text == "abcd")
    #expect(try IdentifierPrefix.parse("0190aa5e-7c1b-7000-8000-000000000001").text == "0190aa5e-7c1b-7000-8000-000000000001")
    for bad in ["abc", "zz'; DROP", "0190aa5e-7c1b-7000-8000-0000000000011", "abcd/ef"] {
        #expect(throws: InputError.unreadableIdentifier, "\(bad)") { try IdentifierPrefix.parse(bad) }
    }
}

@Test func aReportPeriodIsAtMostTenYearsAndEndsOnOrAfterItsStart() throws {
    let today = LocalDay(year: 2026, month: 12, day: 7)!
    let defaulted = try ReportPeriod(typedFrom: "", typedTo: " ", today: today)
    #expect(defaulted.to == today && defaulted.dayCount == ReportPeriod.defaultDays)
    let endingEarlier = try ReportPeriod(typedFrom: "", typedTo: "2026-01-31", today: today)
    #expect(endingEarlier.from == LocalDay(year: 2025, month: 11, day: 3) && endingEarlier.dayCount == 90)
    #expect(throws: ReportPeriodError.endsBeforeStart) { try ReportPeriod(from: today, to: today.adding(days: -1)) }
    #expect(try ReportPeriod(from: today.adding(days: -3660), to: today).dayCount == 3661)
    #expect(throws: ReportPeriodError.tooLong) { try ReportPeriod(from: today.adding(days: -3661), to: today) }

    func problems(_ from: String, _ to: String) -> FieldProblems<ReportPeriod.Field>? {
        do {
            _ = try ReportPeriod(typedFrom: from, typedTo: to, today: today)
            return nil
        } catch { return error as? FieldProblems<ReportPeriod.Field> }
    }
    let unreadable = problems("March", "2026-13-01")
    #expect(unreadable?.messages(for: .from) == [InputError.unreadableDay.userMessage])
    #expect(unreadable?.messages(for: .to) == [InputError.unreadableDay.userMessage])
    #expect(problems("2026-12-08", "2026-12-07")?.messages(for: .period) == [ReportPeriodError.endsBeforeStart.userMessage])
}
