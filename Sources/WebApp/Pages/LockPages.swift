import CairnApp
import CairnCore
import Encryption
import Foundation

/// The unlock page and the lock's controls (issue 21; the rules are `VaultGate`'s):
/// - `GET /unlock`, `POST /unlock` (`passphrase`, `next`): answered while the vault is locked (and, once open,
///   `GET /unlock` goes on to the page asked for);
/// - `POST /lock`: Lock now (the header's button and the one in Settings);
/// - `GET /lock/state`: `{"locked":true|false}` for the page script that looks after the idle time (it is not a use:
///   it never keeps the vault open);
/// - `POST /settings/lock/idle` (`minutes`): the idle time, on the opened vault.
enum LockPages {
    /// The routes answered whether the vault is locked or not.
    static func routes(_ gate: VaultGate, csrfToken: String) -> [Route] {
        [
            route(.get, "/unlock") { r in
                guard gate.isLocked else { return .redirect(to: safeNext(r.query["next"])) }
                let wait = gate.secondsUntilNextAttempt
                return .html(unlockPage(csrfToken: csrfToken, next: r.query["next"], problem: wait > 0 ? .wait(wait) : nil))
            },
            route(.post, "/unlock") { r in
                let next = r.form["next"]
                guard gate.isLocked else { return .redirect(to: safeNext(next)) }
                guard let passphrase = try? Passphrase(r.form["passphrase"] ?? "") else {
                    return .html(unlockPage(csrfToken: csrfToken, next: next, problem: .empty), status: 400)
                }
                switch try gate.unlock(passphrase) {
                case .unlocked:
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
                return Response(status: 200, headers: [("Content-Type", "application/json")],
                         body: Data("{\"locked\":\(gate.isLocked)}".utf8))
            },
        ]
    }

    /// The routes over the opened vault.
    static func settingsRoutes(_ settings: any SettingsServicing, gate: VaultGate, csrfToken: String) -> [Route] {
        [
            route(.post, "/settings/lock/idle") { r in
                guard gate.hasLock, let minutes = r.form["minutes"].flatMap(Int.init), LockService.idleChoices.contains(minutes) else {
                    throw WebError.badForm
                }
                try settings.setIdleLockMinutes(minutes)
                gate.setIdleMinutes(minutes)
                return .redirect(to: "/settings?saved=1#lock")
            },
        ]
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
              !next.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return "/" }
        return next.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "/"
    }

    /// What is said beside the passphrase field.
    enum Problem: Equatable {
        case empty
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
        case .wrong(let seconds):
            return "That passphrase does not unlock this vault. You can try again in \(duration(seconds))."
        case .wait(let seconds):
            return "Please wait \(duration(seconds)) before the next try. Each passphrase that does not fit makes the wait a little longer."
        }
    }

    static func unlockPage(csrfToken: String, next: String?, problem: Problem? = nil) -> String {
        let error = problem.map { FormField.errors([message($0)], "passphrase") } ?? ""
        let attributes = FormField.attributes("passphrase", errors: problem == nil ? [] : ["x"], help: true, first: true)
        let nextField = next.map { "<input type=\"hidden\" name=\"next\" value=\"\(HTML.escape(safeNext($0)))\">" } ?? ""
        let body = """
        <div class="page-intro"><h1>Cairn is locked</h1>
        <p class="lead">Type the vault's passphrase to open your journals.</p></div>
        <section class="card unlock" aria-labelledby="unlock-title">
        <h2 id="unlock-title" class="visually-hidden">Unlock</h2>
        <form method="post" action="/unlock" id="unlock-form">\(Layout.csrfField(csrfToken))\(nextField)
        <div class="stack"><label for="passphrase">Vault passphrase</label>
        <p class="help" id="passphrase-help">The passphrase you chose when you turned the lock on.</p>
        <input type="password" id="passphrase" name="passphrase" autocomplete="current-password" required\(problem == nil ? " autofocus" : "")\(attributes)>\(error)</div>
        <div class="form-actions"><button type="submit" class="button" id="unlock">Unlock</button></div>
        </form>
        <p class="help">If the passphrase is forgotten, the data cannot be recovered: nobody can open the vault without it, Cairn neither.</p>
        </section>
        """
        return Layout.page(title: "Cairn is locked", section: .none, body: body, chrome: false)
    }

    /// The Lock section of Settings: the idle time and Lock now with a lock, how to set one without.
    static func settingsSection(idleMinutes: Int?, csrfToken: String) -> String {
        guard let idleMinutes else {
            return """
            <section class="card setting" aria-labelledby="lock-title" id="lock">
            <h2 id="lock-title">Lock</h2>
            <p>This vault has no passphrase: anyone at this computer with Cairn open can read it. To choose one, stop Cairn and run <code>cairn settings lock on</code>; from then on Cairn opens on a page that asks for it.</p>
            </section>
            """
        }
        let options = LockService.idleChoices.map { minutes in
            "<option value=\"\(minutes)\"\(minutes == idleMinutes ? " selected" : "")>\(duration(minutes * 60))</option>"
        }.joined()
        return """
        <section class="card setting" aria-labelledby="lock-title" id="lock">
        <h2 id="lock-title">Lock</h2>
        <p>This vault has a passphrase. Cairn locks it again when you press Lock now, when it has not been used for the time below, and when Cairn stops. While its window is in the background, Cairn covers the page; coming back uncovers it, no passphrase needed.</p>
        <form method="post" action="/settings/lock/idle" class="setting-row">\(Layout.csrfField(csrfToken))\
        <label for="idle-minutes">Lock after this long without use</label>\
        <span class="inline-setting-row"><select id="idle-minutes" name="minutes">\(options)</select>\
        <button type="submit" class="button button-quiet" id="idle-save">Save</button></span>\
        </form>
        <form method="post" action="/lock" class="setting-row">\(Layout.csrfField(csrfToken))\
        <p class="setting-state">Locking closes the vault until the passphrase is typed again.</p>\
        <button type="submit" class="button button-quiet" id="settings-lock-now">Lock now</button></form>
        </section>
        """
    }
}
