import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen
import Testing
import WebApp

@Suite(.serialized) struct OutcomesBrowserTests {
    @Test func theOutcomesPageChartsLogsAndImportsAtDesktopAndPhoneWidth() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-outcomes-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let clock = FixedClock(Date(timeIntervalSince1970: 1_773_144_000))  // 2026-03-10 12:00 UTC
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:], clock: clock)
        let today = LocalDay(clock.now(), in: clock.timeZone)
        // Health values as the Apple Health import would hand them over (a seeded series with a few missing days).
        var generator = SeededGenerator(seed: 7)
        var steps: [LocalDay: Double] = [:]
        var heart: [LocalDay: Double] = [:]
        for offset in 0..<60 where offset % 11 != 5 {
            steps[today.adding(days: -offset)] = (6000 + generator.uniform(-2500, 4000)).rounded()
            heart[today.adding(days: -offset)] = (58 + generator.uniform(-4, 4)).rounded()
        }
        let health: [String: [LocalDay: Double]] = ["steps": steps, "resting_heart_rate": heart]
        let outcomes = OutcomeService(database: cairn.database, clock: clock, healthDailyValues: { health })
        for offset in 0..<45 where offset % 9 != 4 {
            try outcomes.add(metricID: "energy", value: Double(1 + Int(generator.uniform(0, 5))), on: today.adding(days: -offset))
            try outcomes.add(metricID: "sleep_quality", value: Double(2 + Int(generator.uniform(0, 4))), on: today.adding(days: -offset))
        }
        var services = WebServices(cairn)
        services.outcomes = outcomes
        try cairn.settings.completeOnboarding()
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let (shots, keep) = try screenshotDirectory("outcome")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        let csv = shots.appendingPathComponent("outcomes-import.csv")
        try Data("date,metric,value,note\n2026-03-01,mood,3,\n2026-03-02,mood,4,\"calm, rested\"\n2026-03-04,mood,2,\n".utf8).write(to: csv)
        defer { try? FileManager.default.removeItem(at: csv) }

        let browser = try await WebDriver.launch()
        do {
            try await browser.open(server.loginURL)
            try await browser.emulateViewport(width: 1280, height: 900, mobile: false)
            try await browser.open("\(origin)/regimen/outcomes")
            #expect(try await browser.count(".outcome-chart") == 4)
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-1280.png"))
            _ = try await browser.evaluate("document.getElementById('chart-steps').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-health-1280.png"))

            // Log a value with the form.
            _ = try await browser.evaluate("document.getElementById('outcome-metric').value = 'mood'; return 0")
            try await browser.type("4", into: "#outcome-value")
            try await browser.click("#outcome-save")
            #expect(try await browser.waitFor("#regimen-notice"))
            #expect(try await browser.count("#chart-mood") == 1)

            // Import a CSV file with the file input.
            try await browser.type(csv.path, into: "#outcome-file")
            try await browser.click("#outcome-import-button")
            #expect(try await browser.waitFor("#outcome-import-summary"))
            #expect(try await browser.text("#outcome-import-summary") == "Read 3 lines: 3 new, 0 replaced an earlier import, 0 already there.")
            // outcomes.js sent the file (with upload progress) and showed Cairn's answer in place: no navigation.
            #expect(try await !browser.currentURL().hasSuffix("/regimen/outcomes/import"))
            _ = try await browser.evaluate("document.getElementById('outcome-import-title').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-imported-1280.png"))

            try await browser.emulateViewport(width: 390, height: 844, mobile: true)
            try await browser.open("\(origin)/regimen/outcomes")
            let overflow = try await browser.evaluate("return document.documentElement.scrollWidth") as? Int ?? .max
            #expect(overflow <= 390, "no sideways scrolling at 390 px")
            let chartWidth =
                try await browser.evaluate("return document.querySelector('.outcome-chart').getBoundingClientRect().width") as? Double ?? 0
            #expect(chartWidth > 250, "charts use the phone's width")
            let smallest = try await browser.smallestSVGTextPixels(in: ".outcome-chart") ?? 0
            #expect(smallest >= 12, "the charts' labels are readable at phone width (smallest \(smallest) px)")
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-390.png"))
            _ = try await browser.evaluate("document.getElementById('outcome-entry-title').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-form-390.png"))
            _ = try await browser.evaluate("document.getElementById('outcome-recent-title').scrollIntoView(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("outcomes-recent-390.png"))

            let console = try await browser.logs("browser").compactMap { $0["message"] as? String }
            #expect(console.filter { $0.contains("Content Security Policy") || $0.contains("Refused") }.isEmpty, "\(console)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        #expect(try outcomes.series("mood").values.count == 4)
    }
}
