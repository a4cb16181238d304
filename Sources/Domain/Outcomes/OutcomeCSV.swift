import CairnCore
import Foundation

/// Reads an outcome CSV: a header row, then one value per line.
///
/// Columns (header required, matched ignoring case, spaces, hyphens and underscores; any order):
/// - `date` (also `day`): the local day, written YYYY-MM-DD;
/// - `metric`: a metric id (`sleep_quality`) or its name (`Sleep quality`), ignoring case;
/// - `value`: a number with a dot for decimals;
/// - `note` (optional): free text.
/// Any other column, or a missing one, makes the whole file refused (`CSVError.wrongColumns`).
///
/// Each bad line is reported with its line number and a reason that never repeats the line's content:
/// a bad date, a date before 1900-01-01 (`ImportDates`), a date after `today`, an unknown metric, an Apple Health metric (read-only), a value that is
/// not a number or is outside the metric's range, a wrong number of fields.
public enum OutcomeCSV {
    /// The columns Cairn reads, with the header names it accepts for each.
    static let columns: [(name: String, keys: Set<String>, required: Bool)] = [
        ("date", ["date", "day", "localdate", "localday"], true),
        ("metric", ["metric", "metricid", "metricname"], true),
        ("value", ["value"], true),
        ("note", ["note", "notes", "comment"], false),
    ]

    /// The expected header, for messages and templates.
    public static let header = "date,metric,value,note"

    /// One readable line.
    public struct Row: Hashable, Sendable {
        /// The file line.
        public let line: Int
        /// The metric's id.
        public let metricID: String
        /// The local day.
        public let day: LocalDay
        /// The value (inside the metric's range).
        public let value: Double
        /// The note, possibly empty.
        public let note: String
    }

    /// A file read line by line: the good rows and every bad line.
    public struct Parsed: Hashable, Sendable {
        /// The readable lines, in file order.
        public let rows: [Row]
        /// The lines that could not be read, in file order.
        public let problems: [LineProblem]
    }

