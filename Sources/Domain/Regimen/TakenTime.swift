import Foundation

/// "Taken at...": when a dose was really taken, as the person types it on the page or after `--at`. The one
/// parser of that input, shared by the CLI and the web, and the one rule every door's check-in obeys.
///
/// Accepted text:
/// - `HH:MM` (or `H:MM`): that wall-clock time on the dose's own day, in the person's current zone;
/// - `YYYY-MM-DD HH:MM` (or with a `T`): that wall-clock time on that day, in the person's current zone;
/// - an ISO 8601 instant with its offset: `2026-03-10T08:05:00Z`, `2026-03-10T09:05+01:00` (`InstantInput`: an
///   offset beyond ±14:00 is refused, `ScheduleError.takenTimeOffsetOutOfRange`).
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
        } else {
            switch InstantInput.parse(trimmed) {
            case .success(let parsed): instant = parsed
            case .failure(.offsetOutOfRange): throw ScheduleError.takenTimeOffsetOutOfRange
            case .failure(.unreadable): throw ScheduleError.unreadableTakenTime
            }
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

    /// An ISO 8601 instant with its offset (`Z` or `+01:00`, at most ±14:00), with or without seconds and
    /// fractions; nil otherwise (`InstantInput`, the one parser of such text).
    public static func isoInstant(_ text: String) -> Date? {
        try? InstantInput.parse(text).get()
    }

    /// "2026-03-10 08:05" or "2026-03-10T08:05" (no offset): a wall-clock time on a day.
    private static func wallClockWithDay(_ text: String) -> (LocalDay, TimeSlot)? {
        guard text.count == 16 else { return nil }
        let separator = text[text.index(text.startIndex, offsetBy: 10)]
        guard separator == " " || separator == "T", let day = LocalDay(parsing: String(text.prefix(10))),
            let slot = TimeSlot(parsing: String(text.suffix(5)))
        else { return nil }
        return (day, slot)
    }
}
