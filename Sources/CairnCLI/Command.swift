import CairnApp
import CairnCore
import Foundation

/// One `cairn` subcommand: its help, its validation (in `init`) and its work (in `run`), kept apart so that
/// validation never touches the vault.
public protocol Command {
    /// The word that selects it, e.g. "serve".
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The arguments after the command path, e.g. "[--port N] [--host 127.0.0.1]".
    static var usage: String { get }
    /// Options and details, shown by `--help`; may be empty.
    static var discussion: String { get }
    /// Options that take a value. `--data-dir` is global and need not be listed.
    static var valueOptions: Set<String> { get }
    /// Options that take no value, such as `--json`.
    static var flagOptions: Set<String> { get }
    /// Validates the arguments; throws `UsageError` for a malformed call.
    init(arguments: Arguments) throws
    /// Does the work. Throws a `CairnError` for a problem the person can fix.
    func run(in context: CommandContext) throws
}

extension Command {
    public static var discussion: String { "" }
    public static var valueOptions: Set<String> { [] }
    public static var flagOptions: Set<String> { [] }
}

/// A word that groups subcommands, e.g. `cairn settings delete-all-data`.
public struct CommandGroup {
    public let name: String
    public let abstract: String
    public let children: [CommandEntry]
    public init(name: String, abstract: String, children: [CommandEntry]) {
        self.name = name
        self.abstract = abstract
        self.children = children
    }
}

/// A node of the command tree.
public enum CommandEntry {
    case command(any Command.Type)
    case group(CommandGroup)

    var name: String {
        switch self {
        case .command(let type): return type.name
        case .group(let group): return group.name
        }
    }

    var abstract: String {
        switch self {
        case .command(let type): return type.abstract
        case .group(let group): return group.abstract
        }
    }
}

/// What a running command may use: where to write, the environment, and the vault it was pointed at.
public struct CommandContext {
    public let console: Console
    public let environment: [String: String]
    /// The `--data-dir` given on the command line, if any.
    public let dataDirectory: String?

    /// Opens the vault (creating it on first use) with every service wired, on `clock`.
    public func openApplication() throws -> CairnApplication {
        try CairnApplication.open(dataDirectory: dataDirectory, environment: environment, clock: clock)
    }

    /// The clock every command runs on: the system time in `TZ`'s zone (else the machine's), or the fixed
    /// instant `CAIRN_NOW` (ISO 8601) for reproducible tests and demos.
    public var clock: any Clock {
        let zone = environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) }
            ?? TimeZone.current
        if let text = environment["CAIRN_NOW"], let instant = RegimenCommands.parseInstant(text) {
            return FixedClock(instant, timeZone: zone)
        }
        return ZonedSystemClock(timeZone: zone)
    }
}
