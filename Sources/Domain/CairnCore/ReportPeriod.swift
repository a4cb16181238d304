/// The days a report covers: its first and last local day, inclusive, at most ten years. The one rule for every
/// door (the CLI's `--from`/`--to`, the web's period form) and for `ReportService`.
public struct ReportPeriod: Hashable, Sendable {
    /// The longest period a report lays out, in days (ten years).
    public static let longestDays = 3660
    /// The period a form shows before the person chooses one: the last 90 days up to today.
    public static let defaultDays = 90

    /// The first day.
    public let from: LocalDay
    /// The last day (on or after `from`).
    public let to: LocalDay

    /// The period from `from` to `to`. Throws `ReportPeriodError.endsBeforeStart` or `.tooLong`.
    public init(from: LocalDay, to: LocalDay) throws {
        guard from <= to else { throw ReportPeriodError.endsBeforeStart }
        guard from.days(to: to) < Self.longestDays + 1 else { throw ReportPeriodError.tooLong }
        self.from = from
        self.to = to
    }

    /// The period as a person typed it: an empty last day is `today`, an empty first day the start of the default
    /// period ending on the last day. Throws `FieldProblems<ReportPeriod.Field>` with an unreadable day beside its
    /// field, else the rule's refusal beside `.period`.
    public init(typedFrom fromText: String, typedTo toText: String, today: LocalDay) throws {
        var problems = FieldProblems<Field>.Collector()
        let to = problems.field(.to) { try toText.allSatisfy(\.isWhitespace) ? today : LocalDay.parse(toText) }
        let from = problems.field(.from) {
            try fromText.allSatisfy(\.isWhitespace) ? (to ?? today).adding(days: 1 - Self.defaultDays) : LocalDay.parse(fromText)
        }
        try problems.check()
        do { try self.init(from: from!, to: to!) } catch let refusal as ReportPeriodError {
            throw FieldProblems([.init(Field.period, refusal)])
        }
    }

    /// Its days.
    public var days: ClosedRange<LocalDay> { from...to }
    /// How many days it has.
    public var dayCount: Int { from.days(to: to) + 1 }

    /// The fields of a period form.
    public enum Field: Hashable, Sendable {
        case from, to, period
    }
}

/// A report period the rule refuses.
public enum ReportPeriodError: CairnError, Hashable, Sendable {
    /// The last day comes before the first.
    case endsBeforeStart
    /// Longer than `ReportPeriod.longestDays`.
    case tooLong

    public var userMessage: String {
        switch self {
        case .endsBeforeStart: "The last day comes before the first day."
        case .tooLong: "The period is longer than ten years; give a shorter one."
        }
    }
}
