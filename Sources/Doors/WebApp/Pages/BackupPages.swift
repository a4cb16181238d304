import CairnApp
import CairnCore
import Encryption
import Foundation

/// `GET /settings/backup` and `POST /settings/backup` (`passphrase`, `passphrase_again`): an encrypted backup of
/// the whole vault as a download. It is written and read back whole (every digest checked) before it is sent, as
/// `cairn backup create` does; the copy in the vault folder is removed as soon as the download starts.
enum BackupPages {
    static func routes(_ backups: BackupService, csrfToken: String) -> [Route] {
        [
            route(.get, "/settings/backup") { _ in .html(render(csrfToken: csrfToken)) },
            route(.post, "/settings/backup") { r in
                let typed = r.form["passphrase"] ?? ""
                let again = r.form["passphrase_again"] ?? ""
                guard typed.count >= BackupService.minimumPassphraseLength, let passphrase = try? Passphrase(typed) else {
                    return .html(render(csrfToken: csrfToken, problem: .tooShort), status: 400)
                }
                guard let repeated = try? Passphrase(again), passphrase.matches(repeated) else {
                    return .html(render(csrfToken: csrfToken, problem: .mismatch), status: 400)
                }
                let made = try backups.createForDownload(passphrase: passphrase)
                return .download(descriptor: made.descriptor, name: made.name, type: "application/octet-stream")
            },
        ]
    }

    /// What was wrong with the form, shown under its field.
    enum Problem { case tooShort, mismatch }

    static func render(csrfToken: String, problem: Problem? = nil) -> String {
        func error(_ p: Problem, _ id: String, _ text: String) -> (html: HTML?, attributes: HTML) {
            guard problem == p else { return (nil, "") }
            return ("<p class=\"field-error\" role=\"alert\" id=\"\(id)\">\(text)</p>", " aria-invalid=\"true\" autofocus")
        }
        let short = error(.tooShort, "passphrase-error", BackupRequestError.passphraseTooShort.userMessage)
        let mismatch = error(.mismatch, "again-error", FormField.passphrasesDiffer)
        let shortError: HTML = short.html == nil ? "" : " passphrase-error"
        let mismatchError: HTML = mismatch.html == nil ? "" : " aria-describedby=\"again-error\""
        let body: HTML = """
            <div class="page-intro"><h1>Back up everything</h1>
            <p class="lead">One encrypted file with every photo and record. Cairn checks that it opens before you get it.</p></div>
            <section class="card regimen-form" aria-labelledby="backup-form-title">
            <h2 id="backup-form-title">Choose a passphrase for this backup</h2>
            <p>Anyone with the file and the passphrase can read everything in it; without the passphrase nobody can, and if you forget it, nobody can open this backup, Cairn included. Write it down somewhere safe.</p>
            <form method="post" action="/settings/backup" id="backup-form">\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="passphrase">Passphrase</label>
            <p class="help" id="passphrase-help">At least \(BackupService.minimumPassphraseLength) characters; a few words are easier to remember than symbols.</p>
            <input type="password" id="passphrase" name="passphrase" autocomplete="new-password" required minlength="\(BackupService.minimumPassphraseLength)" aria-describedby="passphrase-help\(shortError)"\(short.attributes)>\(short.html)</div>
            <div class="stack"><label for="passphrase-again">The same passphrase again</label>
            <input type="password" id="passphrase-again" name="passphrase_again" autocomplete="new-password" required\(mismatchError)\(mismatch.attributes)>\(mismatch.html)</div>
            <div class="form-actions"><button type="submit" class="button" id="backup-download">Download the backup</button>
            <a class="button button-quiet" href="/settings">Cancel</a></div>
            </form>
            <p class="help">It can take a while for many photos. To restore: <code>cairn backup restore FILE --data-dir FOLDER</code> (an empty folder). From the command line, <code>cairn backup create FOLDER --keep 5</code> keeps the last five.</p>
            </section>
            """
        return Layout.page(title: "Back up everything", section: .settings, body: body)
    }
}
