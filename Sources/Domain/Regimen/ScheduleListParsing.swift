import CairnCore
import Foundation

// The calendar types (Weekday, TimeSlot, WallClock) live in CairnCore; these are the schedule's list parsers,
// whose refusals are the schedule's own.

extension Weekday {
    /// The weekdays of a list such as "mon,wed,fri" or "Mon Wed" (commas or spaces between). Throws
    /// `ScheduleError.unreadableWeekday` for a word that is no weekday and `.noWeekdays` for an empty list.
    public static func set(parsing text: String) throws -> Set<Weekday> {
        var days = Set<Weekday>()
        for part in text.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            guard let day = Weekday(parsing: String(part)) else { throw ScheduleError.unreadableWeekday }
            days.insert(day)
        }
        guard !days.isEmpty else { throw ScheduleError.noWeekdays }
        return days
    }
}

extension TimeSlot {
    /// The times of a list such as "08:00, 20:30" or "08:00 20:30" (commas or spaces between), in the order
    /// written; an empty list is no times (as needed). Throws `ScheduleError.unreadableTime`.
    public static func list(parsing text: String) throws -> [TimeSlot] {
        try text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map {
            guard let slot = TimeSlot(parsing: String($0)) else { throw ScheduleError.unreadableTime }
            return slot
        }
    }
}
