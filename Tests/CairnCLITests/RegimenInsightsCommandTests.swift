@testable import CairnCLI
import CairnCore
import Foundation
import Insights
import Regimen
import Testing

@Test func insightsHelpIsListedAndClean() {
    let help = cairn("regimen", "insights", "--help")
    #expect(help.status == 0)
    #expect(help.stdout.contains("Usage: cairn regimen insights [--json] [--full] [--search-onset METRIC] [--no-search-onset METRIC]"))
    #expect(ProductWording.bannedWords(in: help.stdout).isEmpty)
    #expect(cairn("regimen", "--help").stdout.contains("\n  insights "))
    #expect(cairn("regimen", "insights", "extra").status == 2)
}

@Test func insightsWithoutDataSayWhatThePageIsFor() {
    withTemporaryDirectory { dir in
        let env = ["CAIRN_NOW": "2026-04-30T12:00:00Z", "TZ": "UTC"]
        let text = cairn(["--data-dir", dir.path, "regimen", "insights"], environment: env)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("No insights as of 2026-04-30."))
        #expect(text.stdout.contains("No change in what you logged as taken has been found yet"), "says why")
        #expect(text.stdout.contains(Disclaimer.insight.text))
        let json = cairn(["--data-dir", dir.path, "regimen", "insights", "--json"], environment: env)
        #expect(json.status == 0)
        let object = try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["disclaimer"] as? String == Disclaimer.insight.text)
        #expect((object?["insights"] as? [Any])?.isEmpty == true)
        #expect(object?["asOf"] as? String == "2026-04-30")
    }
}

@Test func insightLinesCarryTheFiguresLimitationsAndDisclaimer() throws {
    var values: [LocalDay: Double] = [:]
    var g = SeededGenerator(seed: 8)
    for d in LocalDay(parsing: "2026-01-01")!.dayNumber...LocalDay(parsing: "2026-04-30")!.dayNumber {
        let day = LocalDay(dayNumber: d)
        values[day] = (day >= LocalDay(parsing: "2026-03-01")! ? 4 : 3) + 0.3 * (g.unit() - 0.5)
    }
    let change = ExposureChange(productID: ProductID("p"), productName: "Magnesium", kind: .start, kinds: [.start],
                                day: LocalDay(parsing: "2026-03-01")!, description: "starting Magnesium")
    let insights = InsightEngine().insights(changes: [change], series: [MetricSeriesInput(id: "sleep_quality", name: "Sleep quality",
                                                                                          unit: "1-5", values: values)],
                                            asOf: LocalDay(parsing: "2026-04-30")!)
    let lines = InsightsReport.lines(insights, asOf: LocalDay(parsing: "2026-04-30")!)
    #expect(lines[0] == "Insights as of 2026-04-30: 1 change compared with 1 series: 1 qualified finding.")
    #expect(lines.contains("Around starting Magnesium on 2026-03-01:"))
    #expect(lines.contains("  Qualified finding: Sleep quality, start of Magnesium on 2026-03-01"))
    #expect(lines.contains("    Window: 28 days each side, 2026-02-01 to 2026-02-28 and 2026-03-01 to 2026-03-28"))
    #expect(lines.contains("    Days with a value: 28 before, 28 after (20 needed on each side)"))
    #expect(lines.contains { $0.hasPrefix("    Difference: +") && $0.contains(" 1-5, 95% interval +") && $0.contains("effect size g = ") })
    #expect(lines.contains("    Conditions:"))
    #expect(lines.contains { $0.hasPrefix("      [held] 95% interval") })
    #expect(lines.contains { $0.contains("this method") && $0.contains("on your own records") || $0.contains("Too few stretches") })
    #expect(lines.contains("    Limitations:"))
    #expect(lines.last == "    " + Disclaimer.insight.text)
    for line in lines { #expect(InsightWording.violations(in: line).isEmpty, "\(line)") }
}
