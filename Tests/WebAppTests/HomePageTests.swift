import CairnApp
import Foundation
import Testing

@testable import WebApp

@Suite(.serialized) struct HomePageTests {
    @Test func anEmptyVaultShowsEveryJournalsEmptyState() throws {
        let vault = try SkinWebVault()
        try vault.app.settings.completeOnboarding()
        let html = vault.get("/").bodyText
        #expect(html.components(separatedBy: "Nothing here yet.").count - 1 == 3)
    }

    @Test func aJournalWithSomethingInItSaysHowMuchInsteadOfNothingHereYet() throws {
        let vault = try SkinWebVault()
        try vault.app.settings.completeOnboarding()
        _ = try vault.app.skin.addArea(name: "Left forearm")
        let html = vault.get("/").bodyText
        #expect(html.contains("<p class=\"journal-summary\">1 area, 0 photos</p>"))
        #expect(html.components(separatedBy: "Nothing here yet.").count - 1 == 2)
    }

    @Test func countsReadAsPeopleSayThem() {
        #expect(HomePage.count(1, "photo") == "1 photo")
        #expect(HomePage.count(0, "photo") == "0 photos")
        #expect(HomePage.count(12, "area") == "12 areas")
    }
}
