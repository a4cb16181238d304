import CairnApp
import CairnCore
import Foundation
import Regimen

/// `GET /settings/reminders` and `POST /settings/reminders` (preferences from today on),
/// `POST /settings/reminders/schedules/{schedule}` (`enabled`: on or off): reminder preferences, effective-dated
/// like plans (a change is a new revision from today; earlier days keep theirs).
enum ReminderSettingsPage {
    static func routes(_ reminders: ReminderService, regimen: RegimenService, csrfToken: String) -> [Route] {
        [
            route(.get, "/settings/reminders") { r in
                .html(try render(reminders, regimen: regimen, csrfToken: csrfToken, notice: r.query["saved"] == "1" ? "Saved. In force from today." : nil))
            },
            route(.post, "/settings/reminders") { r in
                let f = r.form
                do {
                    let quietText = [f["quiet_start"] ?? "", f["quiet_end"] ?? ""].allSatisfy(\.isEmpty)
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
                    return .html(try render(reminders, regimen: regimen, csrfToken: csrfToken, error: error), status: 400)
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
        ]
    }

    static func render(_ reminders: ReminderService, regimen: RegimenService, csrfToken: String, notice: String? = nil,
                       error: ReminderError? = nil) throws -> String {
        let p = try reminders.preferences()
        let off = try reminders.remindersOff()
        let schedules = try regimen.schedules().filter { $0.latest.state != .stopped && $0.latest.plan.recurrence != .asNeeded }
        func checked(_ on: Bool) -> String { on ? " checked" : "" }
        let errorHTML = error.map { "<p class=\"form-error\" role=\"alert\" id=\"reminders-error\">\(HTML.escape($0.userMessage))</p>" } ?? ""
        let describedBy = error == nil ? "" : " aria-describedby=\"reminders-error\""
        let rows = schedules.map { s -> String in
            let isOff = off.contains(s.scheduleID)
            let times = s.latest.plan.times.map(\.description).joined(separator: ", ")
            return """
            <li class="setting-row"><span>\(HTML.escape(s.productName)), \(HTML.escape(times)): reminders \(isOff ? "off" : "on")</span>
            <form method="post" action="/settings/reminders/schedules/\(HTML.escape(s.scheduleID.rawValue))">\(Layout.csrfField(csrfToken))
            <input type="hidden" name="enabled" value="\(isOff ? "on" : "off")">
            <button type="submit" class="button button-quiet">\(isOff ? "Turn on" : "Turn off")<span class="visually-hidden"> reminders of \(HTML.escape(s.productName))</span></button>
            </form></li>
            """
        }.joined(separator: "\n")
        let body = """
        <div class="page-intro"><h1>Reminders</h1>
        <p class="lead">Desktop notifications for due doses, while 'cairn serve' or 'cairn remind' runs. Changes apply from today; earlier days keep what was set then.</p></div>
        \(notice.map { "<p class=\"notice\" role=\"status\">\(HTML.escape($0))</p>" } ?? "")
        <section class="card regimen-form" aria-labelledby="reminder-prefs-title">
        <h2 id="reminder-prefs-title">How reminders behave</h2>
        \(errorHTML)
        <form method="post" action="/settings/reminders" id="reminder-preferences">\(Layout.csrfField(csrfToken))
        <fieldset><legend>Quiet hours (leave both empty for none)</legend>
        <div class="stack"><label for="quiet-start">From</label><input type="time" id="quiet-start" name="quiet_start" value="\(p.quietStart.map(\.description) ?? "")"\(describedBy)></div>
        <div class="stack"><label for="quiet-end">Until</label><input type="time" id="quiet-end" name="quiet_end" value="\(p.quietEnd.map(\.description) ?? "")"\(describedBy)></div>
        </fieldset>
        <div class="stack"><label><input type="checkbox" name="names" value="on"\(checked(p.showProductNames))> Name the products in notifications</label>
        <p class="hint">Off, a notification only says "A dose is due at 08:00", so nobody glancing at the screen learns what you take.</p></div>
        <div class="stack"><label for="repeat">Repeat every (minutes, 0 for no repeat)</label><input type="number" id="repeat" name="repeat" min="0" max="720" value="\(p.repeatMinutes)"></div>
        <div class="stack"><label for="repeat-limit">At most this many repeats</label><input type="number" id="repeat-limit" name="repeat_limit" min="0" max="20" value="\(p.repeatLimit)"></div>
        <div class="stack"><label><input type="checkbox" name="summary" value="on"\(checked(p.morningSummary))> A morning summary of yesterday's doses not logged</label></div>
        <div class="stack"><label for="refill-days">Refill warning at this many days of supply left (0 for none)</label><input type="number" id="refill-days" name="refill_days" min="0" max="90" value="\(p.refillDays)"></div>
        <div class="form-actions"><button type="submit" class="button">Save</button></div>
        </form>
        </section>
        <section class="card" aria-labelledby="schedule-reminders" id="schedule-reminders-card">
        <h2 id="schedule-reminders">Per schedule</h2>
        \(rows.isEmpty ? "<p>No schedules with set times yet.</p>" : "<ul class=\"setting-list\">\(rows)</ul>")
        </section>
        """
        return Layout.page(title: "Reminders", section: .settings, body: body)
    }
}
