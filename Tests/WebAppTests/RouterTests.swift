import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen
import Testing

@testable import WebApp

private func table() -> Router {
    Router([
        route(.get, "/regimen/products") { _ in .text("list", status: 200) },
        route(.get, "/regimen/products/new") { _ in .text("form", status: 200) },
        route(.post, "/regimen/products/new") { _ in .text("saved", status: 200) },
        route(.get, "/regimen/products/{product}") { r in .text("product " + r.parameter("product"), status: 200) },
        route(.get, "/regimen/products/{product}/edit") { r in .text("edit " + r.parameter("product"), status: 200) },
    ])
}

private func answer(_ method: HTTPMethod?, _ path: String) throws -> String {
    guard case .found(let route, let parameters) = table().match(method: method, path: path) else { return "no route" }
    return try route.handler(RouteRequest(request: Request(method: method, path: path), parameters: parameters)).bodyText
}

@Test func aLiteralSegmentBeatsAParameterAndParametersAreNamed() throws {
    #expect(try answer(.get, "/regimen/products/new") == "form")
    #expect(try answer(.post, "/regimen/products/new") == "saved")
    #expect(try answer(.get, "/regimen/products/abc") == "product abc")
    #expect(try answer(.get, "/regimen/products/abc/edit") == "edit abc")
}

@Test func headIsAnsweredAsGetAndEmptySegmentsAreIgnored() throws {
    #expect(try answer(.head, "/regimen/products") == "list")
    #expect(try answer(.get, "/regimen/products/") == "list")
}

@Test func aPathWithRoutesButNotForThisMethodListsTheMethodsItHas() {
    guard case .methodNotAllowed(let allowed) = table().match(method: .post, path: "/regimen/products/abc") else {
        Issue.record("expected 405")
        return
    }
    #expect(allowed == [.get, .head])
    // The most specific pattern decides: `new` takes GET and POST, whatever `{product}` would take.
    guard case .methodNotAllowed(let forNew) = table().match(method: .delete, path: "/regimen/products/new") else {
        Issue.record("expected 405")
        return
    }
    #expect(forNew == [.get, .head, .post])
}

@Test func aPathNoRouteHasIsNotFound() {
    for path in ["/regimen", "/regimen/products/abc/edit/more", "/nowhere"] {
        guard case .notFound = table().match(method: .get, path: path) else {
            Issue.record("expected 404 for \(path)")
            continue
        }
    }
}

@Test func theApplicationAnswersAWrongMethodWith405AndAnAllowHeader() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    let post = app.handle(Fixture.post("/settings"))
    #expect(post.status == 405)
    #expect(post.header("Allow") == "GET, HEAD")
    let get = app.handle(Fixture.get("/settings/comparison-details"))
    #expect(get.status == 405)
    #expect(get.header("Allow") == "POST")
    let delete = app.handle(Fixture.get("/settings/delete"))
    #expect(delete.status == 200)
    var unknown = Fixture.get("/settings/delete")
    unknown.method = nil
    let refused = app.handle(unknown)
    #expect(refused.status == 405)
    #expect(refused.header("Allow") == "GET, HEAD, POST")
    #expect(refused.header("Content-Security-Policy") != nil, "405 answers carry the security headers too")
}

@Test func everyRouteOfTheApplicationIsDeclaredOnceAndTheTableHasEveryPageGroup() throws {
    let app = try Fixture.app(SettingsDouble(allowed: []))
    let declared = app.router.routes.map { "\($0.method.rawValue) \($0.path)" }
    #expect(Set(declared).count == declared.count)
    for expected in [
        "GET /", "GET /assets/{name}", "POST /welcome/finish", "GET /settings", "GET /skin/areas/{area}/trend",
        "GET /smile/photo/{entry}", "POST /regimen/doses/{dose}/taken", "GET /regimen/products/scan",
        "POST /regimen/schedules/{schedule}/pause", "GET /regimen/ledger", "POST /regimen/outcomes/entries/{entry}/correct",
        "GET /regimen/outcomes/health", "POST /regimen/insights/recompute", "POST /regimen/insights/onset",
        "POST /regimen/records/{record}/undo", "GET /settings/reminders",
    ] {
        #expect(declared.contains(expected), "\(expected) is in the table")
    }
}

@Test func aJournalsNotFoundErrorAnswers404WithoutACatchInThePage() throws {
    let app = try Fixture.app(SettingsDouble(onboarded: true))
    // SmileService throws SmileError.noSuchEntry; the page does not catch it.
    let photo = app.handle(Fixture.get("/smile/photo/\(UUID().uuidString.lowercased())"))
    #expect(photo.status == 404)
    #expect(photo.bodyText.contains("Page not found"))
    // A record that is not there answers 404 with the journal's own sentence.
    #expect(WebError(answering: SkinJournalError.areaNotFound) == .noSuchRecord(SkinJournalError.areaNotFound.userMessage))
    #expect(WebError(answering: ScheduleError.scheduleNotFound) == .noSuchRecord(ScheduleError.scheduleNotFound.userMessage))
    #expect(WebError(answering: OutcomeError.entryNotFound) == .noSuchRecord(OutcomeError.entryNotFound.userMessage))
    #expect(WebError(answering: SkinJournalError.areaNotFound).status == 404)
    // A refusal no page caught is answered 400 with its own sentence (it was 500 before every error had a kind).
    #expect(WebError(answering: SkinJournalError.nameTaken) == .refused(SkinJournalError.nameTaken.userMessage))
    #expect(WebError(answering: SkinJournalError.nameTaken).status == 400)
}
