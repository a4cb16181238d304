import CairnApp
import CairnCore
import Foundation
import Insights
import Outcomes
import Regimen

/// The Outcomes page under `/regimen/outcomes`: one chart per metric with data, a form to log a value, a CSV
/// import with a per-line result, and a form to define a metric of one's own. Every change goes through
/// `OutcomeService`.
///
/// Routes (behind the session cookie; POSTs need the CSRF token):
/// - `GET /regimen/outcomes` the page (`?saved=1`, `?defined=1` show a notice);
/// - `POST /regimen/outcomes/entries` (`metric`, `date`, `value`, `note`) then redirect, or the page with the
///   service's message (400);
/// - `POST /regimen/outcomes/import` (multipart, `file`): the page with the result of every line, or every
///   bad line (400);
/// - `POST /regimen/outcomes/metrics` (`id`, `name`, `unit`, `min`, `max`, `aggregation`).
enum RegimenOutcomesPage {
    static func routes(_ outcomes: OutcomeService, insights: InsightService? = nil, csrfToken: String) -> [Route] {
        // After an import or an edit, insights catch up on their own (`WebApplication.respond`).
        [
            route(.get, "/regimen/outcomes") { r in
                let notice = r.query["saved"] == "1" ? "Saved." : r.query["defined"] == "1" ? "The metric was added." : nil
                return .html(try render(outcomes: outcomes, csrfToken: csrfToken, notice: notice, changes: (try? insights?.changes()) ?? []))
            },
            route(.post, "/regimen/outcomes/entries") { r in try addEntry(r.request, outcomes: outcomes, csrfToken: csrfToken) },
            route(.post, "/regimen/outcomes/import") { r in try importFile(r.request, outcomes: outcomes, csrfToken: csrfToken) },
            route(.post, "/regimen/outcomes/metrics") { r in try defineMetric(r.request, outcomes: outcomes, csrfToken: csrfToken) },
            route(.post, "/regimen/outcomes/entries/{entry}/correct") { r in
                try correctEntry(OutcomeEntryID(r.parameter("entry")), r.request, outcomes: outcomes, csrfToken: csrfToken)
            },
        ]
    }

    // MARK: actions

    private static func addEntry(_ request: Request, outcomes: OutcomeService, csrfToken: String) throws -> Response {
        let form = request.form
        let typed = FormValues(metric: form["metric"] ?? "", date: form["date"] ?? "", value: form["value"] ?? "", note: form["note"] ?? "")
        func refuse(_ errors: EntryErrors) throws -> Response {
            .html(try render(outcomes: outcomes, csrfToken: csrfToken, entryErrors: errors, typed: typed), status: 400)
        }
        // Every field read first, so all its errors show at once, each beside its field.
        var errors = EntryErrors()
        var day: LocalDay?
        do {
            day = try form.value("date", as: LocalDay.self)
            if day == nil { errors.date = "Choose a date." }
        } catch let refusal as InputError { errors.date = refusal.userMessage }
        let value = OutcomeCSV.number(typed.value.trimmingCharacters(in: .whitespaces))
        if value == nil { errors.value = "The value must be a number, like 3 or 3.5." }
        guard let day, let value, errors.isEmpty else { return try refuse(errors) }
        do {
            try outcomes.add(metricID: typed.metric, value: value, on: day, note: typed.note)
        } catch let error as OutcomeError {
            let message = error.userMessage + " Nothing was saved."
            switch error {
            case .unknownMetric, .metricIsReadOnly, .invalidMetricID: errors.metric = message
            case .dayInFuture: errors.date = message
            default: errors.value = message
            }
            return try refuse(errors)
        } catch let error as TextInputError {
            errors.note = error.userMessage
            return try refuse(errors)
        }
        return .redirect(to: "/regimen/outcomes?saved=1")
    }

    private static func correctEntry(_ id: OutcomeEntryID, _ request: Request, outcomes: OutcomeService, csrfToken: String) throws -> Response {
        guard try outcomes.entry(id) != nil else { throw WebError.notFound }
        guard let value = OutcomeCSV.number((request.form["value"] ?? "").trimmingCharacters(in: .whitespaces)) else {
            return .html(
                try render(outcomes: outcomes, csrfToken: csrfToken, recentError: "The value must be a number, like 3 or 3.5. Nothing was saved."),
                status: 400)
        }
        do {
            try outcomes.correct(id, value: value)
        } catch let error as OutcomeError {
            return .html(try render(outcomes: outcomes, csrfToken: csrfToken, recentError: error.userMessage + " Nothing was saved."), status: 400)
        }
        return .redirect(to: "/regimen/outcomes?saved=1")
    }

