import CairnCore
import Storage

// INTERFACE PINNED BY THE INTEGRATOR: the web shell codes against this port; the concrete service over
// Storage implements it.

/// The names of the boolean preferences (`SettingsServicing.flag(_:)`), declared once for every door.
public enum SettingFlag {
    /// "Show comparison details": the raw distance and alignment figures beside each Skin similarity.
    public static let showComparisonDetails = "showComparisonDetails"
}

/// Vault-wide settings and the "delete everything" action.
public protocol SettingsServicing: Sendable {
    /// Whether the person has finished or skipped onboarding.
    func isOnboardingComplete() throws -> Bool
    /// Records that onboarding was finished or skipped; idempotent.
    func completeOnboarding() throws
    /// A named boolean preference ("show comparison details", ...). Missing means false.
    func flag(_ name: String) throws -> Bool
    func setFlag(_ name: String, _ value: Bool) throws
    /// Minutes without a request after which the web app locks a vault that has a lock again
    /// (`LockService.idleChoices`; `LockService.defaultIdleMinutes` until the person chooses).
    func idleLockMinutes() throws -> Int
    /// Stores that choice; throws `LockService.Problem.idleChoice` for a value not in `LockService.idleChoices`.
    func setIdleLockMinutes(_ minutes: Int) throws
    /// The vault's lock as the person set it: never set, "Not now", turned off, or on.
    func lockSetting() throws -> LockSetting
    /// Remembers "Not now" to choosing a passphrase (`Vault.declineLock`; only when the lock was never set).
    func declineLock() throws
    /// Whether the vault holds anything to protect: a photo, or a record of any journal.
    func holdsRecords() throws -> Bool
    /// Deletes every record and every photo file in the vault. Irreversible.
    func deleteAllData() throws
}
