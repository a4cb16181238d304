import CairnCore

/// The shared page frame: header with the mark and navigation, main, footer with the privacy sentence.
enum Layout {
    /// A section of the site, used to mark the current navigation link.
    enum Section: String, CaseIterable {
        case home, skin, smile, regimen, settings, none

        var label: String {
            switch self {
            case .home: return "Home"
            case .skin: return "Skin"
            case .smile: return "Smile"
            case .regimen: return "Regimen"
            case .settings: return "Settings"
            case .none: return ""
            }
        }

        var path: String {
            switch self {
            case .home: return "/"
            case .none: return "/"
            default: return "/\(rawValue)"
            }
        }
    }

    /// The mark: four balanced stones, slightly rotated and offset, with a teal capstone. Decorative here
    /// (the word "Cairn" beside it is the accessible name).
    static let mark: HTML = """
        <svg class="mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">\
        <ellipse cx="16" cy="26.6" rx="12" ry="4.4" transform="rotate(-4 16 26.6)" fill="#6F685E"/>\
        <ellipse cx="15.3" cy="19.3" rx="8.8" ry="3.6" transform="rotate(6 15.3 19.3)" fill="#8C857A"/>\
        <ellipse cx="16.8" cy="13" rx="6.4" ry="3" transform="rotate(-7 16.8 13)" fill="#A8A195"/>\
        <ellipse cx="15.8" cy="7.4" rx="4.4" ry="2.9" transform="rotate(9 15.8 7.4)" fill="#1F6F6B"/>\
        </svg>
        """

    /// What the page frame shows of a vault with a lock: "Lock now" in the header, and the idle time the page's
    /// script waits for before it asks whether the vault is still open.
    struct LockChrome: Sendable {
        let csrfToken: String
        let idleSeconds: Int
    }

    /// Set by `WebApplication` while it answers a request of a vault with a lock (nil: no lock, nothing shown).
    @TaskLocal static var lockChrome: LockChrome?

    /// The question "Protect your journals with a passphrase?" (`LockPages.prompt`), asked on top of every page with
    /// the frame but Settings (which has the lock's own section) while `ask()` says so; `path` is where "Not now"
    /// comes back to.
    struct LockPrompt: Sendable {
        let csrfToken: String
        let path: String
        let ask: @Sendable () -> Bool
    }

    /// Set by `WebApplication` while it answers a request of a vault whose lock is off (nil: nothing asked).
    @TaskLocal static var lockPrompt: LockPrompt?

    /// While a phone session is open, every page says so, with how to end it (DESIGN.md), and its footer names the
    /// phone: the words and the CSRF token of the "End now" form. Set by `WebApplication.handle`.
    struct PhoneNotice: Sendable {
        let text: HTML
        let footer: HTML
        let csrfToken: String
    }
    @TaskLocal static var phoneNotice: PhoneNotice?

    /// The banner of an open phone session.
    static func phoneBanner(_ notice: PhoneNotice) -> HTML {
        """
        <div class="notice phone-banner" role="status"><span>\(notice.text)</span> \
        <form method="post" action="/phone/end">\(csrfField(notice.csrfToken))\
        <button type="submit" class="button button-quiet">End now</button></form></div>
        """
    }

    /// The header's "Lock now": a form, so it works without JavaScript.
    static func lockNowForm(_ chrome: LockChrome) -> HTML {
        """
        <form method="post" action="/lock" class="lock-now">\(csrfField(chrome.csrfToken))\
        <button type="submit" class="button button-quiet" id="lock-now">Lock now</button></form>
        """
    }

    /// A complete page around `body`, as the bytes to send. Answering a paired phone (`PhoneRequest.current`), the
    /// phone's frame (`PhonePages.page`: no computer navigation, the session banner), so a page the phone shares
    /// with the computer (Smile's capture and crop) is drawn for the door it is answered through.
    static func page(title: String, section: Section, body: HTML, chrome: Bool = true) -> String {
        if PhoneRequest.current != nil { return PhonePages.page(title: title, body: body) }
        let nav = Section.allCases.filter { $0 != .none }.map { s -> HTML in
            let current: HTML = s == section ? " aria-current=\"page\"" : ""
            return "<li><a href=\"\(s.path)\"\(current)>\(s.label)</a></li>"
        }
        let lock = lockChrome
        // The lock's question comes after the page's own content: on a phone it pushed every page below the fold.
        let prompt = chrome && section != .settings ? lockPrompt.flatMap { $0.ask() ? LockPages.prompt($0) : nil } : nil
        let idle: HTML? = lock.map { " data-idle-seconds=\"\($0.idleSeconds)\"" }
        let header: HTML =
            chrome
            ? """
            <header class="site-header"><div class="wrap header-row">\
            <a class="brand" href="/">\(mark)<span>Cairn</span></a>\
            <nav aria-label="Main"><ul class="nav">\(nav)</ul></nav>\
            \(lock.map(lockNowForm))\
            </div></header>
            """
            : """
            <header class="site-header"><div class="wrap header-row"><span class="brand">\(mark)<span>Cairn</span></span></div></header>
            """
        let document: HTML = """
            \(head(title: title, script: "/assets/cairn.js"))
            <body\(idle)>
            <a class="skip-link" href="#main">Skip to content</a>
            \(header)
            <main id="main" class="wrap" tabindex="-1">
            \(chrome ? phoneNotice.map(phoneBanner) : nil)\(body)\(prompt)
            </main>
            <footer class="site-footer"><div class="wrap"><p>\(phoneNotice?.footer ?? "\(ProductWording.privacy)")</p></div></footer>
            </body>
            </html>
            """
        return document.rendered
    }

    /// A page's doctype and head, on the computer and on the phone: its title, the mark as icon, the stylesheet and
    /// its one script (the CSP allows no inline script).
    static func head(title: String, script: String) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) · Cairn</title>
        <link rel="icon" href="/assets/mark.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/assets/cairn.css">
        <script src="\(script)" defer></script>
        </head>
        """
    }

    /// The attributes of every date field: a text field written YYYY-MM-DD, as the pages and the CLI write dates
    /// (a browser's own date field shows the browser's locale, e.g. mm/dd/yyyy). The server parses the value with
    /// `LocalDay(parsing:)` and answers a bad date beside the form, so it works without JavaScript.
    static let dateField: HTML =
        #"type="text" inputmode="numeric" autocomplete="off" maxlength="10" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" placeholder="YYYY-MM-DD" title="A date written year-month-day, for example 2026-01-31" class="date-field""#

    /// The attributes of every time-of-day field: a text field written HH:MM on a 24-hour clock, as Cairn writes every
    /// time (a browser's own time field shows the browser's locale, e.g. "--:-- --" with AM/PM). The server parses it
    /// and answers a bad time beside its field, so it works without JavaScript.
    static let timeField: HTML =
        #"type="text" inputmode="numeric" autocomplete="off" maxlength="5" pattern="[0-2]?[0-9]:[0-5][0-9]" placeholder="HH:MM" title="A time on a 24-hour clock, for example 08:30 or 21:00" class="time-field""#

    /// A hidden CSRF field for a form.
    static func csrfField(_ token: String) -> HTML {
        "<input type=\"hidden\" name=\"\(SecurityPolicy.csrfField)\" value=\"\(token)\">"
    }

    /// The bare page used when the request is not allowed in (no stylesheet: assets also need the secret).
    static func plainPage(title: String, message: String) -> String {
        let page: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>\(title) · Cairn</title></head>
            <body><main><h1>\(title)</h1><p>\(message)</p></main></body></html>
            """
        return page.rendered
    }
}
