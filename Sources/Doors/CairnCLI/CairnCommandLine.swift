import CairnApp
import CairnCore
import Foundation

/// The `cairn` command line: finds the subcommand, handles `--help` and `--data-dir`, runs it, and maps the
/// outcome to an exit code: 0 ok, 1 a problem with the input or the vault (message on stderr), 2 usage.
public enum CairnCommandLine {
    /// Every command, in the order `cairn --help` lists them.
    public static var commands: [CommandEntry] {
        [
            .command(ServeCommand.self),
            .command(RemindCommand.self),
            .command(DoctorCommand.self),
            .command(InspectCommand.self),
            .group(SkinCommands.group),
            .group(SmileCommands.group),
            .group(RegimenCommands.group),
            .group(BackupCommands.group),
            .group(ExportCommands.group),
            .group(
                CommandGroup(
                    name: "settings", abstract: "Vault-wide settings: the lock, and deleting all data.",
                    children: [
                        .command(LockCommand.self),
                        .command(DeleteAllDataCommand.self),
                    ])),
        ]
    }

    /// The version `cairn --version` prints.
    public static let version = "0.1.0"

    /// Runs `cairn` with `tokens` (the words after the program name) and returns the exit code.
    public static func run(
        _ tokens: [String], console: Console = .standard(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        var words = tokens
        var dataDirectory: String?
        let vaultPassphrase: PassphraseInput
        do {
            dataDirectory = try extractGlobal("--data-dir", what: "a folder", from: &words)
            vaultPassphrase = try PassphraseInput(
                path: extractGlobal(PassphraseInput.vaultFile, what: "a file", from: &words),
                descriptor: extractGlobal(PassphraseInput.vaultDescriptor, what: "a file descriptor number", from: &words),
                missing: .lockedVault,
                names: (PassphraseInput.vaultFile, PassphraseInput.vaultDescriptor))
        } catch let usage as UsageError {
            return usageFailure(usage, path: [], console: console)
        } catch {
            return 2
        }

        return dispatch(
            words, console: console, environment: environment, dataDirectory: dataDirectory,
            vaultPassphrase: vaultPassphrase, served: nil)
    }

    /// Runs a command sent by a client over the vault's socket (`CommandForwarding`), inside `cairn serve`, against
    /// its open `application`; relative file arguments are taken from the client's `workingDirectory`.
    static func runInServer(
        _ words: [String], console: Console, environment: [String: String],
        application: CairnApplication, workingDirectory: String
    ) -> Int32 {
        dispatch(
            words, console: console, environment: environment, dataDirectory: application.vault.directory.path,
            vaultPassphrase: try! PassphraseInput(path: nil, descriptor: nil),
            served: Served(application: application, workingDirectory: workingDirectory))
    }

    /// What a command run inside `cairn serve` is given: the server's application, the client's directory.
    struct Served {
        let application: CairnApplication
        let workingDirectory: String
    }

    /// Finds the command `words` name (after the global options) and runs it, here or, when a server has the
    /// vault open, through it (`CommandForwarding`); inside the server (`served`), against its application.
    private static func dispatch(
        _ tokens: [String], console: Console, environment: [String: String],
        dataDirectory: String?, vaultPassphrase: PassphraseInput, served: Served?
    ) -> Int32 {
        var words = tokens
        var path: [String] = []
        var entries = commands
        var group: CommandGroup?
        while true {
            guard let first = words.first else {
                if let group {
                    console.error(help(for: group, path: path))
                    return 2
                }
                console.print(topLevelHelp())
                return 0
            }
            if first == "--help" || first == "-h" || first == "help" {
                console.print(group.map { help(for: $0, path: path) } ?? topLevelHelp())
                return 0
            }
            if first == "--version", group == nil {
                console.print("cairn \(version)")
                return 0
            }
            guard let entry = entries.first(where: { $0.name == first }) else {
                let what = first.hasPrefix("-") ? "Unknown option \(first)." : "Unknown command '\(first)'."
                return usageFailure(UsageError(what), path: path, console: console)
            }
            words.removeFirst()
            path.append(first)
            switch entry {
            case .group(let next):
                group = next
                entries = next.children
            case .command(let type):
                return runCommand(
                    type, words: words, path: path, console: console, environment: environment,
                    dataDirectory: dataDirectory, vaultPassphrase: vaultPassphrase, served: served)
            }
        }
    }

    private static func runCommand(
        _ type: any Command.Type, words: [String], path: [String], console: Console,
        environment: [String: String], dataDirectory: String?,
        vaultPassphrase: PassphraseInput, served: Served?
    ) -> Int32 {
        if words.contains("--help") || words.contains("-h") {
            console.print(help(for: type, path: path))
            return 0
        }
        let workingDirectory = served?.workingDirectory ?? FileManager.default.currentDirectoryPath
        let command: any Command
        do {
            let arguments = try Arguments(words, options: type.options, workingDirectory: workingDirectory)
            command = try type.init(arguments: arguments)
        } catch let usage as UsageError {
            return usageFailure(usage, path: path, console: console)
        } catch {
            return usageFailure(UsageError("Could not read the arguments."), path: path, console: console)
        }
        let context = CommandContext(
            console: console, environment: environment, dataDirectory: dataDirectory,
            vaultPassphrase: vaultPassphrase, readsOnly: type.readsOnly,
            application: served?.application)
        if served != nil, !command.goesThroughServer {
            console.error("cairn: \(path.joined(separator: " ")) does not run inside cairn serve; run it on its own.")
            return 2
        }
        if served == nil, command.goesThroughServer,
            let directory = try? VaultFolder.directory(dataDirectory: dataDirectory, environment: environment),
            let code = CommandForwarding.run(
                path + words, vaultDirectory: directory, workingDirectory: workingDirectory,
                clock: context.clockIdentity, console: console)
        {
            return code
        }
        do {
            try command.run(in: context)
            if !type.readsOnly, type.notesMissingLock { LockCommand.noteIfDue(context) }
            // As after a form taken by the web: insights catch up, in the server's background.
            if let served, !type.readsOnly { _ = try? served.application.insights.recomputeInBackgroundIfNeeded() }
            return 0
        } catch let usage as UsageError {
            return usageFailure(usage, path: path, console: console)
        } catch let problem as CairnError {
            console.error("cairn: \(problem.userMessage)")
            return Self.exitCode(for: problem.errorKind)
        } catch {
            // Never print an unknown error's description: it may carry paths or other private text.
            console.error("cairn: an unexpected problem stopped the command (\(String(describing: Swift.type(of: error)))).")
            return 1
        }
    }

    /// The one mapping of a refusal's kind to an exit code: 1 for every kind (the README's "1 a problem with the
    /// input or the vault"); 2 is a usage error, which is not a `CairnError`. A new kind changes no existing code.
    public static func exitCode(for kind: ErrorKind) -> Int32 {
        switch kind {
        case .notFound, .refusedInput, .conflict, .unavailable, .failure: return 1
        }
    }

    /// Takes a global option (`--data-dir DIR`, `--vault-passphrase-file FILE`) out of `words`, wherever it stands
    /// before `--`; the last one given counts.
    private static func extractGlobal(_ name: String, what: String, from words: inout [String]) throws -> String? {
        var result: String?
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--" { break }
            if word == name {
                guard index + 1 < words.count, !words[index + 1].isEmpty else {
                    throw UsageError("\(name) needs \(what).")
                }
                result = words[index + 1]
                words.removeSubrange(index...index + 1)
            } else if word.hasPrefix(name + "=") {
                let value = String(word.dropFirst(name.count + 1))
                guard !value.isEmpty else { throw UsageError("\(name) needs \(what).") }
                result = value
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return result
    }

    private static func usageFailure(_ usage: UsageError, path: [String], console: Console) -> Int32 {
        let command = (["cairn"] + path).joined(separator: " ")
        console.error("\(command): \(usage.message)")
        console.error("Run '\(command) --help' for usage.")
        return 2
    }

    // MARK: help

    static func topLevelHelp() -> String {
        """
        Cairn: a private health journal. Everything stays on this computer.

        Usage: cairn [--data-dir DIR] [--vault-passphrase-file FILE] <command> [options]

        Commands:
        \(list(commands))

        Global options:
          --data-dir DIR                 Use DIR as the vault. Default: $CAIRN_HOME if set, else
                                         $XDG_DATA_HOME/cairn, else ~/.local/share/cairn.
          --vault-passphrase-file FILE   When the vault is locked, read its passphrase from the first
                                         line of FILE (else it is asked at the terminal).
          --vault-passphrase-fd N        The same, from file descriptor N.
          -h, --help                     Show help; 'cairn <command> --help' for one command.
          --version                      Show the version.

        While 'cairn serve' has the vault unlocked, commands run inside it and need no passphrase
        (all but serve, remind, doctor, inspect, backup verify, backup restore and settings lock);
        relative paths are taken from this folder.

        Exit codes: 0 done; 1 a problem with the input or the vault (said on stderr); 2 usage error.
        """
    }

    static func help(for group: CommandGroup, path: [String]) -> String {
        let command = (["cairn"] + path).joined(separator: " ")
        return """
            \(group.abstract)

            Usage: \(command) <command> [options]

            Commands:
            \(list(group.children))
            """
    }

    static func help(for type: any Command.Type, path: [String]) -> String {
        let command = (["cairn"] + path).joined(separator: " ")
        var text = "\(type.abstract)\n\nUsage: \(command)\(type.usage.isEmpty ? "" : " " + type.usage)"
        if !type.discussion.isEmpty { text += "\n\n" + type.discussion }
        let options = Option.helpSection(of: type.options)
        if !options.isEmpty { text += "\n\n" + options }
        return text
    }

    private static func list(_ entries: [CommandEntry]) -> String {
        let width = (entries.map(\.name.count).max() ?? 0) + 3
        return entries.map { entry in
            "  " + entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + entry.abstract
        }.joined(separator: "\n")
    }
}
