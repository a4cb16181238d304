import CairnApp
import Foundation

/// Settings: the comparison-details preference and "Delete all data" behind a typed confirmation.
enum SettingsPages {
    /// The flag that shows the details behind each comparison figure.
    /// The word the person types to confirm deleting everything.
    static let confirmationWord = "DELETE"
    /// The consequence, named exactly on the confirmation page: everything it removes, then what it keeps.
    static var deleteConsequence: HTML {
        let removes = SettingsService.whatDeleteAllRemoves.map { item -> HTML in "<li>\(item)</li>" }
        return
            "<p class=\"consequence\"><strong>This removes, from this computer, and cannot be undone:</strong></p>\n<ul class=\"consequence-list\">\(removes)</ul>\n<p>\(SettingsService.whatDeleteAllKeeps)</p>"
    }

    /// `GET /settings`, `POST /settings/comparison-details` (`value`: on or off), `GET|POST /settings/delete`
    /// (the POST needs the confirmation word typed).
    static func routes(_ settings: any SettingsServicing, labels: LabelDatabaseService? = nil, csrfToken: String) -> [Route] {
        [
            route(.get, "/settings") { r in
                let notice = r.query["saved"] == "1" ? "Saved." : r.query["lock"].flatMap(LockService.Done.init(rawValue:))?.message
                return .html(try page(settings, csrfToken: csrfToken, notice: notice, labels: labels.map(LabelDatabasePages.settingsSection) ?? ""))
            },
            route(.post, "/settings/comparison-details") { r in
                let value: Bool
                switch r.form["value"] {
                case "on": value = true
                case "off": value = false
                default: throw WebError.badForm
                }
                try settings.setFlag(SettingFlag.showComparisonDetails, value)
                return .redirect(to: "/settings?saved=1")
            },
            route(.get, "/settings/delete") { _ in .html(confirmDelete(csrfToken: csrfToken)) },
            route(.post, "/settings/delete") { r in
                // The word in any case ("delete" is as deliberate as "DELETE"); anything else is refused.
                guard r.form["confirm"]?.trimmingCharacters(in: .whitespaces).uppercased() == confirmationWord else {
                    return .html(confirmDelete(csrfToken: csrfToken, mistyped: true), status: 400)
                }
                try settings.deleteAllData()
                return .html(deleted())
            },
        ]
    }

    /// The Settings page of the vault `settings` serves, its lock section showing `refusal` (a lock form sent back).
    static func page(
        _ settings: any SettingsServicing, csrfToken: String, notice: String? = nil,
        refusal: LockPages.Refusal? = nil, labels: HTML = ""
    ) throws -> String {
        let lock = LockPages.settingsSection(
            setting: try settings.lockSetting(), idleMinutes: try settings.idleLockMinutes(),
            csrfToken: csrfToken, refusal: refusal)
        return render(
            showComparisonDetails: try settings.flag(SettingFlag.showComparisonDetails), csrfToken: csrfToken, notice: notice, lock: lock,
            labels: labels)
    }

