import CairnApp
import CairnTestSupport
import Foundation
import Storage
import Testing

@Test func onboardingIsIncompleteInANewVaultAndCompletingItTwiceIsHarmless() throws {
    let vault = try TestVault()
    #expect(try !vault.app.settings.isOnboardingComplete())
    try vault.app.settings.completeOnboarding()
    try vault.app.settings.completeOnboarding()
    #expect(try vault.app.settings.isOnboardingComplete())
}

@Test func flagsAreFalseUntilSetAndRemembered() throws {
    let vault = try TestVault()
    #expect(try !vault.app.settings.flag("showComparisonDetails"))
    try vault.app.settings.setFlag("showComparisonDetails", true)
    #expect(try vault.app.settings.flag("showComparisonDetails"))
    try vault.app.settings.setFlag("showComparisonDetails", false)
    #expect(try !vault.app.settings.flag("showComparisonDetails"))
}

@Test func deleteAllDataRemovesPhotosAndSettingsAndLeavesAUsableEmptyVault() throws {
    let vault = try TestVault()
    try vault.app.settings.completeOnboarding()
    _ = try vault.app.photoIntake.ingest(Data(contentsOf: SharedData.photo), purpose: "skin", database: vault.app.database)
    #expect(try vault.snapshot().rows == 2)

    try vault.app.settings.deleteAllData()

    let after = try vault.snapshot()
    #expect(after.files.isEmpty && after.rows == 0)
    #expect(try !vault.app.settings.isOnboardingComplete())
    try vault.app.settings.completeOnboarding()
    #expect(try vault.app.settings.isOnboardingComplete())
}

/// Which item of `SettingsService.whatDeleteAllRemoves` each table's rows belong to. A new table fails this test
/// until it is named here, so the list the person reads before deleting stays complete.
private let itemOfTable: [String: Int] = [
    "skin_areas": 0, "skin_entries": 0, "skin_comparisons": 0, "skin_entry_notes": 0, "photos": 0,
    "smile_entries": 1,
    "regimen_products": 2, "regimen_product_revisions": 2, "regimen_product_ingredients": 2, "regimen_schedules": 2,
    "regimen_schedule_revisions": 2, "regimen_intake": 2, "regimen_intake_imports": 2, "regimen_intake_import_runs": 2,
    "regimen_supply_changes": 3, "regimen_product_archive": 2, "regimen_product_barcodes": 2,
    "outcome_metrics": 4, "outcome_entries": 4,
    "health_imports": 5, "health_sources": 5, "health_samples": 5,
    "insights": 6, "insight_runs": 6, "insight_pending": 6, "insight_series_state": 6, "insight_metric_options": 6,
    "settings": 7, "schema_migrations": 7,
    "reminder_preferences": 7, "reminder_schedule_switches": 7, "reminder_area_intervals": 7, "reminder_deliveries": 7,
]

@Test func theDeleteAllListNamesTheKindOfEveryTableInTheVault() throws {
    let vault = try TestVault()
    let tables = try vault.app.database.read { db in
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.get("name", as: String.self) }
    }
    for table in tables {
        #expect(itemOfTable[table] != nil, "table \(table): say in SettingsService.whatDeleteAllRemoves what deleting all removes of it")
    }
    #expect(SettingsService.whatDeleteAllRemoves.count == 9)
    #expect(SettingsService.whatDeleteAllRemoves.last!.contains("journal and WAL"))
}
