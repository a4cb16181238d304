import CairnApp
import CairnCore
import Encryption
import Foundation
import Storage

/// The unlock page and the lock's controls (issue 21; the rules are `VaultGate`'s):
/// - `GET /unlock`, `POST /unlock` (`passphrase`, `next`): answered while the vault is locked (and, once open,
///   `GET /unlock` goes on to the page asked for);
/// - `POST /lock`: Lock now (the header's button and the one in Settings);
/// - `GET /lock/state`: `{"locked":true|false}` for the page script that looks after the idle time (it is not a use:
///   it never keeps the vault open);
/// - `POST /settings/lock/idle` (`minutes`): the idle time, on the opened vault;
/// - `POST /settings/lock/on` (`passphrase`, `passphrase_again`), `POST /settings/lock/off` (`passphrase`),
///   `POST /settings/lock/change` (`current`, `passphrase`, `passphrase_again`): the lock itself, through
///   `VaultGate.changeLock` (the rules are `LockService`'s); a refusal comes back as the Settings page with the
///   message beside its field (400, or 429 with Retry-After while wrong passphrases are slowed down);
/// - `POST /settings/lock/decline` (`next`): "Not now" to the question the pages ask once the vault holds something.
///
/// Decision (a long conversion): turning the lock on or off answers when the whole vault is converted, so the page
/// that sent the form waits for it (the browser shows it loading; with JavaScript, a line under the button follows
/// `/lock/state` and says how many photos are done). Any other request meanwhile, from another tab or a reload,
/// gets the "lock is changing" page (503, Retry-After) with the same count; no page of the vault is served and the
/// unlock page is not shown until it is done.
enum LockPages {
    /// The routes answered whether the vault is locked or not.
    static func routes(_ gate: VaultGate, csrfToken: String) -> [Route] {
        [
            route(.get, "/unlock") { r in
                if let progress = gate.changeProgress { return changing(progress) }
                guard gate.isLocked else { return .redirect(to: safeNext(r.query["next"])) }
                let wait = gate.secondsUntilNextAttempt
                return .html(unlockPage(csrfToken: csrfToken, next: r.query["next"], problem: wait > 0 ? .wait(wait) : nil))
            },
            route(.post, "/unlock") { r in
                let next = r.form["next"]
                if let progress = gate.changeProgress { return changing(progress) }
                guard gate.isLocked else { return .redirect(to: safeNext(next)) }
                guard let passphrase = try? Passphrase(r.form["passphrase"] ?? "") else {
                    return .html(unlockPage(csrfToken: csrfToken, next: next, problem: .empty), status: 400)
                }
                switch try gate.unlock(passphrase) {
                case .accepted:
                    return .redirect(to: safeNext(next))
                case .wrong(let retryAfter):
                    return .html(unlockPage(csrfToken: csrfToken, next: next, problem: .wrong(retryAfter)), status: 400)
                case .tooSoon(let retryAfter):
                    var response = Response.html(unlockPage(csrfToken: csrfToken, next: next, problem: .wait(retryAfter)), status: 429)
                    response.headers.append(("Retry-After", String(retryAfter)))
                    return response
                }
            },
            route(.post, "/lock") { _ in
                gate.lock()
                return .redirect(to: "/unlock")
            },
            route(.get, "/lock/state") { _ in
                gate.lockIfIdle()
                return .json(LockState(locked: gate.isLocked, changing: gate.changeProgress.map(progressText)))
            },
        ]
    }

