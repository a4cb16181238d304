import CairnApp
import CairnCore
import Foundation
import Regimen

/// `GET /regimen/schedules` (each schedule with its revisions), `POST /regimen/schedules/new`,
/// `GET|POST /regimen/schedules/ID/edit` (a change from a chosen day: a dated revision),
/// `POST /regimen/schedules/ID/pause|resume|stop` (from a chosen day; the earlier revisions stay; stop asks first).
enum RegimenSchedulePages {
    /// The fields of the add and change forms, kept when the form is shown again after a refusal.
    struct Draft: Equatable {
        var product = "", servings = "1", times = "08:00", repeats = "daily", every = "2", weekdays = "", start = "", zone = ""
        /// The day a change starts (the change form only).
        var from = ""

        init(start: String) { self.start = start }
        init(_ f: [String: String]) {
            product = f["product"] ?? ""
            servings = f["servings"] ?? ""
            times = f["times"] ?? ""
            repeats = f["repeats"] ?? ""
            every = f["every"] ?? ""
            weekdays = f["weekdays"] ?? ""
            start = f["start"] ?? ""
            zone = f["zone"] ?? ""
            from = f["from"] ?? ""
        }

        /// The form filled with a schedule's plan as it stands, to change it from `from`.
        init(_ plan: SchedulePlan, from: LocalDay) {
            product = plan.productID.rawValue
            servings = "\(plan.servings)"
            times = plan.times.isEmpty ? "08:00" : plan.times.map(\.description).joined(separator: ", ")
            repeats = plan.recurrence.kind.rawValue
            if case .everyNDays(let n) = plan.recurrence { every = "\(n)" }
            if case .weekdays(let days) = plan.recurrence { weekdays = days.sorted().map(\.abbreviation).joined(separator: ", ") }
            start = plan.startDay.description
            zone = plan.zone.identifier ?? ""
            self.from = from.description
        }
    }

    /// A refused change of one schedule (pause, resume or stop), shown beside that schedule's day field.
    struct ChangeRefusal {
        let schedule: ScheduleID
        let verb: String
        let message: String
    }

