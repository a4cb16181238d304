import Foundation

/// A day of the week, numbered as ISO 8601 does (Monday 1 ... Sunday 7).
public enum Weekday: Int, Hashable, Codable, Sendable, CaseIterable, Comparable {
    /// Monday.
    case monday = 1
    /// Tuesday.
    case tuesday
    /// Wednesday.
    case wednesday
    /// Thursday.
    case thursday
    /// Friday.
    case friday
    /// Saturday.
    case saturday
    /// Sunday.
    case sunday

    /// Three-letter English abbreviation: "mon" ... "sun".
    public var abbreviation: String {
        ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue - 1]
    }

    /// The weekday for "mon", "Monday", "TUE", ...; nil for anything else.
    public init?(parsing text: String) {
        let key = text.lowercased()
        guard key.count >= 3, let match = Weekday.allCases.first(where: { key.hasPrefix($0.abbreviation) }) else { return nil }
        let full = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"][match.rawValue - 1]
        guard full.hasPrefix(key) else { return nil }
        self = match
    }

    /// Monday first.
    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}

extension LocalDay {
    /// The day of the week.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday (ISO 4).
        let offset = ((dayNumber % 7) + 7) % 7
        return Weekday(rawValue: (offset + 3) % 7 + 1)!
    }
}

/// A wall-clock time of day, to the minute, e.g. 08:00. Scheduled doses are due at slots.
public struct TimeSlot: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Minutes after local midnight, 0 ..< 1440.
    public let minuteOfDay: Int

    /// A slot; nil outside 00:00 ... 23:59.
    public init?(hour: Int, minute: Int) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        minuteOfDay = hour * 60 + minute
    }

    /// Parses "08:00", "8:00" or "0800"; nil for anything else.
    public init?(parsing text: String) {
        let digits: (String, String)
        if let colon = text.firstIndex(of: ":") {
            digits = (String(text[..<colon]), String(text[text.index(after: colon)...]))
        } else if text.count == 4 {
            digits = (String(text.prefix(2)), String(text.suffix(2)))
        } else {
            return nil
        }
        guard (1...2).contains(digits.0.count), digits.1.count == 2,
            (digits.0 + digits.1).allSatisfy({ $0.isASCII && $0.isNumber }),
            let h = Int(digits.0), let m = Int(digits.1)
        else { return nil }
        self.init(hour: h, minute: m)
    }

    /// The wall-clock minute of `instant` in `zone` (seconds dropped).
    public init(_ instant: Date, in zone: TimeZone) {
        let local = Int((instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: instant))).rounded(.down))
        minuteOfDay = ((local % 86_400) + 86_400) % 86_400 / 60
    }

    /// The hour, 0-23.
    public var hour: Int { minuteOfDay / 60 }
    /// The minute, 0-59.
    public var minute: Int { minuteOfDay % 60 }

    /// "08:00".
    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// Earlier in the day first.
    public static func < (a: TimeSlot, b: TimeSlot) -> Bool { a.minuteOfDay < b.minuteOfDay }

    /// Encodes as "08:00".
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Decodes "08:00".
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let slot = TimeSlot(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a time of day (HH:MM): \(text)"))
        }
        self = slot
    }
}

/// Where a local wall-clock time falls on the time line: the rule for daylight-saving changes.
///
/// A scheduled dose is a wall-clock time on a local day. When the clocks spring forward, a time inside the
/// gap (02:30 when 02:00 jumps to 03:00) does not exist; it maps to the first valid instant after the gap
/// (03:00). When the clocks fall back, a repeated time (01:30 happens twice) maps to its FIRST instant. Either
/// way the dose is one occurrence: occurrences are identified by day and slot, never by instant.
public enum WallClock {
    /// The instant of `slot` on `day` in `zone`, by the rule above.
    public static func instant(of day: LocalDay, at slot: TimeSlot, in zone: TimeZone) -> Date {
        placed(day, slot, zone).instant
    }

    /// The instant by the rule above, and whether the wall-clock time happens there (false in a gap).
    private static func placed(_ day: LocalDay, _ slot: TimeSlot, _ zone: TimeZone) -> (instant: Date, exists: Bool) {
        let wall = Double(day.dayNumber) * 86_400 + Double(slot.minuteOfDay) * 60  // wall time read as if UTC
        let before = offset(zone, wall - 86_400 - 3_600 * 14)
        let after = offset(zone, wall + 86_400 + 3_600 * 14)
        var valid: [Double] = []
        for o in Set([before, after, offset(zone, wall - before), offset(zone, wall - after)]) {
            let t = wall - o
            if offset(zone, t) == o { valid.append(t) }
        }
        if let first = valid.min() { return (Date(timeIntervalSince1970: first), true) }
        // In a gap: the first instant after it is the transition itself. Search between the instant the wall
        // time would have with the earlier offset and with the later one.
        var low = wall - max(before, after) - 3_600 * 3
        var high = wall - min(before, after) + 3_600 * 3
        let lowOffset = offset(zone, low)
        while high - low > 1 {
            let mid = ((low + high) / 2).rounded(.down)
            if offset(zone, mid) == lowOffset { low = mid } else { high = mid }
        }
        return (Date(timeIntervalSince1970: high), false)
    }

    /// The instant of `slot` on `day` in `zone` when that wall-clock time happens there, nil when it does not:
    /// a time inside the gap of a spring-forward day (02:30 in Europe/Amsterdam on the last Sunday of March). A
    /// repeated time is its first instant, as above. Imports refuse a time that does not exist rather than move it.
    public static func existingInstant(of day: LocalDay, at slot: TimeSlot, in zone: TimeZone) -> Date? {
        let placed = placed(day, slot, zone)
        return placed.exists ? placed.instant : nil
    }

    private static func offset(_ zone: TimeZone, _ seconds: Double) -> Double {
        Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
    }
}
