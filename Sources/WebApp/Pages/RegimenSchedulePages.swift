import CairnApp
import CairnCore
import Foundation
import Regimen

/// `GET /regimen/schedules` (each schedule with its revisions), `POST /regimen/schedules/new`,
/// `POST /regimen/schedules/ID/pause|resume|stop` (from today; the earlier revisions stay).
enum RegimenSchedulePages {
    /// The fields of the add form, kept when the form is shown again after a refusal.
    struct Draft: Equatable {
        var product = "", servings = "1", times = "08:00", repeats = "daily", every = "2", weekdays = "", start = ""

        init(start: String) { self.start = start }
        init(_ f: [String: String]) {
            product = f["product"] ?? ""
            servings = f["servings"] ?? ""
            times = f["times"] ?? ""
            repeats = f["repeats"] ?? ""
            every = f["every"] ?? ""
            weekdays = f["weekdays"] ?? ""
            start = f["start"] ?? ""
        }
    }

    /// What a revision button does, from the day given (today when empty).
    private enum Change: String, CaseIterable { case pause, resume, stop }

    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        @Sendable func page(_ draft: Draft? = nil, notice: String? = nil, error: String? = nil) throws -> String {
            try render(regimen: regimen, draft: draft ?? Draft(start: regimen.today().description), csrfToken: csrfToken,
                       notice: notice, error: error)
        }
        return [
            route(.get, "/regimen/schedules") { r in .html(try page(notice: r.query["saved"] == "1" ? "Saved." : nil)) },
            route(.post, "/regimen/schedules/new") { r in
                let draft = Draft(r.form)
                do {
                    _ = try regimen.addSchedule(try plan(from: draft))
                    return .redirect(to: "/regimen/schedules?saved=1")
                } catch let error as CairnError {
                    return .html(try page(draft, error: error.userMessage + " Nothing was saved."), status: 400)
                }
            },
        ] + Change.allCases.map { change in
            route(.post, "/regimen/schedules/{schedule}/\(change.rawValue)") { r in
                let id = ScheduleID(r.parameter("schedule"))
                do {
                    let fromText = (r.form["from"] ?? "").trimmingCharacters(in: .whitespaces)
                    var day: LocalDay? = nil
                    if !fromText.isEmpty {
                        guard let parsed = LocalDay(parsing: fromText) else {
                            throw FormProblem(userMessage: "The day must be a date like 2026-01-31.")
                        }
                        day = parsed
                    }
                    switch change {
                    case .pause: _ = try regimen.pauseSchedule(id, from: day)
                    case .resume: _ = try regimen.resumeSchedule(id, from: day)
                    case .stop: _ = try regimen.stopSchedule(id, from: day)
                    }
                    return .redirect(to: "/regimen/schedules?saved=1")
                } catch let error as CairnError {
                    return .html(try page(error: error.userMessage + " Nothing was saved."), status: error.namesNoRecord ? 404 : 400)
                }
            }
        }
    }

    /// A refusal of the form's own fields.
    struct FormProblem: CairnError {
        let userMessage: String
    }

    static func plan(from d: Draft) throws -> SchedulePlan {
        guard !d.product.isEmpty else { throw FormProblem(userMessage: "Choose a product.") }
        let servingsText = d.servings.trimmingCharacters(in: .whitespaces)
        guard let servings = Decimal(string: servingsText, locale: Locale(identifier: "en_US_POSIX")),
              servingsText.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), !servingsText.isEmpty else {
            throw FormProblem(userMessage: "Servings must be a number, like 1 or 0.5.")
        }
        guard let start = LocalDay(parsing: d.start.trimmingCharacters(in: .whitespaces)) else {
            throw FormProblem(userMessage: "The first day must be a date like 2026-01-31.")
        }
        let recurrence: Recurrence
        switch d.repeats {
        case "daily": recurrence = .daily
        case "every":
            guard let n = Int(d.every.trimmingCharacters(in: .whitespaces)), n > 0 else {
                throw FormProblem(userMessage: "Every how many days must be a whole number, 1 or more.")
            }
            recurrence = .everyNDays(n)
        case "weekdays":
            var days = Set<Weekday>()
            for part in d.weekdays.split(whereSeparator: { $0 == "," || $0 == " " }) {
                guard let day = Weekday(parsing: String(part)) else {
                    throw FormProblem(userMessage: "Write weekdays as mon, tue, wed, thu, fri, sat, sun.")
                }
                days.insert(day)
            }
            recurrence = .weekdays(days)
        case "as-needed": recurrence = .asNeeded
        default: throw FormProblem(userMessage: "Choose how often.")
        }
        var times: [TimeSlot] = []
        if recurrence != .asNeeded {
            for part in d.times.split(whereSeparator: { $0 == "," || $0 == " " }) {
                guard let slot = TimeSlot(parsing: String(part)) else {
                    throw FormProblem(userMessage: "Write times as hours and minutes, like 08:00, 20:30.")
                }
                times.append(slot)
            }
        }
        return try SchedulePlan(productID: ProductID(d.product), servings: servings, times: times, recurrence: recurrence,
                                startDay: start)
    }

    static func describe(_ plan: SchedulePlan) -> String {
        var text = plan.recurrence.summary
        if !plan.times.isEmpty { text += " at " + plan.times.map(\.description).joined(separator: ", ") }
        text += ", " + RegimenPages.servings(plan.servings)
        return text
    }

    static func stateWords(_ state: ScheduleState) -> String {
        switch state {
        case .active: return "active"
        case .paused: return "paused"
        case .stopped: return "stopped"
        }
    }

    static func render(regimen: RegimenService, draft: Draft, csrfToken: String, notice: String?, error: String?) throws -> String {
        let products = try regimen.products()
        let summaries = try regimen.schedules()
        var body = RegimenPages.intro("Schedules", lead: "When you plan to take each product. A change starts on a day you choose; the earlier versions stay in the history.")
            + RegimenPages.subnav("/regimen/schedules") + RegimenPages.message(notice: notice, error: error)
        if summaries.isEmpty {
            body += "<p class=\"notice\" id=\"regimen-schedules-empty\">No schedules yet.</p>"
        } else {
            let items = try summaries.map { s -> String in
                let id = HTML.escape(s.scheduleID.rawValue)
                let history = try regimen.scheduleHistory(s.scheduleID).revisions.reversed().map { rev in
                    "<li>Version \(rev.number), from \(HTML.escape(rev.effectiveFrom.description)): \(stateWords(rev.state)); \(HTML.escape(describe(rev.plan)))</li>"
                }.joined()
                var actions: [String] = []
                // A change takes effect on a day after the newest revision's first day (the service refuses others).
                let firstAllowed = max(regimen.today(), s.latest.effectiveFrom.adding(days: 1)).description
                func action(_ verb: String, _ label: String) -> String {
                    """
                    <form method="post" action="/regimen/schedules/\(id)/\(verb)" class="regimen-inline-form">\(Layout.csrfField(csrfToken))\
                    <label for="\(verb)-\(id)">\(label)</label> \
                    <input \(Layout.dateField) id="\(verb)-\(id)" name="from" value="\(HTML.escape(firstAllowed))"> \
                    <button type="submit" class="button button-quiet">\(label.components(separatedBy: " ").first ?? label)<span class="visually-hidden">: \(HTML.escape(s.productName))</span></button></form>
                    """
                }
                switch s.latest.state {
                case .active: actions = [action("pause", "Pause from"), action("stop", "Stop from")]
                case .paused: actions = [action("resume", "Resume from"), action("stop", "Stop from")]
                case .stopped: actions = []
                }
                return """
                <li class="card regimen-schedule" id="schedule-\(id)">
                <h2>\(HTML.escape(s.productName))</h2>
                <p><span class="regimen-state">\(stateWords(s.latest.state))</span> \(HTML.escape(describe(s.latest.plan)))\(s.inForceToday == nil ? " · not started yet" : "")</p>
                <h3>History, newest first</h3>
                <ol class="regimen-list regimen-history">\(history)</ol>
                \(actions.isEmpty ? "" : "<div class=\"regimen-schedule-actions\">\(actions.joined())</div>")
                </li>
                """
            }.joined(separator: "\n")
            body += "<ul class=\"regimen-products\" aria-label=\"Schedules\">\n\(items)\n</ul>"
        }
        if products.isEmpty {
            body += "<p class=\"notice\">Add a product first: <a href=\"/regimen/products/new\">Add a product</a>.</p>"
        } else {
            let productOptions = ["<option value=\"\"\(draft.product.isEmpty ? " selected" : "")>Choose…</option>"] + products.map { p in
                let pid = p.product.id.rawValue
                return "<option value=\"\(HTML.escape(pid))\"\(pid == draft.product ? " selected" : "")>\(HTML.escape(p.product.name))</option>"
            }
            let repeatOptions = [("daily", "Every day"), ("every", "Every few days"), ("weekdays", "On some weekdays"),
                                 ("as-needed", "As needed (no set times)")].map { value, label in
                "<option value=\"\(value)\"\(value == draft.repeats ? " selected" : "")>\(label)</option>"
            }
            body += """
            <form method="post" action="/regimen/schedules/new" class="card regimen-form" aria-labelledby="add-schedule-title">\(Layout.csrfField(csrfToken))
            <h2 id="add-schedule-title">Add a schedule</h2>
            <div class="stack"><label for="schedule-product">Product</label>
            <select id="schedule-product" name="product" required>\(productOptions.joined())</select></div>
            <div class="stack"><label for="schedule-servings">Servings each time</label>
            <input type="text" inputmode="decimal" id="schedule-servings" name="servings" required value="\(HTML.escape(draft.servings))"></div>
            <div class="stack"><label for="schedule-repeats">How often</label>
            <select id="schedule-repeats" name="repeats">\(repeatOptions.joined())</select></div>
            <div class="stack"><label for="schedule-times">Times of day</label>
            <input type="text" id="schedule-times" name="times" value="\(HTML.escape(draft.times))" aria-describedby="times-help">
            <p class="help" id="times-help">Separated by commas, like 08:00, 20:00. Leave empty for as needed.</p></div>
            <div class="stack"><label for="schedule-every">Every how many days <span class="help">(every few days only)</span></label>
            <input type="text" inputmode="numeric" id="schedule-every" name="every" value="\(HTML.escape(draft.every))"></div>
            <div class="stack"><label for="schedule-weekdays">Weekdays <span class="help">(some weekdays only, like mon, wed, fri)</span></label>
            <input type="text" id="schedule-weekdays" name="weekdays" value="\(HTML.escape(draft.weekdays))"></div>
            <div class="stack"><label for="schedule-start">First day</label>
            <input \(Layout.dateField) id="schedule-start" name="start" required value="\(HTML.escape(draft.start))"></div>
            <div class="form-actions"><button type="submit" class="button" id="schedule-save">Save schedule</button></div>
            </form>
            """
        }
        return Layout.page(title: "Schedules", section: .regimen, body: body)
    }
}
