import CairnCore
import Encryption
import Foundation
import Imaging
import Insights
import Outcomes
import Smile
import Storage

/// One opened vault with every application service wired to it: the composition the CLI and the web share,
/// so an action takes the same path (and the same transaction) whichever door it comes through.
public final class CairnApplication: Sendable {
    /// The data directory.
    public let vault: Vault
    /// The vault's database, migrated to today's schema.
    public let database: Database
    /// Settings, onboarding and deleting all data.
    public let settings: SettingsService
    /// The vault's photo files.
    public let photoStore: PhotoFileStore
    /// Encrypted backups of the vault.
    public let backups: BackupService
    /// The one way photos enter the vault.
    public let photoIntake: PhotoIntake
    /// The Skin journal: areas, photos and their stored comparisons.
    public var skin: SkinService { built.skin.value }
    /// The Smile journal.
    public var smile: SmileService { built.smile.value }
    /// Products, schedules, Today, the intake ledger, exposure and supply.
    public var regimen: RegimenService { built.regimen.value }
    /// Outcome series: metric definitions, manual entries, the outcome CSV import and the daily series.
    public var outcomes: OutcomeService { built.outcomes.value }
    /// Apple Health data imported read-only from the Health app's export.
    public var health: HealthService { built.health.value }
    /// Regimen insights: exposure changes compared with outcome series.
    public var insights: InsightService { built.insights.value }
    /// The PDF reports (Skin photo log, Smile progress sheet, Regimen summary): read only, stored nowhere.
    public var reports: ReportService { built.reports.value }
    /// Reminders: preferences, what to notify now, and the actions of a notification.
    public var reminders: ReminderService { built.reminders.value }
    /// The label database (public DSLD labels beside the vault) and the barcodes the person taught.
    public var labels: LabelDatabaseService { built.labels.value }
    /// The source of "now" for every service.
    public let clock: any Clock
    /// The journals' services, each built on first use: a command pays only for the journals it touches.
    private let built: Services

    /// What opening a vault does besides migrating it (see `tidyUp()`).
    public enum Housekeeping: Sendable {
        /// Tidies up before `open` returns (a command that changes data).
        case now
        /// Leaves it: a command that only reads, or a server that calls `tidyUp()` once it answers.
        case none
    }

    /// Opens (creating on first use) the vault that `dataDirectory` or the environment names, and migrates its
    /// database. When the vault's lock is on, `passphrase` is asked for the passphrase (and only then); without
    /// it a locked vault throws `LockService.Problem.locked`.
    public static func open(
        dataDirectory: String?, environment: [String: String],
        clock: any Clock = SystemClock(),
        outcomeSeries: InsightService.SeriesProvider? = nil,
        housekeeping: Housekeeping = .now,
        passphrase: (() throws -> Passphrase)? = nil
    ) throws -> CairnApplication {
        let vault = try Vault(dataDir: dataDirectory, environment: environment)
        return try CairnApplication(
            vault: vault, clock: clock, outcomeSeries: outcomeSeries, housekeeping: housekeeping,
            passphrase: passphrase)
    }

    /// Opens the given vault with every service. Insights read the outcome series (manual entries and Apple Health
    /// daily values); `outcomeSeries` replaces them, for tests and demos. A locked vault's database is opened with
    /// the key `passphrase` unwraps (see `open`).
    public init(
        vault: Vault, clock: any Clock = SystemClock(),
        outcomeSeries: InsightService.SeriesProvider? = nil, housekeeping: Housekeeping = .now,
        passphrase: (() throws -> Passphrase)? = nil
    ) throws {
        self.vault = vault
        self.clock = clock
        // What processes that are gone left (a backup's copy of the database, a partial backup, a restore's folder)
        // goes first, whatever the command: none of it may outlive its owner.
        vault.removeAbandonedArtefacts()
        database = try LockService.openDatabase(vault: vault, clock: clock, passphrase: passphrase)
        do {
            try Self.finishStoppedConversion(vault: vault, database: database)
        } catch {
            database.close()
            throw error
        }
        settings = SettingsService(vault: vault, database: database, clock: clock)
        photoStore = PhotoFileStore(vault: vault, database: database, clock: clock)
        backups = BackupService(vault: vault, database: database, clock: clock)
        photoIntake = PhotoIntake(pipeline: ImagePipeline(), store: photoStore)
        built = Services(
            database: database, vault: vault, photoStore: photoStore, photoIntake: photoIntake, clock: clock,
            outcomeSeries: outcomeSeries)
        if housekeeping == .now { tidyUp() }
        settings.onDeleteAll { [built] in built.smile.value.discardAllPendingUploads() }
    }

    /// Makes this process the vault's only writer for as long as it runs (`cairn serve`): commands in other
    /// processes then refuse to change data, naming this process (`VaultLock`). Throws `VaultError` when a
    /// server already runs on the vault or other commands are writing.
    public func claimVaultForServing() throws {
        try database.vaultLock?.claimExclusive()
    }

    /// Lets go of the vault (a server that stops).
    public func releaseVault() { database.vaultLock?.release() }

    /// Between two writes of a process that runs for long (`cairn remind`), lets a server start: the shared
    /// writer's hold on `owner.lock` is let go (a server's own exclusive hold is kept).
    public func releaseWriterHold() { database.vaultLock?.releaseShared() }

