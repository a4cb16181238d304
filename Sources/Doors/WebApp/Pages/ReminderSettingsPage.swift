import CairnApp
import CairnCore
import Foundation
import Regimen
import Skin

/// `GET /settings/reminders` and `POST /settings/reminders` (preferences from today on),
/// `POST /settings/reminders/schedules/{schedule}` (`enabled`: on or off), `POST /settings/reminders/areas/{area}`
/// (`weeks`: 0 to 52, 0 off): reminder preferences, effective-dated like plans (a change is a new revision from
/// today; earlier days keep theirs).
enum ReminderSettingsPage {
    static func routes(
        _ reminders: ReminderService, regimen: RegimenService, skin: SkinService, status: ReminderStatus?, csrfToken: String
    ) -> [Route] {
        [
            route(.get, "/settings/reminders") { r in
                let notices = [
                    "saved": "Saved. In force from today.",
                    "shown":
                        "A test reminder was sent: it should be on your screen now. If it is not, check that the desktop does not hide notifications (do not disturb).",
                    "refused": "The notification service refused the test reminder. Nothing was shown.",
                    "none": "No test reminder could be sent: reminders are not running in this window's server.",
                ]
                return .html(
                    try render(
                        reminders, regimen: regimen, skin: skin, status: status, csrfToken: csrfToken,
                        notice: r.query["saved"] == "1" ? notices["saved"] : r.query["test"].flatMap { notices[$0] }))
            },
            route(.post, "/settings/reminders/test") { _ in
                let result = status?.sendTest()
                return .redirect(to: "/settings/reminders?test=\(result.map { $0 ? "shown" : "refused" } ?? "none")#reminder-health")
            },
            route(.post, "/settings/reminders") { r in
                let f = r.form
                do {
                    let quietText =
                        [f["quiet_start"] ?? "", f["quiet_end"] ?? ""].allSatisfy(\.isEmpty)
                        ? "off" : "\(f["quiet_start"] ?? "")-\(f["quiet_end"] ?? "")"
                    func number(_ key: String, _ range: ClosedRange<Int>, _ error: ReminderError) throws -> Int {
                        guard let n = Int((f[key] ?? "").trimmingCharacters(in: .whitespaces)), range.contains(n) else { throw error }
                        return n
                    }
                    let quiet = try ReminderPreferences.quietHours(parsing: quietText)
                    let preferences = try ReminderPreferences(
                        quietStart: quiet?.start, quietEnd: quiet?.end, showProductNames: f["names"] == "on",
                        repeatMinutes: try number("repeat", 0...ReminderPreferences.maximumRepeatMinutes, .repeatOutOfRange),
                        repeatLimit: try number("repeat_limit", 0...ReminderPreferences.maximumRepeats, .repeatOutOfRange),
                        morningSummary: f["summary"] == "on",
                        refillDays: try number("refill_days", 0...ReminderPreferences.maximumRefillDays, .refillDaysOutOfRange))
                    try reminders.setPreferences(preferences)
                    return .redirect(to: "/settings/reminders?saved=1")
                } catch let error as ReminderError {
                    return .html(try render(reminders, regimen: regimen, skin: skin, status: status, csrfToken: csrfToken, error: error), status: 400)
                }
            },
            route(.post, "/settings/reminders/schedules/{schedule}") { r in
                let enabled: Bool
                switch r.form["enabled"] {
                case "on": enabled = true
                case "off": enabled = false
                default: throw WebError.badForm
                }
                try reminders.setReminders(enabled, for: ScheduleID(r.parameter("schedule")))
                return .redirect(to: "/settings/reminders?saved=1#schedule-reminders")
            },
            route(.post, "/settings/reminders/areas/{area}") { r in
                let area = AreaID(r.parameter("area"))
                do {
                    guard let weeks = Int((r.form["weeks"] ?? "").trimmingCharacters(in: .whitespaces)) else {
                        throw ReminderError.photoWeeksOutOfRange
                    }
                    try reminders.setPhotoReminder(every: weeks, for: area)
                    return .redirect(to: "/settings/reminders?saved=1#photo-reminders")
                } catch let error as ReminderError {
                    return .html(
                        try render(reminders, regimen: regimen, skin: skin, status: status, csrfToken: csrfToken, error: error, errorArea: area),
                        status: 400)
                }
            },
        ]
    }

