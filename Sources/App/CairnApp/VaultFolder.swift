import CairnCore
import Encryption
import Foundation
import Storage

/// The vault's folder as a door sees it before, or without, opening it: where it is, whether its lock is on, the
/// hold `cairn serve` keeps on it while it runs, the reminders a locked vault still gives, and opening it. The CLI
/// reaches the vault only through CairnApp (`scripts/check-imports.py` refuses a `Storage` import there).
public struct VaultFolder: Sendable {
    let vault: Vault

    /// The folder `--data-dir` (else `CAIRN_HOME`, `XDG_DATA_HOME`, `HOME`) names, without creating it.
    public static func directory(dataDirectory: String?, environment: [String: String]) throws -> URL {
        try Vault.resolveDirectory(dataDir: dataDirectory, environment: environment)
    }

    /// The vault folder that `dataDirectory` or the environment names (created, 0700, on first use).
    public init(dataDirectory: String?, environment: [String: String]) throws {
        vault = try Vault(dataDir: dataDirectory, environment: environment)
    }

    /// The folder.
    public var directory: URL { vault.directory }

    /// Whether the lock is on (the vault then opens only with its passphrase).
    public var lockIsOn: Bool { get throws { try vault.lockSetting() == .on } }

    /// A hold on the vault that makes this process its only writer while held (`cairn serve`, locked or not).
    public func servingHold() throws -> ServingHold { ServingHold(lock: try VaultLock(directory: vault.directory)) }

    /// Opens the vault (`CairnApplication`); a locked one with `passphrase`.
    public func open(
        clock: any Clock, housekeeping: CairnApplication.Housekeeping,
        passphrase: (() throws -> Passphrase)?
    ) throws -> CairnApplication {
        try CairnApplication(vault: vault, clock: clock, housekeeping: housekeeping, passphrase: passphrase)
    }

    /// The reminders a locked vault gives from its timetable (docs/REMINDERS.md).
    public func lockedReminders(clock: any Clock) -> LockedReminders { LockedReminders(vault: vault, clock: clock) }
}

/// `VaultFolder.servingHold()`: while claimed, commands in other processes refuse to change the vault and name this
/// process; the kernel lets go of it when the process ends, however it ends.
public final class ServingHold: Sendable {
    private let lock: VaultLock

    init(lock: VaultLock) { self.lock = lock }

    /// Makes this process the vault's only writer. Throws `VaultError` when a server already runs on it or other
    /// commands are writing.
    public func claim() throws { try lock.claimExclusive() }

    /// Lets go (the opened vault's own hold takes over, or the server stops).
    public func release() { lock.release() }
}