    /// How many photo files no record names this process's tidying moved to `lost+found` (`PhotoFileStore.sweep`):
    /// a door tells the person.
    public var photosKeptAside: Int { keptAside.value }
    private let keptAside = Counter()

    /// Finishes the photo conversion of a lock change that was stopped (`Vault.finishPhotoConversion`), at every
    /// open with the vault key, a reading command's included: a half-converted vault never stays so because only
    /// reading commands ran. Left to the owner when another process holds the vault alone (a server, which
    /// finishes it as it starts, or the lock change itself). A conversion that fails stops the open with its error.
    private static func finishStoppedConversion(vault: Vault, database: Database) throws {
        guard vault.photoConversionPending, database.isEncrypted else { return }
        let probe = try FileLock(path: vault.directory.appendingPathComponent(VaultLock.fileName).path)
        guard probe.tryLock(exclusive: false) else { return }
        probe.unlock()
        try vault.finishPhotoConversion(database: database)
    }

    /// Clears what an interrupted write left (photo files of a write or deletion cut off, Cairn's temporary files;
    /// photo files no record names are kept aside, never deleted: `PhotoFileStore.sweep`), a half-done Apple Health
    /// or intake import, an upload, and recomputes comparisons stored by an older comparator revision (once, never
    /// mixed). A stopped photo conversion is finished earlier, by every open with the key.
    ///
    /// Only a process that may write right now does it, and without waiting: while `cairn serve` owns the vault
    /// in another process, or another process holds SQLite's write lock, opening only reads (the next opener that
    /// can write tidies up), so a reading command never waits for or takes the write lock (`owner.lock` is taken
    /// shared, as by any writer). A failure here never stops the open: a photo that cannot be read leaves its
    /// entry "not compared yet".
    ///
    /// Called by `open` (`Housekeeping.now`), or by a server on a background thread once it answers.
    public func tidyUp() {
        guard (try? database.vaultLock?.ensureWriter()) != nil else { return }
        // Sweeping runs inside a write transaction (a writer's file and its row appear together); try it at once.
        guard (try? database.write(waitingAtMost: .zero, { _ in })) != nil else { return }
        if let swept = try? photoStore.sweep(), swept.keptAside > 0 { keptAside.add(swept.keptAside) }
        _ = try? health.removeInterruptedImports()
        _ = try? RegimenService.removeInterruptedIntakeImports(database)
        health.removeLeftoverUploads()
        _ = try? skin.recompareOutdatedAreas()
    }
}

extension CairnApplication {
    /// Every journal's service, each made on first use by whichever thread asks first, then shared. Making one
    /// is cheap and touches nothing: a service opens no file and runs no query until it is called.
    private final class Services: Sendable {
        let skin: Built<SkinService>
        let smile: Built<SmileService>
        let regimen: Built<RegimenService>
        let health: Built<HealthService>
        let outcomes: Built<OutcomeService>
        let insights: Built<InsightService>
        let reports: Built<ReportService>
        let reminders: Built<ReminderService>
        let labels: Built<LabelDatabaseService>

        init(
            database: Database, vault: Vault, photoStore: PhotoFileStore, photoIntake: PhotoIntake, clock: any Clock,
            outcomeSeries: InsightService.SeriesProvider?
        ) {
            let skin = Built { SkinService(database: database, photoStore: photoStore, intake: photoIntake, clock: clock) }
            let smile = Built {
                SmileService(
                    database: database, photoStore: photoStore, photoIntake: photoIntake, pipeline: ImagePipeline(),
                    locator: MouthLocator(detector: SmileService.sharedLandmarkDetector), clock: clock)
            }
            let regimen = Built { RegimenService(database: database, clock: clock) }
            let health = Built { HealthService(database: database, clock: clock) }
            let outcomes = Built { OutcomeService(database: database, clock: clock, healthDailyValues: { try health.value.dailyValues() }) }
            let insights = Built {
                InsightService(
                    database: database, regimen: regimen.value, clock: clock,
                    series: outcomeSeries ?? { try outcomes.value.dailySeries().map(MetricSeriesInput.init) })
            }
            reports = Built {
                ReportService(
                    database: database, skin: skin.value, smile: smile.value, regimen: regimen.value, outcomes: outcomes.value,
                    insights: insights.value, photoStore: photoStore, clock: clock)
            }
            labels = Built { LabelDatabaseService(vault: vault, database: database, clock: clock) }
            reminders = Built { ReminderService(database: database, vault: vault, regimen: regimen.value, skin: skin.value, clock: clock) }
            self.skin = skin
            self.smile = smile
            self.insights = insights
            self.regimen = regimen
            self.health = health
            self.outcomes = outcomes
        }
    }

    /// A count several threads may add to.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add(_ n: Int) { lock.withLock { count += n } }
        var value: Int { lock.withLock { count } }
    }

    /// A value made once, on first use.
    private final class Built<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var made: Value?
        private let make: @Sendable () -> Value

        init(_ make: @escaping @Sendable () -> Value) { self.make = make }

        /// The value, made now if this is the first use (under the lock: two threads never make two).
        var value: Value {
            lock.withLock {
                if let made { return made }
                let value = make()
                made = value
                return value
            }
        }
    }
}
