import CairnApp
import CairnCore
import Foundation
import Regimen

/// The Regimen journal's pages under `/regimen`. Every change goes through `RegimenService`.
///
/// Today's routes are here: `GET /regimen`; `POST /regimen/doses/DOSE/taken|skipped`; `POST /regimen/batch/taken`
/// (`doses`: ids separated by commas); `POST /regimen/as-needed/SCHEDULE` logs one as-needed dose now. The ledger,
/// products, label scan, schedules, outcomes and insights pages declare their own (POSTs need the CSRF token,
/// then redirect back).
enum RegimenPages {
    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen") { r in
                .html(today(try regimen.todayView(), csrfToken: csrfToken, notice: notice(r.query["logged"])))
            },
            route(.post, "/regimen/batch/taken") { r in
                let ids = (r.form["doses"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                guard !ids.isEmpty else { throw WebError.badForm }
                return try logged(regimen: regimen, csrfToken: csrfToken) {
                    try regimen.checkIn(ids.map { CheckInRequest(doseID: $0, status: .taken) }).allSatisfy(\.alreadyLogged)
                }
            },
            route(.post, "/regimen/as-needed/{schedule}") { r in
                try logged(regimen: regimen, csrfToken: csrfToken) {
                    _ = try regimen.logAsNeeded(ScheduleID(r.parameter("schedule")))
                    return false
                }
            },
        ] + [IntakeStatus.taken, .skipped].map { status in
            route(.post, "/regimen/doses/{dose}/\(status.rawValue)") { r in
                try logged(regimen: regimen, csrfToken: csrfToken) {
                    try regimen.checkIn(r.parameter("dose"), status: status).alreadyLogged
                }
            }
        }
    }

    /// Runs a check-in; redirects to Today, or shows Today with the service's message (status 400).
    private static func logged(regimen: RegimenService, csrfToken: String, _ action: () throws -> Bool) throws -> Response {
        do {
            let already = try action()
            return .redirect(to: already ? "/regimen?logged=already" : "/regimen?logged=1")
        } catch let error as CairnError {
            return .html(today(try regimen.todayView(), csrfToken: csrfToken, error: error.userMessage + " Nothing was saved."),
                         status: 400)
        }
    }

    private static func notice(_ value: String?) -> String? {
        switch value {
        case "1": return "Logged."
        case "already": return "Already logged. Nothing new was saved."
        default: return nil
        }
    }

    // MARK: shared bits

    static func intro(_ title: String, lead: String) -> String {
        """
        <div class="page-intro">
        <h1>\(HTML.escape(title))</h1>
        <p class="lead">\(HTML.escape(lead))</p>
        </div>
        """
    }

    /// The sub-navigation of the journal; `current` is marked for assistive technology too.
    static func subnav(_ current: String) -> String {
        let links = [("/regimen", "Today"), ("/regimen/ledger", "Ledger"), ("/regimen/products", "Products"),
                     ("/regimen/schedules", "Schedules"), ("/regimen/outcomes", "Outcomes"), ("/regimen/insights", "Insights")]
        let items = links.map { path, label in
            "<li><a href=\"\(path)\"\(path == current ? " aria-current=\"page\"" : "")>\(label)</a></li>"
        }.joined()
        return "<nav class=\"regimen-nav\" aria-label=\"Regimen\"><ul>\(items)</ul></nav>"
    }

    static func message(notice: String?, error: String?) -> String {
        var html = ""
        if let notice { html += "<p class=\"notice\" role=\"status\" id=\"regimen-notice\">\(HTML.escape(notice))</p>" }
        if let error { html += "<p class=\"form-error\" role=\"alert\" id=\"regimen-error\">\(HTML.escape(error))</p>" }
        return html
    }

    /// "1 serving", "2 servings", "0.5 servings".
    static func servings(_ value: Decimal) -> String {
        value == 1 ? "1 serving" : "\(value) servings"
    }

    /// The state in words; colour only repeats it.
    static func stateWords(_ state: DoseState) -> String {
        switch state {
        case .notLogged: return "not logged yet"
        case .taken: return "taken"
        case .skipped: return "skipped"
        }
    }

    static func time(_ date: Date, in zone: TimeZone, withDay: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = withDay ? "yyyy-MM-dd HH:mm" : "HH:mm"
        return formatter.string(from: date)
    }

    // MARK: Today

    static func today(_ view: TodayView, csrfToken: String, notice: String? = nil, error: String? = nil) -> String {
        let intro = intro("Regimen", lead: Journal.regimen.purpose) + subnav("/regimen")
        let messages = message(notice: notice, error: error)
        guard !view.doses.isEmpty || !view.asNeeded.isEmpty || !view.next.isEmpty else {
            return Layout.page(title: "Regimen", section: .regimen, body: intro + messages + """
            <section class="card empty-state" aria-labelledby="empty-title">
            <h2 id="empty-title">Nothing scheduled yet</h2>
            <p>Regimen keeps a plain record of what you take and when. Add a product from its label, give it a schedule, and each dose shows up here to tick off as taken or skipped.</p>
            <p class="card-action"><a class="button" href="/regimen/products/new" id="regimen-add-product">Add a product</a></p>
            </section>
            """)
        }
        var sections: [String] = []
        let dayText = HTML.escape(view.day.description)
        if view.currentBatch.isEmpty {
            sections.append("""
            <section class="card regimen-batch" aria-labelledby="batch-title">
            <h2 id="batch-title">Due now</h2>
            <p id="regimen-all-logged">Every dose of today is logged.</p>
            </section>
            """)
        } else {
            let ids = view.currentBatch.map(\.doseID).joined(separator: ",")
            let rows = view.currentBatch.map { doseRow($0, view: view, csrfToken: csrfToken) }.joined(separator: "\n")
            let takeAll = view.currentBatch.count > 1 ? """
            <form method="post" action="/regimen/batch/taken" class="regimen-take-all">\(Layout.csrfField(csrfToken))
            <input type="hidden" name="doses" value="\(HTML.escape(ids))">
            <button type="submit" class="button" id="regimen-take-all">Take all (\(view.currentBatch.count))</button>
            </form>
            """ : ""
            sections.append("""
            <section class="card regimen-batch" aria-labelledby="batch-title">
            <h2 id="batch-title">\(HTML.escape(view.batchHeading))</h2>
            <ul class="regimen-doses" aria-label="\(view.isBatchDue ? "Doses due now" : "Doses coming up")">
            \(rows)
            </ul>
            \(takeAll)
            </section>
            """)
        }
        if !view.next.isEmpty {
            let rows = view.next.map { d in
                "<li class=\"regimen-next\"><span class=\"regimen-time\">\(HTML.escape(d.occurrence.day == view.day ? d.occurrence.slot.description : "\(d.occurrence.day) \(d.occurrence.slot)"))</span> \(HTML.escape(d.productName)), \(HTML.escape(servings(d.servings)))</li>"
            }.joined(separator: "\n")
            sections.append("""
            <section class="card" aria-labelledby="next-title">
            <h2 id="next-title">Next</h2>
            <ul class="regimen-list">
            \(rows)
            </ul>
            </section>
            """)
        }
        let batchIDs = Set(view.currentBatch.map(\.doseID))
        let rest = view.doses.filter { !batchIDs.contains($0.doseID) }
        if !rest.isEmpty {
            let rows = rest.map { doseRow($0, view: view, csrfToken: csrfToken) }.joined(separator: "\n")
            sections.append("""
            <section class="card" aria-labelledby="day-title">
            <h2 id="day-title">The rest of today (\(dayText))</h2>
            <ul class="regimen-doses" aria-label="All doses of today">
            \(rows)
            </ul>
            </section>
            """)
        }
        if !view.asNeeded.isEmpty {
            let rows = view.asNeeded.map { s in
                """
                <li class="regimen-dose"><span class="regimen-product">\(HTML.escape(s.productName))</span> <span class="regimen-meta">as needed, \(HTML.escape(servings(s.latest.plan.servings)))</span>
                <form method="post" action="/regimen/as-needed/\(HTML.escape(s.scheduleID.rawValue))" class="regimen-actions">\(Layout.csrfField(csrfToken))
                <button type="submit" class="button button-quiet">Log a dose<span class="visually-hidden"> of \(HTML.escape(s.productName))</span></button>
                </form></li>
                """
            }.joined(separator: "\n")
            sections.append("""
            <section class="card" aria-labelledby="as-needed-title">
            <h2 id="as-needed-title">As needed</h2>
            <ul class="regimen-doses">
            \(rows)
            </ul>
            </section>
            """)
        }
        let body = intro + messages + sections.joined(separator: "\n")
        return Layout.page(title: "Regimen", section: .regimen, body: body)
    }

    /// One dose: time, product, its state in words, and Taken / Skipped while not logged.
    static func doseRow(_ dose: TodayDose, view: TodayView, csrfToken: String) -> String {
        let id = HTML.escape(dose.doseID)
        let name = HTML.escape(dose.productName)
        let state: String
        if let record = dose.record {
            state = "\(stateWords(dose.state)) at \(time(record.takenAt, in: view.timeZone))"
        } else {
            state = stateWords(dose.state)
        }
        let actions = dose.state == .notLogged ? """
        <form method="post" action="/regimen/doses/\(id)/taken" class="regimen-actions">\(Layout.csrfField(csrfToken))
        <button type="submit" class="button">Taken<span class="visually-hidden">: \(name)</span></button>
        <button type="submit" class="button button-quiet" formaction="/regimen/doses/\(id)/skipped">Skipped<span class="visually-hidden">: \(name)</span></button>
        </form>
        """ : ""
        return """
        <li class="regimen-dose regimen-\(dose.state.rawValue)" id="dose-\(id)">
        <span class="regimen-time">\(HTML.escape(dose.occurrence.slot.description))</span>
        <span class="regimen-product">\(name)</span> <span class="regimen-meta">\(HTML.escape(servings(dose.servings)))</span>
        <span class="regimen-state">\(HTML.escape(state))</span>
        \(actions)
        </li>
        """
    }
}
