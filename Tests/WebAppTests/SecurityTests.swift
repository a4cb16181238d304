import Foundation
import Testing

@testable import WebApp

// The security checks, exercised through the application in process (no socket).

@Test func aRequestWithoutTheSecretIsRefusedWithAPlainPage() throws {
    let app = try Fixture.app(SettingsDouble())
    let r = app.handle(Request(method: .get, target: "/", headers: ["Host": Fixture.host]))
    #expect(r.status == 403)
    #expect(r.bodyText.contains("cairn serve"))
    #expect(!r.bodyText.contains("/assets/"))  // outsiders get no stylesheet, links or layout
    #expect(r.header("Set-Cookie") == nil)
}

@Test func aRequestWithHostEvilExampleIsRefusedEvenWithTheCookie() throws {
    let settings = SettingsDouble(allowed: [])
    let app = try Fixture.app(settings)
    let r = app.handle(Fixture.get("/", headers: ["Host": "evil.example"]))
    #expect(r.status == 421)
    #expect(!r.bodyText.contains("Your journals"))
    #expect(settings.calls.isEmpty)
}

@Test(arguments: ["evil.example:8737", "127.0.0.1:9999", "127.0.0.1", "localhost", "127.0.0.1:8737.evil.example", ""])
func refusesHostsThatDoNotNameThisServerExactly(_ host: String) throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    #expect(app.handle(Fixture.get("/settings", headers: ["Host": host])).status == 421)
}

@Test func refusesARequestWithNoHostHeader() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let r = app.handle(Request(method: .get, target: "/", headers: ["Cookie": "cairn_session=\(Fixture.secret)"]))
    #expect(r.status == 421)
}

@Test func acceptsLocalhostWithThePortAsHost() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    #expect(app.handle(Fixture.get("/", headers: ["Host": "localhost:8737"])).status == 200)
}

@Test func theLoginAddressSetsAStrictHttpOnlyCookieAndRedirectsToACleanAddress() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let r = app.handle(Request(method: .get, target: "/?key=\(Fixture.secret)", headers: ["Host": Fixture.host]))
    #expect(r.status == 303)
    #expect(r.header("Location") == "/")
    #expect(r.header("Set-Cookie") == "cairn_session=\(Fixture.secret); HttpOnly; SameSite=Strict; Path=/")
    #expect(app.loginURL == "http://127.0.0.1:8737/?key=\(Fixture.secret)")
}

@Test(arguments: ["", "wrong", String(Fixture.secret.dropLast()), Fixture.secret + "s", Fixture.csrf])
func aWrongKeyIsRefusedAndSetsNoCookie(_ key: String) throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let r = app.handle(Request(method: .get, target: "/?key=\(key)", headers: ["Host": Fixture.host]))
    #expect(r.status == 403)
    #expect(r.header("Set-Cookie") == nil)
}

@Test func aWrongCookieIsRefused() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let r = app.handle(Fixture.get("/", headers: ["Cookie": "cairn_session=\(Fixture.csrf)"]))
    #expect(r.status == 403)
}

@Test func assetsAlsoNeedTheSecret() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let r = app.handle(Request(method: .get, target: "/assets/cairn.css", headers: ["Host": Fixture.host]))
    #expect(r.status == 403)
}

@Test func aPostWithoutTheCSRFTokenIsRefusedAndChangesNothing() throws {
    let settings = SettingsDouble(allowed: [])
    let app = try Fixture.app(settings)
    let r = app.handle(Fixture.post("/settings/delete", form: ["confirm": "DELETE"], csrf: nil))
    #expect(r.status == 403)
    #expect(settings.calls.isEmpty)
    let wrong = app.handle(Fixture.post("/settings/delete", form: ["confirm": "DELETE"], csrf: Fixture.secret))
    #expect(wrong.status == 403)
    #expect(settings.calls.isEmpty)
}

@Test func aPostFromAnotherOriginIsRefusedEvenWithTheToken() throws {
    let settings = SettingsDouble(allowed: [])
    let app = try Fixture.app(settings)
    for origin in ["http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1:8737"] {
        let r = app.handle(Fixture.post("/welcome/finish", headers: ["Origin": origin]))
        #expect(r.status == 403)
    }
    #expect(settings.calls.isEmpty)
}

@Test func aPostFromOurOwnOriginOrWithTheHeaderTokenIsAccepted() throws {
    let settings = SettingsDouble()
    let app = try Fixture.app(settings)
    #expect(app.handle(Fixture.post("/welcome/finish", headers: ["Origin": "http://127.0.0.1:8737"])).status == 303)
    let viaHeader = Fixture.post(
        "/settings/comparison-details", form: ["value": "on"], csrf: nil,
        headers: ["X-CSRF-Token": Fixture.csrf])
    #expect(app.handle(viaHeader).status == 303)
    #expect(settings.calls.contains(.setFlag("showComparisonDetails", true)))
}

@Test func everyResponseCarriesTheSecurityHeaders() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    let requests = [
        Request(method: .get, target: "/", headers: ["Host": Fixture.host]),  // 403
        Request(method: .get, target: "/", headers: ["Host": "evil.example"]),  // 421
        Request(method: .get, target: "/?key=\(Fixture.secret)", headers: ["Host": Fixture.host]),  // 303
        Fixture.get("/"), Fixture.get("/nowhere"), Fixture.get("/assets/cairn.css"), Fixture.get("/assets/mark.svg"),
        Fixture.post("/settings/comparison-details", form: ["value": "maybe"]),  // 400
        Fixture.post("/settings", form: [:]),  // 405
    ]
    var statuses: Set<Int> = []
    for request in requests {
        let r = app.handle(request)
        statuses.insert(r.status)
        #expect(r.header("Content-Security-Policy") == SecurityPolicy.contentSecurityPolicy)
        #expect(r.header("X-Content-Type-Options") == "nosniff")
        #expect(r.header("Referrer-Policy") == "same-origin")
        #expect(r.header("X-Frame-Options") == "DENY")
        #expect(r.header("Cache-Control") == "no-store")
    }
    #expect(statuses == [200, 303, 400, 403, 404, 405, 421])
}

@Test func theContentSecurityPolicyAllowsNoOtherOrigin() {
    let csp = SecurityPolicy.contentSecurityPolicy
    #expect(csp.hasPrefix("default-src 'self';"))
    #expect(!csp.contains("http"))
    #expect(!csp.contains("*"))
    #expect(!csp.contains("unsafe-inline"))
    #expect(csp.contains("frame-ancestors 'none'"))
}

@Test func constantTimeComparisonIsStillAComparison() {
    #expect(SecurityPolicy.constantTimeEquals("abc", "abc"))
    #expect(!SecurityPolicy.constantTimeEquals("abc", "abd"))
    #expect(!SecurityPolicy.constantTimeEquals("abc", "abcd"))
    #expect(SecurityPolicy.constantTimeEquals("", ""))
}
