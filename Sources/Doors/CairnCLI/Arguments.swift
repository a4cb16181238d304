import CairnCore
import Foundation

/// A mistake in how a command was called. The CLI prints it with a hint and exits 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The words after a command's name, split into the command's declared options and positional arguments.
///
/// Options with a value name take a value (`--port 8737` or `--port=8737`); flags do not (`--json`). A lone `--`
/// ends option parsing, so a file named `--odd` can still be passed. Unknown options are a usage error, never
/// ignored.
public struct Arguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private let declared: Set<Option>
    /// The folder relative file arguments are taken from (`filePath`): the current directory of the `cairn` process
    /// the person ran, also when the command runs inside `cairn serve` (CommandForwarding).
    public let workingDirectory: String

    /// Parses `tokens` against the command's `options`; relative file arguments are taken from `workingDirectory`.
    public init(
        _ tokens: [String], options: [Option],
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) throws {
        declared = Set(options)
        self.workingDirectory = workingDirectory
        let valueOptions = Set(options.filter(\.takesValue).map(\.name))
        let flagOptions = Set(options.filter { !$0.takesValue }.map(\.name))
        var index = 0
        var optionsEnded = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            var name = token
            var inlineValue: String?
            if let eq = token.firstIndex(of: "=") {
                name = String(token[..<eq])
                inlineValue = String(token[token.index(after: eq)...])
            }
            if valueOptions.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else if index < tokens.count {
                    values[name, default: []].append(tokens[index])
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value.")
                }
            } else if flagOptions.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                throw UsageError("Unknown option \(name).")
            }
        }
    }

    /// The value given for `option`, if any (the last one when it was given more than once).
    public func value(_ option: Option) -> String? {
        precondition(declared.contains(option) && option.takesValue, "\(option.name) is not one of the command's options with a value")
        return values[option.name]?.last
    }

    /// The value of `option` read by its type's one parser (`TextParsable`); nil when the option is absent. The
    /// parser's refusal becomes a usage error naming the option ("--from: A date must be written as ...").
    public func value<Value: TextParsable>(_ option: Option, as type: Value.Type) throws -> Value? {
        try value(option).map { try Self.parse($0, as: type, naming: option.name) }
    }

    /// `text` (an option's or a positional argument's) read by its type's one parser; a refusal is a usage error
    /// that starts with `name`.
    public static func parse<Value: TextParsable>(_ text: String, as type: Value.Type, naming name: String) throws -> Value {
        do { return try Value.parse(text) } catch let refusal as any CairnError { throw UsageError("\(name): \(refusal.userMessage)") }
    }

    /// Every value given for `option`, in order (`--accept 2 --accept 5`).
    public func values(_ option: Option) -> [String] {
        precondition(declared.contains(option) && option.takesValue, "\(option.name) is not one of the command's options with a value")
        return values[option.name] ?? []
    }

    /// Whether the flag `option` was given.
    public func has(_ option: Option) -> Bool {
        precondition(declared.contains(option) && !option.takesValue, "\(option.name) is not one of the command's flags")
        return flags.contains(option.name)
    }

    /// The value of `option` as a whole number in `range`, or `defaultValue` when absent.
    public func integer(_ option: Option, in range: ClosedRange<Int>, default defaultValue: Int) throws -> Int {
        guard let text = value(option) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(option.name) takes a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// A file or folder argument as an absolute path: a relative one is taken from `workingDirectory`. Every file
    /// argument goes through here before it is used, so that a command run inside `cairn serve` reads and writes
    /// the files the person named from their own folder (the server never changes its current directory).
    public func filePath(_ text: String) -> String {
        guard !text.isEmpty, !text.hasPrefix("/"), !workingDirectory.isEmpty else { return text }
        return workingDirectory.hasSuffix("/") ? workingDirectory + text : workingDirectory + "/" + text
    }

    /// Exactly `count` positional arguments, named for the error message.
    public func positionals(exactly names: [String]) throws -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count {
                throw UsageError("Missing \(names[positionals.count]).")
            }
            throw UsageError("Unexpected argument \(positionals[names.count]).")
        }
        return positionals
    }
}
