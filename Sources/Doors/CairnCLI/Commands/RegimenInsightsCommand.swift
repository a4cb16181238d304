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
        Recomputes insights as of today (only what changed since the last run), stores them, and lists them
        grouped by change: changes with a qualified finding first, then by strength. A change is found only in
        doses logged as taken (a start with doses on at least 4 of its first 14 days, a pause of 3 or more
        scheduled days, stopping, a new dose, a new frequency or a new time of day); a single as-needed dose is
        not a change. For each change and each outcome series, the 14 days before and after are compared (28
        once 28 days have passed).

        A qualified finding needs at least 10 of 14 (20 of 28) days with a value on each side, a 95% interval
        that excludes zero (allowing for day-to-day carry-over and the weekly rhythm), an effect size |g| of
        at least 0.5, and p at most 0.04 at the 14-day look and 0.01 at the 28-day look, before and after
        adjusting for the number of series compared (the two looks share one 5% error rate). Each series is
        also checked at dates of its own where nothing changed: if differences there spread wider than the
        model expects, its comparisons are widened to match. Each insight lists which conditions held, and
        how often the method flagged those dates. "No clear difference" is said only when the interval rules
        out a shift of half the usual day-to-day spread; otherwise it reads "too little data to tell", with
        the days a shift of that size would need.
        """
    static let json = Option(
        "--json",
        help:
            "Print the insights as JSON, each with its change, metric, window, counts, interval, effect\nsize, conditions, status, placebo check, limitations and disclaimer."
    )
    static let full = Option("--full", help: "Recompute everything, not only what changed since the last run.")
    static let searchOnset = Option(
        "--search-onset", "METRIC",
        help: "Also search a later onset (0-7 days after a change) for this series;\nthe search is counted in its p-value.")
    static let noSearchOnset = Option("--no-search-onset", "METRIC", help: "Use only the change day as the onset for this series again.")
    static let options: [Option] = [json, full, searchOnset, noSearchOnset]

    let json: Bool
    let full: Bool
    let onset: (metric: String, on: Bool)?

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
        full = arguments.has(Self.full)
        switch (arguments.value(Self.searchOnset), arguments.value(Self.noSearchOnset)) {
        case (let on?, nil): onset = (on, true)
        case (nil, let off?): onset = (off, false)
        case (nil, nil): onset = nil
        default: throw UsageError("Give --search-onset or --no-search-onset, not both.")
        }
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().insights
        if let onset {
            try service.setSearchesOnset(onset.on, metricID: onset.metric)
            if !json {
                context.console.print(
                    onset.on
                        ? "Onsets 0-7 days after a change are now searched for \(onset.metric) (the search is counted in its p-values)."
                        : "Only the change day itself is now used as the onset for \(onset.metric).")
            }
        }
        let run = try service.recompute(full: full)
        let insights = try service.list()
        let changes = try service.changes()
        if json {
            return try context.console.printJSON(
                InsightsJSON(
                    asOf: run.asOf.description, qualifiedFindings: run.qualified,
                    ongoingObservations: insights.count - run.qualified,
                    summary: insights.isEmpty
                        ? InsightsOverview.emptyReason(changes: changes)
                        : InsightsOverview(insights).summary,
                    disclaimer: Disclaimer.insight.text, insights: insights))
        }
        for line in InsightsReport.lines(insights, asOf: run.asOf, changes: changes) { context.console.print(line) }
    }
}

private struct InsightsJSON: Encodable {
    let asOf: String
    let qualifiedFindings: Int
    let ongoingObservations: Int
    let summary: String
    let disclaimer: String
    let insights: [Insight]
}

/// The text the CLI prints for insights.
enum InsightsReport {
    /// Every line: a heading, then each insight with its figures, limitations and the disclaimer.
    static func lines(_ insights: [Insight], asOf: LocalDay, changes: [ExposureChange] = []) -> [String] {
        guard !insights.isEmpty else {
            return ["No insights as of \(asOf).", InsightsOverview.emptyReason(changes: changes), Disclaimer.insight.text]
        }
        var lines = ["Insights as of \(asOf): " + InsightsOverview(insights).summary]
        var change: String?
        for insight in insights {
            if insight.change.id != change {
                change = insight.change.id
                lines.append("")
                lines.append("Around \(insight.change.description) on \(insight.change.day):")
            }
            lines += Self.lines(insight).map { "  " + $0 }
        }
        return lines
    }

    /// The lines of one insight.
    static func lines(_ insight: Insight) -> [String] {
        var lines = [
            "\(insight.label): \(insight.metricName), \(insight.change.kind.plainName) of \(insight.change.productName) on \(insight.change.day)",
            "  " + insight.plainSummary,
            "  " + insight.disclaimer,
            "  Figures: " + insight.summary,
            "  Window: \(insight.windowDays) days each side, \(insight.before.lowerBound) to \(insight.before.upperBound) and \(insight.after.lowerBound) to \(insight.after.upperBound)",
            "  Days with a value: \(insight.beforeCount) before, \(insight.afterCount) after (\(insight.minimumCount) needed on each side)",
        ]
        if let diff = insight.difference, let interval = insight.interval {
            var figures =
                "  Difference: \(format(diff, signed: true))\(InsightWording.unitText(insight.unit)), 95% interval \(format(interval.lowerBound, signed: true)) to \(format(interval.upperBound, signed: true))"
            if let g = insight.hedgesG, g.isFinite { figures += "; effect size g = \(format(g, signed: false))" }
            if let p = insight.adjustedPValue { figures += "; adjusted p = \(String(format: "%.3f", p))" }
            lines.append(figures)
        }
        lines.append("  Conditions:")
        lines += insight.conditions.map { "    [\($0.held ? "held" : "not met")] " + $0.text }
        lines.append("  " + InsightsOverview.placeboText(insight))
        lines.append("  Limitations:")
        lines += insight.limitations.map { "    - " + $0 }
        return lines
    }

    private static func format(_ v: Double, signed: Bool) -> String {
        let digits = abs(v) >= 100 ? 0 : (abs(v) >= 10 ? 1 : 2)
        let text = String(format: "%.\(digits)f", abs(v))
        return (v < 0 ? "−" : (signed && v > 0 ? "+" : "")) + text
    }
}