    /// What a revision button does, from the day given (today when empty).
    private enum Change: String, CaseIterable { case pause, resume, stop }

    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        @Sendable func page(
            _ draft: Draft? = nil, notice: String? = nil, problems: FieldProblems<ScheduleField> = FieldProblems([]),
            change: ChangeRefusal? = nil
        ) throws -> String {
            try render(
                regimen: regimen, draft: draft ?? Draft(start: regimen.today().description), csrfToken: csrfToken,
                notice: notice, problems: problems, change: change)
        }
        return [
            route(.get, "/regimen/schedules") { r in .html(try page(notice: r.query["saved"] == "1" ? "Saved." : nil)) },
            route(.post, "/regimen/schedules/new") { r in
                let draft = Draft(r.form)
                do {
                    _ = try regimen.addSchedule(try plan(from: draft))
                    return .redirect(to: "/regimen/schedules?saved=1")
                } catch let problems as FieldProblems<ScheduleField> {
                    return .html(try page(draft, problems: problems), status: 400)
                } catch let error as CairnError where error.errorKind == .refusedInput || (error as? ScheduleError)?.field != nil {
                    // A product the form chose that is no longer there (notFound) belongs beside its field too.
                    let field = (error as? ScheduleError)?.field ?? .product
                    return .html(try page(draft, problems: FieldProblems([.init(field, error)])), status: 400)
                }
            },
            route(.get, "/regimen/schedules/{schedule}/edit") { r in
                let id = ScheduleID(r.parameter("schedule"))
                let history = try regimen.scheduleHistory(id)
                let latest = history.latest!
                let from = max(regimen.today(), latest.effectiveFrom.adding(days: 1))
                return .html(try changePage(regimen: regimen, id, Draft(latest.plan, from: from), csrfToken: csrfToken))
            },
            route(.post, "/regimen/schedules/{schedule}/edit") { r in
                let id = ScheduleID(r.parameter("schedule"))
                let latest = try regimen.scheduleHistory(id).latest!
                var draft = Draft(r.form)
                // The product and the first day belong to the schedule, never to the form.
                draft.product = latest.plan.productID.rawValue
                draft.start = latest.plan.startDay.description
                do {
                    let change = try parse(draft, changing: true, endDay: latest.plan.endDay)
                    _ = try regimen.editSchedule(id, plan: change.plan, effectiveFrom: change.from)
                    return .redirect(to: "/regimen/schedules?saved=1#schedule-\(id.rawValue)")
                } catch let problems as FieldProblems<ScheduleField> {
                    return .html(try changePage(regimen: regimen, id, draft, csrfToken: csrfToken, problems: problems), status: 400)
                } catch let error as ScheduleError where error.errorKind == .refusedInput {
                    let problems = FieldProblems<ScheduleField>([.init(error.field ?? .from, error)])
                    return .html(try changePage(regimen: regimen, id, draft, csrfToken: csrfToken, problems: problems), status: 400)
                }
            },
        ]
            + Change.allCases.map { change in
                route(.post, "/regimen/schedules/{schedule}/\(change.rawValue)") { r in
                    let id = ScheduleID(r.parameter("schedule"))
                    do {
                        let day = try r.form.value("from", as: LocalDay.self)
                        // Stopping is for good: the first press shows what it means, the second does it.
                        if change == .stop, r.form["confirm"] != "yes" {
                            return .html(try stopPage(regimen: regimen, id, from: day ?? regimen.today(), csrfToken: csrfToken))
                        }
                        switch change {
                        case .pause: _ = try regimen.pauseSchedule(id, from: day)
                        case .resume: _ = try regimen.resumeSchedule(id, from: day)
                        case .stop: _ = try regimen.stopSchedule(id, from: day)
                        }
                        return .redirect(to: "/regimen/schedules?saved=1")
                    } catch let error as CairnError where error.errorKind == .refusedInput {
                        let refusal = ChangeRefusal(schedule: id, verb: change.rawValue, message: error.userMessage + " Nothing was saved.")
                        return .html(try page(change: refusal), status: 400)
                    }
                }
            }
    }

    /// The plan the form describes, each field read by its domain parser. Throws `FieldProblems<ScheduleField>`
    /// with every refusal at once, each with its field.
    static func plan(from d: Draft) throws -> SchedulePlan { try parse(d, changing: false).plan }

    /// The plan and, for a change (`changing`), the day it starts; every refusal at once, each with its field.
    static func parse(_ d: Draft, changing: Bool, endDay: LocalDay? = nil) throws -> (plan: SchedulePlan, from: LocalDay?) {
        var problems = FieldProblems<ScheduleField>.Collector()
        if d.product.isEmpty { problems.add(.product, ScheduleError.noProductChosen) }
        let servings = problems.field(.servings) { try DoseServings.parse(d.servings).value }
        let start = problems.field(.start) { try LocalDay.parse(d.start) }
        var recurrence: Recurrence?
        do { recurrence = try Recurrence(kind: d.repeats, interval: d.every, weekdays: d.weekdays) } catch let error as ScheduleError {
            problems.add(error.field ?? .recurrence, error)
        }
        let times = recurrence == .asNeeded ? [] : problems.field(.times) { try TimeSlot.list(parsing: d.times) }
        let zone = problems.field(.zone) { try ScheduleZone(parsing: d.zone) }
        var from: LocalDay?
        if changing { from = problems.field(.from) { try LocalDay.parse(d.from) } }
        try problems.check()
        do {
            let plan = try SchedulePlan(
                productID: ProductID(d.product), servings: servings!, times: times!, recurrence: recurrence!,
                startDay: start!, endDay: endDay, zone: zone!)
            return (plan, from)
        } catch let error as ScheduleError {
            throw FieldProblems<ScheduleField>([.init(error.field ?? .product, error)])
        }
    }

    static func describe(_ plan: SchedulePlan) -> String {
        var text = plan.recurrence.summary
        if !plan.times.isEmpty { text += " at " + plan.times.map(\.description).joined(separator: ", ") }
        if let zone = plan.zone.identifier { text += " \(zone) time" }
        text += ", " + RegimenPages.servings(plan.servings)
        return text
    }

    /// The changes a schedule in `state` offers, in the order shown.
    static func offered(_ state: ScheduleState) -> [String] {
        switch state {
        case .active: ["pause", "stop"]
        case .paused: ["resume", "stop"]
        case .stopped: []
        }
    }

    static func stateWords(_ state: ScheduleState) -> String {
        switch state {
        case .active: return "active"
        case .paused: return "paused"
        case .stopped: return "stopped"
        }
    }

    static func render(
        regimen: RegimenService, draft: Draft, csrfToken: String, notice: String?,
        problems: FieldProblems<ScheduleField>, change: ChangeRefusal?
    ) throws -> String {
        let products = try regimen.products()
        let summaries = try regimen.schedules()
        var body =
            RegimenPages.intro(
                "Schedules",
                lead: "When you plan to take each product. A change starts on a day you choose; the earlier versions stay in the history.")
            + RegimenPages.subnav("/regimen/schedules") + RegimenPages.message(notice: notice, error: nil)
        // A refused change shows beside its day field; when the schedule no longer offers that change (stopped,
        // or already in that state), at the top.
        if let change, !summaries.contains(where: { $0.scheduleID == change.schedule && offered($0.latest.state).contains(change.verb) }) {
            body += RegimenPages.message(notice: nil, error: change.message)
        }
        if summaries.isEmpty {
            body += "<p class=\"notice\" id=\"regimen-schedules-empty\">No schedules yet.</p>"
        } else {
            let items = try summaries.map { s -> HTML in
                let id = s.scheduleID.rawValue
                let history = try history(regimen, s.scheduleID)
                let actions: [HTML]
                // A change takes effect on a day after the newest revision's first day (the service refuses others).
                let firstAllowed = max(regimen.today(), s.latest.effectiveFrom.adding(days: 1)).description
                func action(_ verb: String, _ label: String) -> HTML {
                    let errors = change.map { $0.schedule == s.scheduleID && $0.verb == verb ? [$0.message] : [] } ?? []
                    let button = label.components(separatedBy: " ").first ?? label
                    let weight: HTML = verb == "stop" ? "button-danger" : "button-quiet"
                    return """
                        <form method="post" action="/regimen/schedules/\(id)/\(verb)" class="regimen-inline-form">\(Layout.csrfField(csrfToken))\
                        <label for="\(verb)-\(id)">\(label)</label> \
                        <input \(Layout.dateField) id="\(verb)-\(id)" name="from" value="\(firstAllowed)"\(FormField.attributes("\(verb)-\(id)", errors: errors, first: true))> \
                        <button type="submit" class="button \(weight)">\(button)<span class="visually-hidden">: \(s.productName)</span></button>\
                        \(FormField.errors(errors, "\(verb)-\(id)"))</form>
                        """
                }
                let labels = ["pause": "Pause from", "resume": "Resume from", "stop": "Stop from"]
                let change: HTML =
                    "<a class=\"button button-quiet\" href=\"/regimen/schedules/\(id)/edit\" id=\"change-\(id)\">Change times, servings or days<span class=\"visually-hidden\">: \(s.productName)</span></a>"
                actions = (s.latest.state == .stopped ? [] : [change]) + offered(s.latest.state).map { action($0, labels[$0]!) }
                let notStarted: HTML = s.inForceToday == nil ? " · not started yet" : ""
                let actionList: HTML = actions.isEmpty ? "" : "<div class=\"regimen-schedule-actions\">\(actions)</div>"
                return """
                    <li class="card regimen-schedule" id="schedule-\(id)">
                    <h2>\(s.productName)</h2>
                    <p><span class="regimen-state">\(stateWords(s.latest.state))</span> \(describe(s.latest.plan))\(notStarted)</p>
                    <h3>History, newest first</h3>
                    \(history)
                    \(actionList)
                    </li>
                    """
            }
            body += "<ul class=\"regimen-products\" aria-label=\"Schedules\">\n\(HTML.join(items, separator: "\n"))\n</ul>"
        }
        if products.isEmpty {
            body += "<p class=\"notice\">Add a product first: <a href=\"/regimen/products/new\">Add a product</a>.</p>"
        } else {
            body += planForm(draft, problems: problems, csrfToken: csrfToken, products: products, changing: nil)
        }
        return Layout.page(title: "Schedules", section: .regimen, body: body)
    }

    /// The change page of one schedule: its plan in the form, the day the change starts, and its history.
    static func changePage(
        regimen: RegimenService, _ id: ScheduleID, _ draft: Draft, csrfToken: String,
        problems: FieldProblems<ScheduleField> = FieldProblems([])
    ) throws -> String {
        guard let summary = try regimen.schedules().first(where: { $0.scheduleID == id }) else { throw WebError.notFound }
        let title = "Change the schedule of \(summary.productName)"
        var body =
            RegimenPages.intro(
                title,
                lead: "The change starts on the day you choose. Days before it keep what was in force, and doses already logged stay as they are.")
            + RegimenPages.subnav("/regimen/schedules")
        if summary.latest.state == .stopped {
            body += RegimenPages.message(notice: nil, error: ScheduleError.scheduleStopped.userMessage)
        } else {
            body += planForm(draft, problems: problems, csrfToken: csrfToken, products: [], changing: summary)
        }
        body += "<section aria-labelledby=\"history-title\"><h2 id=\"history-title\">History, newest first</h2>\(try history(regimen, id))</section>"
        body += "<p><a href=\"/regimen/schedules#schedule-\(id.rawValue)\">Back to the schedules</a></p>"
        return Layout.page(title: title, section: .regimen, body: body)
    }

    /// What stopping means, asked before it is done: a stopped schedule has no more doses and cannot be resumed.
    static func stopPage(regimen: RegimenService, _ id: ScheduleID, from day: LocalDay, csrfToken: String) throws -> String {
        guard let summary = try regimen.schedules().first(where: { $0.scheduleID == id }) else { throw WebError.notFound }
        let title = "Stop the schedule of \(summary.productName) for good?"
        let body: HTML = """
            \(RegimenPages.intro(title, lead: "From \(DateText.day(day)), it has no more doses and cannot be resumed; its history and every logged dose stay. To take a break instead, pause it."))
            \(RegimenPages.subnav("/regimen/schedules"))
            <form method="post" action="/regimen/schedules/\(id.rawValue)/stop" class="card regimen-form" id="schedule-stop-confirm">\(Layout.csrfField(csrfToken))
            <input type="hidden" name="from" value="\(day.description)"><input type="hidden" name="confirm" value="yes">
            <p>\(summary.productName): \(describe(summary.latest.plan)).</p>
            <div class="form-actions"><button type="submit" class="button button-danger" id="schedule-stop-yes">Stop for good</button>
            <a class="button button-quiet" href="/regimen/schedules#schedule-\(id.rawValue)">Keep it</a></div>
            </form>
            """
        return Layout.page(title: title, section: .regimen, body: body)
    }

    /// A schedule's revisions, newest first.
    static func history(_ regimen: RegimenService, _ id: ScheduleID) throws -> HTML {
        let items = try regimen.scheduleHistory(id).revisions.reversed().map { rev -> HTML in
            "<li>Version \(rev.number), from \(rev.effectiveFrom.description): \(stateWords(rev.state)); \(describe(rev.plan))</li>"
        }
        return "<ol class=\"regimen-list regimen-history\">\(items)</ol>"
    }

    /// The add form (`changing` nil: a product to choose and a first day), or the change form of a schedule (its
    /// product fixed, the day the change starts). Every refusal beside its field, all at once.
    static func planForm(
        _ draft: Draft, problems: FieldProblems<ScheduleField>, csrfToken: String, products: [StoredProduct],
        changing: ScheduleSummary?
    ) -> HTML {
        func selected(_ on: Bool) -> HTML { on ? " selected" : "" }
        let productOptions: [HTML] =
            ["<option value=\"\"\(selected(draft.product.isEmpty))>Choose…</option>"]
            + products.map { p -> HTML in
                let pid = p.product.id.rawValue
                return "<option value=\"\(pid)\"\(selected(pid == draft.product))>\(p.product.name)</option>"
            }
        let ids: [ScheduleField: (id: String, label: String)] = [
            .product: ("schedule-product", "Product"), .servings: ("schedule-servings", "Servings each time"),
            .recurrence: ("repeats-daily", "How often"), .times: ("schedule-times", "Times of day"),
            .interval: ("schedule-every", "Every how many days"), .weekdays: ("schedule-weekdays", "Weekdays"),
            .start: ("schedule-start", "First day"), .end: ("schedule-start", "First day"),
            .zone: ("schedule-zone", "Time zone"), .from: ("schedule-from", "Change from"),
        ]
        let refused = ScheduleField.allCases.filter { !problems.messages(for: $0).isEmpty }
        func attributes(_ field: ScheduleField, help: Bool = false) -> HTML {
            FormField.attributes(ids[field]!.id, errors: problems.messages(for: field), help: help, first: refused.first == field)
        }
        func errors(_ field: ScheduleField) -> HTML { FormField.errors(problems.messages(for: field), ids[field]!.id) }
        let kinds: [(Recurrence.Kind, String)] = [
            (.daily, "Every day"), (.every, "Every few days"), (.weekdays, "On some weekdays"),
            (.asNeeded, "As needed (no set times)"),
        ]
        let chosen = Recurrence.Kind(rawValue: draft.repeats) ?? .daily
        let repeatOptions = kinds.map { (kind, label) -> HTML in
            let first: HTML = kind == .daily && refused.first == .recurrence ? " autofocus" : ""
            let checked: HTML = kind == chosen ? " checked" : ""
            return
                "<p class=\"schedule-repeat\"><input type=\"radio\" name=\"repeats\" id=\"repeats-\(kind.rawValue)\" value=\"\(kind.rawValue)\"\(checked)\(first)> <label for=\"repeats-\(kind.rawValue)\">\(label)</label></p>"
        }
        let repeatsDescribed: HTML = problems.messages(for: .recurrence).isEmpty ? "" : " aria-describedby=\"repeats-daily-error\""
        let zoneOpen: HTML = draft.zone.isEmpty && problems.messages(for: .zone).isEmpty ? "" : " open"
        let head: HTML
        let day: HTML
        let action: String
        let save: String
        if let changing {
            action = "/regimen/schedules/\(changing.scheduleID.rawValue)/edit"
            save = "Save the change"
            head = "<h2 id=\"plan-form-title\">The plan from the day you choose</h2>"
            day = """
                <div class="stack"><label for="schedule-from">Change from</label>
                <input \(Layout.dateField) id="schedule-from" name="from" required value="\(draft.from)"\(attributes(.from, help: true))>\(errors(.from))
                <p class="help" id="schedule-from-help">After \(changing.latest.effectiveFrom.description) (when the current version started) and after any day with logged doses.</p></div>
                """
        } else {
            action = "/regimen/schedules/new"
            save = "Save schedule"
            head = """
                <h2 id="plan-form-title">Add a schedule</h2>
                <div class="stack"><label for="schedule-product">Product</label>
                <select id="schedule-product" name="product" required\(attributes(.product))>\(productOptions)</select>\(errors(.product))</div>
                """
            day = """
                <div class="stack"><label for="schedule-start">First day</label>
                <input \(Layout.dateField) id="schedule-start" name="start" required value="\(draft.start)"\(attributes(.start))>\(errors(.start))</div>
                """
        }
        return """
            <form method="post" action="\(action)" class="card regimen-form schedule-form" aria-labelledby="plan-form-title" novalidate>\(Layout.csrfField(csrfToken))
            \(FormField.summary(refused.compactMap { ids[$0] }))
            \(head)
            <div class="stack"><label for="schedule-servings">Servings each time</label>
            <input type="text" inputmode="decimal" id="schedule-servings" name="servings" required value="\(draft.servings)"\(attributes(.servings))>\(errors(.servings))</div>
            <fieldset class="stack field-group schedule-repeats"\(repeatsDescribed)><legend>How often</legend>
            \(HTML.join(repeatOptions, separator: "\n"))\(errors(.recurrence))</fieldset>
            <div class="stack schedule-when schedule-when-every"><label for="schedule-every">Every how many days <span class="help">(only for every few days)</span></label>
            <input type="text" inputmode="numeric" id="schedule-every" name="every" value="\(draft.every)"\(attributes(.interval, help: true))>\(errors(.interval))
            <p class="help" id="schedule-every-help">Counted from the first day: 2 is every other day.</p></div>
            <div class="stack schedule-when schedule-when-weekdays"><label for="schedule-weekdays">Weekdays <span class="help">(only for some weekdays)</span></label>
            <input type="text" id="schedule-weekdays" name="weekdays" value="\(draft.weekdays)"\(attributes(.weekdays, help: true))>\(errors(.weekdays))
            <p class="help" id="schedule-weekdays-help">Like mon, wed, fri.</p></div>
            <div class="stack schedule-when schedule-when-times"><label for="schedule-times">Times of day <span class="help">(not for as needed)</span></label>
            <input type="text" id="schedule-times" name="times" value="\(draft.times)"\(attributes(.times, help: true))>\(errors(.times))
            <p class="help" id="schedule-times-help">Separated by commas, like 08:00, 20:00.</p></div>
            \(day)
            <details class="stack schedule-zone"\(zoneOpen)><summary>Time zone: follows you unless you name one</summary>
            <div class="stack"><label for="schedule-zone">Time zone <span class="help">(optional)</span></label>
            <input type="text" id="schedule-zone" name="zone" autocomplete="off" spellcheck="false" value="\(draft.zone)"\(attributes(.zone, help: true))>\(errors(.zone))
            <p class="help" id="schedule-zone-help">Leave empty and the times follow you: 08:00 is 08:00 wherever you are. Name a zone, such as America/New_York, to keep them on that zone's clock when you travel.</p></div>
            </details>
            <div class="form-actions"><button type="submit" class="button" id="schedule-save">\(save)</button></div>
            </form>
            """
    }
}
