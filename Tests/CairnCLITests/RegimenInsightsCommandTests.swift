import CairnCore
import Foundation
import Insights
import Regimen
import Testing

@testable import CairnCLI

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
    let change = ExposureChange(
        productID: ProductID("p"), productName: "Magnesium", kind: .start, kinds: [.start],
        day: LocalDay(parsing: "2026-03-01")!, description: "starting Magnesium")
    let insights = InsightEngine().insights(
        changes: [change],
        series: [
            MetricSeriesInput(
                id: "sleep_quality", name: "Sleep quality",
                unit: "1-5", values: values)
        ],
        asOf: LocalDay(parsing: "2026-04-30")!)
    let lines = InsightsReport.lines(insights, asOf: LocalDay(parsing: "2026-04-30")!)
    #expect(lines[0] == "Insights as of 2026-04-30: 1 change compared with 1 series: 1 qualified finding.")
    #expect(lines.contains("Around starting Magnesium on 2026-03-01:"))
    #expect(lines.contains("  Qualified finding: Sleep quality, start of Magnesium on 2026-03-01"))
    #expect(lines.contains("    Window: 28 days each side, 2026-02-01 to 2026-02-28 and 2026-03-01 to 2026-03-28"))
    #expect(lines.contains("    Days with a value: 28 before, 28 after (20 needed on each side)"))
    #expect(
        lines.contains {
            $0.hasPrefix("    Difference: +") && $0.contains(" points on the 1-5 scale, 95% interval +") && $0.contains("effect size g = ")
        })
    #expect(lines.contains("    Conditions:"))
    #expect(lines.contains { $0.hasPrefix("      [held] 95% interval") })
    #expect(lines.contains { $0.contains("this method") && $0.contains("on your own records") || $0.contains("Too few stretches") })
    #expect(lines.contains("    Limitations:"))
    // The plain sentence first, the association sentence right after it, then the figures.
    let plain = try #require(lines.firstIndex { $0.hasPrefix("    Sleep quality was about ") })
    #expect(lines[plain + 1] == "    " + Disclaimer.insight.text)
    #expect(lines[plain + 2].hasPrefix("    Figures: "))
    for line in lines { #expect(InsightWording.violations(in: line).isEmpty, "\(line)") }
}

/// A realistic sleep diary (`cairn-bench insights --seed 5 --write-diary`: 1-5 ratings typed in daily, stressed
/// spells, bad nights, a 9-day trip, 6% gaps; Vitamin D3 every morning, three as-needed Ibuprofen tablets, and
/// Magnesium glycinate every evening from 2026-09-29, from which on +0.7 points were planted), imported as a
/// person would. Before the fix both looks read "no clear difference" (after the placebo dates had widened the
/// series 1.18x on 1 of 5 flagged dates): a real effect read as reassurance.
@Test func aPlantedShiftInARealisticDiaryIsNeverCalledNoClearDifference() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/sleep-diary")
    let doses = try String(contentsOf: fixtures.appendingPathComponent("doses.csv"), encoding: .utf8).split(separator: "\n")
    let sleep = try String(contentsOf: fixtures.appendingPathComponent("sleep.csv"), encoding: .utf8).split(separator: "\n")
    for (look, today) in [(14, "2026-10-12"), (28, "2026-10-26")] {
        try withTemporaryDirectory { dir in
            let env = ["CAIRN_NOW": "\(today)T21:55:00Z", "TZ": "Europe/Berlin"]
            func run(_ words: String...) -> CLIRun { cairn(["--data-dir", dir.path] + words, environment: env) }
            // What a person has logged by then (the importer refuses days still to come).
            let upTo = { (lines: [Substring]) in ([lines[0]] + lines.dropFirst().filter { $0.prefix(10) <= today }).joined(separator: "\n") + "\n" }
            try upTo(doses).write(to: dir.appendingPathComponent("doses.csv"), atomically: true, encoding: .utf8)
            try upTo(sleep).write(to: dir.appendingPathComponent("sleep.csv"), atomically: true, encoding: .utf8)
            #expect(run("regimen", "products", "add", "Vitamin D3", "Vitamin D3=25 mcg", "--form", "softgel").status == 0)
            #expect(run("regimen", "products", "add", "Magnesium glycinate", "Magnesium=200 mg", "--form", "capsule").status == 0)
            #expect(run("regimen", "products", "add", "Ibuprofen", "Ibuprofen=200 mg", "--form", "tablet").status == 0)
            #expect(run("regimen", "import", dir.appendingPathComponent("doses.csv").path).status == 0)
            #expect(run("regimen", "outcomes", "import", dir.appendingPathComponent("sleep.csv").path).status == 0)
            let json = run("regimen", "insights", "--json")
            #expect(json.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let insights = try #require(object["insights"] as? [[String: Any]])
            let magnesium = try #require(
                insights.first { ($0["change"] as? [String: Any])?["description"] as? String == "starting Magnesium glycinate" })
            #expect(magnesium["windowDays"] as? Int == look)
            let verdict = try #require(magnesium["verdict"] as? String)
            #expect(verdict != "no-clear-difference", "look \(look): \(magnesium["summary"] ?? "")")
            #expect(magnesium["disclaimer"] as? String == Disclaimer.insight.text)
            let summary = try #require(magnesium["summary"] as? String)
            if verdict == "too-little-data-to-tell" {
                #expect(
                    summary.hasPrefix(
                        "Too little data to tell whether Sleep quality differed around the time of starting Magnesium glycinate on 2026-09-29"))
                #expect(summary.contains("so this is not a sign of no difference"))
            }
            // Never "no clear difference" in the text either, page or CLI.
            let text = run("regimen", "insights").stdout
            #expect(!text.contains("No clear difference in Sleep quality around the time of starting Magnesium glycinate"))
            #expect(text.contains(Disclaimer.insight.text))
        }
    }
}
