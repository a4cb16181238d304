import CairnCore
import Foundation
import Testing

@testable import WebApp

/// Every page the shell can render, as a logged-in browser would see it.
private func everyPage() throws -> [(String, String)] {
    let app = try Fixture.app(
        SettingsDouble(onboarded: true, allowed: [.isOnboardingComplete, .flag, .setFlag, .completeOnboarding, .deleteAllData]))
    var pages: [(String, String)] = []
    for target in [
        "/", "/welcome/1", "/welcome/2", "/welcome/3", "/skin", "/smile", "/regimen", "/settings", "/settings?saved=1",
        "/settings/delete", "/nowhere",
    ] {
        pages.append((target, app.handle(Fixture.get(target)).bodyText))
    }
    pages.append(("delete mistyped", app.handle(Fixture.post("/settings/delete", form: ["confirm": "no"])).bodyText))
    pages.append(("deleted", app.handle(Fixture.post("/settings/delete", form: ["confirm": "DELETE"])).bodyText))
    pages.append(("no secret", app.handle(Request(method: .get, target: "/", headers: ["Host": Fixture.host])).bodyText))
    pages.append(("wrong host", app.handle(Request(method: .get, target: "/", headers: ["Host": "evil.example"])).bodyText))
    pages.append(("csrf", app.handle(Fixture.post("/welcome/finish", csrf: nil)).bodyText))
    let failing = try Fixture.app(SettingsDouble(failing: true))
    pages.append(("failure", failing.handle(Fixture.get("/")).bodyText))
    return pages
}

@Test func noPageUsesABannedWord() throws {
    for (name, html) in try everyPage() {
        #expect(ProductWording.bannedWords(in: html).isEmpty, "banned words on \(name)")
    }
    for error in [WebError.missingSecret, .wrongHost, .csrfRejected, .notFound, .methodNotAllowed, .bodyTooLarge, .badForm] {
        #expect(ProductWording.bannedWords(in: error.title + " " + error.userMessage).isEmpty)
    }
}

@Test func noPageHasInlineScriptsInlineStylesOrOtherOrigins() throws {
    for (name, html) in try everyPage() {
        #expect(!html.contains("style="), "inline style on \(name)")
        #expect(!html.contains("<style"), "style element on \(name)")
        #expect(!html.contains("<script>"), "inline script on \(name)")
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "inline handler on \(name)")
        #expect(!html.contains("https://") && !html.contains("//cdn"), "other origin on \(name)")
    }
}

@Test func theFrameCarriesThePrivacySentenceLandmarksAndASkipLink() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    let html = app.handle(Fixture.get("/")).bodyText
    #expect(html.contains(HTML.escape(ProductWording.privacy)))
    #expect(html.contains("<a class=\"skip-link\" href=\"#main\">"))
    #expect(html.contains("<main id=\"main\""))
    #expect(html.contains("<nav aria-label=\"Main\">"))
    #expect(html.contains("<footer"))
    #expect(html.contains("<link rel=\"icon\" href=\"/assets/mark.svg\""))
    #expect(html.contains("href=\"/\" aria-current=\"page\">Home</a>"))
}

@Test func theBundledAssetsReferenceNoOtherOrigin() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    for name in ["cairn.css", "cairn.js", "mark.svg"] {
        let text = app.handle(Fixture.get("/assets/\(name)")).bodyText
        #expect(!text.contains("@import"))
        #expect(!text.contains("url("))
        #expect(!text.contains("https:"))
        let http = text.components(separatedBy: "http://").dropFirst()
        #expect(http.allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") }, "\(name) names another origin")
    }
}

@Test func theHeaderMarkAndTheFaviconAreTheSameFourStones() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    func ellipses(_ text: String) -> [String] {
        text.components(separatedBy: "<ellipse").dropFirst().map { String($0.prefix { $0 != "/" }) }
    }
    let favicon = ellipses(app.handle(Fixture.get("/assets/mark.svg")).bodyText)
    #expect(favicon.count == 4)
    #expect(ellipses(app.handle(Fixture.get("/")).bodyText) == favicon)
    #expect(favicon.last?.contains("#1F6F6B") == true, "the capstone is teal")
}
