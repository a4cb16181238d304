import CairnApp
import CairnCore
import Foundation
import Insights
import Regimen

/// `GET /regimen/insights`: stored insights, qualified findings first, then ongoing observations, each with a
/// small before/after chart, its window, counts, interval, limitations and the insight disclaimer. The first
/// visit of a day recomputes them (`InsightService.recomputeIfStale()`).
/// `POST /regimen/insights/recompute` recomputes them (CSRF-checked) and redirects back.
enum RegimenInsightsPage {
    static func routes(_ insights: InsightService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/insights") { r in
                try insights.recomputeIfStale()
                return .html(render(try insights.list(), run: try insights.lastRun(), csrfToken: csrfToken,
                                    notice: r.query["recomputed"] == "1" ? "Insights recomputed." : nil))
            },
            route(.post, "/regimen/insights/recompute") { _ in
                try insights.recompute()
                return .redirect(to: "/regimen/insights?recomputed=1")
            },
        ]
    }

    static func render(_ insights: [Insight], run: InsightRun?, csrfToken: String, notice: String? = nil) -> String {
        let head = RegimenPages.intro("Insights", lead: "What shifted in your outcome series around changes in what you logged as taken. Associations only, with their limits.")
            + RegimenPages.subnav("/regimen/insights") + RegimenPages.message(notice: notice, error: nil)
        let recompute = """
        <form method="post" action="/regimen/insights/recompute" class="insight-recompute">\(Layout.csrfField(csrfToken))
        <p>\(run.map { "Computed for \(HTML.escape($0.asOf.description))." } ?? "Not computed yet.")
        <button type="submit" class="button\(insights.isEmpty ? "" : " button-quiet")" id="insights-recompute">Recompute now</button></p>
        </form>
        """
        guard !insights.isEmpty else {
            return Layout.page(title: "Insights", section: .regimen, body: head + """
            <section class="card empty-state" aria-labelledby="insights-empty-title">
            <h2 id="insights-empty-title">No insights yet</h2>
            <p>Insights compare an outcome series, such as sleep quality or steps, in the two weeks before and after a change in what you logged as taken: a start, a pause, stopping, a new dose, frequency or time of day. They need doses logged as taken and at least 10 days with a value on each side of a change.</p>
            \(recompute)
            </section>
            <p class="insight-disclaimer">\(HTML.escape(Disclaimer.insight.text))</p>
            """)
        }
        let qualified = insights.filter { $0.status == .qualifiedFinding }
        let ongoing = insights.filter { $0.status == .ongoingObservation }
        var body = head + recompute
        body += section(id: "insights-qualified", title: "Qualified findings", items: qualified,
                        empty: "None yet: no difference has cleared every bar (enough days, an interval that excludes zero, an effect size of at least 0.5).")
        body += section(id: "insights-ongoing", title: "Ongoing observations", items: ongoing, empty: "None.")
        return Layout.page(title: "Insights", section: .regimen, body: body)
    }

    private static func section(id: String, title: String, items: [Insight], empty: String) -> String {
        let content = items.isEmpty ? "<p class=\"regimen-meta\">\(HTML.escape(empty))</p>"
            : "<ol class=\"insight-list\">\n" + items.enumerated().map { card($0.element, index: $0.offset, prefix: id) }.joined(separator: "\n") + "\n</ol>"
        return """
        <section class="insight-section" aria-labelledby="\(id)-title" id="\(id)">
        <h2 id="\(id)-title">\(HTML.escape(title)) (\(items.count))</h2>
        \(content)
        </section>
        """
    }

    private static func card(_ insight: Insight, index: Int, prefix: String) -> String {
        let id = "\(prefix)-\(index)"
        let statusWord = insight.status == .qualifiedFinding ? "Qualified finding" : "Ongoing observation"
        var facts = [
            ("Window", "\(insight.windowDays) days each side: \(insight.before.lowerBound) to \(insight.before.upperBound), then \(insight.after.lowerBound) to \(insight.after.upperBound)"),
            ("Days with a value", "\(insight.beforeCount) before, \(insight.afterCount) after (\(insight.minimumCount) needed on each side)"),
        ]
        if let diff = insight.difference, let interval = insight.interval {
            let unit = insight.unit.isEmpty ? "" : " " + insight.unit
            facts.append(("Difference", "\(signed(diff))\(unit), 95% interval \(signed(interval.lowerBound)) to \(signed(interval.upperBound))"))
        }
        if let g = insight.hedgesG, g.isFinite { facts.append(("Effect size", "g = \(plain(g))")) }
        let dl = facts.map { "<div><dt>\(HTML.escape($0.0))</dt><dd>\(HTML.escape($0.1))</dd></div>" }.joined()
        let limits = insight.limitations.map { "<li>\(HTML.escape($0))</li>" }.joined()
        return """
        <li class="card insight insight-\(insight.status.rawValue)" aria-labelledby="\(id)-title">
        <p class="insight-status"><span class="insight-badge">\(statusWord)</span></p>
        <h3 id="\(id)-title">\(HTML.escape(insight.metricName)) around \(HTML.escape(insight.change.description)) (\(HTML.escape(insight.change.day.description)))</h3>
        <p class="insight-summary">\(HTML.escape(insight.summary))</p>
        \(chart(insight, id: id))
        <dl class="insight-facts">\(dl)</dl>
        <h4>Limitations</h4>
        <ul class="insight-limitations">\(limits)</ul>
        <p class="insight-disclaimer">\(HTML.escape(insight.disclaimer))</p>
        </li>
        """
    }

    /// A small SVG of the daily values: hollow stone circles before the change, filled teal circles from it
    /// on, each side's mean as a line, and the change day as a labelled vertical line. Scales to its box
    /// (viewBox), readable at 390 px.
    static func chart(_ insight: Insight, id: String) -> String {
        let width = 360.0, height = 160.0
        let left = 40.0, right = 8.0, top = 18.0, bottom = 24.0
        let firstDay = insight.before.lowerBound.dayNumber, lastDay = insight.after.upperBound.dayNumber
        let values = insight.points.map(\.value)
        let description = "Daily \(insight.metricName) values from \(insight.before.lowerBound) to \(insight.after.upperBound). "
            + (insight.beforeMean.map { "Mean \(plain($0)) before" } ?? "No values before")
            + (insight.afterMean.map { " and \(plain($0)) from the change on" } ?? " and none from the change on")
            + " (\(insight.change.day))."
        guard let minValue = values.min(), let maxValue = values.max() else {
            return "<p class=\"regimen-meta\">No values in these windows yet.</p>"
        }
        let padding = maxValue > minValue ? (maxValue - minValue) * 0.1 : max(1, abs(maxValue) * 0.1)
        let low = minValue - padding, high = maxValue + padding
        let span = Double(max(1, lastDay - firstDay))
        func x(_ day: Int) -> Double { left + (width - left - right) * Double(day - firstDay) / span }
        func y(_ v: Double) -> Double { top + (height - top - bottom) * (1 - (v - low) / (high - low)) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        let change = insight.change.day.dayNumber
        var svg = """
        <figure class="insight-figure"><svg class="insight-chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-labelledby="\(id)-chart-title \(id)-chart-desc" focusable="false">
        <title id="\(id)-chart-title">\(HTML.escape(insight.metricName)) before and after the change</title>
        <desc id="\(id)-chart-desc">\(HTML.escape(description))</desc>
        <line class="axis" x1="\(f(left))" y1="\(f(height - bottom))" x2="\(f(width - right))" y2="\(f(height - bottom))"/>
        <text class="tick" x="\(f(left - 4))" y="\(f(y(high - padding) + 4))" text-anchor="end">\(HTML.escape(plain(high - padding)))</text>
        <text class="tick" x="\(f(left - 4))" y="\(f(y(low + padding) + 4))" text-anchor="end">\(HTML.escape(plain(low + padding)))</text>
        <text class="tick" x="\(f(left))" y="\(f(height - 6))">\(HTML.escape(insight.before.lowerBound.description))</text>
        <text class="tick" x="\(f(width - right))" y="\(f(height - 6))" text-anchor="end">\(HTML.escape(insight.after.upperBound.description))</text>
        <line class="change" x1="\(f(x(change) - 0.5))" y1="\(f(top - 6))" x2="\(f(x(change) - 0.5))" y2="\(f(height - bottom))"/>
        <text class="change-label" x="\(f(x(change) + 3))" y="\(f(top - 8))">change</text>

        """
        if let m = insight.beforeMean {
            svg += "<line class=\"mean mean-before\" x1=\"\(f(x(firstDay)))\" y1=\"\(f(y(m)))\" x2=\"\(f(x(change - 1)))\" y2=\"\(f(y(m)))\"/>\n"
        }
        if let m = insight.afterMean {
            svg += "<line class=\"mean mean-after\" x1=\"\(f(x(change)))\" y1=\"\(f(y(m)))\" x2=\"\(f(x(lastDay)))\" y2=\"\(f(y(m)))\"/>\n"
        }
        for point in insight.points {
            let d = point.day.dayNumber
            svg += "<circle class=\"\(d < change ? "before" : "after")\" cx=\"\(f(x(d)))\" cy=\"\(f(y(point.value)))\" r=\"2.6\"/>\n"
        }
        svg += "</svg>\n<figcaption class=\"insight-legend\"><span class=\"legend-before\">○ before</span> <span class=\"legend-after\">● from the change on</span>; lines: means</figcaption></figure>"
        return svg
    }

    private static func plain(_ v: Double) -> String {
        let digits = abs(v) >= 100 ? 0 : (abs(v) >= 10 ? 1 : 2)
        return String(format: "%.\(digits)f", v)
    }

    private static func signed(_ v: Double) -> String { (v < 0 ? "−" : (v > 0 ? "+" : "")) + plain(abs(v)) }
}
