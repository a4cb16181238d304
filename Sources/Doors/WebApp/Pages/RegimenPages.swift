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
    static func routes(_ regimen: RegimenService, reminders: ReminderService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen") { r in
                let view = try regimen.todayView()
                let records = loggedRecords(r.query["records"], regimen)
                return .html(
                    today(
                        view, csrfToken: csrfToken, notice: notice(r.query["logged"], records: records, zone: view.timeZone), focus: r.query["focus"],
                        low: try reminders.runningLow(), week: try week(regimen))
                )
            },
            route(.get, "/regimen/day/{day}") { r in
                guard let day = try? LocalDay.parse(r.parameter("day")) else { throw WebError.notFound }
                let today = regimen.today()
                if day == today { return .redirect(to: "/regimen") }
                guard day < today, day >= today.adding(days: -Self.pastDays) else { throw WebError.notFound }
                let records = loggedRecords(r.query["records"], regimen)
                return .html(
                    try dayPage(
                        day, regimen: regimen, csrfToken: csrfToken,
                        notice: notice(r.query["logged"], records: records, zone: records.first?.timeZone ?? .current)))
            },
            route(.post, "/regimen/batch/taken") { r in
                let ids = (r.form["doses"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                guard !ids.isEmpty else { throw WebError.badForm }
                let early = r.form["early"] == "yes"
                do {
                    return try logged(regimen: regimen, csrfToken: csrfToken) {
                        let results = try regimen.checkIn(ids.map { CheckInRequest(doseID: $0, status: .taken, confirmedEarly: early) })
                        return (results.allSatisfy(\.alreadyLogged) ? "already" : "1", results.map(\.entry.id))
                    }
                } catch let question as EarlyDoseQuestion {
                    return .html(
                        earlyPage(
                            question, action: "/regimen/batch/taken", fields: ["doses": ids.joined(separator: ",")], back: "/regimen",
                            csrfToken: csrfToken))
                }
            },
            route(.post, "/regimen/as-needed/{schedule}") { r in
                try logged(regimen: regimen, csrfToken: csrfToken) {
                    ("1", [try regimen.logAsNeeded(ScheduleID(r.parameter("schedule"))).id])
                }
            },
            route(.post, "/regimen/records/{record}/undo") { r in
                // From the entry's own page (`back=record`): back there, to the undo, with its notice.
                if r.form["back"] == "record" {
                    let result = try regimen.undo(IntakeRecordID(r.parameter("record")))
                    return .redirect(to: "/regimen/records/\(result.entry.id.rawValue)?saved=undone")
                }
                return try logged(regimen: regimen, csrfToken: csrfToken) {
                    (try regimen.undo(IntakeRecordID(r.parameter("record"))).alreadyUndone ? "undone-already" : "undone", [])
                }
            },
        ]
            + [IntakeStatus.taken, .skipped].map { status in
                route(.post, "/regimen/doses/{dose}/\(status.rawValue)") { r in
                    let doseID = r.parameter("dose")
                    let atText = (r.form["at"] ?? "").trimmingCharacters(in: .whitespaces)
                    let day = try? r.form.value("day", as: LocalDay.self)
                    do {
                        return try logged(regimen: regimen, csrfToken: csrfToken, field: atText.isEmpty ? nil : doseID, day: day) {
                            let result = try regimen.checkIn(
                                doseID, status: status, typedAt: atText.isEmpty ? nil : atText, confirmedEarly: r.form["early"] == "yes")
                            return (result.alreadyLogged ? "already" : "1", [result.entry.id])
                        }
                    } catch let question as EarlyDoseQuestion {
                        return .html(
                            earlyPage(
                                question, action: "/regimen/doses/\(doseID)/taken", fields: ["at": atText, "day": day?.description ?? ""],
                                back: day.map { "/regimen/day/\($0)" } ?? "/regimen", csrfToken: csrfToken))
                    }
                }
            }
    }

    /// Runs an action of Today; redirects to Today with focus on the next dose to log (the `focus` query renders
    /// `autofocus` on its Taken button: HTML, so it works without JavaScript),
    /// or shows Today with the service's message (status 400), beside the "Taken at" field of `field` if given.
    private static func logged(
        regimen: RegimenService, csrfToken: String, field: String? = nil, day: LocalDay? = nil,
        _ action: () throws -> (notice: String, records: [IntakeRecordID])
    ) throws -> Response {
        // An action from an earlier day's page goes back there (its errors too).
        if let day {
            do {
                let (notice, records) = try action()
                return .redirect(to: "/regimen/day/\(day)?logged=\(notice)&records=" + records.map(\.rawValue).joined(separator: ","))
            } catch let error as CairnError where error.errorKind == .refusedInput && !(error is EarlyDoseQuestion) {
                let message = error.userMessage + " Nothing was saved."
                return .html(
                    try dayPage(
                        day, regimen: regimen, csrfToken: csrfToken, error: field == nil ? message : nil, fieldError: field.map { ($0, message) }),
                    status: 400)
            }
        }
        do {
            let (notice, records) = try action()
            let view = try regimen.todayView()
            let done = "/regimen?logged=\(notice)" + (records.isEmpty ? "" : "&records=" + records.map(\.rawValue).joined(separator: ","))
            // No fragment: a page whose address names a fragment target skips `autofocus` (HTML's rule).
            guard let next = view.nextToLog else { return .redirect(to: done) }
            return .redirect(to: done + "&focus=\(next.doseID)")
        } catch let error as CairnError where error.errorKind == .refusedInput && !(error is EarlyDoseQuestion) {
            // (An early dose is asked about by the caller.)
            let message = error.userMessage + " Nothing was saved."
            let view = try regimen.todayView()
            let inRow = openRowID(field, in: view)
            return .html(
                today(
                    view, csrfToken: csrfToken, error: inRow == nil ? message : nil,
                    fieldError: inRow.map { ($0, message) }, focus: inRow),
                status: 400)
        }
    }

    /// How far back an earlier day's page goes.
    static let pastDays = 30

    /// The last seven days, yesterday first: how their doses went, each a link to its page.
    static func week(_ regimen: RegimenService) throws -> [(day: LocalDay, tally: DoseTally)] {
        let today = regimen.today()
        let doses = try regimen.doses(in: today.adding(days: -7)...today.adding(days: -1))
        return (1...7).map { back in
            let day = today.adding(days: -back)
            return (day, DoseTally(doses.filter { $0.day == day }, dueBy: .distantFuture))
        }
    }

    /// Today's "Last seven days" card; nothing when no dose was due in them.
    static func weekSection(_ week: [(day: LocalDay, tally: DoseTally)]) -> HTML {
        guard week.contains(where: { $0.tally.total > 0 }) else { return "" }
        let rows = week.map { item -> HTML in
            let label = item.day == week.first?.day ? "Yesterday" : DateText.weekday(item.day)
            return "<li><a href=\"/regimen/day/\(item.day.description)\">\(label), \(DateText.day(item.day))</a>: \(item.tally.sentence)</li>"
        }
        return """
            <section class="card" aria-labelledby="week-title">
            <h2 id="week-title">Last seven days</h2>
            <ul class="regimen-list" id="regimen-week">\(rows)</ul>
            </section>
            """
    }

    /// An earlier day: its doses, the ones not logged with Taken (at their time unless another is given) and
    /// Skipped, the logged ones with a link to correct or undo them; the days either side and Today one step away.
    static func dayPage(
        _ day: LocalDay, regimen: RegimenService, csrfToken: String, notice: String? = nil, error: String? = nil,
        fieldError: (doseID: String, message: String)? = nil
    ) throws -> String {
        let doses = try regimen.doses(on: day)
        let today = regimen.today()
        let title = "\(DateText.weekday(day)), \(DateText.day(day))"
        var links: [HTML] = []
        if day > today.adding(days: -pastDays) {
            links.append("<a href=\"/regimen/day/\(day.adding(days: -1).description)\" rel=\"prev\">The day before</a>")
        }
        if day.adding(days: 1) < today { links.append("<a href=\"/regimen/day/\(day.adding(days: 1).description)\" rel=\"next\">The day after</a>") }
        links.append("<a href=\"/regimen\">Today</a>")
        let rows = doses.map { dose -> HTML in
            guard let record = dose.record else {
                return openRow(
                    dose, csrfToken: csrfToken, fieldError: fieldError?.doseID == dose.doseID ? fieldError?.message : nil, autofocus: false,
                    day: day)
            }
            let what = record.status == .taken ? "taken at \(DateText.string(record.takenAt, .clock, in: record.timeZone))" : "skipped"
            return """
                <li class="regimen-dose regimen-\(dose.state.rawValue)" id="dose-\(dose.doseID)">
                <span class="regimen-time">\(dose.time.description)</span>
                <span class="regimen-product">\(dose.productName)</span> <span class="regimen-meta">\(dose.amount)</span>
                <span class="regimen-state">\(what)</span>
                <a href="/regimen/records/\(record.id.rawValue)">Correct or undo<span class="visually-hidden">: \(dose.productName) at \(dose.time.description)</span></a>
                </li>
                """
        }
        let list: HTML =
            rows.isEmpty
            ? "<p class=\"notice\" id=\"regimen-day-empty\">No scheduled doses on this day.</p>"
            : "<ul class=\"regimen-doses\" aria-label=\"Doses of this day\">\(HTML.join(rows, separator: "\n"))</ul>"
        let tally = DoseTally(doses, dueBy: .distantFuture)
        let body: HTML = """
            \(intro(title, lead: "\(tally.sentence). A dose logged here without a time counts at its own time, on this day."))
            \(subnav("/regimen"))
            \(message(notice: notice, error: error))
            <nav class="regimen-pager" aria-label="Days"><p>\(HTML.join(links, separator: " · "))</p></nav>
            <section class="card">\(list)</section>
            """
        return Layout.page(title: title, section: .regimen, body: body)
    }

    /// The question before a dose is logged as taken more than an hour before its time (every door asks once): the
    /// same form again with `early=yes`, or back to Today with nothing logged.
    static func earlyPage(_ question: EarlyDoseQuestion, action: String, fields: [String: String], back: String, csrfToken: String) -> String {
        let hidden = fields.sorted { $0.key < $1.key }.map { key, value -> HTML in "<input type=\"hidden\" name=\"\(key)\" value=\"\(value)\">" }
        let body: HTML = """
            \(intro("Log it this early?", lead: question.question))
            <form method="post" action="\(action)" class="card regimen-form" id="early-confirm">\(Layout.csrfField(csrfToken))
            \(HTML.join(hidden, separator: ""))<input type="hidden" name="early" value="yes">
            <p>Nothing is logged until you say so.</p>
            <div class="form-actions"><button type="submit" class="button" id="early-yes" autofocus>Yes, log it as taken</button>
            <a class="button button-quiet" href="\(back)" id="early-no">No, go back</a></div>
            </form>
            """
        return Layout.page(title: "Log it this early?", section: .regimen, body: body)
    }

    /// The records an action names in its redirect (`records=ID,ID`), as the ledger holds them.
    static func loggedRecords(_ text: String?, _ regimen: RegimenService) -> [LedgerEntry] {
        (text ?? "").split(separator: ",").prefix(20).compactMap { try? regimen.record(IntakeRecordID(String($0))) }
    }

    /// What was logged, in words: "Magnesium (08:00), taken at 08:05; Zinc (08:00), skipped".
    static func loggedWords(_ records: [LedgerEntry], zone: TimeZone) -> String {
        records.map { e in
            let slot = e.occurrence.map { " (\($0.slot))" } ?? ""
            let what = e.status == .taken ? "taken at \(DateText.string(e.takenAt, .clock, in: zone))" : "skipped"
            return "\(e.productName)\(slot), \(what)"
        }.joined(separator: "; ")
    }

    /// The notice after a Today action: what was logged (or that it was already), from `records`.
    static func notice(_ value: String?, records: [LedgerEntry], zone: TimeZone) -> String? {
        let what = records.isEmpty ? "" : ": " + loggedWords(records, zone: zone)
        switch value {
        case "1": return "Logged\(what)."
        case "already": return "Already logged\(what). Nothing new was saved."
        case "undone": return "Undone. The dose is back to not logged; the ledger keeps both entries."
        case "undone-already": return "That entry was already undone. Nothing new was saved."
        default: return nil
        }
    }

    // MARK: shared bits

    static func intro(_ title: String, lead: String) -> HTML {
        """
        <div class="page-intro">
        <h1>\(title)</h1>
        <p class="lead">\(lead)</p>
        </div>
        """
    }

    /// The sub-navigation of the journal; `current` is marked for assistive technology too.
    static func subnav(_ current: String) -> HTML {
        let links = [
            ("/regimen", "Today"), ("/regimen/ledger", "Ledger"), ("/regimen/products", "Products"),
            ("/regimen/schedules", "Schedules"), ("/regimen/outcomes", "Outcomes"), ("/regimen/insights", "Insights"),
        ]
        let items = links.map { path, label -> HTML in
            let marked: HTML = path == current ? " aria-current=\"page\"" : ""
            return "<li><a href=\"\(path)\"\(marked)>\(label)</a></li>"
        }
        return "<nav class=\"regimen-nav\" aria-label=\"Regimen\"><ul>\(items)</ul></nav>"
    }

    static func message(notice: String?, error: String?) -> HTML {
        var html: HTML = ""
        if let notice { html += "<p class=\"notice\" role=\"status\" id=\"regimen-notice\">\(notice)</p>" }
        if let error { html += "<p class=\"form-error\" role=\"alert\" id=\"regimen-error\">\(error)</p>" }
        return html
    }

    /// The products running low (inside the refill warning's window), each with its count and a link to count
    /// it again; nothing when none is.
    static func refillNotice(_ low: [SupplyStatus]) -> HTML {
        guard !low.isEmpty else { return "" }
        let items = low.map { s -> HTML in
            "<li><strong>\(s.productName):</strong> \(s.summary) <a href=\"/regimen/products/\(s.productID.rawValue)#supply\">Set a new count<span class=\"visually-hidden\"> of \(s.productName)</span></a></li>"
        }
        return """
            <section class="notice regimen-refill" id="regimen-refill" aria-labelledby="refill-title">
            <h2 id="refill-title">Running low</h2>
            <ul>\(items)</ul>
            </section>
            """
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

    // MARK: Today

    /// Today: the batch due now, open doses earlier and later today, what was logged today (scheduled, as
    /// needed and extra, with times and Undo), tomorrow's first doses when today is done, and the as-needed
    /// schedules. Each dose is listed once. `focus` (a dose id) gets `autofocus` on its Taken button.
    static func today(
        _ view: TodayView, csrfToken: String, notice: String? = nil, error: String? = nil,
        fieldError: (doseID: String, message: String)? = nil, focus: String? = nil, low: [SupplyStatus] = [],
        week: [(day: LocalDay, tally: DoseTally)] = []
    ) -> String {
        let intro = intro("Regimen", lead: Journal.regimen.purpose) + subnav("/regimen") + refillNotice(low)
        let focusID = focus.flatMap { id in view.doses.contains { $0.doseID == id && $0.state == .notLogged } ? id : nil }
        var messages: HTML = ""
        if let notice {
            let focusNotice: HTML = focusID == nil ? " tabindex=\"-1\" autofocus" : ""
            messages += "<p class=\"notice\" role=\"status\" id=\"regimen-notice\"\(focusNotice)>\(notice)</p>"
        }
        if let error { messages += "<p class=\"form-error\" role=\"alert\" id=\"regimen-error\">\(error)</p>" }
        guard !view.doses.isEmpty || !view.asNeeded.isEmpty || !view.next.isEmpty || !view.unscheduledLogged.isEmpty else {
            return Layout.page(
                title: "Regimen", section: .regimen,
                body: intro + messages + """
                    <section class="card empty-state" aria-labelledby="empty-title">
                    <h2 id="empty-title">Nothing scheduled yet</h2>
                    <p>Regimen keeps a plain record of what you take and when. Add a product from its label, give it a schedule, and each dose shows up here to tick off as taken or skipped.</p>
                    <p class="card-action"><a class="button" href="/regimen/products/new" id="regimen-add-product">Add a product</a></p>
                    </section>
                    """)
        }
        func openRows(_ doses: [TodayDose]) -> HTML {
            HTML.join(
                doses.map {
                    openRow(
                        $0, csrfToken: csrfToken, fieldError: fieldError?.doseID == $0.doseID ? fieldError?.message : nil,
                        autofocus: focusID == $0.doseID)
                }, separator: "\n")
        }
        var sections: [HTML] = []
        let dayText = view.day.description
        if view.currentBatch.isEmpty {
            sections.append(
                """
                <section class="card regimen-batch" aria-labelledby="batch-title">
                <h2 id="batch-title">Due now</h2>
                <p id="regimen-all-logged">Every dose of today is logged.</p>
                </section>
                """)
        } else {
            let ids = view.currentBatch.map(\.doseID).joined(separator: ",")
            let takeAll: HTML =
                view.currentBatch.count > 1
                ? """
                <form method="post" action="/regimen/batch/taken" class="regimen-take-all">\(Layout.csrfField(csrfToken))
                <input type="hidden" name="doses" value="\(ids)">
                <button type="submit" class="button" id="regimen-take-all">Take all (\(view.currentBatch.count))</button>
                </form>
                """ : ""
            sections.append(
                """
                <section class="card regimen-batch" aria-labelledby="batch-title">
                <h2 id="batch-title">\(view.batchHeading)</h2>
                <ul class="regimen-doses" aria-label="\(view.isBatchDue ? "Doses due now" : "Doses coming up")">
                \(openRows(view.currentBatch))
                </ul>
                \(takeAll)
                </section>
                """)
        }
        if !view.earlierOpen.isEmpty {
            sections.append(
                """
                <section class="card" aria-labelledby="earlier-title">
                <h2 id="earlier-title">Earlier today, not logged yet</h2>
                <ul class="regimen-doses">
                \(openRows(view.earlierOpen))
                </ul>
                </section>
                """)
        }
        if !view.laterToday.isEmpty {
            sections.append(
                """
                <section class="card" aria-labelledby="later-title">
                <h2 id="later-title">Later today</h2>
                <ul class="regimen-doses">
                \(openRows(view.laterToday))
                </ul>
                </section>
                """)
        }
        let logged =
            view.loggedToday.compactMap { dose in dose.record.map { (dose.time.description, $0) } }
            + view.unscheduledLogged.map { (DateText.string($0.takenAt, .clock, in: view.timeZone), $0) }
        if !logged.isEmpty {
            let rows = HTML.join(
                logged.sorted { $0.1.takenAt < $1.1.takenAt }.map { loggedRow(slot: $0.0, $0.1, view: view, csrfToken: csrfToken) },
                separator: "\n")
            sections.append(
                """
                <section class="card" aria-labelledby="logged-title">
                <h2 id="logged-title">Logged today (\(dayText))</h2>
                <ul class="regimen-doses">
                \(rows)
                </ul>
                </section>
                """)
        }
        if !view.tomorrow.isEmpty {
            let rows = view.tomorrow.map { d -> HTML in
                "<li class=\"regimen-next\"><span class=\"regimen-time\">\("\(d.day) \(d.timeText)")</span> \(d.productName), \(d.amount)</li>"
            }
            sections.append(
                """
                <section class="card" aria-labelledby="next-title">
                <h2 id="next-title">Next, tomorrow</h2>
                <ul class="regimen-list">
                \(HTML.join(rows, separator: "\n"))
                </ul>
                </section>
                """)
        }
        sections.append(weekSection(week))
        if !view.asNeeded.isEmpty {
            let rows = view.asNeeded.map { asNeededRow($0, csrfToken: csrfToken) }
            sections.append(
                """
                <section class="card" aria-labelledby="as-needed-title">
                <h2 id="as-needed-title">As needed</h2>
                <ul class="regimen-doses">
                \(HTML.join(rows, separator: "\n"))
                </ul>
                </section>
                """)
        }
        let body = intro + messages + HTML.join(sections, separator: "\n")
        return Layout.page(title: "Regimen", section: .regimen, body: body)
    }

    /// An as-needed schedule's row: the product, its servings and "Log a dose" (computer and phone).
    static func asNeededRow(_ s: ScheduleSummary, csrfToken: String) -> HTML {
        """
        <li class="regimen-dose"><span class="regimen-product">\(s.productName)</span> <span class="regimen-meta">as needed, \(servings(s.latest.plan.servings))</span>
        <form method="post" action="/regimen/as-needed/\(s.scheduleID.rawValue)" class="regimen-actions">\(Layout.csrfField(csrfToken))
        <button type="submit" class="button button-quiet">Log a dose<span class="visually-hidden"> of \(s.productName)</span></button>
        </form></li>
        """
    }

    /// The dose `field` names when Today shows its open row (and so its "Taken at" field); nil otherwise (a dose
    /// already logged has no row with that field: its refusal then stands above the list).
    static func openRowID(_ field: String?, in view: TodayView) -> String? {
        field.flatMap { id in view.doses.contains { $0.doseID == id && $0.state == .notLogged } ? id : nil }
    }

    /// A dose not logged yet: time, product, Taken (now) and Skipped, and "Taken at another time" (a time
    /// field in a disclosure, so it works without JavaScript), with its error beside the field.
    static func openRow(_ dose: TodayDose, csrfToken: String, fieldError: String?, autofocus: Bool, day: LocalDay? = nil) -> HTML {
        let id = dose.doseID
        let back: HTML = day.map { d -> HTML in "<input type=\"hidden\" name=\"day\" value=\"\(d.description)\">" } ?? ""
        let name = dose.productName
        let errorID = "at-error-\(id)"
        let errorHTML: HTML? = fieldError.map { "<p class=\"form-error\" role=\"alert\" id=\"\(errorID)\">\($0)</p>" }
        let focused: HTML = autofocus ? " autofocus" : ""
        let open: HTML = fieldError == nil ? "" : " open"
        let invalid: HTML = fieldError == nil ? "" : " aria-invalid=\"true\""
        let described = "at-help-\(id)" + (fieldError == nil ? "" : " \(errorID)")
        return """
            <li class="regimen-dose regimen-\(dose.state.rawValue)" id="dose-\(id)">
            <span class="regimen-time">\(dose.time.description)</span>
            <span class="regimen-product">\(name)</span> <span class="regimen-meta">\(dose.amount)\(dose.scheduleTimeText.map { " · " + $0 + " time" } ?? "")</span>
            <span class="regimen-state">\(stateWords(dose.state))</span>
            <form method="post" action="/regimen/doses/\(id)/taken" class="regimen-actions">\(Layout.csrfField(csrfToken))\(back)
            <button type="submit" class="button" id="take-\(id)"\(focused)>Taken<span class="visually-hidden">: \(name)</span></button>
            <button type="submit" class="button button-quiet" formaction="/regimen/doses/\(id)/skipped">Skipped<span class="visually-hidden">: \(name)</span></button>
            </form>
            <details class="regimen-taken-at"\(open)><summary>Taken at another time<span class="visually-hidden">: \(name)</span></summary>
            <form method="post" action="/regimen/doses/\(id)/taken" class="regimen-actions">\(Layout.csrfField(csrfToken))\(back)
            <label for="at-\(id)">Taken at</label>
            <input type="text" inputmode="numeric" autocomplete="off" maxlength="25" placeholder="HH:MM" class="time-field" id="at-\(id)" name="at" required aria-describedby="\(described)"\(invalid)>
            <button type="submit" class="button button-quiet">Save<span class="visually-hidden"> the time for \(name)</span></button>
            <p class="help" id="at-help-\(id)">HH:MM on a 24-hour clock; for a time on another day, YYYY-MM-DD HH:MM.</p>
            </form>
            \(errorHTML)
            </details>
            </li>
            """
    }

    /// A dose logged today (scheduled, as needed or extra): what, when, and Undo.
    static func loggedRow(slot: String, _ entry: LedgerEntry, view: TodayView, csrfToken: String) -> HTML {
        let name = entry.productName
        let what: String
        switch entry.kind {
        case .scheduled: what = "\(entry.status == .taken ? "taken" : "skipped") at \(DateText.string(entry.takenAt, .clock, in: view.timeZone))"
        case .asNeeded: what = "as needed, taken at \(DateText.string(entry.takenAt, .clock, in: view.timeZone))"
        case .extra: what = "extra dose, taken at \(DateText.string(entry.takenAt, .clock, in: view.timeZone))"
        }
        let anchor: HTML? = entry.occurrence.map { " id=\"dose-\($0.doseID)\"" }
        return """
            <li class="regimen-dose regimen-\(entry.status.rawValue)"\(anchor)>
            <span class="regimen-time">\(slot)</span>
            <span class="regimen-product">\(name)</span> <span class="regimen-meta">\(servings(entry.servings))</span>
            <span class="regimen-state">\(what)</span>
            <form method="post" action="/regimen/records/\(entry.id.rawValue)/undo" class="regimen-actions">\(Layout.csrfField(csrfToken))
            <button type="submit" class="button button-quiet">Undo<span class="visually-hidden">: \(name), \(what)</span></button>
            </form>
            </li>
            """
    }
}
