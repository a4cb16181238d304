import CairnApp
import CairnCore
import Foundation
import Insights
import Outcomes
import Regimen
import Testing

@testable import WebApp

/// A real vault behind the web application with the Regimen and Outcome services wired in.
final class OutcomesSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-outcomes-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init() throws {
        cairn = try CairnApplication.open(
            dataDirectory: directory.path, environment: [:],
            clock: FixedClock(Date(timeIntervalSince1970: 1_773_144_000)))  // 2026-03-10 12:00 UTC
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var outcomes: OutcomeService { cairn.outcomes }

    func get(_ target: String) -> Response { app.handle(Fixture.get(target)) }
    func post(_ target: String, form: [String: String] = [:], csrf: String? = Fixture.csrf) -> Response {
        app.handle(Fixture.post(target, form: form, csrf: csrf))
    }

    /// A multipart upload as the server's form parser hands it over.
    func upload(_ text: String, csrf: String? = Fixture.csrf) -> Response {
        var fields = ["file": Data(text.utf8)]
        if let csrf { fields["csrf"] = Data(csrf.utf8) }
        return app.handle(
            Request(
                method: .post, path: "/regimen/outcomes/import",
                headers: [
                    "Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)",
                    "Content-Type": "multipart/form-data; boundary=x",
                ], formFields: fields))
    }
}

private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

@Test func theOutcomesPageStartsEmptyWithTheEntryAndImportForms() throws {
    let site = try OutcomesSite()
    let page = site.get("/regimen/outcomes")
    #expect(page.status == 200)
    let html = page.bodyText
    #expect(html.contains("id=\"outcomes-empty\""))
    #expect(html.contains("action=\"/regimen/outcomes/entries\"") && html.contains("action=\"/regimen/outcomes/import\""))
    #expect(html.contains("enctype=\"multipart/form-data\""))
    #expect(html.contains("name=\"csrf\" value=\"\(Fixture.csrf)\""))
    #expect(html.contains("href=\"/regimen/outcomes\" aria-current=\"page\">Outcomes</a>"))
    // Only manual metrics can be typed in.
    #expect(html.contains("<option value=\"energy\"") && !html.contains("<option value=\"steps\""))
    #expect(html.contains("value=\"2026-03-10\" max=\"2026-03-10\""))
    #expect(!html.contains("<svg viewBox=\"0 0 400"))
}

@Test func theRegimenPagesLinkToOutcomes() throws {
    let site = try OutcomesSite()
    #expect(site.get("/regimen").bodyText.contains("<a href=\"/regimen/outcomes\">Outcomes</a>"))
    #expect(site.get("/regimen/ledger").bodyText.contains("<a href=\"/regimen/outcomes\">Outcomes</a>"))
}

@Test func loggingAValueSavesItAndShowsItsChart() throws {
    let site = try OutcomesSite()
    let saved = site.post("/regimen/outcomes/entries", form: ["metric": "energy", "date": "2026-03-09", "value": "3.5", "note": ""])
    #expect(saved.status == 303 && saved.header("Location") == "/regimen/outcomes?saved=1")
    #expect(try site.outcomes.series("energy").values == [day("2026-03-09"): 3.5])
    try site.outcomes.add(metricID: "energy", value: 4, on: day("2026-03-10"))
    try site.outcomes.add(metricID: "energy", value: 2, on: day("2026-03-05"))
    let html = site.get("/regimen/outcomes?saved=1").bodyText
    #expect(html.contains("Saved."))
    #expect(html.contains("id=\"chart-energy\""))
    #expect(
        html.contains(
            "class=\"outcome-chart\" role=\"img\" aria-label=\"Energy, average per day, in 1-5: 3 days from 2026-03-05 to 2026-03-10, values from 2 to 4\""
        ))
    #expect(html.components(separatedBy: "class=\"outcome-point\"").count - 1 == 3)
    // The 5th stands alone (a gap follows); the 9th and 10th are joined.
    #expect(html.contains("<title>2026-03-09: 3.5</title>"))
    let path = try #require(html.range(of: "class=\"outcome-line\"")).lowerBound
    let d = html[html.index(path, offsetBy: -120)..<path]
    #expect(d.components(separatedBy: "M").count - 1 == 2 && d.components(separatedBy: "L").count - 1 == 1)
    // The value axis carries the unit and numbers.
    #expect(html.contains(">1-5</text>") && html.contains(">5</text>") && html.contains(">1</text>"))
    #expect(!html.contains("id=\"outcomes-empty\""))
}

