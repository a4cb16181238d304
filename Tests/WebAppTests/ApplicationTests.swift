import CairnApp
import CairnCore
import Foundation
import Testing

@testable import WebApp

@Test func theFirstVisitShowsOnboardingUntilItIsFinished() throws {
    let settings = SettingsDouble()
    let app = try Fixture.app(settings)
    let first = app.handle(Fixture.get("/"))
    #expect(first.status == 303)
    #expect(first.header("Location") == "/welcome/1")

    for step in 1...3 {
        let page = app.handle(Fixture.get("/welcome/\(step)"))
        #expect(page.status == 200)
        #expect(page.bodyText.contains("\(step) of 3"))
        #expect(page.bodyText.contains(step < 3 ? "href=\"/welcome/\(step + 1)\"" : "id=\"onboarding-finish\""))
        #expect(page.bodyText.contains("href=\"/welcome/\(step - 1)\"") == (step > 1))
        #expect(page.bodyText.contains("name=\"csrf\" value=\"\(Fixture.csrf)\""))
    }
    let finish = app.handle(Fixture.post("/welcome/finish"))
    #expect(finish.status == 303)
    #expect(finish.header("Location") == "/")
    #expect(settings.isOnboarded)

    let home = app.handle(Fixture.get("/"))
    #expect(home.status == 200)
    for journal in ["skin", "smile", "regimen"] { #expect(home.bodyText.contains("href=\"/\(journal)\"")) }
    #expect(home.bodyText.contains("Your journals"))
}

@Test func theLastStepOffersTheLockAndRemindersAndFinishingThereLeadsToThem() throws {
    let settings = SettingsDouble()
    let app = try Fixture.app(settings)
    let last = app.handle(Fixture.get("/welcome/3")).bodyText
    #expect(last.contains("id=\"onboarding-lock\"") && last.contains("id=\"onboarding-reminders\""))
    let lock = app.handle(Fixture.post("/welcome/finish", form: ["next": "lock"]))
    #expect(lock.status == 303 && lock.header("Location") == "/settings#lock" && settings.isOnboarded)
    let reminders = app.handle(Fixture.post("/welcome/finish", form: ["next": "reminders"]))
    #expect(reminders.header("Location") == "/settings/reminders#reminder-health")
    #expect(app.handle(Fixture.post("/welcome/finish", form: ["next": "https://elsewhere.example"])).header("Location") == "/")
}

@Test func skippingFromTheFirstPageCompletesOnboarding() throws {
    let settings = SettingsDouble()
    let app = try Fixture.app(settings)
    #expect(app.handle(Fixture.get("/welcome/1")).bodyText.contains("Skip introduction"))
    #expect(app.handle(Fixture.post("/welcome/finish")).status == 303)
    #expect(settings.calls == [.completeOnboarding])
    #expect(app.handle(Fixture.get("/")).status == 200)
}

@Test func onboardingPagesOutsideOneToThreeDoNotExist() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    #expect(app.handle(Fixture.get("/welcome/0")).status == 404)
    #expect(app.handle(Fixture.get("/welcome/4")).status == 404)
    #expect(app.handle(Fixture.get("/welcome/finish")).status == 405)
}

@Test func eachJournalOpensOnItsOwnPageWithNoPlaceholderLeft() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    for journal in ["skin", "smile", "regimen"] {
        let r = app.handle(Fixture.get("/\(journal)"))
        #expect(r.status == 200)
        #expect(!r.bodyText.contains("Coming in this journal"))
        #expect(r.bodyText.contains("href=\"/\(journal)\" aria-current=\"page\""))
    }
}

@Test func settingsShowsAndTogglesTheComparisonDetailsFlag() throws {
    let settings = SettingsDouble()
    let app = try Fixture.app(settings)
    #expect(app.handle(Fixture.get("/settings")).bodyText.contains("<strong id=\"comparison-state\">Off</strong>"))
    let saved = app.handle(Fixture.post("/settings/comparison-details", form: ["value": "on"]))
    #expect(saved.header("Location") == "/settings?saved=1")
    let page = app.handle(Fixture.get("/settings?saved=1")).bodyText
    #expect(page.contains("<strong id=\"comparison-state\">On</strong>"))
    #expect(page.contains("Saved."))
    #expect(page.contains("name=\"value\" value=\"off\""))
}

@Test func aToggleWithAnUnknownValueIsABadForm() throws {
    let settings = SettingsDouble(allowed: [])
    let app = try Fixture.app(settings)
    #expect(app.handle(Fixture.post("/settings/comparison-details", form: ["value": "yes"])).status == 400)
    #expect(app.handle(Fixture.post("/settings/comparison-details")).status == 400)
    #expect(settings.calls.isEmpty)
}

@Test func deletingAllDataNamesTheConsequenceAndNeedsTheTypedWord() throws {
    let settings = SettingsDouble(allowed: [.deleteAllData])
    let app = try Fixture.app(settings)
    let confirm = app.handle(Fixture.get("/settings/delete")).bodyText
    #expect(confirm.contains("This removes, from this computer, and cannot be undone:"))
    for item in SettingsService.whatDeleteAllRemoves { #expect(confirm.contains("<li>\(HTML.escape(item))</li>"), "\(item)") }
    #expect(confirm.contains("all Apple Health data you imported"))
    #expect(confirm.contains("Backups, reports and exports you saved elsewhere are not touched."))
    #expect(confirm.contains("name=\"confirm\""))

    for typed in ["", "deleted", "DELET", "yes"] {
        let r = app.handle(Fixture.post("/settings/delete", form: ["confirm": typed]))
        #expect(r.status == 400)
        #expect(r.bodyText.contains("aria-invalid=\"true\""))
    }
    #expect(!settings.deleted)

    // The word in any case: "delete" is as deliberate as "DELETE".
    let done = app.handle(Fixture.post("/settings/delete", form: ["confirm": " delete "]))
    #expect(done.status == 200)
    #expect(done.bodyText.contains("All data deleted"))
    #expect(settings.calls == [.deleteAllData])
}

@Test func aFailingServiceShowsItsOwnPlainMessage() throws {
    let app = try Fixture.app(SettingsDouble(failing: true))
    let r = app.handle(Fixture.get("/"))
    #expect(r.status == 500)
    #expect(r.bodyText.contains("The settings could not be read."))
}

@Test func unknownPagesAndMethodsAreAnsweredPlainly() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    #expect(app.handle(Fixture.get("/nowhere")).status == 404)
    #expect(app.handle(Fixture.post("/")).status == 405)
    var unknown = Fixture.get("/")
    unknown.method = nil
    #expect(app.handle(unknown).status == 405)
    var head = Fixture.get("/")
    head.method = .head
    #expect(app.handle(head).status == 200)
}

@Test func servesBundledAssetsWithTheirContentTypes() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let expected = ["cairn.css": "text/css; charset=utf-8", "cairn.js": "text/javascript; charset=utf-8", "mark.svg": "image/svg+xml"]
    for (name, type) in expected {
        let r = app.handle(Fixture.get("/assets/\(name)"))
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == type)
        #expect(!r.body.isEmpty)
    }
    #expect(app.handle(Fixture.get("/assets/missing.css")).status == 404)
    #expect(app.handle(Fixture.get("/assets/../Package.swift")).status == 404)
    #expect(app.handle(Fixture.get("/assets/")).status == 404)
}
