import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen
import Testing
import WebApp

/// Seven months of realistic records: sleep quality (1-5, some nights missing) one point higher from the
/// Magnesium start, steps and HRV without a shift, Vitamin D3 started in April.
private func realisticSeries() -> [MetricSeriesInput] {
    var g = SeededGenerator(seed: 30)
    func normal() -> Double { (-2 * log(max(g.unit(), 1e-12))).squareRoot() * cos(2 * .pi * g.unit()) }
    var sleep: [LocalDay: Double] = [:]
    var steps: [LocalDay: Double] = [:]
    var hrv: [LocalDay: Double] = [:]
    var carry = 0.0
    for d in LocalDay(parsing: "2025-10-01")!.dayNumber...LocalDay(parsing: "2026-04-30")!.dayNumber {
        let day = LocalDay(dayNumber: d)
        carry = 0.4 * carry + normal()
        if d % 9 != 0 { sleep[day] = min(5, max(1, ((day >= LocalDay(parsing: "2026-03-01")! ? 3.9 : 3.0) + 0.45 * carry).rounded())) }
        let weekend = day.weekday == .saturday || day.weekday == .sunday
        steps[day] = (8200 + (weekend ? 2500 : 0) + 1500 * normal()).rounded()
        hrv[day] = 48 + 6 * normal()
    }
    return [
        MetricSeriesInput(id: "sleep_quality", name: "Sleep quality", unit: "1-5", values: sleep),
        MetricSeriesInput(id: "steps", name: "Steps", unit: "steps", values: steps),
        MetricSeriesInput(id: "hrv_sdnn", name: "HRV (SDNN)", unit: "ms", values: hrv),
    ]
}

@Suite(.serialized) struct InsightsBrowserTests {
    @Test func theInsightsPageReadsAtPhoneWidthWithAccessibleCharts() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-insights-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let clock = FixedClock(ISO8601DateFormatter().date(from: "2026-04-30T20:00:00Z")!)
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:], clock: clock, outcomeSeries: { realisticSeries() })
        try cairn.settings.completeOnboarding()
        for (name, from) in [("Magnesium", "2026-03-01"), ("Vitamin D3", "2026-04-10")] {
            let typed = try Product(
                name: name, form: .capsule, servingSize: try Amount(1, .count),
                ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: name, amount: try Amount(100, .mg))])
            let product = try cairn.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
            for d in LocalDay(parsing: from)!.dayNumber...LocalDay(parsing: "2026-04-30")!.dayNumber {
                _ = try cairn.regimen.logExtra(product.product.id, at: Date(timeIntervalSince1970: Double(d) * 86_400 + 8 * 3_600))
            }
        }
        try cairn.insights.recompute()
        var services = WebServices(cairn)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let (shots, keep) = try screenshotDirectory("insight")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }

        let browser = try await WebDriver.launch()
        do {
            try await browser.open(server.loginURL)
            try await browser.open("\(origin)/regimen/insights")
            #expect(try await browser.count(".insight-qualified-finding") >= 1)
            #expect(try await browser.count(".insight-chart") == (try cairn.insights.list().filter { !$0.isTooLittleData }.count))
            // The chart's accessible name comes from its title.
            let label = try await browser.evaluate(
                "var s = document.querySelector('.insight-chart'); return document.getElementById(s.getAttribute('aria-labelledby').split(' ')[0]).textContent"
            )
            #expect((label as? String)?.contains("before and after the change") == true)
            try await browser.screenshot(to: shots.appendingPathComponent("insights-1280.png"))

            try await browser.emulateViewport(width: 390, height: 844, mobile: true)
            try await browser.open("\(origin)/regimen/insights")
            let overflow = try await browser.evaluate("return document.documentElement.scrollWidth - window.innerWidth") as? Int
            #expect(overflow == 0, "no horizontal scrolling at 390 px")
            let chartWidth =
                try await browser.evaluate("return Math.round(document.querySelector('.insight-chart').getBoundingClientRect().width)") as? Int
            #expect((chartWidth ?? 0) >= 250 && (chartWidth ?? 0) <= 390, "the chart fills the phone width")
            let smallest = try await browser.smallestSVGTextPixels(in: ".insight-chart") ?? 0
            #expect(smallest >= 12, "the charts' labels are readable at phone width (smallest \(smallest) px)")
            try await browser.screenshot(to: shots.appendingPathComponent("insights-390.png"))
            _ = try await browser.evaluate("document.querySelector('.insight-chart').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("insights-390-chart.png"))
            _ = try await browser.evaluate("document.querySelector('.insight-facts').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("insights-390-facts.png"))
            #expect(try await browser.logs("browser").filter { ($0["level"] as? String) == "SEVERE" }.isEmpty, "no console errors (CSP)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
