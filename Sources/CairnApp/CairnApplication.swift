import CairnCore
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
    /// The one way photos enter the vault.
    public let photoIntake: PhotoIntake
    /// The Skin journal: areas, photos and their stored comparisons.
    public let skin: SkinService
    /// The Smile journal.
    public let smile: SmileService
    /// Products, schedules, Today, the intake ledger, exposure and supply.
    public let regimen: RegimenService
    /// Outcome series: metric definitions, manual entries, the outcome CSV import and the daily series.
    public let outcomes: OutcomeService
    /// Apple Health data imported read-only from the Health app's export.
    public let health: HealthService
    /// Regimen insights: exposure changes compared with outcome series.
    public let insights: InsightService
    /// The source of "now" for every service.
    public let clock: any Clock

    /// Opens (creating on first use) the vault that `dataDirectory` or the environment names, and migrates its
    /// database.
    public static func open(dataDirectory: String?, environment: [String: String],
                            clock: any Clock = SystemClock(),
                            outcomeSeries: InsightService.SeriesProvider? = nil) throws -> CairnApplication {
        let vault = try Vault(dataDir: dataDirectory, environment: environment)
        return try CairnApplication(vault: vault, clock: clock, outcomeSeries: outcomeSeries)
    }

    /// Opens the given vault with every service. Insights read the outcome series (manual entries and Apple Health
    /// daily values); `outcomeSeries` replaces them, for tests and demos.
    public init(vault: Vault, clock: any Clock = SystemClock(),
                outcomeSeries: InsightService.SeriesProvider? = nil) throws {
        self.vault = vault
        self.clock = clock
        database = try vault.openDatabase(clock: clock)
        settings = SettingsService(vault: vault, database: database, clock: clock)
        photoStore = PhotoFileStore(vault: vault, database: database, clock: clock)
        photoIntake = PhotoIntake(pipeline: ImagePipeline(), store: photoStore)
        skin = SkinService(database: database, photoStore: photoStore, intake: photoIntake, clock: clock)
        smile = SmileService(database: database, photoStore: photoStore, photoIntake: photoIntake, pipeline: ImagePipeline(),
                             locator: MouthLocator(detector: SmileService.sharedLandmarkDetector), clock: clock)
        regimen = RegimenService(database: database, clock: clock)
        let health = HealthService(database: database, clock: clock)
        self.health = health
        Self.tidy(database: database, photoStore: photoStore, skin: skin, health: health)
        let outcomes = OutcomeService(database: database, clock: clock, healthDailyValues: { try health.dailyValues() })
        self.outcomes = outcomes
        insights = InsightService(database: database, regimen: regimen, clock: clock,
                                  series: outcomeSeries ?? { try outcomes.dailySeries().map(MetricSeriesInput.init) })
        settings.onDeleteAll { [smile] in smile.discardAllPendingUploads() }
    }

    /// Makes this process the vault's only writer for as long as it runs (`cairn serve`): commands in other
    /// processes then refuse to change data, naming this process (`VaultLock`). Throws `VaultError` when a
    /// server already runs on the vault or other commands are writing.
    public func claimVaultForServing() throws {
        try database.vaultLock?.claimExclusive()
    }

    /// Lets go of the vault (a server that stops).
    public func releaseVault() { database.vaultLock?.release() }

    /// Clears what an interrupted write left (photo files without a row, a half-done Apple Health import or its
    /// upload) and recomputes comparisons stored by an older comparator revision (once, never mixed).
    ///
    /// Only a process that may write right now does it, and without waiting: while `cairn serve` owns the vault
    /// in another process, or another process holds SQLite's write lock, opening only reads (the next opener that
    /// can write tidies up), so a reading command never waits for or takes the write lock (`owner.lock` is taken
    /// shared, as by any writer). A failure here never stops the open: a photo that cannot be read leaves its
    /// entry "not compared yet".
    private static func tidy(database: Database, photoStore: PhotoFileStore, skin: SkinService, health: HealthService) {
        guard (try? database.vaultLock?.ensureWriter()) != nil else { return }
        // Sweeping runs inside a write transaction (a writer's file and its row appear together); try it at once.
        guard (try? database.write(waitingAtMost: .zero, { _ in })) != nil else { return }
        _ = try? photoStore.sweep()
        _ = try? health.removeInterruptedImports()
        health.removeLeftoverUploads()
        _ = try? skin.recompareOutdatedAreas()
    }
}