    static func render(
        _ reminders: ReminderService, regimen: RegimenService, skin: SkinService, status: ReminderStatus? = nil, csrfToken: String,
        notice: String? = nil, error: ReminderError? = nil, errorArea: AreaID? = nil
    ) throws -> String {
        let p = try reminders.preferences()
        let off = try reminders.remindersOff()
        let schedules = try regimen.schedules().filter { $0.latest.state != .stopped && $0.latest.plan.recurrence != .asNeeded }
        func checked(_ on: Bool) -> HTML { on ? " checked" : "" }
        // An error sits below the field it is about, and only that field is marked invalid.
        // `attributes` for the first field of the error, `unfocused` for the others it is about.
        func problem(_ kind: ReminderError, _ id: String) -> (html: HTML, attributes: HTML, unfocused: HTML) {
            guard error == kind, errorArea == nil else { return ("", "", "") }
            return (
                "<p class=\"field-error\" role=\"alert\" id=\"\(id)\">\(kind.userMessage)</p>",
                " aria-invalid=\"true\" aria-describedby=\"\(id)\" autofocus",
                " aria-invalid=\"true\" aria-describedby=\"\(id)\""
            )
        }
        let quiet = problem(.quietHoursIncomplete, "quiet-error")
        let repeats = problem(.repeatOutOfRange, "repeat-error")
        let refill = problem(.refillDaysOutOfRange, "refill-error")
        let photoWeeks = try reminders.photoReminders()
        let areaRows = try skin.areas().map { summary -> HTML in
            let id = summary.area.id.rawValue
            let name = summary.area.name
            let failed = error == .photoWeeksOutOfRange && errorArea == summary.area.id
            let errorID = "photo-error-\(id)"
            let invalid: HTML = failed ? " aria-invalid=\"true\" aria-describedby=\"\(errorID)\" autofocus" : ""
            let errorHTML: HTML? =
                failed ? "<p class=\"field-error\" role=\"alert\" id=\"\(errorID)\">\(ReminderError.photoWeeksOutOfRange.userMessage)</p>" : nil
            return """
                <li class="setting-row"><form method="post" action="/settings/reminders/areas/\(id)" class="inline-setting">\(Layout.csrfField(csrfToken))
                <label for="photo-weeks-\(id)">\(name): every how many weeks (0 for no reminder)</label>
                <span class="inline-setting-row"><input type="number" id="photo-weeks-\(id)" name="weeks" min="0" max="\(ReminderPlanner.maximumPhotoWeeks)" value="\(photoWeeks[summary.area.id] ?? 0)"\(invalid)>
                <button type="submit" class="button button-quiet">Save<span class="visually-hidden"> the photo reminder of \(name)</span></button></span>
                \(errorHTML)
                </form></li>
                """
        }
        let rows = schedules.map { s -> HTML in
            let isOff = off.contains(s.scheduleID)
            let times = s.latest.plan.times.map(\.description).joined(separator: ", ")
            return """
                <li class="setting-row"><span>\(s.productName), \(times): reminders \(isOff ? "off" : "on")</span>
                <form method="post" action="/settings/reminders/schedules/\(s.scheduleID.rawValue)">\(Layout.csrfField(csrfToken))
                <input type="hidden" name="enabled" value="\(isOff ? "on" : "off")">
                <button type="submit" class="button button-quiet">\(isOff ? "Turn on" : "Turn off")<span class="visually-hidden"> reminders of \(s.productName)</span></button>
                </form></li>
                """
        }
        let noticeHTML = notice.map { notice -> HTML in "<p class=\"notice\" role=\"status\">\(notice)</p>" }
        let rowList: HTML =
            rows.isEmpty ? "<p>No schedules with set times yet.</p>" : "<ul class=\"setting-list\">\(HTML.join(rows, separator: "\n"))</ul>"
        let areaList: HTML =
            areaRows.isEmpty ? "<p>No skin areas yet.</p>" : "<ul class=\"setting-list\">\(HTML.join(areaRows, separator: "\n"))</ul>"
        let body: HTML = """
            <div class="page-intro"><h1>Reminders</h1>
            <p class="lead">Desktop notifications for due doses, while 'cairn serve' or 'cairn remind' runs. Changes apply from today; earlier days keep what was set then.</p></div>
            \(noticeHTML)
            \(health(status, csrfToken: csrfToken))
            <section class="card regimen-form" aria-labelledby="reminder-prefs-title">
            <h2 id="reminder-prefs-title">How reminders behave</h2>
            <form method="post" action="/settings/reminders" id="reminder-preferences">\(Layout.csrfField(csrfToken))
            <fieldset class="field-group"><legend>Quiet hours (leave both empty for none)</legend>
            <div class="stack"><label for="quiet-start">From</label><input \(Layout.timeField) id="quiet-start" name="quiet_start" value="\(p.quietStart.map(\.description) ?? "")"\(quiet.attributes)></div>
            <div class="stack"><label for="quiet-end">Until</label><input \(Layout.timeField) id="quiet-end" name="quiet_end" value="\(p.quietEnd.map(\.description) ?? "")"\(quiet.unfocused)></div>
            \(quiet.html)</fieldset>
            <div class="stack"><label><input type="checkbox" name="names" value="on"\(checked(p.showProductNames))> Name the products and skin areas in notifications</label>
            <p class="help">Off, a notification only says "A dose is due at 08:00" or "A skin area is due for a new photo", so nobody glancing at the screen learns what you take or photograph.</p></div>
            <div class="stack"><label for="repeat">Repeat every (minutes, 0 for no repeat)</label><input type="number" id="repeat" name="repeat" min="0" max="720" value="\(p.repeatMinutes)"\(repeats.attributes)></div>
            <div class="stack"><label for="repeat-limit">At most this many repeats</label><input type="number" id="repeat-limit" name="repeat_limit" min="0" max="20" value="\(p.repeatLimit)"\(repeats.unfocused)>\(repeats.html)</div>
            <div class="stack"><label><input type="checkbox" name="summary" value="on"\(checked(p.morningSummary))> A morning summary of yesterday's doses not logged</label></div>
            <div class="stack"><label for="refill-days">Refill warning at this many days of supply left (0 for none)</label><input type="number" id="refill-days" name="refill_days" min="0" max="90" value="\(p.refillDays)"\(refill.attributes)>\(refill.html)</div>
            <div class="form-actions"><button type="submit" class="button">Save</button></div>
            </form>
            </section>
            <section class="card" aria-labelledby="schedule-reminders" id="schedule-reminders-card">
            <h2 id="schedule-reminders">Per schedule</h2>
            \(rowList)
            </section>
            <section class="card" aria-labelledby="photo-reminders" id="photo-reminders-card">
            <h2 id="photo-reminders">Skin photos</h2>
            <p>A reminder to photograph an area again some weeks after its newest photo, once each time it is due. Off unless you set it.</p>
            \(areaList)
            </section>
            """
        return Layout.page(title: "Reminders", section: .settings, body: body)
    }