    static func render(showComparisonDetails: Bool, csrfToken: String, notice: String? = nil, lock: HTML = "", labels: HTML = "") -> String {
        let state = showComparisonDetails ? "On" : "Off"
        let nextValue = showComparisonDetails ? "off" : "on"
        let buttonLabel = showComparisonDetails ? "Turn off" : "Turn on"
        let noticeHTML: HTML = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" } ?? ""
        let body: HTML = """
            <div class="page-intro"><h1>Settings</h1></div>
            \(noticeHTML)
            <section class="card setting" aria-labelledby="comparison-title">
            <h2 id="comparison-title">Show comparison details</h2>
            <p>Under each comparison of two photos, also show how it was worked out: the alignment used and the figures behind it.</p>
            <form method="post" action="/settings/comparison-details" class="setting-row">\(Layout.csrfField(csrfToken))\
            <input type="hidden" name="value" value="\(nextValue)">\
            <p class="setting-state">Currently: <strong id="comparison-state">\(state)</strong></p>\
            <button type="submit" class="button button-quiet" id="comparison-toggle">\(buttonLabel)</button>\
            </form>
            </section>
            \(lock)
            <section class="card setting" aria-labelledby="reminders-title">
            <h2 id="reminders-title">Reminders</h2>
            <p>Quiet hours, names in notifications, repeats, the morning summary, refill warnings and skin photo reminders.</p>
            <p class="card-action"><a class="button button-quiet" href="/settings/reminders" id="settings-reminders">Reminder settings</a></p>
            </section>
            \(labels)
            <section class="card setting" aria-labelledby="phone-title">
            <h2 id="phone-title">Use your phone</h2>
            <p>Take photos and log doses from your phone over your home network, for a short session you open here and end any time.</p>
            <p class="card-action"><a class="button button-quiet" href="/phone" id="settings-phone">Use your phone…</a></p>
            </section>
            <section class="card setting" aria-labelledby="backup-title">
            <h2 id="backup-title">Backups and privacy</h2>
            <p>Everything stays in one folder on this computer, readable by your account only. Nothing leaves it unless you save an export, a report or a backup yourself.</p>
            <p>With the lock on, the database and every photo are encrypted on this computer. Backups are encrypted too, with a passphrase you choose; if you forget it, nobody can open that backup.</p>
            <p>PRIVACY.md, beside Cairn's README, says what is stored, where, and how to delete it.</p>
            <p class="card-action"><a class="button button-quiet" href="/settings/backup" id="settings-backup">Back up everything…</a></p>
            </section>
            <section class="card setting" aria-labelledby="fhir-export-title">
            <h2 id="fhir-export-title">Export for a clinician (FHIR)</h2>
            <p>Your products, doses and outcome values as one FHIR file, the format a clinic's system reads. Saved where you choose; no photos.</p>
            <p class="card-action"><a class="button button-quiet" href="/settings/export/fhir" id="settings-fhir">Export as FHIR…</a></p>
            </section>
            <section class="card setting danger-zone" aria-labelledby="delete-title">
            <h2 id="delete-title">Delete all data</h2>
            <p>Remove everything Cairn keeps on this computer. The next page lists exactly what goes, and asks you to confirm.</p>
            <p class="card-action"><a class="button button-quiet" href="/settings/delete" id="delete-start">Delete all data…</a></p>
            </section>
            """
        return Layout.page(title: "Settings", section: .settings, body: body)
    }

    static func confirmDelete(csrfToken: String, mistyped: Bool = false) -> String {
        let error: HTML =
            mistyped
            ? "<p class=\"field-error\" role=\"alert\" id=\"confirm-error\">Type the word DELETE to confirm.</p>" : ""
        let describedBy = mistyped ? "confirm-help confirm-error" : "confirm-help"
        let invalid: HTML = mistyped ? " aria-invalid=\"true\" autofocus" : ""
        let body: HTML = """
            <section class="card confirm" aria-labelledby="confirm-title">
            <h1 id="confirm-title">Delete all data?</h1>
            \(deleteConsequence)
            <form method="post" action="/settings/delete" class="stack">\(Layout.csrfField(csrfToken))
            <label for="confirm">Type <span class="kbd">\(confirmationWord)</span> to confirm</label>
            <p class="help" id="confirm-help">This is to make sure nothing is deleted by accident.</p>
            <input type="text" id="confirm" name="confirm" autocomplete="off" autocapitalize="characters" spellcheck="false" required aria-describedby="\(describedBy)"\(invalid)>
            \(error)
            <div class="form-actions">
            <button type="submit" class="button button-danger" id="delete-confirm">Delete all data</button>
            <a class="button button-quiet" href="/settings">Cancel</a>
            </div>
            </form>
            </section>
            """
        return Layout.page(title: "Delete all data?", section: .settings, body: body)
    }

    static func deleted() -> String {
        let body: HTML = """
            <section class="card confirm" aria-labelledby="deleted-title">
            <h1 id="deleted-title">All data deleted</h1>
            <p role="status">Everything Cairn kept in this vault has been removed: photos, records, imported Health data, insights, settings and the database's journal and temporary files. The vault is empty.</p>
            <p class="card-action"><a class="button" href="/">Back to your journals</a></p>
            </section>
            """
        return Layout.page(title: "All data deleted", section: .settings, body: body)
    }

    static func error(_ error: WebError) -> String {
        let body: HTML = """
            <section class="card" aria-labelledby="error-title">
            <h1 id="error-title">\(error.title)</h1>
            <p>\(error.userMessage)</p>
            <p class="card-action"><a class="button button-quiet" href="/">Back to your journals</a></p>
            </section>
            """
        return Layout.page(title: error.title, section: .none, body: body)
    }
}
