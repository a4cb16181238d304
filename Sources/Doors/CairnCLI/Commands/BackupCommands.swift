import CairnApp
import CairnCore
import Encryption
import Foundation

/// `cairn backup create|verify|restore`: encrypted backups of the vault.
enum BackupCommands {
    static var group: CommandGroup {
        CommandGroup(
            name: "backup", abstract: "Encrypted backups of the vault, checked before they count.",
            children: [
                .command(BackupCreateCommand.self),
                .command(BackupVerifyCommand.self),
                .command(BackupRestoreCommand.self),
            ])
    }
}

/// Where a passphrase comes from: a terminal (typed, not shown), `--passphrase-file FILE` or `--passphrase-fd N`.
/// Never an argument or an environment variable, which other users and programs can read. The one parser of a
/// passphrase for every command.
struct PassphraseInput {
    static let file = Option("--passphrase-file", "FILE", help: "Read the passphrase from the first line of FILE.")
    static let descriptor = Option("--passphrase-fd", "N", help: "Read the passphrase from the first line of file descriptor N.")
    static let options = [file, descriptor]

    /// A new vault passphrase, for `cairn settings lock change`.
    static let newFile = Option("--new-passphrase-file", "FILE", help: "Read the new passphrase from the first line of FILE.")
    /// The vault's passphrase for any command, global like `--data-dir` (a command's own `--passphrase-file` is
    /// the passphrase it is about, such as a backup's).
    static let vaultFile = "--vault-passphrase-file"
    static let vaultDescriptor = "--vault-passphrase-fd"

    /// Why no passphrase could be had.
    enum Failure: CairnError, Equatable {
        case none, unreadable, mismatch, lockedVault
        var userMessage: String {
            switch self {
            case .none:
                return "A passphrase is needed: type it at a terminal, or pass --passphrase-file FILE or --passphrase-fd N."
            case .unreadable: return "The passphrase could not be read from that file or descriptor."
            case .mismatch: return "The two passphrases differ. Nothing was written."
            case .lockedVault:
                return
                    "This vault is locked: type its passphrase at a terminal, or pass --vault-passphrase-file FILE or --vault-passphrase-fd N. Nothing was changed."
            }
        }
    }

    private enum Source {
        case terminal
        case file(String)
        case descriptor(Int32)
    }
    private let source: Source
    /// What is said when nobody can type the passphrase and no file or descriptor names it.
    private let missing: Failure

    init(arguments: Arguments) throws {
        try self.init(path: arguments.value(Self.file).map(arguments.filePath), descriptor: arguments.value(Self.descriptor))
    }

    /// The new passphrase of `cairn settings lock change` (`--new-passphrase-file`, else the terminal).
    init(newPassphraseIn arguments: Arguments) throws {
        try self.init(path: arguments.value(Self.newFile).map(arguments.filePath), descriptor: nil)
    }

    /// From a file path or a descriptor number as given (at most one, under the option names `names`), else the
    /// terminal; `missing` is what is said when neither is given and nobody can type.
    init(
        path: String?, descriptor: String?, missing: Failure = .none,
        names: (file: String, descriptor: String) = ("--passphrase-file", "--passphrase-fd")
    ) throws {
        let fd = try descriptor.map { text -> Int32 in
            guard let n = Int32(text), n >= 0 else { throw UsageError("\(names.descriptor) needs a file descriptor number.") }
            return n
        }
        self.missing = missing
        switch (path, fd) {
        case (let path?, nil): source = .file(path)
        case (nil, let fd?): source = .descriptor(fd)
        case (nil, nil): source = .terminal
        default: throw UsageError("Give \(names.file) or \(names.descriptor), not both.")
        }
    }

    /// Whether a file descriptor was named (one of this process: a command given one runs here, not in a server).
    var isDescriptor: Bool {
        if case .descriptor = source { return true }
        return false
    }

    /// Whether a file or a descriptor was named (not the terminal).
    var isGiven: Bool {
        if case .terminal = source { return false }
        return true
    }

    /// The passphrase. At a terminal, `confirming` asks twice (a new backup's passphrase) after `warning`.
    func read(console: Console, prompt: String, confirming: Bool = false, warning: String? = nil) throws -> Passphrase {
        switch source {
        case .file(let path):
            let data = try InputFile.read(path, maximumBytes: 64 << 10)
            return try firstLine(data)
        case .descriptor(let fd):
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            guard let data = try? handle.read(upToCount: 64 << 10) else { throw Failure.unreadable }
            return try firstLine(data)
        case .terminal:
            guard console.canAskSecret else { throw missing }
            if let warning { console.error(warning) }
            guard let typed = console.askSecret(prompt), !typed.isEmpty else { throw missing }
            let passphrase = try Passphrase(typed)
            if confirming {
                guard let again = console.askSecret("Type it again: "), passphrase.matches(try Passphrase(again)) else {
                    throw Failure.mismatch
                }
            }
            return passphrase
        }
    }

