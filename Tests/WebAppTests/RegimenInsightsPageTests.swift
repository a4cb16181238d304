import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen
import Testing

@testable import WebApp

/// A vault on a fixed clock (2026-04-30) with Magnesium taken daily from 2026-03-01, Vitamin D from 2026-04-10,
/// and three outcome series: sleep quality one point higher from March, steps and HRV without a shift.
final class InsightSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-insights-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init(withData: Bool = true) throws {
        let clock = FixedClock(ISO8601DateFormatter().date(from: "2026-04-30T20:00:00Z")!)
        cairn = try CairnApplication.open(
            dataDirectory: directory.path, environment: [:], clock: clock,
            outcomeSeries: { withData ? InsightSite.series() : [] })
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
        guard withData else { return }
        for (name, from) in [("Magnesium", "2026-03-01"), ("Vitamin D3", "2026-04-10")] {
            let typed = try Product(
                name: name, form: .capsule, servingSize: try Amount(1, .count),
                ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: name, amount: try Amount(100, .mg))])
            let product = try cairn.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
            for d in LocalDay(parsing: from)!.dayNumber...LocalDay(parsing: "2026-04-30")!.dayNumber {
                _ = try cairn.regimen.logExtra(product.product.id, at: Date(timeIntervalSince1970: Double(d) * 86_400 + 8 * 3_600))
            }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static func series() -> [MetricSeriesInput] {
        var g = SeededGenerator(seed: 30)
        func normal() -> Double { (-2 * log(max(g.unit(), 1e-12))).squareRoot() * cos(2 * .pi * g.unit()) }
        var sleep: [LocalDay: Double] = [:]
        var steps: [LocalDay: Double] = [:]
        var hrv: [LocalDay: Double] = [:]
        for d in LocalDay(parsing: "2026-01-01")!.dayNumber...LocalDay(parsing: "2026-04-30")!.dayNumber {
            let day = LocalDay(dayNumber: d)
            if d % 9 != 0 { sleep[day] = ((day >= LocalDay(parsing: "2026-03-01")! ? 3.9 : 3.0) + 0.45 * normal()).rounded() }
            steps[day] = (8200 + 1500 * normal()).rounded()
            hrv[day] = 48 + 6 * normal()
        }
        return [
            MetricSeriesInput(id: "sleep_quality", name: "Sleep quality", unit: "1-5", values: sleep),
            MetricSeriesInput(id: "steps", name: "Steps", unit: "steps", values: steps),
            MetricSeriesInput(id: "hrv_sdnn", name: "HRV (SDNN)", unit: "ms", values: hrv),
        ]
    }

    func get(_ target: String) -> Response { app.handle(Fixture.get(target)) }
    func post(_ target: String, csrf: String? = Fixture.csrf) -> Response { app.handle(Fixture.post(target, form: [:], csrf: csrf)) }
}

@Test func insightsStartEmptyWithWhatTheyAreForAndTheDisclaimer() throws {
    let site = try InsightSite(withData: false)
    let page = site.get("/regimen/insights")
    #expect(page.status == 200)
    #expect(page.bodyText.contains("No insights yet"))
    #expect(page.bodyText.contains("Computed for 2026"), "the first visit of a day computes them")
    #expect(try site.cairn.insights.lastRun() != nil)
    #expect(page.bodyText.contains(HTML.escape(Disclaimer.insight.text)))
    #expect(page.bodyText.contains("href=\"/regimen/insights\" aria-current=\"page\""))
}