    private static func importFile(_ request: Request, outcomes: OutcomeService, csrfToken: String) throws -> Response {
        guard let data = request.formValue("file"), !data.isEmpty else {
            return .html(
                try render(outcomes: outcomes, csrfToken: csrfToken, importResult: .refused("Choose a CSV file to import.", [])),
                status: 400)
        }
        do {
            let report = try outcomes.importCSV(data)
            return .html(try render(outcomes: outcomes, csrfToken: csrfToken, importResult: .imported(report)))
        } catch let error as ImportLinesError {
            return .html(
                try render(outcomes: outcomes, csrfToken: csrfToken, importResult: .refused(error.userMessage, error.listedProblems)),
                status: 400)
        } catch let error as CSVError {
            return .html(try render(outcomes: outcomes, csrfToken: csrfToken, importResult: .refused(error.userMessage, [])), status: 400)
        }
    }

    private static func defineMetric(_ request: Request, outcomes: OutcomeService, csrfToken: String) throws -> Response {
        let form = request.form
        func refuse(_ message: String) throws -> Response {
            .html(try render(outcomes: outcomes, csrfToken: csrfToken, metricError: message), status: 400)
        }
        let low = OutcomeCSV.number((form["min"] ?? "").trimmingCharacters(in: .whitespaces))
        let high = OutcomeCSV.number((form["max"] ?? "").trimmingCharacters(in: .whitespaces))
        guard let low, let high else { return try refuse("The lowest and highest values must be numbers.") }
        guard low < high, let aggregation = DailyAggregation(rawValue: form["aggregation"] ?? "mean") else {
            return try refuse(OutcomeError.invalidRange.userMessage)
        }
        do {
            try outcomes.defineMetric(
                MetricDefinition.custom(
                    id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces),
                    name: form["name"] ?? "", unit: form["unit"] ?? "",
                    range: low...high, aggregation: aggregation))
        } catch let error as OutcomeError {
            return try refuse(error.userMessage + " Nothing was saved.")
        } catch let error as TextInputError {
            return try refuse(error.userMessage)
        }
        return .redirect(to: "/regimen/outcomes?defined=1")
    }

    // MARK: page

    struct FormValues {
        var metric = "", date = "", value = "", note = ""
    }

    enum ImportResult {
        case imported(OutcomeImportReport)
        case refused(String, [String])
    }

    static func render(
        outcomes: OutcomeService, csrfToken: String, notice: String? = nil, entryErrors: EntryErrors = EntryErrors(),
        typed: FormValues = FormValues(), importResult: ImportResult? = nil, metricError: String? = nil,
        recentError: String? = nil, changes: [ExposureChange] = []
    ) throws -> String {
        let metrics = try outcomes.definitions()
        let series = try outcomes.dailySeries()
        let today = outcomes.today()
        var body =
            RegimenPages.intro(
                "Outcomes",
                lead:
                    "Daily values you track, such as sleep quality or energy, shown over time. Cairn shows what you logged and never says whether a value is good or bad."
            )
            + RegimenPages.subnav("/regimen/outcomes")
            + RegimenPages.message(notice: notice, error: nil)
        // The form first: a value is logged most days, the charts are read now and then.
        body += entryForm(metrics: metrics.filter { $0.source == .manual }, today: today, typed: typed, errors: entryErrors, csrfToken: csrfToken)
        if series.isEmpty {
            body += """
                <section class="card empty-state" aria-labelledby="outcomes-empty-title" id="outcomes-empty">
                <h2 id="outcomes-empty-title">No values yet</h2>
                <p>Log a value above, for example how well you slept last night on a scale of 1 to 5, or import a CSV file of past values. Each metric gets its own chart here.</p>
                </section>
                """
        } else {
            body += "<div class=\"outcome-charts\">\(HTML.join(series.map { chart($0, changes: changes) }, separator: "\n"))</div>"
        }
        body += recentEntries(try outcomes.entries(limit: recentCount), metrics: metrics, error: recentError, csrfToken: csrfToken)
        body += importForm(result: importResult, csrfToken: csrfToken)
        body += """
            <section class="card" aria-labelledby="outcome-health-title">
            <h2 id="outcome-health-title">Apple Health</h2>
            <p>Resting heart rate, heart rate variability, steps, body mass and sleep come from the Health app's export. <a href="/regimen/outcomes/health">Import an Apple Health export</a></p>
            </section>
            """
        body += metricForm(error: metricError, csrfToken: csrfToken)
        return Layout.page(title: "Outcomes", section: .regimen, body: body)
    }

    /// The refusals of the "Log a value" form, each beside its field.
    struct EntryErrors {
        var metric: String?, date: String?, value: String?, note: String?
        var isEmpty: Bool { [metric, date, value, note].allSatisfy { $0 == nil } }
    }

    static func entryForm(metrics: [MetricDefinition], today: LocalDay, typed: FormValues, errors: EntryErrors, csrfToken: String) -> HTML {
        let options = metrics.map { m -> HTML in
            let selected: HTML = m.id == typed.metric ? " selected" : ""
            return "<option value=\"\(m.id)\"\(selected)>\(m.name) (\(m.rangeText))</option>"
        }
        let date = typed.date.isEmpty ? today.description : typed.date
        let fields: [(id: String, error: String?, help: Bool)] = [
            ("outcome-metric", errors.metric, false), ("outcome-date", errors.date, false), ("outcome-value", errors.value, true),
            ("outcome-note", errors.note, false),
        ]
        let first = fields.first { $0.error != nil }?.id
        func attributes(_ i: Int) -> HTML {
            FormField.attributes(fields[i].id, errors: fields[i].error.map { [$0] } ?? [], help: fields[i].help, first: first == fields[i].id)
        }
        func error(_ i: Int) -> HTML { FormField.errors(fields[i].error.map { [$0] } ?? [], fields[i].id) }
        return """
            <section class="card regimen-form" aria-labelledby="outcome-entry-title">
            <h2 id="outcome-entry-title">Log a value</h2>
            <form method="post" action="/regimen/outcomes/entries" class="outcome-entry" id="outcome-entry" novalidate>\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="outcome-metric">Metric</label>
            <select id="outcome-metric" name="metric" required\(attributes(0))>\(options)</select>\(error(0))</div>
            <div class="stack"><label for="outcome-date">Date</label>
            <input \(Layout.dateField) id="outcome-date" name="date" value="\(date)" max="\(today.description)" required\(attributes(1))>\(error(1))</div>
            <div class="stack"><label for="outcome-value">Value</label>
            <input type="text" inputmode="decimal" id="outcome-value" name="value" value="\(typed.value)" required\(attributes(2))>\(error(2))
            <p class="help" id="outcome-value-help">A number inside the metric's range, shown beside its name. Several values on one day are combined.</p></div>
            <div class="stack"><label for="outcome-note">Note (optional)</label>
            <input type="text" id="outcome-note" name="note" maxlength="500" value="\(typed.note)"\(attributes(3))>\(error(3))</div>
            <div class="form-actions"><button type="submit" class="button" id="outcome-save">Save</button></div>
            </form>
            </section>
            """
    }

    /// How many entries the "Recent values" list shows.
    static let recentCount = 20

    /// The newest entries with their notes; a current entry can be corrected (a new entry replaces it, and
    /// the replaced one stays listed, marked).
    static func recentEntries(_ entries: [OutcomeEntry], metrics: [MetricDefinition], error: String?, csrfToken: String) -> HTML {
        guard !entries.isEmpty || error != nil else { return "" }
        let names = Dictionary(metrics.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let rows = entries.map { e -> HTML in
            let id = e.id.rawValue
            let value = MetricDefinition.number(e.value)
            let day = e.day.description
            var details = [e.origin == .manual ? "typed in" : "imported"]
            if e.supersedes != nil { details.append("a correction") }
            if !e.isCurrent { details.append("replaced by a correction") }
            let note: HTML = e.note.isEmpty ? "" : "<br><span class=\"regimen-meta\">\(TextInput.displayed(e.note))</span>"
            let action: HTML =
                e.isCurrent
                ? """
                <form method="post" action="/regimen/outcomes/entries/\(id)/correct" class="regimen-inline-form">\(Layout.csrfField(csrfToken))
                <label for="fix-\(id)" class="visually-hidden">New value for \(names[e.metricID] ?? e.metricID) on \(day)</label>
                <input type="text" inputmode="decimal" id="fix-\(id)" name="value" value="\(value)" size="4">
                <button type="submit" class="button button-quiet">Correct</button>
                </form>
                """ : ""
            let replaced: HTML = e.isCurrent ? "" : " regimen-replaced"
            let valueHTML: HTML = e.isCurrent ? "\(value)" : "<s>\(value)</s>"
            return """
                <li class="outcome-entry-row\(replaced)" id="entry-\(id)">
                <span class="regimen-time">\(day)</span> <span class="regimen-product">\(names[e.metricID] ?? e.metricID)</span>: \
                <span class="outcome-entry-value">\(valueHTML)</span>
                <span class="regimen-meta">(\(details.joined(separator: ", ")))</span>\(note)\(action)
                </li>
                """
        }
        let errorHTML = error.map { error -> HTML in "<p class=\"form-error\" role=\"alert\" id=\"outcome-recent-error\">\(error)</p>" }
        return """
            <section class="card" aria-labelledby="outcome-recent-title">
            <h2 id="outcome-recent-title">Recent values</h2>
            <p class="help">The newest \(recentCount) entries. A correction adds a new entry; the one it replaces stays here, marked.</p>
            \(errorHTML)
            <ul class="outcome-recent" id="outcome-recent">
            \(HTML.join(rows, separator: "\n"))
            </ul>
            </section>
            """
    }

    static func importForm(result: ImportResult?, csrfToken: String) -> HTML {
        var resultHTML: HTML = ""
        switch result {
        case .imported(let report):
            let rows = report.lines.map { line -> HTML in
                let what: String
                switch line.result {
                case .added: what = "added"
                case .unchanged: what = "already there"
                case .replaced: what = "replaced the value imported before"
                }
                return
                    "<li>Line \(line.line): \(line.metricID) on \(line.day.description), \(MetricDefinition.number(line.value)): \(what)</li>"
            }
            let lines: HTML =
                report.lines.isEmpty
                ? "" : "<details class=\"outcome-import-lines\"><summary>Every line</summary><ul id=\"outcome-import-lines\">\(rows)</ul></details>"
            resultHTML = """
                <p class="notice" role="status" id="outcome-import-summary">\(report.summary)</p>
                \(lines)
                """
        case .refused(let message, let problems):
            let rows = problems.map { problem -> HTML in "<li>\(problem)</li>" }
            let list: HTML = problems.isEmpty ? "" : "<ul id=\"outcome-import-problems\">\(rows)</ul>"
            resultHTML = """
                <div class="form-error" role="alert" id="outcome-import-error"><p>\(message)</p>\
                \(list)</div>
                """
        case nil:
            break
        }
        return """
            <section class="card regimen-form" aria-labelledby="outcome-import-title">
            <h2 id="outcome-import-title">Import a CSV file</h2>
            <p>The file needs a header row with the columns <code>date</code>, <code>metric</code> and <code>value</code> (and, if you like, <code>note</code>). Dates are written 2026-01-31; a metric is its id or its name. A file with any line Cairn cannot read imports nothing, and each such line is listed. Importing the same file again adds nothing.</p>
            \(resultHTML)
            <form method="post" action="/regimen/outcomes/import" enctype="multipart/form-data" id="outcome-import" data-upload-progress>\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="outcome-file">CSV file</label>
            <input type="file" id="outcome-file" name="file" accept=".csv,text/csv" required></div>
            <div class="form-actions"><button type="submit" class="button button-quiet" id="outcome-import-button">Import</button></div>
            <progress id="outcome-import-progress" max="100" value="0" hidden>Sending</progress>
            <p class="help" role="status" id="outcome-import-status" hidden></p>
            </form>
            <script src="/assets/outcomes.js" defer></script>
            </section>
            """
    }

    static func metricForm(error: String?, csrfToken: String) -> HTML {
        let errorHTML = error.map { error -> HTML in "<p class=\"form-error\" role=\"alert\" id=\"outcome-metric-error\">\(error)</p>" }
        let open: HTML = error == nil ? "" : " open"
        return """
            <section class="card regimen-form" aria-labelledby="outcome-metric-title">
            <details\(open)><summary><h2 id="outcome-metric-title" class="outcome-summary-title">Add a metric of your own</h2></summary>
            \(errorHTML)
            <form method="post" action="/regimen/outcomes/metrics" id="outcome-define">\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="metric-name">Name</label><input type="text" id="metric-name" name="name" maxlength="\(TextInput.maximumNameLength)" required></div>
            <div class="stack"><label for="metric-id">Id</label><input type="text" id="metric-id" name="id" maxlength="40" pattern="[a-z][a-z0-9_]*" required aria-describedby="metric-id-help">
            <p class="help" id="metric-id-help">Lower-case letters, digits and underscores, for example headache. Used in CSV files.</p></div>
            <div class="stack"><label for="metric-unit">Unit</label><input type="text" id="metric-unit" name="unit" maxlength="20" value="1-5"></div>
            <div class="stack"><label for="metric-min">Lowest value</label><input type="text" inputmode="decimal" id="metric-min" name="min" value="1" required></div>
            <div class="stack"><label for="metric-max">Highest value</label><input type="text" inputmode="decimal" id="metric-max" name="max" value="5" required></div>
            <div class="stack"><label for="metric-aggregation">Several values on one day</label>
            <select id="metric-aggregation" name="aggregation"><option value="mean" selected>Average them</option><option value="sum">Add them up</option><option value="last">Keep the last one</option></select></div>
            <div class="form-actions"><button type="submit" class="button button-quiet">Add the metric</button></div>
            </form>
            </details>
            </section>
            """
    }

    // MARK: charts

    /// "mean per day", "total per day", "last value of the day".
    static func aggregationWords(_ aggregation: DailyAggregation) -> String {
        switch aggregation {
        case .mean: "average per day"
        case .sum: "total per day"
        case .last: "last value of each day"
        }
    }

    /// The most days one chart covers, counted back from the newest day with a value.
    static let chartDays = 365

    /// `chart(_:changes:)` as text, as the tests read it.
    static func chartCard(_ series: DailyOutcomeSeries, changes: [ExposureChange] = []) -> String {
        chart(series, changes: changes).rendered
    }

    /// One metric's chart: a dot per day with a value, days next to each other joined by a line (a gap where
    /// days are missing), the value axis labelled with numbers and the unit, the first and last dates below.
    static func chart(_ series: DailyOutcomeSeries, changes: [ExposureChange] = []) -> HTML {
        let metric = series.metric
        let allDays = series.days
        guard let newest = allDays.last else { return "" }
        // A chart shows at most the last year, so ten years of daily values stay a page that loads quickly.
        let days = allDays.filter { $0 > newest.adding(days: -chartDays) }
        guard let first = days.first, let last = days.last else { return "" }
        let values = days.map { series.values[$0]! }
        let (low, high, tickValues) = metric.chartAxis(for: values)
        let left = ChartText.margin(for: tickValues.map(MetricDefinition.number), gap: 6, minimum: 44)
        let w = 400.0
        let h = 210.0
        let right = 12.0
        let top = 26.0
        let bottom = 34.0
        let span = max(1, first.days(to: last))
        func x(_ day: LocalDay) -> Double {
            days.count == 1 ? (left + w - right) / 2 : left + Double(first.days(to: day)) / Double(span) * (w - left - right)
        }
        func y(_ v: Double) -> Double { top + (high - v) / (high - low) * (h - top - bottom) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var path = ""
        var points: [HTML] = []
        var previous: LocalDay?
        let radius = days.count > 120 ? 1.6 : 3
        for (day, value) in zip(days, values) {
            let px = f(x(day))
            let py = f(y(value))
            path += (previous.map { $0.days(to: day) == 1 } ?? false ? "L" : "M") + "\(px) \(py) "
            points.append(
                "<circle cx=\"\(px)\" cy=\"\(py)\" r=\"\(String(describing: radius))\" class=\"outcome-point\"><title>\(day.description): \(MetricDefinition.number(value))</title></circle>"
            )
            previous = day
        }
        // Every change in what was taken within the chart's days, as a dashed vertical line (listed below the chart).
        let shown = changes.filter { $0.day >= first && $0.day <= last }
        let marks = shown.map { c -> HTML in
            "<line x1=\"\(f(x(c.day)))\" y1=\"\(f(top - 4))\" x2=\"\(f(x(c.day)))\" y2=\"\(f(h - bottom))\" class=\"change-mark\"/>"
        }
        let ticks = tickValues.map { v -> HTML in
            "<line x1=\"\(f(left))\" y1=\"\(f(y(v)))\" x2=\"\(f(w - right))\" y2=\"\(f(y(v)))\" class=\"outcome-grid\"/>"
                + "<text x=\"\(f(left - 6))\" y=\"\(f(y(v) + 4))\" text-anchor=\"end\" class=\"outcome-axis-label\">\(MetricDefinition.number(v))</text>"
        }
        let lastLabel: HTML? =
            days.count > 1
            ? "<text x=\"\(f(w - right))\" y=\"\(f(h - 10))\" text-anchor=\"end\" class=\"outcome-axis-label\">\(last.description)</text>" : nil
        let axis: HTML = """
            <line x1="\(f(left))" y1="\(f(top))" x2="\(f(left))" y2="\(f(h - bottom))" class="outcome-axis"/>\
            <line x1="\(f(left))" y1="\(f(h - bottom))" x2="\(f(w - right))" y2="\(f(h - bottom))" class="outcome-axis"/>\
            <text x="2" y="14" class="outcome-axis-label outcome-unit">\(metric.unit)</text>\
            <text x="\(f(left))" y="\(f(h - 10))" class="outcome-axis-label">\(first.description)</text>\
            \(lastLabel)
            """
        let id = metric.id
        let name = metric.name
        let minValue = values.min()!
        let maxValue = values.max()!
        let label =
            "\(name), \(aggregationWords(metric.aggregation)), in \(metric.unit): \(days.count) day\(days.count == 1 ? "" : "s") from \(first) to \(last), values from \(MetricDefinition.number(minValue)) to \(MetricDefinition.number(maxValue))"
            + (shown.isEmpty
                ? "" : "; dashed lines mark \(shown.count) change\(shown.count == 1 ? "" : "s") in what you took, listed below the chart")
        let changeList: HTML =
            shown.isEmpty
            ? ""
            : "<p class=\"help outcome-changes\">Dashed lines: \(shown.map { "\($0.description) on \($0.day)" }.joined(separator: "; ")). <a href=\"/regimen/insights\">Insights around these changes</a></p>"
        let recent = zip(days, values).suffix(31).reversed().map { (day, value) -> HTML in
            "<tr><td>\(day.description)</td><td>\(MetricDefinition.number(value))</td></tr>"
        }
        let source = metric.source == .appleHealth ? " From your health export (Apple Health or Health Connect)." : ""
        let shownDays = allDays.count > days.count ? " in the last \(chartDays) days shown (\(allDays.count) in all)" : ""
        let help =
            "\(metric.unit), \(aggregationWords(metric.aggregation)). \(days.count) day\(days.count == 1 ? "" : "s") with a value\(shownDays).\(source)"
        let listed = min(31, days.count)
        let listedDays = "\(listed) day\(listed == 1 ? "" : "s")"
        return """
            <section class="card outcome-card" aria-labelledby="chart-\(id)-title" id="chart-\(id)">
            <h2 id="chart-\(id)-title">\(name)</h2>
            <p class="help">\(help)</p>
            <svg viewBox="0 0 \(Int(w)) \(Int(h))" class="outcome-chart" role="img" aria-label="\(label)">\(ticks)\(axis)\(marks)<path d="\(path)" class="outcome-line"/>\(points)</svg>
            \(changeList)
            <details><summary>Values of the last \(listedDays) with data</summary>
            <table class="regimen-ledger outcome-values"><thead><tr><th scope="col">Date</th><th scope="col">Value (\(metric.unit))</th></tr></thead><tbody>\(recent)</tbody></table>
            </details>
            </section>
            """
    }

    /// The value axis's ends (`MetricDefinition.chartAxis`).
    static func yRange(metric: MetricDefinition, values: [Double]) -> (Double, Double) {
        let axis = metric.chartAxis(for: values)
        return (axis.low, axis.high)
    }
}