    private func firstLine(_ data: Data) throws -> Passphrase {
        var line =
            String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if line.hasSuffix("\r") { line.removeLast() }
        guard !line.isEmpty else { throw Failure.unreadable }
        return try Passphrase(line)
    }
}

/// `cairn backup create FILE|FOLDER`.
struct BackupCreateCommand: Command {
    static let name = "create"
    static let abstract = "Write an encrypted backup of the whole vault and check that it restores."
    static let synopsis = "FILE|FOLDER"
    static let discussion = """
        Writes the database (a consistent snapshot, also while cairn serve runs) and every photo into one file,
        encrypted with a backup passphrase, owner-only. Before it says done, it decrypts the whole file again and
        compares every SHA-256 with the backup's manifest. With a FOLDER, the file is named by the date.
        If you forget the passphrase, the backup cannot be opened: nobody can recover it.
        """
    static let keep = Option("--keep", "N", help: "With a FOLDER: keep this vault's newest N backups there, remove older ones.")
    static let options: [Option] = [keep] + PassphraseInput.options

    let path: String, keepCount: Int?, passphrase: PassphraseInput
    /// It runs inside `cairn serve` (CommandForwarding) unless the passphrase comes from a descriptor of this process.
    var goesThroughServer: Bool { !passphrase.isDescriptor }

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE|FOLDER"])[0])
        keepCount = arguments.value(Self.keep) == nil ? nil : try arguments.integer(Self.keep, in: 1...1000, default: 1)
        passphrase = try PassphraseInput(arguments: arguments)
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        let secret = try passphrase.read(
            console: context.console, prompt: "Backup passphrase: ", confirming: true,
            warning: """
                Choose a passphrase for this backup (at least \(BackupService.minimumPassphraseLength) characters). \
                If you forget it, the backup cannot be opened: nobody can recover it.
                """)
        context.console.error("Writing the backup, then reading it all back to check it…")
        let result = try application.backups.create(at: path, passphrase: secret, keep: keepCount)
        context.console.print("Backup written and verified: \(photoCount(result.summary.photoCount)) and the database, every SHA-256 checked.")
        context.console.print("File: \(result.path)")
        for old in result.removed { context.console.print("Removed an older backup: \(old)") }
    }
}

/// `cairn backup verify FILE`.
struct BackupVerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Decrypt a backup completely and check every file against its manifest."
    static let synopsis = "FILE"
    static let options: [Option] = PassphraseInput.options
    /// It never runs inside `cairn serve` (CommandForwarding): it opens no vault.
    var goesThroughServer: Bool { false }

    let path: String, passphrase: PassphraseInput

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE"])[0])
        passphrase = try PassphraseInput(arguments: arguments)
    }

    func run(in context: CommandContext) throws {
        try BackupService.checkHeader(ofBackupAt: path)
        let secret = try passphrase.read(console: context.console, prompt: "Backup passphrase: ")
        let summary = try BackupService.verify(at: path, passphrase: secret)
        context.console.print("The backup is complete and intact: \(photoCount(summary.photoCount)) and the database, every SHA-256 checked.")
        context.console.print("Made \(summary.createdAt) of the vault \(summary.vaultID).")
    }
}

/// `cairn backup restore FILE --data-dir DIR`.
struct BackupRestoreCommand: Command {
    static let name = "restore"
    static let abstract = "Restore a backup into a new, empty vault folder."
    static let synopsis = "FILE"
    static let usage = "FILE --data-dir DIR [--passphrase-file FILE] [--passphrase-fd N]"
    static let discussion = """
        DIR (the global --data-dir, required here) must be missing or empty: a restore never replaces a vault.
        Everything is written beside it, checked (every SHA-256, then the database's integrity), and only then
        moved into place; if anything fails, DIR is left as it was.
        """
    static let options: [Option] = PassphraseInput.options
    /// It never runs inside `cairn serve` (CommandForwarding): it opens no vault.
    var goesThroughServer: Bool { false }

    let path: String, passphrase: PassphraseInput

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE"])[0])
        passphrase = try PassphraseInput(arguments: arguments)
    }

    func run(in context: CommandContext) throws {
        guard let dataDirectory = context.dataDirectory else {
            throw UsageError("Name the folder to restore into with --data-dir DIR (a new or empty folder).")
        }
        let target = try BackupService.restoreTarget(dataDirectory: dataDirectory, environment: context.environment)
        try BackupService.checkHeader(ofBackupAt: path)
        try BackupService.checkRestoreTarget(target)
        let secret = try passphrase.read(console: context.console, prompt: "Backup passphrase: ")
        let summary = try BackupService.restore(from: path, into: target, passphrase: secret)
        context.console.print("Restored and verified: \(photoCount(summary.photoCount)) and the database, made \(summary.createdAt).")
        context.console.print("Vault: \(target.path)")
    }
}

/// "1 photo", "2 photos": the count the backup commands print.
private func photoCount(_ count: Int) -> String { count == 1 ? "1 photo" : "\(count) photos" }
