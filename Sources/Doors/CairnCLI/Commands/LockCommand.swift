import CairnApp
import CairnCore
import Encryption
import Foundation

/// `cairn settings lock on|off|change`: the vault's passphrase, and the database and photos encrypted at rest.
struct LockCommand: Command {
    static let name = "lock"
    static let notesMissingLock = false
    static let abstract = "Turn the passphrase lock (database and photos encrypted) on or off, or change the passphrase."
    static let synopsis = "on|off|change|not-now"
    static let discussion = """
        on      Choose a passphrase; the database and every photo are encrypted in place (a crash leaves the old
                vault or the new one, never neither). Every later command asks for the passphrase.
        off     The database and photos are decrypted in place; the vault opens without a passphrase again.
        change  A new passphrase for the same key: nothing else changes.
        not-now Cairn stops asking: once a vault holds records and never had a lock, a command that changed
                data says so at a terminal (never in a script) until the lock is turned on or this is said.
        If you forget the passphrase, the data cannot be recovered: nobody can do it, Cairn neither.
        The passphrase is typed at the terminal (not shown) or read from a file; never from an argument.
        """
    static let options: [Option] = PassphraseInput.options + [PassphraseInput.newFile]

    /// It never runs inside `cairn serve` (CommandForwarding): it converts the vault in place.
    var goesThroughServer: Bool { false }

    enum Action: String {
        case on, off, change
        case notNow = "not-now"
    }
    let action: Action, passphrase: PassphraseInput, newPassphrase: PassphraseInput

    init(arguments: Arguments) throws {
        let word = try arguments.positionals(exactly: ["on|off|change|not-now"])[0]
        guard let action = Action(rawValue: word) else { throw UsageError("Say on, off, change or not-now, not '\(word)'.") }
        self.action = action
        passphrase = try PassphraseInput(arguments: arguments)
        newPassphrase = try PassphraseInput(newPassphraseIn: arguments)
        if action != .change, arguments.value(PassphraseInput.newFile) != nil {
            throw UsageError("--new-passphrase-file goes with 'change' only.")
        }
    }

    func run(in context: CommandContext) throws {
        let (directory, environment) = (context.dataDirectory, context.environment)
        let console = context.console
        switch action {
        case .on:
            if try LockService.conversionUnfinished(dataDirectory: directory, environment: environment) {
                // A lock change stopped half-way: opening with the passphrase finishes encrypting the photos.
                let secret = try passphrase.read(console: console, prompt: "Vault passphrase: ")
                _ = try context.openApplication(passphrase: secret)
                console.print(LockService.Done.turnedOn.message)
                return
            }
            try LockService.require(on: false, dataDirectory: directory, environment: environment)
            let secret = try passphrase.read(
                console: console, prompt: "New vault passphrase: ", confirming: true,
                warning: LockService.warning)
            try LockService.checkNew(secret)  // before the vault is opened
            let application = try context.openApplication()
            try LockService.claimForChange(application)
            console.error("Encrypting the database and photos in place…")
            try LockService.turnOn(application, passphrase: secret)
            console.print(LockService.Done.turnedOn.message)
        case .off:
            try LockService.require(on: true, dataDirectory: directory, environment: environment)
            let secret = try passphrase.read(console: console, prompt: "Vault passphrase: ")
            let application = try context.openApplication(passphrase: secret)
            try LockService.claimForChange(application)
            console.error("Decrypting the database and photos in place…")
            try LockService.turnOff(application, passphrase: secret)
            console.print(LockService.Done.turnedOff.message)
        case .change:
            try LockService.require(on: true, dataDirectory: directory, environment: environment)
            let current = try passphrase.read(console: console, prompt: "Current vault passphrase: ")
            try LockService.checkPassphrase(current, dataDirectory: directory, environment: environment)
            let new = try newPassphrase.read(
                console: console, prompt: "New vault passphrase: ", confirming: true,
                warning: LockService.warning)
            try LockService.checkNew(new)
            try LockService.changePassphrase(dataDirectory: directory, environment: environment, from: current, to: new)
            console.print(LockService.Done.changed.message)
        case .notNow:
            try LockService.decline(dataDirectory: directory, environment: environment)
            console.print("Not now: Cairn will not ask again. 'cairn settings lock on' turns the lock on at any time.")
        }
    }

    /// After a command that changed data, at a terminal only: once the vault holds a photo or a record and its lock
    /// was never set (`LockService.shouldAsk`), says why a passphrase and how to choose one or stop being asked.
    /// Never in a script (standard input not a terminal); it never fails the command.
    static func noteIfDue(_ context: CommandContext) {
        guard context.console.canAsk,
            (try? LockService.shouldAsk(dataDirectory: context.dataDirectory, environment: context.environment)) == true
        else { return }
        context.console.error(
            "This vault holds your records and has no passphrase. \(LockService.why) To choose one: cairn settings lock on. Not now: cairn settings lock not-now (remembered)."
        )
    }
}
