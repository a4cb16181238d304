import CairnCore
import Foundation

/// The phone's pages: pairing, the paired home page, and what an outsider or an ended session sees (nothing of the
/// vault).
enum PhonePages {
    /// `GET /pair`, `POST /pair` (the secret, from the fragment, posted by phone-pair.js) and `GET /pair/status`.
    static func pairingRoutes(_ sessions: PhoneSessions) -> [Route] {
        [
            route(.get, "/pair") { _ in .html(pairPage()) },
            route(.post, "/pair") { r in
                switch sessions.pair(secret: r.form["secret"] ?? "", userAgent: r.request.header("user-agent")) {
                case .waiting(let token):
                    var response = Response.text("Waiting for the computer.", status: 202)
                    response.headers.append(("Set-Cookie", cookie(PhoneApplication.pairingCookie, token)))
                    return response
                case .refused: return .text("This pairing code is not accepted.", status: 403)
                case .tooSoon: return .text("Too many tries: wait a moment.", status: 429)
                }
            },
            route(.get, "/pair/status") { r in
                switch sessions.join(token: r.request.cookies[PhoneApplication.pairingCookie] ?? "") {
                case .waiting: return .text("Waiting for the computer.", status: 202)
                case .refused: return .text("The computer did not allow this phone.", status: 403)
                case .allowed(let phone):
                    // The session is minted only now, after the computer allowed it: a new token, never the pairing one.
                    var response = Response.text("Allowed.", status: 200)
                    response.headers.append(("Set-Cookie", cookie(PhoneApplication.sessionCookie, phone.token)))
                    response.headers.append(
                        ("Set-Cookie", "\(PhoneApplication.pairingCookie)=; Max-Age=0; Secure; HttpOnly; SameSite=Strict; Path=/"))
                    return response
                }
            },
        ]
    }

    /// A `__Host-` cookie for this browser session: Secure, HttpOnly, SameSite=Strict, Path=/, no Domain.
    static func cookie(_ name: String, _ value: String) -> String { "\(name)=\(value); Secure; HttpOnly; SameSite=Strict; Path=/" }

    /// A phone page: the stylesheet, the banner saying the session is open and until when, and phone.js (which
    /// replaces the page with "session ended" once the computer no longer answers for this phone).
    static func page(title: String, body: HTML) -> String {
        let banner = PhoneRequest.current.map { request -> HTML in
            let until = DateText.string(request.ends, .clock, in: request.zone)
            return
                "<p class=\"notice\" role=\"status\" id=\"phone-session\">Connected to Cairn on your computer over your home network until \(until). End it on the computer, under Settings → Use your phone.</p>"
        }
        return document(title: title, script: "/assets/phone.js", body: "\(banner)\(body)")
    }

    private static func document(title: String, script: String, body: HTML) -> String {
        // A paired phone's pages lead back to its home; the pairing page has nowhere to go yet.
        let brand: HTML = PhoneRequest.current == nil ? "<span class=\"brand\">Cairn</span>" : "<a class=\"brand\" href=\"/\">Cairn</a>"
        let page: HTML = """
            \(Layout.head(title: title, script: script))
            <body>
            <header class="site-header"><div class="wrap header-row">\(brand)</div></header>
            <main id="main" class="wrap">
            \(body)
            </main>
            <footer class="site-footer"><div class="wrap"><p>Served by Cairn on your computer, to this phone only, while you allow it.</p></div></footer>
            </body>
            </html>
            """
        return page.rendered
    }

    /// `GET /pair`: the script reads the secret from the address's fragment, removes it from the address bar, and
    /// posts it; the page then waits for the computer's answer.
    static func pairPage() -> String {
        document(
            title: "Connect this phone", script: "/assets/phone-pair.js",
            body: """
                <div class="page-intro"><h1>Connect this phone</h1></div>
                <section class="card" aria-labelledby="pair-title">
                <h2 id="pair-title">Asking your computer</h2>
                <p id="pair-status" role="status" aria-live="polite">Sending the pairing code to Cairn on your computer…</p>
                <p>Your computer asks you to allow this phone. Nothing of your journal is shown here until you do.</p>
                <noscript><p>This page needs JavaScript to send the pairing code.</p></noscript>
                </section>
                <section class="card" aria-labelledby="warning-title">
                <h2 id="warning-title">The browser's warning</h2>
                <p id="pair-warning">Your browser warned that this connection is not private because Cairn made its own certificate on your \
                computer and no public authority signed it. To check that this phone is talking to your computer, tap the icon \
                beside the address, open the certificate's details, and compare its SHA-256 fingerprint with the one on your \
                computer's Use your phone page. If they differ, close this page and end the session on the computer.</p>
                </section>
                """)
    }

    /// What a phone sees once its session has ended (any reason): nothing of the vault, and how to connect again.
    static func ended() -> Response {
        .html(
            Layout.plainPage(
                title: "This phone session has ended",
                message:
                    "Nothing of your journal stays on this page. To connect again, choose Use your phone in Cairn's Settings on your computer and scan the new code."
            ),
            status: 410)
    }

    /// A refusal (not paired, another Host, a form that is not ours, no such page): a bare page, nothing of the vault.
    static func refused(_ error: WebError) -> Response {
        let message: String
        switch error {
        case .missingSecret: message = "This phone is not connected. Scan the code Cairn shows on your computer, under Settings → Use your phone."
        case .wrongHost: message = "Open this page from the address Cairn shows on your computer."
        default: message = error.userMessage
        }
        return .html(Layout.plainPage(title: error.title, message: message), status: error.status)
    }
}