@Test func recomputingNeedsTheTokenAndThenListsFindingsFirstWithCharts() throws {
    let site = try InsightSite()
    #expect(site.post("/regimen/insights/recompute", csrf: nil).status == 403)
    #expect(try site.cairn.insights.lastRun() == nil)
    let done = site.post("/regimen/insights/recompute")
    #expect(done.status == 303)
    #expect(done.header("Location") == "/regimen/insights?recomputed=1")
    let stored = try site.cairn.insights.list()
    #expect(!stored.isEmpty)
    let html = site.get("/regimen/insights?recomputed=1").bodyText
    #expect(html.contains("Insights recomputed."))
    let qualified = try #require(html.range(of: "class=\"card insight insight-qualified-finding\""))
    if let ongoing = html.range(of: "class=\"card insight insight-ongoing-observation\"") { #expect(qualified.lowerBound < ongoing.lowerBound) }
    let first = try #require(stored.first { $0.status == .qualifiedFinding })
    #expect(
        html.contains("<p class=\"insight-summary\">\(first.plainSummary)</p>\n<p class=\"insight-disclaimer\">"),
        "plain words first, the disclaimer beside them")
    #expect(html.contains("Around starting Magnesium <span class=\"insight-day\">(2026-03-01)</span>"))
    #expect(html.contains("<h3 id=\"change-") && html.contains(">Sleep quality</h3>"))
    #expect(html.contains("id=\"insights-summary\""), "a short summary at the top")
    #expect(
        html.components(separatedBy: "<details class=\"insight-details\">").count - 1 == stored.filter { !$0.isTooLittleData }.count,
        "details are folded")
    for waiting in stored.filter(\.isTooLittleData) { #expect(html.contains("Too little data yet to tell for") && html.contains(waiting.metricName)) }
    #expect(html.contains("Conditions for a qualified finding"))
    let shown = stored.filter { !$0.isTooLittleData }
    let groupsWaiting = Set(stored.filter(\.isTooLittleData).map(\.change.id)).count
    #expect(html.components(separatedBy: "<svg class=\"insight-chart\"").count - 1 == shown.count)
    #expect(html.components(separatedBy: "role=\"img\" aria-labelledby=").count - 1 >= shown.count)
    #expect(html.components(separatedBy: "<desc id=").count - 1 == shown.count)
    #expect(html.components(separatedBy: "class=\"change\"").count - 1 == shown.count, "the change is marked on every chart")
    #expect(
        html.components(separatedBy: HTML.escape(Disclaimer.insight.text)).count - 1 == shown.count + groupsWaiting + 1,
        "every card, every line of series with too little data, and the summary")
    #expect(html.contains("Limitations"))
    #expect(html.contains("95% interval"))
    #expect(site.get("/regimen/insights/recompute").status == 405)
    #expect(site.get("/regimen/insights/nope").status == 404)
}

@Test func theInsightsPageKeepsToTheWordingAndTheContentPolicy() throws {
    let site = try InsightSite()
    try site.cairn.insights.recompute()
    let html = site.get("/regimen/insights").bodyText
    #expect(ProductWording.bannedWords(in: html).isEmpty, "\(ProductWording.bannedWords(in: html))")
    #expect(InsightWording.violations(in: html).isEmpty, "\(InsightWording.violations(in: html))")
    #expect(!html.contains("style=") && !html.contains("<style") && !html.contains("<script>"))
    #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
}

@Test func theRegimenPagesLinkToInsights() throws {
    let site = try InsightSite(withData: false)
    #expect(site.get("/regimen").bodyText.contains("<a href=\"/regimen/insights\">Insights</a>"))
}

@Test func cardsAreGroupedUnderTheirChangeAndSayWhichConditionsHeld() throws {
    let site = try InsightSite()
    let html = site.get("/regimen/insights").bodyText
    let stored = try site.cairn.insights.list()
    let groups = html.components(separatedBy: "<section class=\"insight-section insight-group\"").count - 1
    #expect(groups == Set(stored.map(\.change.id)).count)
    #expect(html.contains("condition-held"))
    #expect(html.contains("condition-not-met") || html.contains("Too little data yet to tell for"), "a series short of a finding says why")
    #expect(html.contains("Adjusted across the 3 series compared for this change"))
    #expect(
        !html.contains("<a") || html.range(of: #"<svg[^>]*role="img"[^>]*>(?:(?!</svg>).)*<a "#, options: .regularExpression) == nil,
        "no link inside a role=img")
}