@Test func aBadValueShowsTheReasonAndKeepsWhatWasTyped() throws {
    let site = try OutcomesSite()
    let refused = site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "2026-03-09", "value": "9", "note": "kept"])
    #expect(refused.status == 400)
    #expect(refused.bodyText.contains("The value is outside this metric&#39;s range (1-5). Nothing was saved."))
    #expect(refused.bodyText.contains("<option value=\"mood\" selected>") && refused.bodyText.contains("value=\"kept\""))
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "soon", "value": "3"]).status == 400)
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "2026-03-09", "value": "three"]).status == 400)
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "steps", "date": "2026-03-09", "value": "3"]).status == 400)
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "2026-03-11", "value": "3"]).bodyText.contains("after today"))
    #expect(try site.outcomes.entries().isEmpty)
}

@Test func postsWithoutTheCSRFTokenAreRefused() throws {
    let site = try OutcomesSite()
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "2026-03-09", "value": "3"], csrf: nil).status == 403)
    #expect(site.upload("date,metric,value\n2026-03-01,mood,3\n", csrf: nil).status == 403)
    #expect(try site.outcomes.entries().isEmpty)
    #expect(site.get("/regimen/outcomes/entries").status == 405)
    #expect(site.get("/regimen/outcomes/nowhere").status == 404)
}

@Test func importingAFileListsEveryLineAndImportingItAgainAddsNothing() throws {
    let site = try OutcomesSite()
    let file = "date,metric,value\n2026-03-01,mood,3\n2026-03-02,Sleep quality,4\n"
    let first = site.upload(file)
    #expect(first.status == 200)
    #expect(first.bodyText.contains("Read 2 lines: 2 new, 0 replaced an earlier import, 0 already there."))
    #expect(first.bodyText.contains("<li>Line 2: mood on 2026-03-01, 3: added</li>"))
    #expect(first.bodyText.contains("id=\"chart-sleep_quality\""))
    let again = site.upload(file)
    #expect(again.bodyText.contains("<li>Line 3: sleep_quality on 2026-03-02, 4: already there</li>"))
    #expect(try site.outcomes.entries().count == 2)
}

@Test func aFileWithBadLinesListsEachAndImportsNothing() throws {
    let site = try OutcomesSite()
    let refused = site.upload("date,metric,value\n2026-03-01,mood,3\n2026-03-01,<script>x</script>,3\n2026-03-01,mood,11\n")
    #expect(refused.status == 400)
    let html = refused.bodyText
    #expect(html.contains("2 lines could not be read, so nothing was imported."))
    #expect(html.contains("<li>Line 3: the metric is not one Cairn knows"))
    #expect(html.contains("<li>Line 4: the value is outside the metric&#39;s range (1-5).</li>"))
    #expect(!html.contains("<script>x"))
    #expect(try site.outcomes.entries().isEmpty)
    let wrong = site.upload("when,what\n1,2\n")
    #expect(wrong.status == 400 && wrong.bodyText.contains("does not have the right columns"))
    let none = site.upload("")
    #expect(none.status == 400 && none.bodyText.contains("Choose a CSV file to import."))
}

@Test func aMetricOfOnesOwnCanBeAddedAndLogged() throws {
    let site = try OutcomesSite()
    let added = site.post(
        "/regimen/outcomes/metrics",
        form: [
            "id": "headache", "name": "Headache", "unit": "1-5", "min": "1", "max": "5",
            "aggregation": "mean",
        ])
    #expect(added.status == 303 && added.header("Location") == "/regimen/outcomes?defined=1")
    #expect(site.get("/regimen/outcomes?defined=1").bodyText.contains("<option value=\"headache\">Headache (1-5)</option>"))
    #expect(site.post("/regimen/outcomes/entries", form: ["metric": "headache", "date": "2026-03-09", "value": "2"]).status == 303)
    let again = site.post("/regimen/outcomes/metrics", form: ["id": "headache", "name": "Again", "min": "1", "max": "5"])
    #expect(again.status == 400 && again.bodyText.contains("exists already"))
    #expect(site.post("/regimen/outcomes/metrics", form: ["id": "x", "name": "X", "min": "5", "max": "1"]).status == 400)
}

