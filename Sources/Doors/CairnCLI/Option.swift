/// One option of a command, declared once: its name, the name of its value (none for a flag) and its help. The
/// declaration alone makes the parsing (`Arguments`), the usage line and the "Options:" section of `--help`.
///
/// ```swift
/// static let port = Option("--port", "N", help: "The port to listen on.")
/// static let json = Option("--json", help: "Print JSON.")
/// static let options = [port, json]
/// ```
public struct Option: Hashable, Sendable {
    /// The name as typed, e.g. `--port`.
    public let name: String
    /// The value's name in the usage and help, e.g. `N`; nil for a flag, which takes no value.
    public let valueName: String?
    /// The help; a `\n` starts a new line, indented under the first in `--help`. Consecutive options with the
    /// same help share one line (`--from DATE, --to DATE`).
    public let help: String
    /// Shown without brackets in the usage line (the command checks that it was given).
    public let isRequired: Bool

    /// Declares an option that takes a value (`valueName`) or, without one, a flag.
    public init(_ name: String, _ valueName: String? = nil, help: String, required: Bool = false) {
        precondition(name.hasPrefix("--"), "an option's name starts with --")
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = required
    }

    /// The same option, shown without brackets in the usage line.
    public var required: Option { Option(name, valueName, help: help, required: true) }

    /// Whether it takes a value.
    public var takesValue: Bool { valueName != nil }

    /// `--port N` or `--json`, as the usage line and the help show it.
    public var label: String { valueName.map { "\(name) \($0)" } ?? name }

    /// `[--port N]`, or `--out PATH` when required.
    var usage: String { isRequired ? label : "[\(label)]" }
}

extension Option {
    /// The usage line's options part: `[--port N] [--json]`.
    static func usage(of options: [Option]) -> String {
        options.map(\.usage).joined(separator: " ")
    }

    /// The "Options:" section of `--help` (empty without options): one line per option, or per run of options
    /// that share their help, with the help in one column.
    static func helpSection(of options: [Option]) -> String {
        var rows: [(label: String, help: String)] = []
        for option in options {
            if let last = rows.last, last.help == option.help {
                rows[rows.count - 1].label += ", " + option.label
            } else {
                rows.append((option.label, option.help))
            }
        }
        guard !rows.isEmpty else { return "" }
        let width = rows.map(\.label.count).max()! + 3
        let indent = String(repeating: " ", count: width + 2)
        let lines = rows.map { row in
            "  " + row.label.padding(toLength: width, withPad: " ", startingAt: 0)
                + row.help.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
        }
        return "Options:\n" + lines.joined(separator: "\n")
    }
}

extension Option {
    /// `--json` for a command whose JSON needs no more words; a command says what it prints when that helps.
    public static let json = Option("--json", help: "Print JSON.")
}