    /// The routes over the opened vault.
    static func settingsRoutes(_ settings: any SettingsServicing, gate: VaultGate, csrfToken: String) -> [Route] {
        /// The Settings page again, its lock section showing `refusal` beside its field.
        @Sendable func refused(_ refusal: Refusal) throws -> Response {
            var response = Response.html(try SettingsPages.page(settings, csrfToken: csrfToken, refusal: refusal), status: refusal.status)
            if case .wait(let seconds) = refusal.problem { response.headers.append(("Retry-After", String(seconds))) }
            return response
        }
        /// Asks the gate for `change`, naming `field` (the current passphrase's) when it does not fit.
        @Sendable func change(_ change: VaultGate.LockChange, form: Refusal.Form, field: String, done: LockService.Done) throws -> Response {
            do {
                switch try gate.changeLock(change) {
                case .accepted: return .redirect(to: "/settings?lock=\(done.rawValue)#lock")
                case .wrong(let seconds): return try refused(Refusal(form, field, .wrong(seconds)))
                case .tooSoon(let seconds): return try refused(Refusal(form, field, .wait(seconds)))
                }
            } catch LockService.Problem.passphraseTooShort {
                return try refused(Refusal(form, "\(form.rawValue)-new", .text(LockService.Problem.passphraseTooShort.userMessage)))
            } catch let error as CairnError where error.errorKind == .refusedInput {
                return try refused(Refusal(form, nil, .text(error.userMessage)))
            }
        }
        return [
            route(.post, "/settings/lock/idle") { r in
                guard gate.hasLock, let minutes = r.form["minutes"].flatMap(Int.init), LockService.idleChoices.contains(minutes) else {
                    throw WebError.badForm
                }
                try settings.setIdleLockMinutes(minutes)
                gate.setIdleMinutes(minutes)
                return .redirect(to: "/settings?saved=1#lock")
            },
            route(.post, "/settings/lock/on") { r in
                switch newPassphrase(r.form, form: .on) {
                case .failure(let refusal): return try refused(refusal)
                case .success(let new): return try change(.turnOn(new), form: .on, field: "on-new", done: .turnedOn)
                }
            },
            route(.post, "/settings/lock/off") { r in
                guard let current = try? Passphrase(r.form["passphrase"] ?? "") else {
                    return try refused(Refusal(.off, "off-current", .empty))
                }
                return try change(.turnOff(current), form: .off, field: "off-current", done: .turnedOff)
            },
            route(.post, "/settings/lock/change") { r in
                guard let current = try? Passphrase(r.form["current"] ?? "") else {
                    return try refused(Refusal(.change, "change-current", .empty))
                }
                switch newPassphrase(r.form, form: .change) {
                case .failure(let refusal): return try refused(refusal)
                case .success(let new): return try change(.change(from: current, to: new), form: .change, field: "change-current", done: .changed)
                }
            },
            route(.post, "/settings/lock/decline") { r in
                try settings.declineLock()
                return .redirect(to: safeNext(r.form["next"]))
            },
        ]
    }

    /// A refused lock form: which one, the field the message sits beside (nil: above the form's button), and what.
    struct Refusal: Error {
        enum Form: String { case on, off, change }
        let form: Form
        let field: String?
        let problem: Problem
        init(_ form: Form, _ field: String?, _ problem: Problem) { (self.form, self.field, self.problem) = (form, field, problem) }
        var status: Int { if case .wait = problem { return 429 } else { return 400 } }
    }

    /// The new passphrase typed twice in `form` (`passphrase`, `passphrase_again`): refused when empty, shorter than
    /// `LockService`'s rule, or not the same twice.
    static func newPassphrase(_ fields: [String: String], form: Refusal.Form) -> Result<Passphrase, Refusal> {
        let tooShort = Refusal(form, "\(form.rawValue)-new", .text(LockService.Problem.passphraseTooShort.userMessage))
        guard let new = try? Passphrase(fields["passphrase"] ?? "") else { return .failure(tooShort) }
        do { try LockService.checkNew(new) } catch { return .failure(tooShort) }
        guard let again = try? Passphrase(fields["passphrase_again"] ?? ""), new.matches(again) else {
            return .failure(Refusal(form, "\(form.rawValue)-again", .text(FormField.passphrasesDiffer)))
        }
        return .success(new)
    }

