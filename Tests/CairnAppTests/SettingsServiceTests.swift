import CairnApp
import CairnTestSupport
import Foundation
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
