import CairnApp
import CairnCore
import Foundation
import Regimen

/// One logged dose and what can be done to it, as `regimen correct` and `regimen undo` do:
/// `GET /regimen/records/RECORD`, `POST /regimen/records/RECORD/correct` (`status`: taken or skipped, `at`: when)
/// and `POST /regimen/records/RECORD/undo` with `back=record` (Today's Undo posts there without it). A correction
/// or an undo adds a record; the one it replaces stays in the ledger.
enum RegimenRecordPage {
    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        @Sendable func entry(_ r: RouteRequest) throws -> LedgerEntry {
            guard let entry = try regimen.record(IntakeRecordID(r.parameter("record"))) else { throw WebError.notFound }
            return entry
        }
        return [
            route(.get, "/regimen/records/{record}") { r in
                let notice: String? =
                    switch r.query["saved"] {
                    case "corrected": "Corrected. The entry it replaces stays in the ledger, marked replaced."
                    case "undone": "Undone. The dose is back to not logged; the ledger keeps both entries."
                    default: nil
                    }
                return .html(page(try entry(r), regimen: regimen, csrfToken: csrfToken, notice: notice))
            },
            route(.post, "/regimen/records/{record}/correct") { r in
                let old = try entry(r)
                let statusText = r.form["status"] ?? ""
                let atText = (r.form["at"] ?? "").trimmingCharacters(in: .whitespaces)
                var statusError: String?
                var atError: String?
                let status = IntakeStatus(rawValue: statusText).flatMap { $0.isLoggable ? $0 : nil }
                if status == nil { statusError = "Choose taken or skipped." }
                var at: Date?
                if !atText.isEmpty {
                    do { at = try regimen.takenTime(atText, correcting: old) } catch let error as CairnError { atError = error.userMessage }
                }
                guard let status, statusError == nil, atError == nil else {
                    return .html(
                        page(old, regimen: regimen, csrfToken: csrfToken, typed: (statusText, atText), errors: (statusError, atError)),
                        status: 400)
                }
                do {
                    let new = try regimen.correct(old.id, status: status, at: at)
                    return .redirect(to: "/regimen/records/\(new.id.rawValue)?saved=corrected")
                } catch let error as ScheduleError where error.errorKind == .refusedInput {
                    let message = error.userMessage + " Nothing was saved."
                    let beside = [.takenInFuture, .takenOutsideDoseDay].contains(error)
                    return .html(
                        page(
                            old, regimen: regimen, csrfToken: csrfToken, typed: (statusText, atText),
                            errors: (nil, beside ? message : nil), other: beside ? nil : message),
                        status: 400)
                }
            },
        ]
    }

    /// The record in words, then (while it is the one in force and not itself an undo) the correction form and Undo.
    static func page(
        _ e: LedgerEntry, regimen: RegimenService, csrfToken: String, notice: String? = nil,
        typed: (status: String, at: String)? = nil, errors: (status: String?, at: String?) = (nil, nil), other: String? = nil
    ) -> String {
        let title = "\(e.productName), \(RegimenLedgerPage.describe(e))"
        var body =
            RegimenPages.intro(
                title,
                lead:
                    "\(RegimenLedgerPage.origin(e).prefix(1).uppercased())\(RegimenLedgerPage.origin(e).dropFirst()); \((try? regimen.amountText(of: e)) ?? RegimenPages.servings(e.servings))."
            )
            + RegimenPages.subnav("/regimen/ledger") + RegimenPages.message(notice: notice, error: other)
        if !e.isCurrent {
            body +=
                "<p class=\"notice\" id=\"record-replaced\">A later entry replaced this one: change that one instead. Both stay in the ledger.</p>"
        } else if e.isUndo {
            body +=
                "<p class=\"notice\" id=\"record-undo\">This entry undoes an earlier one. To log the dose again, use Today (or the ledger's entry of another day).</p>"
        } else {
            let status = typed?.status ?? e.status.rawValue
            let at = typed?.at ?? DateText.string(e.takenAt, .clock, in: e.timeZone)
            let statusErrors = errors.status.map { [$0] } ?? []
            let atErrors = errors.at.map { [$0] } ?? []
            let options = [IntakeStatus.taken, .skipped].map { s -> HTML in
                let checked: HTML = s.rawValue == status ? " checked" : ""
                let first: HTML = s == .taken && !statusErrors.isEmpty ? " autofocus" : ""
                return
                    "<p><input type=\"radio\" name=\"status\" id=\"record-status-\(s.rawValue)\" value=\"\(s.rawValue)\"\(checked)\(first)> <label for=\"record-status-\(s.rawValue)\">\(RegimenLedgerPage.statusWord(s).prefix(1).uppercased() + RegimenLedgerPage.statusWord(s).dropFirst())</label></p>"
            }
            let described: HTML = statusErrors.isEmpty ? "" : " aria-describedby=\"record-status-taken-error\""
            let dayNote =
                e.occurrence.map { "HH:MM on the dose's day (\($0.day.description)) or today, or YYYY-MM-DD HH:MM." } ?? "HH:MM, or YYYY-MM-DD HH:MM."
            body += """
                <form method="post" action="/regimen/records/\(e.id.rawValue)/correct" class="card regimen-form" id="record-correct" aria-labelledby="record-correct-title" novalidate>\(Layout.csrfField(csrfToken))
                <h2 id="record-correct-title">Correct it</h2>
                <p>A correction adds a new entry; this one stays in the ledger, marked replaced.</p>
                <fieldset class="stack field-group"\(described)><legend>What happened</legend>
                \(HTML.join(options, separator: "\n"))\(FormField.errors(statusErrors, "record-status-taken"))</fieldset>
                <div class="stack"><label for="record-at">When</label>
                <input type="text" id="record-at" name="at" value="\(at)"\(FormField.attributes("record-at", errors: atErrors, help: true, first: statusErrors.isEmpty))>\(FormField.errors(atErrors, "record-at"))
                <p class="help" id="record-at-help">\(dayNote) For a skipped dose, the time it was meant for is fine.</p></div>
                <div class="form-actions"><button type="submit" class="button" id="record-correct-save">Save the correction</button></div>
                </form>
                <form method="post" action="/regimen/records/\(e.id.rawValue)/undo" class="card regimen-form" id="record-undo-form" aria-labelledby="record-undo-title">\(Layout.csrfField(csrfToken))
                <input type="hidden" name="back" value="record">
                <h2 id="record-undo-title">Undo it</h2>
                <p>The dose is back to not logged, as if this entry had not been made; the ledger keeps both entries.</p>
                <div class="form-actions"><button type="submit" class="button button-quiet" id="record-undo">Undo this entry</button></div>
                </form>
                """
        }
        body += "<p><a href=\"/regimen/ledger#record-\(RegimenLedgerPage.short(e.id))\">Back to the ledger</a></p>"
        return Layout.page(title: title, section: .regimen, body: body)
    }
}