    /// The answer to any other request while the vault is locked: to the unlock page, which comes back to a page
    /// asked for by GET afterwards. Nothing of the vault is in it (nothing of it is open).
    static func redirectToUnlock(from request: Request) -> Response {
        guard request.method == .get || request.method == .head, request.path != "/" else { return .redirect(to: "/unlock") }
        let next = request.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-_.~"))) ?? "/"
        return .redirect(to: "/unlock?next=\(next)")
    }

    /// `next` when it is a path on this server (`/…`, not `//host`), else `/`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
            !next.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return "/" }
        return next.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "/"
    }

    /// What is said beside the passphrase field.
    enum Problem: Equatable {
        case empty
        /// Any other refusal, said as it is.
        case text(String)
        /// A wrong passphrase; the next attempt may come after these seconds.
        case wrong(Int)
        /// Too soon: wait these seconds.
        case wait(Int)
    }

    /// "8 seconds", "1 minute", "5 minutes" (rounded up to whole minutes from a minute on).
    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        let minutes = (seconds + 59) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }

    static func message(_ problem: Problem) -> String {
        switch problem {
        case .empty: return "Type the vault's passphrase."
        case .text(let text): return text
        case .wrong(let seconds):
            return "That passphrase does not unlock this vault. You can try again in \(duration(seconds))."
        case .wait(let seconds):
            return "Please wait \(duration(seconds)) before the next try. Each passphrase that does not fit makes the wait a little longer."
        }
    }

    static func unlockPage(csrfToken: String, next: String?, problem: Problem? = nil) -> String {
        let error = problem.map { FormField.errors([message($0)], "passphrase") }
        let attributes = FormField.attributes("passphrase", errors: problem == nil ? [] : ["x"], help: true, first: true)
        let nextField = next.map { next -> HTML in "<input type=\"hidden\" name=\"next\" value=\"\(safeNext(next))\">" }
        let autofocus: HTML = problem == nil ? " autofocus" : ""
        let body: HTML = """
            <div class="page-intro"><h1>Cairn is locked</h1>
            <p class="lead">Type the vault's passphrase to open your journals.</p></div>
            <section class="card unlock" aria-labelledby="unlock-title">
            <h2 id="unlock-title" class="visually-hidden">Unlock</h2>
            <form method="post" action="/unlock" id="unlock-form">\(Layout.csrfField(csrfToken))\(nextField)
            <div class="stack"><label for="passphrase">Vault passphrase</label>
            <p class="help" id="passphrase-help">The passphrase you chose when you turned the lock on.</p>
            <input type="password" id="passphrase" name="passphrase" autocomplete="current-password" required\(autofocus)\(attributes)>\(error)</div>
            <div class="form-actions"><button type="submit" class="button" id="unlock">Unlock</button></div>
            </form>
            <p class="help">If the passphrase is forgotten, the data cannot be recovered: nobody can open the vault without it, Cairn neither.</p>
            </section>
            """
        return Layout.page(title: "Cairn is locked", section: .none, body: body, chrome: false)
    }

    /// The Lock section of Settings. With the lock off (never set, "Not now", turned off): why, the warning and the
    /// form that turns it on. With it on: the idle time, Lock now, and (folded) changing the passphrase and turning
    /// the lock off. `refusal` is shown beside its field, its form unfolded.
    static func settingsSection(setting: LockSetting, idleMinutes: Int, csrfToken: String, refusal: Refusal? = nil) -> HTML {
        let csrf = Layout.csrfField(csrfToken)
        /// A password field of form `form`: its label, help, and the refusal's message when it is about this field.
        func field(_ id: String, name: String, label: String, help: String? = nil, new: Bool) -> HTML {
            let refused = refusal?.field == id ? [message(refusal!.problem)] : []
            let first = refusal?.field == id
            let helpHTML = help.map { help -> HTML in "<p class=\"help\" id=\"\(id)-help\">\(help)</p>" }
            let complete = new ? "new-password" : "current-password"
            let length: HTML = new ? " minlength=\"\(LockService.minimumPassphraseLength)\"" : ""
            return """
                <div class="stack"><label for="\(id)">\(label)</label>\(helpHTML)
                <input type="password" id="\(id)" name="\(name)" autocomplete="\(complete)" required\(length)\(FormField.attributes(id, errors: refused, help: help != nil, first: first))>\(FormField.errors(refused, id))</div>
                """
        }
        /// The refusal that belongs to no field, above the button of form `form`.
        func general(_ form: Refusal.Form) -> HTML {
            guard let refusal, refusal.form == form, refusal.field == nil else { return "" }
            return "<p class=\"form-error\" role=\"alert\" id=\"lock-\(form.rawValue)-error\">\(message(refusal.problem))</p>"
        }
        /// A refusal of a form this state does not show (a page left open from before the change), on top.
        func stray(_ shown: [Refusal.Form]) -> HTML {
            guard let refusal, !shown.contains(refusal.form) else { return "" }
            return "<p class=\"form-error\" role=\"alert\" id=\"lock-error\">\(message(refusal.problem))</p>"
        }
        let newHelp = "At least \(LockService.minimumPassphraseLength) characters; a few words are easier to remember than symbols."
        let progress = { (verb: String) -> HTML in
            "<p class=\"help lock-progress\" id=\"lock-progress\" role=\"status\">\(verb) takes a moment for each photo: keep this page open until Settings shows again.</p>"
        }
        guard setting == .on else {
            let state: String
            switch setting {
            case .turnedOff: state = "The lock was turned off: this vault opens without a passphrase and its files are not encrypted."
            case .declined:
                state =
                    "This vault has no passphrase: you said Not now when Cairn asked, and it will not ask again. You can turn the lock on here at any time."
            default: state = "This vault has no passphrase: anyone at this computer with Cairn open can read it, and its files are not encrypted."
            }
            return """
                <section class="card setting" aria-labelledby="lock-title" id="lock">
                <h2 id="lock-title">Lock</h2>
                <p id="lock-state">\(state)</p>\(stray([.on]))
                <p>\(LockService.why)</p>
                <p class="consequence" id="lock-warning">\(LockService.warning)</p>
                <form method="post" action="/settings/lock/on" class="lock-form" data-lock-change>\(csrf)
                \(field("on-new", name: "passphrase", label: "New vault passphrase", help: newHelp, new: true))
                \(field("on-again", name: "passphrase_again", label: "The same passphrase again", new: true))
                \(general(.on))<div class="form-actions"><button type="submit" class="button" id="lock-on">Turn the lock on</button></div>
                \(progress("Encrypting"))
                </form>
                </section>
                """
        }
        let options = LockService.idleChoices.map { minutes -> HTML in
            let selected: HTML = minutes == idleMinutes ? " selected" : ""
            return "<option value=\"\(minutes)\"\(selected)>\(duration(minutes * 60))</option>"
        }
        let open = { (form: Refusal.Form) -> HTML in refusal?.form == form ? " open" : "" }
        return """
            <section class="card setting" aria-labelledby="lock-title" id="lock">
            <h2 id="lock-title">Lock</h2>
            <p id="lock-state">This vault has a passphrase: its database and photos are encrypted on this computer. Cairn locks it again when you press Lock now, when it has not been used for the time below, and when Cairn stops. While its window is in the background, Cairn covers the page; coming back uncovers it, no passphrase needed.</p>\(stray([.off, .change]))
            <form method="post" action="/settings/lock/idle" class="setting-row">\(csrf)\
            <label for="idle-minutes">Lock after this long without use</label>\
            <span class="inline-setting-row"><select id="idle-minutes" name="minutes">\(options)</select>\
            <button type="submit" class="button button-quiet" id="idle-save">Save</button></span>\
            </form>
            <form method="post" action="/lock" class="setting-row">\(csrf)\
            <p class="setting-state">Locking closes the vault until the passphrase is typed again.</p>\
            <button type="submit" class="button button-quiet" id="settings-lock-now">Lock now</button></form>
            <details class="setting-row lock-more" id="lock-change"\(open(.change))><summary>Change the passphrase</summary>
            <form method="post" action="/settings/lock/change" class="lock-form">\(csrf)
            \(field("change-current", name: "current", label: "Current passphrase", new: false))
            \(field("change-new", name: "passphrase", label: "New vault passphrase", help: newHelp + " " + LockService.forgotten, new: true))
            \(field("change-again", name: "passphrase_again", label: "The same passphrase again", new: true))
            \(general(.change))<div class="form-actions"><button type="submit" class="button button-quiet" id="lock-change-save">Change the passphrase</button></div>
            <p class="help">Only the passphrase changes: the data stays encrypted under the same key, nothing is rewritten.</p>
            </form>
            </details>
            <details class="setting-row lock-more" id="lock-off"\(open(.off))><summary>Turn the lock off</summary>
            <form method="post" action="/settings/lock/off" class="lock-form" data-lock-change>\(csrf)
            <p>The database and every photo are decrypted in place; the vault then opens without a passphrase, and anyone at this computer with Cairn open can read it.</p>
            \(field("off-current", name: "passphrase", label: "Vault passphrase", new: false))
            \(general(.off))<div class="form-actions"><button type="submit" class="button button-quiet" id="lock-off-save">Turn the lock off</button></div>
            \(progress("Decrypting"))
            </form>
            </details>
            </section>
            """
    }

    /// How far a lock change is, the same on the "changing" page and in `/lock/state`.
    static func progressText(_ progress: VaultGate.ChangeProgress) -> String {
        let photos = progress.photos == 1 ? "1 photo" : "\(progress.photos) photos"
        return progress.turningOn
            ? "Encrypting the database and photos in place: \(photos) done so far."
            : "Decrypting the database and photos in place: \(photos) done so far."
    }

    /// What every page answers while the lock changes (503: nothing of the vault is open meanwhile).
    static func changing(_ progress: VaultGate.ChangeProgress) -> Response {
        let title = progress.turningOn ? "Cairn is turning the lock on" : "Cairn is turning the lock off"
        let body: HTML = """
            <div class="page-intro"><h1>\(title)</h1>
            <p class="lead" id="lock-changing" role="status">\(progressText(progress))</p>
            <p>Each file is rewritten on its own and checked: if Cairn stops now, nothing is lost, though the change may have to be made again. Reload this page to see how far it is; your journals show again once it is done.</p>
            <p class="card-action"><a class="button button-quiet" href="/settings#lock">Reload</a></p></div>
            """
        var response = Response.html(Layout.page(title: title, section: .none, body: body, chrome: false), status: 503)
        response.headers.append(("Retry-After", "2"))
        return response
    }

    /// The question the pages ask once the vault holds a photo or a record and the lock was never set: a card on
    /// top of the page (never in the way of a save), with "Not now" remembered.
    static func prompt(_ prompt: Layout.LockPrompt) -> HTML {
        """
        <section class="card lock-prompt" aria-labelledby="lock-prompt-title" id="lock-prompt">
        <h2 id="lock-prompt-title">Protect your journals with a passphrase?</h2>
        <p>\(LockService.why)</p>
        <div class="card-action"><a class="button" href="/settings#lock" id="lock-prompt-choose">Choose a passphrase…</a>\
        <form method="post" action="/settings/lock/decline" class="lock-decline">\(Layout.csrfField(prompt.csrfToken))\
        <input type="hidden" name="next" value="\(safeNext(prompt.path))">\
        <button type="submit" class="button button-quiet" id="lock-prompt-decline">Not now</button></form></div>
        <p class="help">Not now is remembered: Cairn will not ask again. Settings can turn the lock on at any time.</p>
        </section>
        """
    }
}

/// What `/lock/state` answers: whether the vault is locked, and while the lock changes, how far it got.
struct LockState: Encodable {
    let locked: Bool
    let changing: String?
}
