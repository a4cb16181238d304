import Foundation

/// "Taken at...": when a dose was really taken, as the person types it on the page or after `--at`. The one
/// parser of that input, shared by the CLI and the web, and the one rule every door's check-in obeys.
///
/// Accepted text:
/// - `HH:MM` (or `H:MM`): that wall-clock time on the dose's own day, in the person's current zone;
/// - `YYYY-MM-DD HH:MM` (or with a `T`): that wall-clock time on that day, in the person's current zone;
/// - an ISO 8601 instant with its offset: `2026-03-10T08:05:00Z`, `2026-03-10T09:05+01:00`.
///
/// The rule: a dose is taken at a moment that is not in the future, on the dose's own day or today (a dose of
/// last night can be logged as taken just after midnight). A time skipped by a daylight-saving change means
/// the first minute after it, a repeated one its first instant (`WallClock`).
public enum TakenTime {
    /// Parses `text` for a dose of `doseDay` and checks it with `check`. Throws `ScheduleError.unreadableTakenTime`,
    /// `.takenInFuture` or `.takenOutsideDoseDay`.
    public static func parse(_ text: String, doseDay: LocalDay?, now: Date, zone: TimeZone) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let today = LocalDay(now, in: zone)
        let instant: Date
        if let slot = TimeSlot(parsing: trimmed) {
            instant = WallClock.instant(of: doseDay ?? today, at: slot, in: zone)
        } else if let parsed = wallClockWithDay(trimmed) {
            instant = WallClock.instant(of: parsed.0, at: parsed.1, in: zone)
        } else if let parsed = isoInstant(trimmed) {
            instant = parsed
        } else {
            throw ScheduleError.unreadableTakenTime
        }
        try check(instant, doseDay: doseDay, now: now, zone: zone)
        return instant
    }

    /// The rule above for an instant from any door. `doseDay` nil (an extra or as-needed dose) checks only that
    /// the moment is not in the future. The minute of `now` itself counts as now.
    public static func check(_ instant: Date, doseDay: LocalDay?, now: Date, zone: TimeZone) throws {
        guard instant.timeIntervalSince(now) < 60 - now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) else {
            throw ScheduleError.takenInFuture
        }
        guard let doseDay else { return }
        let day = LocalDay(instant, in: zone)
        guard day == doseDay || day == LocalDay(now, in: zone), day >= doseDay else { throw ScheduleError.takenOutsideDoseDay }
    }

    /// An ISO 8601 instant with its offset (`Z` or `+01:00`), with or without seconds and fractions; nil otherwise.
    public static func isoInstant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        // Without seconds: "2026-03-10T08:05Z".
        if text.count >= 17, let date = formatter.date(from: String(text.prefix(16)) + ":00" + String(text.dropFirst(16))) { return date }
        return nil
    }

    /// "2026-03-10 08:05" or "2026-03-10T08:05" (no offset): a wall-clock time on a day.
    private static func wallClockWithDay(_ text: String) -> (LocalDay, TimeSlot)? {
        guard text.count == 16 else { return nil }
        let separator = text[text.index(text.startIndex, offsetBy: 10)]
        guard separator == " " || separator == "T", let day = LocalDay(parsing: String(text.prefix(10))),
              let slot = TimeSlot(parsing: String(text.suffix(5))) else { return nil }
        return (day, slot)
    }
}