@Test func whileARecomputationRunsThePageSaysSoAndTheButtonWaits() {
    let html = RegimenInsightsPage.render(
        [], run: nil, state: .running(InsightProgress(phase: "Comparing", done: 3, total: 12)),
        csrfToken: "t")
    #expect(html.contains("Recomputing insights in the background (comparing: 3 of 12 changes)"))
    #expect(html.contains("disabled"))
    #expect(html.contains("role=\"status\""))
}

@Test func theOnsetSearchIsChosenPerSeriesWithAFormThatWorksWithoutJavaScript() throws {
    let site = try InsightSite()
    try site.cairn.insights.recompute()
    let html = site.get("/regimen/insights").bodyText
    #expect(html.contains("Later onsets (0-7 days after a change)"))
    #expect(html.contains("action=\"/regimen/insights/onset\""))
    #expect(html.contains("<input type=\"hidden\" name=\"metric\" value=\"sleep_quality\"><input type=\"hidden\" name=\"search\" value=\"on\">"))
    #expect(site.app.handle(Fixture.post("/regimen/insights/onset", form: ["metric": "sleep_quality", "search": "on"], csrf: nil)).status == 403)
    let saved = site.app.handle(Fixture.post("/regimen/insights/onset", form: ["metric": "sleep_quality", "search": "on"], csrf: Fixture.csrf))
    #expect(saved.status == 303)
    #expect(saved.header("Location") == "/regimen/insights?onset=1")
    #expect(try site.cairn.insights.metricsSearchingOnset() == ["sleep_quality"])
    let after = site.get("/regimen/insights?onset=1").bodyText
    #expect(after.contains("Onset search saved"))
    #expect(after.contains("<input type=\"hidden\" name=\"metric\" value=\"sleep_quality\"><input type=\"hidden\" name=\"search\" value=\"off\">"))
    #expect(site.app.handle(Fixture.post("/regimen/insights/onset", form: ["metric": "nope", "search": "on"], csrf: Fixture.csrf)).status == 404)
}

@Test func aFormTakenOnAnotherPageBringsInsightsUpToDate() throws {
    let site = try InsightSite()
    try site.cairn.insights.recompute()
    let before = try #require(try site.cairn.insights.lastRun())
    #expect(try !site.cairn.insights.needsRecompute())
    // The newest dose undone from the Today page's form: the ledger changed, and insights catch up without a visit.
    let newest = try #require(try site.cairn.regimen.ledger().entries.first)
    #expect(site.post("/regimen/records/\(newest.id.rawValue)/undo").status == 303)
    #expect(try !site.cairn.insights.needsRecompute())
    #expect(try #require(try site.cairn.insights.lastRun()).computedAt >= before.computedAt)
    // A refused form (no token) changes nothing and starts nothing.
    #expect(site.post("/regimen/records/\(newest.id.rawValue)/undo", csrf: nil).status == 403)
}

@Test func theProgressOfARecomputationIsAnsweredForThePageScript() throws {
    let site = try InsightSite(withData: false)
    let idle = site.get("/regimen/insights/progress")
    #expect(idle.status == 200)
    #expect(idle.header("Content-Type") == "application/json")
    let object = try #require(try JSONSerialization.jsonObject(with: idle.body) as? [String: String])
    #expect(object == ["state": "idle", "text": ""])
    let running = RegimenInsightsPage.render(
        [], run: nil, state: .running(InsightProgress(phase: "Comparing", done: 2, total: 5)), csrfToken: Fixture.csrf)
    #expect(running.contains("id=\"insights-progress\""))
    #expect(running.contains(HTML.escape(RegimenInsightsPage.progressText(InsightProgress(phase: "Comparing", done: 2, total: 5)))))
    #expect(running.contains("comparing: 2 of 5 changes"))
    #expect(running.contains("disabled aria-disabled=\"true\""), "the button waits while it runs")
}
