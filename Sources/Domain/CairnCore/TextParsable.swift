import Foundation

/// A value a person types, read by one throwing parser in the domain.
///
/// Every door reaches the parser through one typed lookup: the CLI through `Arguments.value(_:as:)`, the web
/// through `FormFields.require(_:as:)` / `optional(_:as:)` and `RouteRequest.parameter(_:as:)`. So a rule (what
/// a date, a number of servings or a report period may be) and the sentence that refuses it are written once,
/// here or beside the type, and the doors only say which field or option it belongs to.
public protocol TextParsable: Sendable {
    /// Reads `text` as the person typed it (surrounding spaces ignored). Throws a `CairnError` of kind
    /// `refusedInput` whose message is the same on every door.
    static func parse(_ text: String) throws -> Self
}

/// A typed value the parsers in CairnCore refuse.
public enum InputError: CairnError, Hashable, Sendable {
    /// A day that is not a real date written YYYY-MM-DD.
    case unreadableDay
    /// A number that is not a plain decimal (digits and at most one point).
    case unreadableNumber
    /// An identifier (or the start of one) that is not 4 to 36 hexadecimal digits and dashes.
    case unreadableIdentifier

    public var userMessage: String {
        switch self {
        case .unreadableDay: "A date must be written as YYYY-MM-DD, for example 2026-03-01."
        case .unreadableNumber: "A number must be written with digits and at most one point, such as 1 or 0.5."
        case .unreadableIdentifier: "An identifier is written with the digits 0-9, the letters a-f and dashes: at least its first 4."
        }
    }
}

extension LocalDay: TextParsable {
    /// "2026-03-01" (see `init?(parsing:)`); throws `InputError.unreadableDay`.
    public static func parse(_ text: String) throws -> LocalDay {
        guard let day = LocalDay(parsing: text.trimmingCharacters(in: .whitespaces)) else { throw InputError.unreadableDay }
        return day
    }
}

/// A number written plainly: ASCII digits with at most one decimal point ("2", "0.5", ".5"), no sign, no
/// exponent, no grouping, whatever the locale. The one rule for counts, servings and amounts people type.
public struct PlainDecimal: TextParsable, Hashable {
    /// The number.
    public let value: Decimal

    /// The number `text` writes plainly (surrounding spaces ignored); nil for anything else.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            trimmed.filter({ $0 == "." }).count <= 1, trimmed != ".",
            let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self.value = value
    }

    /// Throws `InputError.unreadableNumber` for text that is not a plain decimal.
    public static func parse(_ text: String) throws -> PlainDecimal {
        guard let number = PlainDecimal(text) else { throw InputError.unreadableNumber }
        return number
    }
}

/// The start of an identifier as the CLI prints it (its first 8 characters) or whole: 4 to 36 hexadecimal digits
/// and dashes, letter case ignored. The store finds the one record it names (`SmileService.entry(matching:)`).
public struct IdentifierPrefix: TextParsable, Hashable {
    /// The prefix in lower case.
    public let text: String

    /// Throws `InputError.unreadableIdentifier` for text of another shape.
    public static func parse(_ text: String) throws -> IdentifierPrefix {
        let cleaned = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard (4...36).contains(cleaned.count), cleaned.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw InputError.unreadableIdentifier
        }
        return IdentifierPrefix(text: cleaned)
    }
}
