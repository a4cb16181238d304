import CairnApp
import CairnCore
import Encryption
import Foundation

/// One `cairn` subcommand: its help, its validation (in `init`) and its work (in `run`), kept apart so that
/// validation never touches the vault.
///
/// Its options are declared once, as `Option`s in `options`; the parsing, the usage line and the "Options:"
/// section of `--help` all come from that list (see docs/ARCHITECTURE.md, "How to add a command").
public protocol Command {
    /// The word that selects it, e.g. "serve".
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The positional arguments for the usage line, e.g. "AREA PHOTO"; empty when there are none.
    static var synopsis: String { get }
    /// Every option the command takes, in the order the usage and the help list them. `--data-dir` is global.
    static var options: [Option] { get }
    /// The arguments after the command path: by default the synopsis, then the options (`[--port N] [--json]`).
    /// Declare it only when the command has alternative forms (`DOSE-ID | --extra PRODUCT`).
    static var usage: String { get }
    /// What the help says between the usage line and the options; may be empty.
    static var discussion: String { get }
    /// True for a command that only reads the vault: it opens without housekeeping (no sweep, no recomputed
    /// comparisons, no write lock), so it answers in the time a read takes. Default false.
    static var readsOnly: Bool { get }
    /// False for a command after which Cairn never notes that the vault has no passphrase (`LockNote`): the lock's
    /// own command, the server (its pages ask), the reminder loop, deleting everything. Default true.
    static var notesMissingLock: Bool { get }
    /// Whether it runs inside a running `cairn serve` when one has the vault open (`CommandForwarding`). Default
    /// true; false for commands that do not open the vault or must run in the person's own process.
    var goesThroughServer: Bool { get }
    /// Validates the arguments; throws `UsageError` for a malformed call.
    init(arguments: Arguments) throws
    /// Does the work. Throws a `CairnError` for a problem the person can fix.
    func run(in context: CommandContext) throws
}

extension Command {
    public static var synopsis: String { "" }
    public static var options: [Option] { [] }
    public static var discussion: String { "" }
    public static var readsOnly: Bool { false }
    public static var notesMissingLock: Bool { true }
    public var goesThroughServer: Bool { true }
    public static var usage: String {
        [synopsis, Option.usage(of: options)].filter { !$0.isEmpty }.joined(separator: " ")
    }
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
    /// Where the vault's passphrase comes from when the vault is locked (`--vault-passphrase-file`, else the terminal).
    let vaultPassphrase: PassphraseInput
    /// Whether the running command only reads (`Command.readsOnly`).
    public var readsOnly = false
    /// The application of the `cairn serve` the command runs in (`CommandForwarding`); nil when it runs on its own.
    let served: CairnApplication?

    init(
        console: Console, environment: [String: String], dataDirectory: String?, vaultPassphrase: PassphraseInput,
        readsOnly: Bool, application served: CairnApplication? = nil
    ) {
        self.console = console
        self.environment = environment
        self.dataDirectory = dataDirectory
        self.vaultPassphrase = vaultPassphrase
        self.readsOnly = readsOnly
        self.served = served
    }

    /// Opens the vault (creating it on first use) with every service wired, on `clock`; inside `cairn serve`, the
    /// server's open vault (`CommandForwarding`). A command that only
    /// reads opens it without housekeeping (`CairnApplication.Housekeeping`). A locked vault is opened with the
    /// passphrase `passphrase` gives, else with the global `--vault-passphrase-file` or one typed at the terminal;
    /// without any it fails ("This vault is locked ...", exit 1).
    public func openApplication() throws -> CairnApplication {
        try openApplication(passphrase: nil)
    }

    func openApplication(passphrase given: Passphrase?) throws -> CairnApplication {
        if let served { return served }
        let ask = askVaultPassphrase
        let application = try CairnApplication.open(
            dataDirectory: dataDirectory, environment: environment, clock: clock,
            housekeeping: readsOnly ? .none : .now, passphrase: { try given ?? ask() })
        Self.tellKeptAside(application, console: console)
        return application
    }

    /// Says, once, that the opening's tidying moved photo files no record names to `lost+found` (nothing deleted).
    static func tellKeptAside(_ application: CairnApplication, console: Console) {
        let count = application.photosKeptAside
        guard count > 0 else { return }
        console.error(
            "\(CountText.counted(count, "photo file")) that no record names \(count == 1 ? "was" : "were") moved to "
                + "the lost+found folder in the data folder; nothing was deleted. 'cairn doctor' lists what is there.")
    }

    /// Reads the vault's passphrase as the command line says (`--vault-passphrase-file`, else the terminal).
    var askVaultPassphrase: () throws -> Passphrase {
        let input = vaultPassphrase
        let console = console
        return { try input.read(console: console, prompt: "Vault passphrase: ") }
    }

    /// The clock every command runs on: the system time in `TZ`'s zone (else the machine's), or the fixed
    /// instant `CAIRN_NOW` (ISO 8601) for reproducible tests and demos.
    public var clock: any Clock {
        if let instant = fixedInstant { return FixedClock(instant, timeZone: timeZone) }
        return ZonedSystemClock(timeZone: timeZone)
    }

    /// The clock's zone and fixed instant as text, equal for two contexts whose clocks agree: a command goes
    /// through a running server only when the server's clock is the same (`CommandForwarding`).
    var clockIdentity: String {
        timeZone.identifier + (fixedInstant.map { " " + String($0.timeIntervalSince1970) } ?? "")
    }

    private var timeZone: TimeZone {
        environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) } ?? TimeZone.current
    }

    private var fixedInstant: Date? { environment["CAIRN_NOW"].flatMap(RegimenCommands.parseInstant) }
}
