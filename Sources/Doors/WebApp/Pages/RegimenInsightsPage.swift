import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen

/// `GET /regimen/insights`: a short summary, then the stored insights grouped under their change (changes with
/// a qualified finding first, then by strength), each card with its summary sentence and, folded in a
/// `<details>` (works without JavaScript), its chart, the conditions that held and did not, the placebo check,
/// the limitations; the insight disclaimer on every card. Opening the page starts a recomputation when inputs
/// changed or the day did (`InsightService.recomputeInBackgroundIfNeeded()`, in the background in the web app;
/// every form sent to the app does too, `WebApplication.respond`); while it runs the page says where it is,
/// `GET /regimen/insights/progress` answers `{"state": "idle"|"running"|"failed", "text": ...}` for the page
/// script that follows it, and the page reloads itself once it is done (without JavaScript, a reload does).
/// `POST /regimen/insights/recompute` recomputes everything (CSRF-checked) and redirects back.
enum RegimenInsightsPage {
    static func routes(_ insights: InsightService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/insights") { r in
                try insights.recomputeInBackgroundIfNeeded()
                let notice =
                    r.query["recomputed"] == "1"
                    ? "Insights recomputed."
                    : (r.query["onset"] == "1" ? "Onset search saved; the insights of that series are recomputed." : nil)
                return .html(
                    render(
                        try insights.list(), run: try insights.lastRun(), state: insights.backgroundState,
                        changes: try insights.changes(), csrfToken: csrfToken, notice: notice,
                        searching: try insights.metricsSearchingOnset()))
            },
            route(.get, "/regimen/insights/progress") { _ in
                // For the page script while a background recomputation runs: where it is, then done or failed.
                let (state, text): (String, String) =
                    switch insights.backgroundState {
                    case .idle: ("idle", "")
                    case .running(let progress): ("running", progressText(progress))
                    case .failed(let message): ("failed", message)
                    }
                return .json(["state": state, "text": text])
            },
            route(.post, "/regimen/insights/onset") { r in
                try insights.setSearchesOnset(r.form["search"] == "on", metricID: r.form["metric"] ?? "")
                return .redirect(to: "/regimen/insights?onset=1")
            },
            route(.post, "/regimen/insights/recompute") { _ in
                if case .running = insights.backgroundState { return .redirect(to: "/regimen/insights") }
                try insights.recompute(full: true)
                return .redirect(to: "/regimen/insights?recomputed=1")
            },
        ]
    }

    static func render(
        _ insights: [Insight], run: InsightRun?, state: InsightBackgroundState = .idle, changes: [ExposureChange] = [],
        csrfToken: String, notice: String? = nil, searching: Set<String> = []
    ) -> String {
        var messages = RegimenPages.message(notice: notice, error: nil)
        var running = false
        switch state {
        case .idle: break
        case .running(let progress):
            running = true
            messages += "<p class=\"notice\" role=\"status\" id=\"insights-progress\">\(progressText(progress))</p>"
        case .failed(let message):
            messages += "<p class=\"form-error\" role=\"alert\">\(message)</p>"
        }
        let head =
            RegimenPages.intro(
                "Insights",
                lead: "What shifted in your outcome series around changes in what you logged as taken. Associations only, with their limits.")
            + RegimenPages.subnav("/regimen/insights") + messages
        let computed =
            run.map { "Computed for \($0.asOf.description), updated by itself after imports and edits." } ?? "Not computed yet."
        let quiet: HTML = insights.isEmpty ? "" : " button-quiet"
        let disabled: HTML = running ? " disabled aria-disabled=\"true\"" : ""
        let recompute: HTML = """
            <form method="post" action="/regimen/insights/recompute" class="insight-recompute">\(Layout.csrfField(csrfToken))
            <p>\(computed)
            <button type="submit" class="button\(quiet)" id="insights-recompute"\(disabled)>\(running ? "Recomputing…" : "Recompute everything")</button></p>
            </form>
            """
        guard !insights.isEmpty else {
            let reason = running ? "Insights are being computed; reload the page in a moment." : InsightsOverview.emptyReason(changes: changes)
            return Layout.page(
                title: "Insights", section: .regimen,
                body: head + """
                    <section class="card empty-state" aria-labelledby="insights-empty-title">
                    <h2 id="insights-empty-title">No insights yet</h2>
                    <p>\(reason)</p>
                    <p>Insights compare an outcome series, such as sleep quality or steps, in the two weeks before and after a change in what you logged as taken: a start, a pause, stopping, a new dose, frequency or time of day. They need at least 10 days with a value on each side of a change.</p>
                    \(recompute)
                    </section>
                    <p class="insight-disclaimer">\(Disclaimer.insight.text)</p>
                    """)
        }
        let overview = InsightsOverview(insights)
        var body =
            head + """
                <section class="card insight-overview" aria-labelledby="insights-overview-title">
                <h2 id="insights-overview-title">Summary</h2>
                <p id="insights-summary">\(overview.summary)</p>
                <p class="regimen-meta">A qualified finding needs enough days with a value, a 95% interval that excludes zero, an effect size of at least 0.5, and p at most \(InsightWording.pText(InsightEngine.lookAlpha(windowDays: 14))) at 14 days or \(InsightWording.pText(InsightEngine.lookAlpha(windowDays: 28))) at 28 days before and after adjusting for the number of series compared (the 14-day and 28-day looks share one 5% error rate). Each card says which of these held.</p>
                <p class="insight-disclaimer">\(Disclaimer.insight.text)</p>
                \(recompute)
                </section>
                """
        body += onsetForms(insights, searching: searching, csrfToken: csrfToken)
        for (n, change) in overview.changes.enumerated() {
            body += group(change, items: insights.filter { $0.change.id == change.id }, index: n, allChanges: changes)
        }
        return Layout.page(title: "Insights", section: .regimen, body: body)
    }

    /// Where a background recomputation is, the same on the page and in `/regimen/insights/progress` (whose
    /// script, in cairn.js, follows it and shows the new state once it is done; without it, a reload does).
    static func progressText(_ progress: InsightProgress) -> String {
        let step = progress.total > 0 ? ": \(progress.done) of \(progress.total) changes" : ""
        return
            "Recomputing insights in the background (\(progress.phase.lowercased())\(step)). What you see below is from the last run; the page shows the new state when it is done (or reload it)."
    }

    /// Per series, a form that turns the search for a later onset (0-7 days after a change) on or off; the
    /// search is counted in that series' p-values, so it is a choice made before looking, not a free pick.
    private static func onsetForms(_ insights: [Insight], searching: Set<String>, csrfToken: String) -> HTML {
        var seen = Set<String>()
        let metrics = insights.filter { seen.insert($0.metricID).inserted }.map { ($0.metricID, $0.metricName) }
            .sorted { $0.1.lowercased() < $1.1.lowercased() }
        guard !metrics.isEmpty else { return "" }
        let rows = metrics.map { (id, name) -> HTML in
            let on = searching.contains(id)
            let state = on ? "onsets 0-7 days after a change are searched" : "compared from the change day only"
            let button = on ? "Use the change day only" : "Also search a later onset"
            return """
                <li><form method="post" action="/regimen/insights/onset" class="insight-onset-form">\(Layout.csrfField(csrfToken))
                <input type="hidden" name="metric" value="\(id)"><input type="hidden" name="search" value="\(on ? "off" : "on")">
                <span>\(name): \(state)</span>
                <button type="submit" class="button button-quiet">\(button)</button>
                </form></li>
                """
        }
        return """
            <section class="card insight-onset" aria-labelledby="insights-onset-title">
            <details>
            <summary id="insights-onset-title">Later onsets (0-7 days after a change)</summary>
            <p class="regimen-meta">Some series may shift only days after a change. Searching onsets 0 to 7 days after it makes 8 comparisons, and the search is counted in the p-value (it is multiplied by 8), so a finding then needs stronger evidence. Choose this per series before looking at its results.</p>
            <ul class="insight-onset-list">\(HTML.join(rows, separator: "\n"))</ul>
            </details>
            </section>
            """
    }

    /// One change and its insights, qualified findings first.
    private static func group(_ change: ExposureChange, items: [Insight], index: Int, allChanges: [ExposureChange]) -> HTML {
        let id = "change-\(index)"
        let qualified = items.filter { $0.status == .qualifiedFinding }.count
        let count =
            qualified > 0
            ? "\(qualified) qualified finding\(qualified == 1 ? "" : "s") of \(items.count) series"
            : "\(items.count) series, no qualified finding"
        // Qualified findings first; the series that can only say "too little data yet" share one line.
        let shown = items.enumerated().filter { !$0.element.isTooLittleData }
            .sorted { ($0.element.status == .qualifiedFinding ? 0 : 1, $0.offset) < ($1.element.status == .qualifiedFinding ? 0 : 1, $1.offset) }
        let cards = shown.map { card($0.element, id: "\(id)-\($0.offset)", allChanges: allChanges) }
        let waiting = items.filter(\.isTooLittleData).map(\.metricName)
        let waitingLine: HTML =
            waiting.isEmpty
            ? ""
            : "<p class=\"insight-waiting\" id=\"\(id)-waiting\">Too little data yet to tell for \(waiting.joined(separator: ", ")). Each needs more days with a value on both sides of the change.</p><p class=\"insight-disclaimer\">\(Disclaimer.insight.text)</p>"
        let list: HTML = cards.isEmpty ? "" : "<ol class=\"insight-list\">\n\(HTML.join(cards, separator: "\n"))\n</ol>"
        return """
            <section class="insight-section insight-group" aria-labelledby="\(id)-title" id="\(id)">
            <h2 id="\(id)-title">Around \(change.description) <span class="insight-day">(\(change.day.description))</span></h2>
            <p class="regimen-meta">\(count)</p>
            \(list)
            \(waitingLine)
            </section>
            """
    }

    private static func card(_ insight: Insight, id: String, allChanges: [ExposureChange]) -> HTML {
        let statusWord = insight.label
        var facts = insight.facts
        if let p = insight.adjustedPValue { facts.append(("Adjusted p", "\(InsightWording.pText(p)) across \(insight.seriesCompared) series")) }
        let dl = facts.map { fact -> HTML in "<div><dt>\(fact.0)</dt><dd>\(fact.1)</dd></div>" }
        let conditions = insight.conditions.map { c -> HTML in
            let held: HTML = c.held ? "held" : "not-met"
            let mark: HTML = c.held ? "✓" : "✗"
            let words: HTML = c.held ? "Held:" : "Not met:"
            return
                "<li class=\"condition condition-\(held)\"><span class=\"condition-mark\" aria-hidden=\"true\">\(mark)</span> <span class=\"visually-hidden\">\(words)</span> \(c.text)</li>"
        }
        let limits = insight.limitations.map { limit -> HTML in "<li>\(limit)</li>" }
        let others = allChanges.filter { $0.id != insight.change.id && $0.day >= insight.before.lowerBound && $0.day <= insight.after.upperBound }
        return """
            <li class="card insight insight-\(insight.status.rawValue)" aria-labelledby="\(id)-title">
            <p class="insight-status"><span class="insight-badge">\(statusWord)</span></p>
            <h3 id="\(id)-title">\(insight.metricName)</h3>
            <p class="insight-summary">\(insight.plainSummary)</p>
            <p class="insight-disclaimer">\(insight.disclaimer)</p>
            <details class="insight-details">
            <summary>Chart, figures and limitations</summary>
            \(chart(insight, id: id, otherChanges: others))
            <p class="insight-figures">\(insight.summary)</p>
            <h4>Conditions for a qualified finding</h4>
            <ul class="insight-conditions">\(conditions)</ul>
            <p class="insight-placebo">\(InsightsOverview.placeboText(insight))</p>
            <dl class="insight-facts">\(dl)</dl>
            <h4>Limitations</h4>
            <ul class="insight-limitations">\(limits)</ul>
            </details>
            </li>
            """
    }

    /// A small SVG of the daily values: hollow stone circles before the change, filled teal circles from it
    /// on, each side's mean as a line, and the change day as a labelled vertical line. Scales to its box
    /// (viewBox); its text stays readable at 390 px (`ChartText`).
    static func chart(_ insight: Insight, id: String, otherChanges: [ExposureChange] = []) -> HTML {
        let width = 360.0
        let height = 170.0
        var left = 40.0
        let right = 8.0
        let top = 22.0
        let bottom = 28.0
        let firstDay = insight.before.lowerBound.dayNumber
        let lastDay = insight.after.upperBound.dayNumber
        let values = insight.points.map(\.value)
        let description =
            "Daily \(insight.metricName) values from \(insight.before.lowerBound) to \(insight.after.upperBound). "
            + (insight.beforeMean.map { "Mean \(plain($0)) before" } ?? "No values before")
            + (insight.afterMean.map { " and \(plain($0)) from the change on" } ?? " and none from the change on")
            + " (\(insight.change.day))."
            + (otherChanges.isEmpty
                ? ""
                : " Other changes in these windows, marked with thin lines: "
                    + otherChanges.map { "\($0.description) on \($0.day)" }.joined(separator: "; ") + ".")
        guard let minValue = values.min(), let maxValue = values.max() else {
            return "<p class=\"regimen-meta\">No values in these windows yet.</p>"
        }
        let padding = maxValue > minValue ? (maxValue - minValue) * 0.1 : max(1, abs(maxValue) * 0.1)
        let low = minValue - padding
        let high = maxValue + padding
        left = ChartText.margin(for: [plain(high - padding), plain(low + padding)], gap: 4, minimum: left)
        let span = Double(max(1, lastDay - firstDay))
        func x(_ day: Int) -> Double { left + (width - left - right) * Double(day - firstDay) / span }
        func y(_ v: Double) -> Double { top + (height - top - bottom) * (1 - (v - low) / (high - low)) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        let change = insight.change.day.dayNumber
        var svg: [HTML] = [
            """
            <figure class="insight-figure"><svg class="insight-chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-labelledby="\(id)-chart-title \(id)-chart-desc" focusable="false">
            <title id="\(id)-chart-title">\(insight.metricName) before and after the change</title>
            <desc id="\(id)-chart-desc">\(description)</desc>
            <line class="axis" x1="\(f(left))" y1="\(f(height - bottom))" x2="\(f(width - right))" y2="\(f(height - bottom))"/>
            <text class="tick" x="\(f(left - 4))" y="\(f(y(high - padding) + 4))" text-anchor="end">\(plain(high - padding))</text>
            <text class="tick" x="\(f(left - 4))" y="\(f(y(low + padding) + 4))" text-anchor="end">\(plain(low + padding))</text>
            <text class="tick" x="\(f(left))" y="\(f(height - 6))">\(insight.before.lowerBound.description)</text>
            <text class="tick" x="\(f(width - right))" y="\(f(height - 6))" text-anchor="end">\(insight.after.upperBound.description)</text>
            <line class="change" x1="\(f(x(change) - 0.5))" y1="\(f(top - 6))" x2="\(f(x(change) - 0.5))" y2="\(f(height - bottom))"/>
            <text class="change-label" x="\(f(x(change) + 3))" y="\(f(top - 9))">change</text>

            """
        ]
        for other in otherChanges {
            let d = other.day.dayNumber
            svg.append(
                "<line class=\"other-change\" x1=\"\(f(x(d) - 0.5))\" y1=\"\(f(top))\" x2=\"\(f(x(d) - 0.5))\" y2=\"\(f(height - bottom))\"/>\n")
        }
        if let m = insight.beforeMean {
            svg.append("<line class=\"mean mean-before\" x1=\"\(f(x(firstDay)))\" y1=\"\(f(y(m)))\" x2=\"\(f(x(change - 1)))\" y2=\"\(f(y(m)))\"/>\n")
        }
        if let m = insight.afterMean {
            svg.append("<line class=\"mean mean-after\" x1=\"\(f(x(change)))\" y1=\"\(f(y(m)))\" x2=\"\(f(x(lastDay)))\" y2=\"\(f(y(m)))\"/>\n")
        }
        for point in insight.points {
            let d = point.day.dayNumber
            let side: HTML = d < change ? "before" : "after"
            svg.append("<circle class=\"\(side)\" cx=\"\(f(x(d)))\" cy=\"\(f(y(point.value)))\" r=\"2.6\"/>\n")
        }
        svg.append(
            "</svg>\n<figcaption class=\"insight-legend\"><span class=\"legend-before\">○ before</span> <span class=\"legend-after\">● from the change on</span>; lines: means</figcaption></figure>"
        )
        return HTML.join(svg)
    }

    private static func plain(_ v: Double) -> String { InsightNumbers.plain(v) }
}