@Test func healthSeriesAreChartedOnTheirOwnSpreadAndSaySoWithoutJudgement() throws {
    let series = DailyOutcomeSeries(
        metric: BuiltInMetrics.restingHeartRate,
        values: [day("2026-03-01"): 58, day("2026-03-02"): 61, day("2026-03-04"): 57])
    let html = RegimenOutcomesPage.chartCard(series)
    #expect(html.contains(">bpm</text>") && html.contains("From your health export (Apple Health or Health Connect)."))
    let (low, high) = RegimenOutcomesPage.yRange(metric: BuiltInMetrics.restingHeartRate, values: [58, 61, 57])
    #expect(low < 57 && high > 61 && high - low < 20)
    #expect(RegimenOutcomesPage.yRange(metric: BuiltInMetrics.mood, values: [3]) == (1, 5))
    // Wide ranges get round ticks: 3,870-10,638 steps of 2500.
    #expect(BuiltInMetrics.steps.chartAxis(for: [3870, 10638]).ticks == [12500, 10000, 7500, 5000, 2500])
    let single = RegimenOutcomesPage.chartCard(DailyOutcomeSeries(metric: BuiltInMetrics.steps, values: [day("2026-03-01"): 0]))
    #expect(single.contains("1 day from 2026-03-01 to 2026-03-01"))
    for text in [html, single] {
        #expect(ProductWording.bannedWords(in: text).isEmpty)
        for judgement in ["better", "worse", "good", "bad", "healthy"] { #expect(!text.lowercased().contains(judgement)) }
    }
}

@Test func theOutcomesPagesUseNoBannedWordsInlineCodeOrOtherOrigins() throws {
    let site = try OutcomesSite()
    try site.outcomes.add(metricID: "energy", value: 4, on: day("2026-03-10"))
    let pages = [
        site.get("/regimen/outcomes").bodyText,
        site.upload("date,metric,value\n2026-03-01,mood,3\n").bodyText,
        site.upload("date,metric,value\n2026-03-01,mood,9\n").bodyText,
        site.post("/regimen/outcomes/entries", form: ["metric": "mood", "date": "x", "value": "3"]).bodyText,
    ]
    for html in pages {
        #expect(ProductWording.bannedWords(in: html).isEmpty)
        #expect(!html.contains("style=") && !html.contains("<script>") && !html.contains("https://"))
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
    }
}

@Test func theImportScriptIsBundledAndTalksOnlyToCairn() throws {
    let site = try OutcomesSite()
    let page = site.get("/regimen/outcomes").bodyText
    #expect(page.contains("<script src=\"/assets/outcomes.js\" defer></script>"))
    #expect(page.contains("<progress id=\"outcome-import-progress\""))
    let script = site.get("/assets/outcomes.js")
    #expect(script.status == 200 && script.header("Content-Type")?.hasPrefix("text/javascript") == true)
    #expect(!script.bodyText.contains("http") && !script.bodyText.contains("//cdn"))
    #expect(script.bodyText.contains("upload.addEventListener(\"progress\""))
}

@Test func aChartCoversAtMostTheLastYearAndSaysHowManyDaysThereAreInAll() throws {
    var values: [LocalDay: Double] = [:]
    let newest = day("2026-03-10")
    for offset in 0..<800 { values[newest.adding(days: -offset)] = Double(1 + offset % 5) }
    let html = RegimenOutcomesPage.chartCard(DailyOutcomeSeries(metric: BuiltInMetrics.mood, values: values))
    #expect(html.components(separatedBy: "class=\"outcome-point\"").count - 1 == RegimenOutcomesPage.chartDays)
    #expect(html.contains("365 days with a value in the last 365 days shown (800 in all)."))
    #expect(html.contains(">\(newest.adding(days: -364))</text>"))
}

@Test func aRecentValueCanBeCorrectedAndTheReplacedOneStaysListed() throws {
    let site = try OutcomesSite()
    let first = try site.outcomes.add(metricID: "energy", value: 2, on: day("2026-03-09"), note: "tired <b>")
    let page = site.get("/regimen/outcomes").bodyText
    #expect(page.contains("id=\"outcome-recent\""))
    #expect(page.contains("action=\"/regimen/outcomes/entries/\(first.id.rawValue)/correct\""))
    #expect(page.contains("tired &lt;b&gt;"))
    let fixed = site.post("/regimen/outcomes/entries/\(first.id.rawValue)/correct", form: ["value": "4"])
    #expect(fixed.status == 303)
    #expect(try site.outcomes.series("energy").values == [day("2026-03-09"): 4])
    let after = site.get("/regimen/outcomes").bodyText
    #expect(after.contains("<s>2</s>") && after.contains("replaced by a correction") && after.contains("a correction"))
    #expect(!after.contains("action=\"/regimen/outcomes/entries/\(first.id.rawValue)/correct\""))
    let again = site.post("/regimen/outcomes/entries/\(first.id.rawValue)/correct", form: ["value": "3"])
    #expect(again.status == 400 && again.bodyText.contains("corrected already"))
    let current = try #require(try site.outcomes.entries().first { $0.isCurrent })
    #expect(site.post("/regimen/outcomes/entries/\(current.id.rawValue)/correct", form: ["value": "9"]).status == 400)
    #expect(site.post("/regimen/outcomes/entries/\(current.id.rawValue)/correct", form: ["value": "x"]).status == 400)
    #expect(site.post("/regimen/outcomes/entries/nope/correct", form: ["value": "3"]).status == 404)
    #expect(site.post("/regimen/outcomes/entries/\(current.id.rawValue)/correct", form: ["value": "3"], csrf: nil).status == 403)
    #expect(try site.outcomes.entries().count == 2)
}

@Test func everyChangeInWhatWasTakenIsMarkedOnTheOutcomeChart() throws {
    var values: [LocalDay: Double] = [:]
    for d in 0..<90 { values[day("2026-01-01").adding(days: d)] = Double(1 + d % 5) }
    let changes = [
        ExposureChange(
            productID: ProductID("p1"), productName: "Magnesium", kind: .start, kinds: [.start],
            day: day("2026-02-01"), description: "starting Magnesium"),
        ExposureChange(
            productID: ProductID("p1"), productName: "Magnesium", kind: .deactivation, kinds: [.deactivation],
            day: day("2026-03-10"), description: "stopping Magnesium"),
        ExposureChange(
            productID: ProductID("p2"), productName: "Zinc", kind: .start, kinds: [.start],
            day: day("2025-06-01"), description: "starting Zinc"),
    ]
    let html = RegimenOutcomesPage.chartCard(DailyOutcomeSeries(metric: BuiltInMetrics.mood, values: values), changes: changes)
    #expect(html.components(separatedBy: "class=\"change-mark\"").count - 1 == 2, "only the changes within the chart's days")
    #expect(html.contains("Dashed lines: starting Magnesium on 2026-02-01; stopping Magnesium on 2026-03-10."))
    #expect(html.contains("dashed lines mark 2 changes"))
    let svg = try #require(html.range(of: "<svg")).lowerBound..<(try #require(html.range(of: "</svg>")).upperBound)
    #expect(!html[svg].contains("<a "), "no link inside the role=img chart")
}

@Test func theLogAValueFormComesFirstAndShowsEveryErrorBesideItsField() throws {
    let site = try RegimenSite()
    let page = site.get("/regimen/outcomes").bodyText
    #expect(page.range(of: "id=\"outcome-entry\"")!.lowerBound < page.range(of: "Import")!.lowerBound)
    let both = site.post("/regimen/outcomes/entries", form: ["metric": "energy", "date": "yesterday", "value": "lots"]).bodyText
    #expect(both.contains("id=\"outcome-date-error\"") && both.contains("id=\"outcome-value-error\""), "both errors at once")
    let range = site.post("/regimen/outcomes/entries", form: ["metric": "energy", "date": site.regimen.today().description, "value": "9"])
    #expect(range.status == 400 && range.bodyText.contains("<p class=\"field-error\" id=\"outcome-value-error\">"), "the range error beside Value")
    #expect(range.bodyText.contains("value=\"9\""), "what was typed is kept")
}
