import CairnCore
import Encryption
import Foundation
import Storage

/// The vault lock (issue 21): turning it on (the database and photos encrypted in place) and off (decrypted in
/// place), changing the passphrase, and "Not now". The one place the rules of a new vault passphrase live.
public enum LockService {
    /// The fewest characters a new vault passphrase may have.
    public static let minimumPassphraseLength = 8

    /// The idle times a person may choose, in minutes, after which the web app locks the vault again.
    public static let idleChoices = [1, 5, 10, 15, 30, 60]
    /// The idle time until the person chooses one.
    public static let defaultIdleMinutes = 10

    /// Why a lock request was refused.
    public enum Problem: CairnError, Equatable {
        /// A new passphrase shorter than `minimumPassphraseLength`.
        case passphraseTooShort
        /// The vault is locked and no passphrase was given to open it.
        case locked
        /// The database is encrypted but `vault.header`, which holds its key, is missing.
        case headerMissing
        /// An idle time that is not one of `idleChoices`.
        case idleChoice

        public var userMessage: String {
            switch self {
            case .passphraseTooShort:
                return
                    "Choose a vault passphrase of at least \(LockService.minimumPassphraseLength) characters; a few words are easier to remember than symbols. Nothing was changed."
            case .locked: return "This vault is locked: its passphrase is needed to open it."
            case .headerMissing:
                return
                    "The vault's database is encrypted, but its lock file (vault.header) is missing, so it cannot be unlocked. Nothing was changed."
            case .idleChoice:
                return "Choose one of \(LockService.idleChoices.map(String.init).joined(separator: ", ")) minutes. Nothing was changed."
            }
        }
    }

    /// What a forgotten passphrase means, said before one is chosen.
    public static let forgotten = "If you forget it, your data cannot be recovered: nobody can do it, Cairn neither."

    /// What the person is told before choosing a passphrase, at a terminal or on a page.
    public static let warning = """
        Choose a passphrase for this vault (at least \(minimumPassphraseLength) characters): Cairn will ask for it to open \
        the vault. \(forgotten)
        """

    /// A lock change that was made, as both doors say it.
    public enum Done: String, Sendable {
        case turnedOn = "on"
        case turnedOff = "off"
        case changed

        public var message: String {
            switch self {
            case .turnedOn: return "The lock is on: the database and photos are encrypted, and Cairn asks for the passphrase to open the vault."
            case .turnedOff: return "The lock is off: the database and photos are no longer encrypted, and the vault opens without a passphrase."
            case .changed: return "The passphrase was changed: only the new one opens the vault."
            }
        }
    }

    /// Refuses a new vault passphrase shorter than `minimumPassphraseLength` (`Problem.passphraseTooShort`).
    public static func checkNew(_ passphrase: Passphrase) throws {
        guard passphrase.characterCount >= minimumPassphraseLength else { throw Problem.passphraseTooShort }
    }

    /// Whether the lock of the vault at `dataDirectory` (as `--data-dir` and `CAIRN_HOME` name it) is on.
    public static func isOn(dataDirectory: String?, environment: [String: String]) throws -> Bool {
        try Vault(dataDir: dataDirectory, environment: environment).lockSetting() == .on
    }

    /// Throws unless the lock is in the state `on` names: `VaultError.lockAlreadyOn` when it is on and should be
    /// off (before turning it on), `.lockNotOn` when it is off and should be on (before turning it off or changing it).
    public static func require(on: Bool, dataDirectory: String?, environment: [String: String]) throws {
        let isOn = try isOn(dataDirectory: dataDirectory, environment: environment)
        if isOn != on { throw isOn ? VaultError.lockAlreadyOn : VaultError.lockNotOn }
    }

    /// Whether the vault at `dataDirectory` has its lock on with a photo conversion left unfinished by a lock change
    /// that was stopped: opening it with the passphrase finishes it (`CairnApplication`), which is what
    /// `settings lock on` then does rather than answer "already on".
    public static func conversionUnfinished(dataDirectory: String?, environment: [String: String]) throws -> Bool {
        let vault = try Vault(dataDir: dataDirectory, environment: environment)
        return try vault.lockSetting() == .on && vault.photoConversionPending
    }

    /// Makes `application`'s process the vault's only writer before a lock change says or writes anything, so a
    /// refusal (`VaultError.servedElsewhere`, `.busyElsewhere`) comes first.
    public static func claimForChange(_ application: CairnApplication) throws {
        try application.claimVaultForServing()
    }

