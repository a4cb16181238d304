import CairnCore

/// Why an outcome value, a metric or an import was refused. Messages never repeat what was typed or what a
/// file holds.
public enum OutcomeError: CairnError, Hashable, Sendable {
    /// A metric id that is not 1-40 lower-case letters, digits or underscores starting with a letter.
    case invalidMetricID
    /// A custom metric id that is already used (by a built-in metric or an earlier custom one).
    case metricIDTaken
    /// A custom metric without a name (a name too long is `TextInputError.tooLong`).
    case emptyMetricName
    /// A unit longer than 20 characters.
    case unitTooLong
    /// A range whose ends are not finite numbers with the lower below the upper.
    case invalidRange
    /// No metric has this id.
    case unknownMetric
    /// Apple Health metrics come only from a Health export; they are not typed in or imported from CSV.
    case metricIsReadOnly
    /// A value that is not a finite number.
    case notANumber
    /// A value outside the metric's range (the range is shown, which is Cairn's own text).
    case outOfRange(range: String)
    /// A value for a day after today.
    case dayInFuture
    /// No entry has this id.
    case entryNotFound
    /// The entry was corrected already; correct the newest one.
    case entryAlreadyCorrected

    /// The plain-English message.
    public var errorKind: ErrorKind { self == .entryNotFound ? .notFound : .refusedInput }

    public var userMessage: String {
        switch self {
        case .invalidMetricID: "A metric id is 1 to 40 lower-case letters, digits or underscores, starting with a letter (for example headache)."
        case .metricIDTaken: "A metric with this id exists already. Choose another id."
        case .emptyMetricName: "A metric needs a name."
        case .unitTooLong: "A unit can be at most 20 characters."
        case .invalidRange: "The lowest value must be a number below the highest value."
        case .unknownMetric: "There is no metric with this id. Use a metric the Outcomes page lists (or 'cairn regimen outcomes metrics')."
        case .metricIsReadOnly: "This metric is read from an Apple Health export and cannot be entered by hand."
        case .notANumber: "The value is not a number. Write it with a dot for decimals, like 3.5."
        case .outOfRange(let range): "The value is outside this metric's range (\(range))."
        case .dayInFuture: "The date is after today."
        case .entryNotFound: "There is no outcome entry with this id."
        case .entryAlreadyCorrected: "This entry has been corrected already. Correct the newest entry instead."
        }
    }
}