    /// Whether reminders can show now, in words, with "Send a test reminder" while they are on.
    static func health(_ status: ReminderStatus?, csrfToken: String) -> HTML {
        let said: HTML
        switch status?.current {
        case .on(let service):
            let name = service.map { " (\($0))" } ?? ""
            said = """
                <p id="reminder-state">Reminders are on: the desktop's notification service\(name) answered.</p>
                <form method="post" action="/settings/reminders/test">\(Layout.csrfField(csrfToken))
                <button type="submit" class="button button-quiet" id="reminder-test">Send a test reminder</button></form>
                """
        case .off:
            said = """
                <p id="reminder-state" class="form-error">\(offSentence)</p>
                <p>They need a desktop session with notifications (GNOME, KDE Plasma, Xfce and most others have one); restart Cairn from there. Today's page still lists what is due.</p>
                """
        case nil:
            said =
                "<p id=\"reminder-state\">This window's server does not show reminders. 'cairn serve' started from your desktop does, and so does 'cairn remind' (installed by 'make install').</p>"
        }
        return """
            <section class="card" aria-labelledby="reminder-health-title" id="reminder-health">
            <h2 id="reminder-health-title">Do reminders show?</h2>
            \(said)
            </section>
            """
    }

    /// The one sentence for reminders that cannot show (Home, the Reminders page).
    static let offSentence = "Dose reminders are off: no desktop notification service answered when Cairn started."
}