    /// Checks the passphrase of the vault at `dataDirectory` without opening it (the wrong-passphrase error of
    /// `Vault.unlock`, which never says which part was wrong).
    public static func checkPassphrase(_ passphrase: Passphrase, dataDirectory: String?, environment: [String: String]) throws {
        try checkPassphrase(passphrase, of: Vault(dataDir: dataDirectory, environment: environment))
    }

    /// The same for an opened `vault`.
    public static func checkPassphrase(_ passphrase: Passphrase, of vault: Vault) throws {
        _ = try vault.unlock(passphrase: passphrase)
    }

    /// Whether Cairn asks the person to choose a passphrase now (issue 21): the lock was never set (not declined
    /// with "Not now", not turned off, not on) and the vault holds something to protect (`holdsRecords`).
    public static func shouldAsk(_ setting: LockSetting, holdsRecords: Bool) -> Bool {
        setting == .neverSet && holdsRecords
    }

    /// `shouldAsk` for the vault at `dataDirectory`: its lock setting first (a file), its records only while never set.
    public static func shouldAsk(dataDirectory: String?, environment: [String: String]) throws -> Bool {
        let directory = try Vault.resolveDirectory(dataDir: dataDirectory, environment: environment)
        guard FileManager.default.fileExists(atPath: directory.path) else { return false }  // nothing made one
        let vault = try Vault(directory: directory)
        guard try vault.lockSetting() == .neverSet else { return false }
        let application = try CairnApplication(vault: vault, housekeeping: .none)
        defer { application.database.close() }
        return shouldAsk(.neverSet, holdsRecords: try application.settings.holdsRecords())
    }

    /// "Not now" for the vault at `dataDirectory`, remembered (`Vault.declineLock`: only while the lock was never set).
    public static func decline(dataDirectory: String?, environment: [String: String]) throws {
        try Vault(dataDir: dataDirectory, environment: environment).declineLock()
    }

    /// Why a passphrase, in one sentence, wherever Cairn asks for one to be chosen.
    public static let why = """
        A passphrase encrypts your journals on this computer and Cairn asks for it before it shows anything, so \
        someone at this computer, or a copy of the data folder, sees nothing without it.
        """

    /// Changes the passphrase of the vault at `dataDirectory` (the vault key is wrapped anew; nothing else changes).
    public static func changePassphrase(
        dataDirectory: String?, environment: [String: String], from passphrase: Passphrase,
        to newPassphrase: Passphrase
    ) throws {
        try changePassphrase(of: Vault(dataDir: dataDirectory, environment: environment), from: passphrase, to: newPassphrase)
    }

    /// Opens `vault`'s database as its lock says: plain, or with the key `passphrase()` unwraps (asked only then).
    static func openDatabase(vault: Vault, clock: any Clock, passphrase: (() throws -> Passphrase)?) throws -> Database {
        switch try vault.lockSetting() {
        case .on:
            guard let passphrase else { throw Problem.locked }
            return try vault.openDatabase(clock: clock, key: vault.unlock(passphrase: passphrase()))
        case .neverSet, .declined, .turnedOff:
            guard !vault.databaseIsEncrypted else { throw Problem.headerMissing }
            return try vault.openDatabase(clock: clock)
        }
    }

    /// Turns the lock on with `passphrase`: the database and photos of `application` are encrypted in place (and closed:
    /// the application is done with; open the vault again to go on).
    /// `reached` is told each stage (one `.photoConverted` per photo: a page counts them).
    public static func turnOn(
        _ application: CairnApplication, passphrase: Passphrase,
        reached: (LockChangeStage) -> Void = { _ in }
    ) throws {
        try checkNew(passphrase)
        try application.vault.turnLockOn(
            database: application.database, passphrase: passphrase, clock: application.clock,
            reached: reached
        ).close()
    }

    /// Turns the lock off: the database and photos of `application` are decrypted in place (and closed, as above).
    public static func turnOff(
        _ application: CairnApplication, passphrase: Passphrase,
        reached: (LockChangeStage) -> Void = { _ in }
    ) throws {
        try application.vault.turnLockOff(
            database: application.database, passphrase: passphrase, clock: application.clock,
            reached: reached
        ).close()
    }

    /// Changes the passphrase (the vault key is wrapped anew; the database is not touched).
    public static func changePassphrase(of vault: Vault, from passphrase: Passphrase, to newPassphrase: Passphrase) throws {
        try checkNew(newPassphrase)
        try vault.changePassphrase(from: passphrase, to: newPassphrase)
    }
}

extension LockService.Problem {
    public var errorKind: ErrorKind {
        switch self {
        case .locked: return .unavailable
        case .headerMissing: return .failure
        case .passphraseTooShort, .idleChoice: return .refusedInput
        }
    }
}
