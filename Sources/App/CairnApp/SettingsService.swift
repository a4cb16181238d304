import CairnCore
import Foundation
import Storage

/// Vault-wide settings kept in the `settings` table, and deleting everything.
public final class SettingsService: SettingsServicing, @unchecked Sendable {
    private let vault: Vault
    private let database: Database
    private let clock: any Clock
    private let lock = NSLock()
    private var deleteActions: [@Sendable () -> Void] = []

    /// What "Delete all data" removes, one item per kind of record, as both doors list it. Kept in step with the
    /// schema by `SettingsServiceTests` (every table must belong to an item).
    public static let whatDeleteAllRemoves = [
        "every skin area, photo, comparison and note",
        "every smile photo",
        "every product (with its label details and the barcodes you linked to it), schedule, and dose taken, skipped or imported",
        "every supply change",
        "every outcome series and its entries",
        "all Apple Health data you imported",
        "every insight",
        "your settings, your reminder settings, the record of reminders sent and the reminder timetable",
        "the database's journal and WAL files, the label database you imported, and any temporary files Cairn left in the vault",
    ]
    /// What it does not remove, said right after the list.
    public static let whatDeleteAllKeeps = "Backups, reports and exports you saved elsewhere are not touched."

    private static let onboardingKey = "onboarding.completed"
    private static let idleLockKey = "lock.idleMinutes"
    private static func flagKey(_ name: String) -> String { "flag." + name }

    /// A service over an opened vault and its database.
    public init(vault: Vault, database: Database, clock: any Clock) {
        self.vault = vault
        self.database = database
        self.clock = clock
    }

    public func isOnboardingComplete() throws -> Bool {
        try value(for: Self.onboardingKey) != nil
    }

    public func completeOnboarding() throws {
        // INSERT OR IGNORE keeps the first completion time: finishing twice changes nothing.
        try database.write { db in try SettingsStore(db).setIfAbsent(Self.onboardingKey, to: Timestamp.string(from: clock.now())) }
    }

    public func flag(_ name: String) throws -> Bool {
        try value(for: Self.flagKey(name)) == "true"
    }

    public func setFlag(_ name: String, _ value: Bool) throws {
        try database.write { db in try SettingsStore(db).set(Self.flagKey(name), to: value ? "true" : "false") }
    }

    public func idleLockMinutes() throws -> Int {
        guard let stored = try value(for: Self.idleLockKey).flatMap(Int.init), LockService.idleChoices.contains(stored) else {
            return LockService.defaultIdleMinutes
        }
        return stored
    }

    public func setIdleLockMinutes(_ minutes: Int) throws {
        guard LockService.idleChoices.contains(minutes) else { throw LockService.Problem.idleChoice }
        try database.write { db in try SettingsStore(db).set(Self.idleLockKey, to: String(minutes)) }
    }

    public func lockSetting() throws -> LockSetting { try vault.lockSetting() }

    public func declineLock() throws { try vault.declineLock() }

    /// Tables whose rows are the person's records (settings, reminders' bookkeeping and insights are not).
    private static let recordTables = [
        "photos", "skin_areas", "smile_entries", "regimen_products", "regimen_intake",
        "outcome_entries", "health_imports",
    ]

    public func holdsRecords() throws -> Bool {
        let query = "SELECT " + Self.recordTables.map { "EXISTS(SELECT 1 FROM \($0))" }.joined(separator: " OR ")
        return try database.read { try $0.scalar(query, as: Bool.self) } ?? false
    }

    /// Removes everything on disk (`Vault.deleteAllData`: the database is reopened empty, in place, so every
    /// service of this process reads the empty vault at once), then runs the `onDeleteAll` actions that forget
    /// what services hold in memory (Smile uploads waiting for a crop).
    public func deleteAllData() throws {
        try vault.deleteAllData(database: database, clock: clock)
        for action in lock.withLock({ deleteActions }) { action() }
    }

    /// Registers work to run after all data was deleted: forgetting what a service holds in memory.
    public func onDeleteAll(_ action: @escaping @Sendable () -> Void) {
        lock.withLock { deleteActions.append(action) }
    }

    private func value(for key: String) throws -> String? {
        try database.read { try SettingsStore($0).value(for: key) }
    }
}
