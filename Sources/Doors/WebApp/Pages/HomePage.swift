import CairnApp

/// The three journals the home page links to, with the words of their empty states.
enum Journal: String, CaseIterable {
    case skin, smile, regimen

    var section: Layout.Section {
        switch self {
        case .skin: return .skin
        case .smile: return .smile
        case .regimen: return .regimen
        }
    }

    var title: String {
        switch self {
        case .skin: return "Skin"
        case .smile: return "Smile"
        case .regimen: return "Regimen"
        }
    }

    /// What the journal is for, in one or two sentences.
    var purpose: String {
        switch self {
        case .skin:
            return "Keep a photo record of a patch of skin you want to keep an eye on, and compare each new photo with the earlier ones."
        case .smile:
            return "Take a photo of your smile from time to time and see the photos side by side, from the first to the latest."
        case .regimen:
            return "Write down what you take and when, tick off each dose as you go, and look back at what you logged."
        }
    }

    /// The one next step offered by the home page's card: opening the journal.
    var nextStep: String {
        switch self {
        case .skin: return "Open Skin"
        case .smile: return "Open Smile"
        case .regimen: return "Open Regimen"
        }
    }
}

enum HomePage {
    /// The home page. `summaries` holds a short count ("2 areas, 14 photos") for each journal that has
    /// something in it; a journal without one shows its empty state.
    /// `regimenToday` (HTML) says what is due now and what was logged today, in the Regimen card.
    static func render(summaries: [Journal: String] = [:], regimenToday: HTML? = nil) -> String {
        let cards = Journal.allCases.map { j -> HTML in
            let summary: HTML = summaries[j].map { "<p class=\"journal-summary\">\($0)</p>" } ?? "<p class=\"empty-note\">Nothing here yet.</p>"
            return
                """
                <li class="card journal-card journal-\(j.rawValue)">
                <h2 id="journal-\(j.rawValue)">\(j.title)</h2>
                \(summary)
                \(j == .regimen ? regimenToday : nil)
                <p>\(j.purpose)</p>
                <p class="card-action"><a class="button" href="/\(j.rawValue)" aria-describedby="journal-\(j.rawValue)">\(j.nextStep)</a></p>
                </li>
                """
        }
        let body: HTML = """
            <div class="page-intro">
            <h1>Your journals</h1>
            <p class="lead">Three journals, one place. Leave a marker today and come back to see where things stand.</p>
            </div>
            <ul class="journal-grid" aria-label="Journals">
            \(HTML.join(cards, separator: "\n"))
            </ul>
            """
        return Layout.page(title: "Your journals", section: .home, body: body)
    }
}

extension HomePage {
    /// `GET /`: the journals, or the introduction on the first visit.
    static func routes(_ services: WebServices) -> [Route] {
        [
            route(.get, "/") { _ in
                if try !services.settings.isOnboardingComplete() { return .redirect(to: "/welcome/1") }
                let view = try services.regimen.todayView()
                var today = regimenToday(view)
                if services.reminderStatus?.current == .off, !view.doses.isEmpty {
                    today =
                        (today ?? "")
                        + "<p class=\"home-reminders-off\" id=\"home-reminders-off\">\(ReminderSettingsPage.offSentence) <a href=\"/settings/reminders#reminder-health\">Reminders</a></p>"
                }
                let low = RegimenPages.refillNotice(try services.reminders.runningLow())
                return .html(render(summaries: try summaries(services), regimenToday: low.isEmpty ? today : (today ?? "") + low))
            }
        ]
    }

    /// A short count for each journal that holds something, for the home page's cards.
    static func summaries(_ services: WebServices) throws -> [Journal: String] {
        var summaries: [Journal: String] = [:]
        let areas = try services.skin.areas()
        if !areas.isEmpty {
            summaries[.skin] = count(areas.count, "area") + ", " + count(areas.reduce(0) { $0 + $1.entryCount }, "photo")
        }
        let entries = try services.smile.entries().count
        if entries > 0 { summaries[.smile] = count(entries, "photo") }
        let products = try services.regimen.products().count
        if products > 0 { summaries[.regimen] = count(products, "product") }
        return summaries
    }

    /// What is due now (or coming up next) and what was logged today, for the Regimen card; nil when there is
    /// nothing scheduled and nothing logged today.
    static func regimenToday(_ view: TodayView) -> HTML? {
        guard !view.doses.isEmpty || !view.unscheduledLogged.isEmpty || !view.next.isEmpty else { return nil }
        func names(_ doses: [TodayDose]) -> String { doses.map(\.productName).joined(separator: ", ") }
        var lines: [HTML] = []
        if let first = view.currentBatch.first {
            let link: HTML = "<a href=\"/regimen?focus=\(first.doseID)\">"
            if view.isBatchDue {
                lines.append(
                    "<p class=\"home-due\" id=\"home-due-now\"><strong>\(view.batchHeading):</strong> \(link)\(names(view.currentBatch))</a></p>"
                )
            } else {
                lines.append(
                    "<p class=\"home-due\" id=\"home-due-now\">Nothing due now. Next at \(first.timeText): \(link)\(names(view.currentBatch))</a></p>"
                )
            }
        } else if let first = view.next.first {
            let next = "\(first.day) \(first.timeText)"
            lines.append("<p class=\"home-due\" id=\"home-due-now\">Every dose of today is logged. Next: \(next).</p>")
        }
        let taken = view.loggedToday.filter { $0.state == .taken }.count + view.unscheduledLogged.filter { $0.status == .taken }.count
        let skipped = view.loggedToday.filter { $0.state == .skipped }.count
        let logged =
            taken + skipped == 0
            ? "Nothing logged yet today."
            : "Logged today: \(count(taken, "dose")) taken" + (skipped > 0 ? ", \(skipped) skipped." : ".")
        lines.append("<p class=\"home-logged\" id=\"home-logged-today\">\(logged)</p>")
        return HTML.join(lines, separator: "\n")
    }

    /// "1 photo", "3 photos".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
