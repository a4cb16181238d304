import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen

/// `cairn regimen insights`.
struct RegimenInsightsCommand: Command {
    static let name = "insights"
    static let abstract = "Compare outcome series before and after changes in what you took."
    static let discussion = """
    Recomputes insights as of today, stores them, and lists every one: qualified findings first, then
    ongoing observations. A change is found only in doses logged as taken (a start, a pause of 3 or
    more scheduled days, stopping, a new dose, a new frequency or a new time of day). For each change
    and each outcome series, the 14 days before and after are compared (28 once 28 days have passed).

    A qualified finding needs at least 10 of 14 (20 of 28) days with a value on each side, a 95% interval
    of the difference that excludes zero (allowing for day-to-day carry-over and the weekly rhythm), an
    effect size |g| of at least 0.5, and a pass after adjusting for the number of series compared.
    """
    static let json = Option("--json", help: "Print the insights as JSON, each with its change, metric, window, counts, interval, effect\nsize, status, limitations and disclaimer.")
    static let options: [Option] = [json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().insights
        let run = try service.recompute()
        let insights = try service.list()
        if json {
            return try context.console.printJSON(InsightsJSON(asOf: run.asOf.description, qualifiedFindings: run.qualified,
                                                              ongoingObservations: insights.count - run.qualified,
                                                              disclaimer: Disclaimer.insight.text, insights: insights))
        }
        for line in InsightsReport.lines(insights, asOf: run.asOf) { context.console.print(line) }
    }
}

private struct InsightsJSON: Encodable {
    let asOf: String
    let qualifiedFindings: Int
    let ongoingObservations: Int
    let disclaimer: String
    let insights: [Insight]
}

/// The text the CLI prints for insights.
enum InsightsReport {
    /// Every line: a heading, then each insight with its figures, limitations and the disclaimer.
    static func lines(_ insights: [Insight], asOf: LocalDay) -> [String] {
        guard !insights.isEmpty else {
            return ["No insights as of \(asOf).",
                    "Insights compare outcome series (such as sleep quality or steps) before and after a change in what you logged as taken. Log doses with 'cairn regimen take' and keep an outcome series for at least two weeks on each side of a change."]
        }
        let qualified = insights.filter { $0.status == .qualifiedFinding }.count
        var lines = ["Insights as of \(asOf): \(qualified) qualified finding\(qualified == 1 ? "" : "s"), \(insights.count - qualified) ongoing observation\(insights.count - qualified == 1 ? "" : "s")"]
        for insight in insights {
            lines.append("")
            lines += Self.lines(insight)
        }
        return lines
    }

    /// The lines of one insight.
    static func lines(_ insight: Insight) -> [String] {
        var lines = ["\(insight.status == .qualifiedFinding ? "Qualified finding" : "Ongoing observation"): \(insight.metricName), \(insight.change.kind.plainName) of \(insight.change.productName) on \(insight.change.day)",
                     "  " + insight.summary,
                     "  Window: \(insight.windowDays) days each side, \(insight.before.lowerBound) to \(insight.before.upperBound) and \(insight.after.lowerBound) to \(insight.after.upperBound)",
                     "  Days with a value: \(insight.beforeCount) before, \(insight.afterCount) after (\(insight.minimumCount) needed on each side)"]
        if let diff = insight.difference, let interval = insight.interval {
            var figures = "  Difference: \(format(diff, signed: true))\(insight.unit.isEmpty ? "" : " " + insight.unit), 95% interval \(format(interval.lowerBound, signed: true)) to \(format(interval.upperBound, signed: true))"
            if let g = insight.hedgesG, g.isFinite { figures += "; effect size g = \(format(g, signed: false))" }
            if let p = insight.adjustedPValue { figures += "; adjusted p = \(String(format: "%.3f", p))" }
            lines.append(figures)
        }
        lines.append("  Limitations:")
        lines += insight.limitations.map { "    - " + $0 }
        lines.append("  " + insight.disclaimer)
        return lines
    }

    private static func format(_ v: Double, signed: Bool) -> String {
        let digits = abs(v) >= 100 ? 0 : (abs(v) >= 10 ? 1 : 2)
        let text = String(format: "%.\(digits)f", abs(v))
        return (v < 0 ? "−" : (signed && v > 0 ? "+" : "")) + text
    }
}
