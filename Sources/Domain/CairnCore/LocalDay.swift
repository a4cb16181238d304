import Foundation

/// A calendar day as the person lived it: year, month and day in the time zone a record was made in.
public struct LocalDay: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1-12.
    public let month: Int
    /// The day of the month, 1-31.
    public let day: Int

    /// A day; nil when the date does not exist (e.g. February 30) or the year is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= LocalDay.daysInMonth(year: year, month: month)
        else { return nil }
        self.init(unchecked: year, month, day)
    }

    /// A day already known to exist.
    package init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The number of days of a month in the (proleptic) Gregorian calendar.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The local day of `instant` in `timeZone`: the instant shifted by the zone's offset at that instant,
    /// counted in whole days (integer arithmetic; a calendar per record costs more than a year's exposure).
    public init(_ instant: Date, in timeZone: TimeZone) {
        let local = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
        self.init(dayNumber: Int((local / 86_400).rounded(.down)))
    }

    /// Chronological order.
    public static func < (a: LocalDay, b: LocalDay) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// "2026-03-01".
    public var description: String {
        "\(year)-" + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
    }
}

extension LocalDay {
    /// Days since 1970-01-01 (negative before it), by the proleptic Gregorian calendar. Pure integer
    /// arithmetic, independent of any time zone.
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(unchecked: yearOfEra + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The day `count` days later (earlier for a negative count).
    public func adding(days count: Int) -> LocalDay { LocalDay(dayNumber: dayNumber + count) }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDay) -> Int { other.dayNumber - dayNumber }

    /// Parses "2026-03-01" (ISO 8601 calendar date, four-digit year); nil for anything else or a date that
    /// does not exist.
    public init?(parsing text: String) {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10) else { return nil }
        self.init(year: y, month: m, day: d)
    }
}
