import CairnCore
import Outcomes

/// What an import did with one line of its file.
public enum ImportLineResult: String, Hashable, Sendable {
    /// A new record was saved.
    case added
    /// The same line was imported before; nothing was saved.
    case unchanged
    /// An earlier import saved something else for this line's key; a new record supersedes it (both are kept).
    case replaced
}

/// Why an import saved nothing although the file itself could be read as CSV: some lines are bad. Imports
/// are all-or-nothing, so one bad line keeps the whole file out; every bad line is listed.
public enum ImportLinesError: CairnError, Hashable, Sendable {
    /// The bad lines, each with its line number and reason (never its content).
    case badLines([LineProblem])

    /// The bad lines.
    public var problems: [LineProblem] {
        switch self {
        case .badLines(let problems): problems
        }
    }

    /// What a door lists under the message: the first 20 bad lines ("Line 4: the date is ..."), then how many
    /// more (`ProblemList`).
    public var listedProblems: [String] { ProblemList.entries(problems) { $0.message } }

    /// "2 lines could not be read, so nothing was imported. ..."
    public var userMessage: String {
        let count = problems.count
        return
            "\(CountText.counted(count, "line")) could not be read, so nothing was imported. Fix \(count == 1 ? "it" : "them") and import the file again."
    }
}

/// A line-by-line import's report: how many lines were added, unchanged or replaced, and its one-line summary.
public protocol LineImportReport {
    /// What happened to each data line, in file order.
    var lineResults: [ImportLineResult] { get }
}

extension LineImportReport {
    /// Lines saved as new records.
    public var added: Int { lineResults.filter { $0 == .added }.count }
    /// Lines imported before, unchanged.
    public var unchanged: Int { lineResults.filter { $0 == .unchanged }.count }
    /// Lines whose correction superseded an earlier import.
    public var replaced: Int { lineResults.filter { $0 == .replaced }.count }

    /// "Read 3 lines: 2 new, 1 replaced an earlier import, 0 already there."
    public var summary: String {
        let count = lineResults.count
        return
            "Read \(CountText.counted(count, "line")): \(CountText.grouped(added)) new, \(CountText.grouped(replaced)) replaced an earlier import, \(CountText.grouped(unchanged)) already there."
    }
}
