import Foundation

/// The one parser of an instant a person writes with its UTC offset (`--at 2026-03-10T09:05+01:00`, a page's
/// "taken at" field, `CAIRN_NOW`), and the bounds every import puts on the dates it reads.
///
/// Accepted text: `YYYY-MM-DDTHH:MM`, optionally `:SS` and a fraction of a second, then `Z` or an offset
/// `±HH:MM` (or `±HHMM`). The offset is at most `largestOffset` (±14:00, the widest any place uses: Kiribati's
/// Line Islands are +14:00) and its minutes are below 60; anything else is refused, never wrapped or cut
/// (Foundation's formatter read +25:00 as +02:00 and +99:00 as +09:00).
public enum InstantInput {
    /// The widest UTC offset, in seconds: 14 hours.
    public static let largestOffset = 14 * 3_600

    /// Why text is not an instant with an offset.
    public enum Refusal: Error, Equatable, Sendable {
        /// The text is not written as above (a malformed offset included).
        case unreadable
        /// The offset is written correctly but is beyond ±14:00.
        case offsetOutOfRange
    }

    /// The instant `text` names, or why it names none.
    public static func parse(_ text: String) -> Result<Date, Refusal> {
        let b = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var value = 0
            for i in from..<(from + count) {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard b.count >= 17, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"),
            let day = LocalDay(parsing: String(decoding: b[0..<10], as: UTF8.self)),
            let hour = digits(11, 2), let minute = digits(14, 2), hour < 24, minute < 60
        else { return .failure(.unreadable) }
        var i = 16
        var second = 0
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ":") {
            guard let s = digits(i + 1, 2), s < 60 else { return .failure(.unreadable) }
            second = s
            i += 3
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                var scale = 0.1
                i += 1
                let start = i
                while i < b.count, (0x30...0x39).contains(b[i]) {
                    fraction += Double(b[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start, i - start <= 9 else { return .failure(.unreadable) }
            }
        }
        guard i < b.count else { return .failure(.unreadable) }
        let offset: Int
        if b[i] == UInt8(ascii: "Z"), i + 1 == b.count {
            offset = 0
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            let rest = b.count - i - 1
            let minutesAt = rest == 5 && b[i + 3] == UInt8(ascii: ":") ? i + 4 : rest == 4 ? i + 3 : -1
            guard minutesAt > 0, let h = digits(i + 1, 2), let m = digits(minutesAt, 2), m < 60 else { return .failure(.unreadable) }
            offset = sign * (h * 3_600 + m * 60)
        } else {
            return .failure(.unreadable)
        }
        guard abs(offset) <= largestOffset else { return .failure(.offsetOutOfRange) }
        let local = Double(day.dayNumber) * 86_400 + Double(hour * 3_600 + minute * 60 + second) + fraction
        return .success(Date(timeIntervalSince1970: local - Double(offset)))
    }
}

/// The dates an import accepts, the same for every import (intake history and outcome CSV files, Apple Health
/// exports): from `earliest` (1900-01-01) to tomorrow, by the injected clock in the person's zone. Tomorrow, not
/// today: a record written just after midnight somewhere east of the person is not refused. A date outside is
/// a clock that was wrong or a file that was damaged (year 1, year 9999), never a record to keep.
public enum ImportDates {
    /// The first day an import accepts.
    public static let earliest = LocalDay(year: 1900, month: 1, day: 1)!

    /// The last day an import accepts: tomorrow in `zone`.
    public static func latest(now: Date, zone: TimeZone) -> LocalDay { LocalDay(now, in: zone).adding(days: 1) }

    /// Whether an import accepts `day`.
    public static func accepts(_ day: LocalDay, now: Date, zone: TimeZone) -> Bool {
        day >= earliest && day <= latest(now: now, zone: zone)
    }

    /// The instants an import accepts: from the start of `earliest` to the end of tomorrow, both in `zone`.
    public static func instants(now: Date, zone: TimeZone) -> Range<Date> {
        let start = WallClock.instant(of: earliest, at: TimeSlot(hour: 0, minute: 0)!, in: zone)
        let end = WallClock.instant(of: latest(now: now, zone: zone).adding(days: 1), at: TimeSlot(hour: 0, minute: 0)!, in: zone)
        return start..<end
    }

    /// The rule in words, for messages: "before 1900-01-01 or after tomorrow".
    public static let ruleText = "before 1900-01-01 or after tomorrow"
}