    /// Reads `data` against `metrics` (the definitions in the vault). Throws `CSVError` when the file is not
    /// CSV at all, or its header is missing or wrong.
    public static func parse(_ data: Data, metrics: [MetricDefinition], today: LocalDay) throws -> Parsed {
        let records = try CSV.records(in: data)
        guard let header = records.first else { throw CSVError.empty }
        let positions = try CSVColumns(header: header.fields, columns: columns)
        var byKey: [String: MetricDefinition] = [:]
        for metric in metrics {
            byKey[metricKey(metric.id)] = metric
            if byKey[metricKey(metric.name)] == nil { byKey[metricKey(metric.name)] = metric }
        }
        var rows: [Row] = []
        var problems: [LineProblem] = []
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                problems.append(
                    LineProblem(
                        line: record.line,
                        reason: .wrongFieldCount(
                            expected: header.fields.count,
                            found: record.fields.count)))
                continue
            }
            let field = { (name: String) -> String in
                positions[name].map { record.fields[$0].trimmingCharacters(in: .whitespaces) } ?? ""
            }
            guard let day = LocalDay(parsing: field("date")) else {
                problems.append(LineProblem(line: record.line, reason: .badDate))
                continue
            }
            guard day >= ImportDates.earliest else {
                problems.append(LineProblem(line: record.line, reason: .dateOutOfRange))
                continue
            }
            guard day <= today else {
                problems.append(LineProblem(line: record.line, reason: .dayInFuture))
                continue
            }
            guard let metric = byKey[metricKey(field("metric"))] else {
                problems.append(LineProblem(line: record.line, reason: .unknownMetric))
                continue
            }
            guard metric.source == .manual else {
                problems.append(LineProblem(line: record.line, reason: .readOnlyMetric))
                continue
            }
            guard let value = number(field("value")) else {
                problems.append(LineProblem(line: record.line, reason: .notANumber))
                continue
            }
            guard metric.accepts(value) else {
                problems.append(LineProblem(line: record.line, reason: .outOfRange(range: metric.rangeText)))
                continue
            }
            let note: String
            do {
                note = try TextInput.note(field("note"), field: "note")
            } catch TextInputError.tooLong {
                problems.append(LineProblem(line: record.line, reason: .noteTooLong))
                continue
            } catch {
                problems.append(LineProblem(line: record.line, reason: .controlCharacterInNote))
                continue
            }
            rows.append(Row(line: record.line, metricID: metric.id, day: day, value: value, note: note))
        }
        return Parsed(rows: rows, problems: problems)
    }

    /// A plain decimal number ("3", "-1.5", "0.25"); nil for anything else (commas, exponents, "NaN").
    public static func number(_ text: String) -> Double? {
        var digits = 0
        var dots = 0
        for (index, c) in text.enumerated() {
            if c.isASCII, c.isNumber {
                digits += 1
            } else if c == "." {
                dots += 1
            } else if c == "-" || c == "+", index == 0 {
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A metric id or name reduced for matching ("Sleep quality", "sleep-quality" and "SLEEP_QUALITY" agree).
    static func metricKey(_ text: String) -> String {
        CSV.headerKey(text)
    }
}

/// One line of an import that could not be read, and why.
public struct LineProblem: Hashable, Sendable {
    /// The file line (the header is line 1).
    public let line: Int
    /// Why.
    public let reason: LineProblemReason

    /// A problem.
    public init(line: Int, reason: LineProblemReason) {
        self.line = line
        self.reason = reason
    }

    /// "Line 4: the date is not written YYYY-MM-DD."
    public var message: String { "Line \(line): \(reason.text)" }
}

/// Why a line of an import could not be read. The texts never repeat the line's content.
public enum LineProblemReason: Hashable, Sendable {
    /// The line has a different number of fields from the header.
    case wrongFieldCount(expected: Int, found: Int)
    /// The date is not a real day written YYYY-MM-DD.
    case badDate
    /// The date is after today.
    case dayInFuture
    /// The date is before 1900-01-01 or after tomorrow (`ImportDates`).
    case dateOutOfRange
    /// The wall-clock time does not exist on that day in that zone: the clocks skipped it (a daylight-saving change).
    case timeDoesNotExist
    /// No metric has this id or name.
    case unknownMetric
    /// An Apple Health metric, which only a Health export provides.
    case readOnlyMetric
    /// The value is not a plain number.
    case notANumber
    /// The value is outside the metric's range.
    case outOfRange(range: String)
    /// The note is longer than 500 characters.
    case noteTooLong
    /// The note holds a control character (an escape code, a NUL byte; `TextInput`).
    case controlCharacterInNote
    /// The time is not HH:MM or HH:MM:SS.
    case badTime
    /// The time zone is not an IANA name such as Europe/Berlin.
    case badTimeZone
    /// The moment is after now.
    case timeInFuture
    /// No product has this name or id.
    case unknownProduct
    /// Two products have this name.
    case ambiguousProduct
    /// The status is not taken or skipped.
    case badStatus
    /// The amount is not a number above zero, or more than 100 servings.
    case impossibleAmount
    /// The unit is not one Cairn knows.
    case unknownUnit
    /// The amount's unit does not match how the product's serving is measured.
    case unitDoesNotMatchServing

    /// The reason in plain words.
    public var text: String {
        switch self {
        case .wrongFieldCount(let expected, let found): "it has \(found) field\(found == 1 ? "" : "s"); the header has \(expected)."
        case .badDate: "the date is not a real date written YYYY-MM-DD."
        case .dayInFuture: "the date is after today."
        case .dateOutOfRange: "the date is \(ImportDates.ruleText); Cairn imports dates from 1900-01-01 to tomorrow."
        case .timeDoesNotExist:
            "the time does not exist on that day in that time zone (the clocks skipped it for daylight saving time); write the time the clocks showed."
        case .unknownMetric:
            "the metric is not one Cairn knows (write a metric's id or name as the Outcomes page or 'cairn regimen outcomes metrics' lists them)."
        case .readOnlyMetric: "this metric comes only from an Apple Health export and cannot be imported from CSV."
        case .notANumber: "the value is not a number (write decimals with a dot, like 3.5)."
        case .outOfRange(let range): "the value is outside the metric's range (\(range))."
        case .noteTooLong: "the note is longer than 500 characters."
        case .controlCharacterInNote: "the note contains a control character (such as an escape code or a NUL byte)."
        case .badTime: "the time is not written HH:MM or HH:MM:SS."
        case .badTimeZone: "the time zone is not a zone name such as Europe/Berlin or UTC."
        case .timeInFuture: "the time is after now."
        case .unknownProduct: "the product is not in your product list (match its name exactly, or use its id)."
        case .ambiguousProduct: "two products have this name; use the product's id instead."
        case .badStatus: "the status must be taken or skipped."
        case .impossibleAmount: "the amount must be a number above zero and at most 100 servings."
        case .unknownUnit: "the unit is not one Cairn knows (servings, capsules, tablets, g, mg, mL, ...)."
        case .unitDoesNotMatchServing: "the unit does not match how this product's serving is measured (a count, a mass or a volume)."
        }
    }
}
