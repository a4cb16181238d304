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
    /// The PDF reports (Skin photo log, Smile progress sheet, Regimen summary): read only, stored nowhere.
    public let reports: ReportService
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
        // Files left by an interrupted write (a crash, a power cut) are removed on every open.
        _ = try photoStore.sweep()
        // Comparisons stored by an older comparator revision are recomputed once, for the current revision
        // (never mixed); a photo that cannot be read leaves its entry "not compared yet" rather than stop the app.
        _ = try? skin.recompareOutdatedAreas()
        regimen = RegimenService(database: database, clock: clock)
        let health = HealthService(database: database, clock: clock)
        self.health = health
        // An upload left by an interrupted Apple Health import is removed on every open, like a photo write.
        health.removeLeftoverUploads()
        let outcomes = OutcomeService(database: database, clock: clock, healthDailyValues: { try health.dailyValues() })
        self.outcomes = outcomes
        insights = InsightService(database: database, regimen: regimen, clock: clock,
                                  series: outcomeSeries ?? { try outcomes.dailySeries().map(MetricSeriesInput.init) })
        reports = ReportService(skin: skin, smile: smile, regimen: regimen, outcomes: outcomes, insights: insights,
                                photoStore: photoStore, clock: clock)
    }
}
