import CairnCore
import Foundation

// The Regimen types a person types, each read by its one parser (`TextParsable`): the doors reach them through
// their typed lookups and never word a refusal themselves.

extension ProductForm: TextParsable {
    /// See `init(parsing:)`.
    public static func parse(_ text: String) throws -> ProductForm { try ProductForm(parsing: text) }
}

extension Recurrence: TextParsable {
    /// See `init(parsing:)`.
    public static func parse(_ text: String) throws -> Recurrence { try Recurrence(parsing: text) }
}

extension ScheduleZone: TextParsable {
    /// See `init(parsing:)`.
    public static func parse(_ text: String) throws -> ScheduleZone { try ScheduleZone(parsing: text) }
}

extension Array: TextParsable where Element == TimeSlot {
    /// A list of times of day (`TimeSlot.list(parsing:)`); an empty text is no times.
    public static func parse(_ text: String) throws -> [TimeSlot] { try TimeSlot.list(parsing: text) }
}

/// Servings per dose as typed ("1", "0.5"): a plain decimal (`PlainDecimal`); zero and too many are refused by
/// `SchedulePlan` itself.
public struct DoseServings: TextParsable, Hashable {
    /// The number of servings.
    public let value: Decimal

    /// Throws `ScheduleError.unreadableServings` for anything but a plain decimal number.
    public static func parse(_ text: String) throws -> DoseServings {
        guard let number = PlainDecimal(text) else { throw ScheduleError.unreadableServings }
        return DoseServings(value: number.value)
    }
}
