import Foundation

/// Every way Cairn writes an instant as text, each layout in one place: for people ("1 Mar 2026",
/// "1 Mar 2026, 08:05", "08:05"), for the command line and tables ("2026-03-01 08:05"), for exports and PDFs
/// (UTC ISO 8601) and for file names. A formatter is made once per layout and zone and reused; formatting is
/// serialised, because a shared DateFormatter is not safe across threads in swift-corelibs-foundation.
public enum DateText {
    /// A layout, with the locale its month names (if any) are written in.
    public enum Layout: String, Sendable, CaseIterable {
        /// "1 Mar 2026".
        case day = "d MMM yyyy"
        /// "1 Mar 2026, 08:05".
        case dayAndTime = "d MMM yyyy, HH:mm"
        /// "2026-03-01 08:05".
        case numericMinute = "yyyy-MM-dd HH:mm"
        /// "08:05".
        case clock = "HH:mm"
        /// "20260301-080500".
        case fileStamp = "yyyyMMdd-HHmmss"
        /// "2026-03-01T08:05:00Z" (use with UTC only: the Z is literal).
        case utc = "yyyy-MM-dd'T'HH:mm:ss'Z'"

        var locale: Locale {
            switch self {
            case .day, .dayAndTime: Locale(identifier: "en_GB")
            case .numericMinute, .clock, .fileStamp, .utc: Locale(identifier: "en_US_POSIX")
            }
        }
    }

    /// `date` in `layout`, on the wall clock of `zone`.
    public static func string(_ date: Date, _ layout: Layout, in zone: TimeZone) -> String {
        cache.withLock { formatters in
            let key = Key(layout: layout, zone: zone.identifier)
            if let known = formatters[key] { return known.string(from: date) }
            let f = DateFormatter()
            f.locale = layout.locale
            f.timeZone = zone
            f.dateFormat = layout.rawValue
            formatters[key] = f
            return f.string(from: date)
        }
    }

    /// `date` in `layout`, in the zone a record names (UTC when the name is not a known zone).
    public static func string(_ date: Date, _ layout: Layout, inZoneNamed name: String) -> String {
        string(date, layout, in: TimeZone(identifier: name) ?? utcZone)
    }

    /// A calendar day for people: "1 Mar 2026" (the `day` layout, with no clock or zone involved).
    public static func day(_ day: LocalDay) -> String {
        string(WallClock.instant(of: day, at: TimeSlot(hour: 12, minute: 0)!, in: utcZone), .day, in: utcZone)
    }

    /// A calendar day's weekday for people: "Monday".
    public static func weekday(_ day: LocalDay) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][day.weekday.rawValue - 1]
    }

    /// "2026-03-01T07:00:00Z": the UTC text of exports, JSON and PDF metadata.
    public static func utc(_ date: Date) -> String { string(date, .utc, in: utcZone) }

    private static let utcZone = TimeZone(identifier: "UTC")!

    /// "2026-03-01T08:05:00+01:00": the wall clock of `zone` with its offset, whole seconds (FHIR's dateTime).
    /// Worked out from the zone's offset rather than a formatter: an export writes tens of thousands of them.
    public static func isoOffset(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let local = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let dayNumber = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let second = Int(local - dayNumber * 86_400)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let sign = offset < 0 ? "-" : "+"
        return "\(LocalDay(dayNumber: Int(dayNumber)))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
            + "\(sign)\(two(abs(offset) / 3600)):\(two(abs(offset) / 60 % 60))"
    }

    private struct Key: Hashable {
        let layout: Layout
        let zone: String
    }

    private final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var formatters: [Key: DateFormatter] = [:]
        func withLock<T>(_ body: (inout [Key: DateFormatter]) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&formatters)
        }
    }

    private static let cache = Cache()
}
