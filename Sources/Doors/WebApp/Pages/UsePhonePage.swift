import CairnApp
import CairnCore
import Foundation
import PhoneLink

/// Settings → Use your phone (`/phone`): opens, renews and ends the phone session, shows its QR code (the pairing
/// address with its single-use secret), the certificate's fingerprint and how to compare it, asks before a phone
/// joins, and lists the phones with "Disconnect". `sessions` is nil when this server offers no phone session
/// (in-process tests): the page says so and its forms refuse.
enum UsePhonePage {
    static func routes(_ sessions: PhoneSessions?, scanner: LabelScanService?, csrfToken: String) -> [Route] {
        @Sendable func required() throws -> PhoneSessions {
            guard let sessions else { throw PhoneSessionError.notOffered }
            return sessions
        }
        return [
            route(.get, "/phone") { r in .html(page(sessions, csrfToken: csrfToken, problem: nil)) },
            route(.get, "/phone/state") { _ in .json(["stamp": sessions.map(stamp) ?? ""]) },
            route(.post, "/phone/open") { _ in
                do { try required().open() } catch let error as CairnError where error.errorKind != .failure {
                    return .html(page(sessions, csrfToken: csrfToken, problem: error.userMessage), status: WebError(answering: error).status)
                }
                return .redirect(to: "/phone")
            },
            route(.post, "/phone/renew") { _ in
                _ = try required().renew()
                return .redirect(to: "/phone")
            },
            route(.post, "/phone/end") { _ in
                try required().end(.ended)
                return .redirect(to: "/phone")
            },
            route(.post, "/phone/joins/{join}/allow") { r in
                try required().answer(join: r.parameter("join"), allow: true)
                return .redirect(to: "/phone")
            },
            route(.post, "/phone/joins/{join}/refuse") { r in
                try required().answer(join: r.parameter("join"), allow: false)
                return .redirect(to: "/phone")
            },
            route(.post, "/phone/labels/{label}/review") { r in
                // A label photo a phone sent: read now, through the same scan as a photo chosen on this computer, and
                // reviewed here (the photo leaves the inbox: the review page holds it, as a scan's page does).
                guard let photo = try required().labelInbox.take(r.parameter("label")) else { throw WebError.notFound }
                guard let scanner else {
                    return .html(LabelScanPages.upload(csrfToken: csrfToken, scannerAvailable: false), status: 503)
                }
                do {
                    let proposal = try scanner.propose(imageData: photo.data)
                    let preview = try scanner.preview(imageData: photo.data)
                    return .html(LabelScanPages.page(LabelScanPages.Review(proposal: proposal, preview: preview), csrfToken: csrfToken))
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(
                        LabelScanPages.upload(csrfToken: csrfToken, error: error.userMessage + " Nothing was saved."), status: 400)
                }
            },
            route(.post, "/phone/phones/{phone}/disconnect") { r in
                try required().disconnect(phone: r.parameter("phone"))
                return .redirect(to: "/phone")
            },
        ]
    }

    /// What changes the page (a phone waiting or joining, a new code, renewing, the end): cairn.js reloads the page
    /// when it changes.
    static func stamp(_ sessions: PhoneSessions) -> String {
        let labels = sessions.labelInbox.waiting.map(\.id)
        guard let status = sessions.status else { return (["closed"] + labels).joined(separator: "|") }
        return ([status.pairingURL ?? "", "\(status.ends.timeIntervalSince1970)"] + status.waiting.map(\.id) + status.phones.map(\.id) + labels)
            .joined(separator: "|").utf8.reduce(into: UInt64(14_695_981_039_346_656_037)) { $0 = ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            .description
    }

    /// The label photos phones sent, each with "Review" (a form: reading takes a moment and the photo leaves the
    /// inbox).
    static func labels(_ sessions: PhoneSessions, csrfToken: String) -> HTML? {
        let waiting = sessions.labelInbox.waiting
        guard !waiting.isEmpty else { return nil }
        let items = waiting.map { photo -> HTML in
            """
            <li><span>Sent at \(DateText.string(photo.received, .clock, in: sessions.timeZone))</span> \
            <form method="post" action="/phone/labels/\(photo.id)/review">\(Layout.csrfField(csrfToken))\
            <button type="submit" class="button" id="review-\(photo.id)">Review<span class="visually-hidden"> the label photo sent at \
            \(DateText.string(photo.received, .clock, in: sessions.timeZone))</span></button></form></li>
            """
        }
        return """
            <section class="card" aria-labelledby="phone-labels-title" id="phone-labels">
            <h2 id="phone-labels-title">Label photos from your phone</h2>
            <p>Each is read here and shown for your review; nothing is saved until you check its rows. They wait in memory \
            only, for up to an hour, and are dropped when the vault locks.</p>
            <ul class="phone-list">\(items)</ul>
            </section>
            """
    }

    static func page(_ sessions: PhoneSessions?, csrfToken: String, problem: String?) -> String {
        let problemHTML: HTML? = problem.map { "<p class=\"notice\" role=\"alert\">\($0)</p>" }
        let intro: HTML = """
            <div class="page-intro"><h1>Use your phone</h1>\
            <p>Open a short session so your phone can reach Cairn over your home network: pair it by scanning a code, \
            allow it here, and end the session whenever you like. Nothing is remembered for next time.</p></div>
            """
        guard let sessions else {
            return Layout.page(
                title: "Use your phone", section: .settings,
                body: "\(intro)<section class=\"card\"><p>\(PhoneSessionError.notOffered.userMessage)</p></section>")
        }
        guard let status = sessions.status else {
            let ended: HTML? = sessions.endReason.map { "<p class=\"notice\" role=\"status\">\(endedText($0))</p>" }
            let body: HTML = """
                \(intro)\(problemHTML)\(ended)
                \(labels(sessions, csrfToken: csrfToken))
                <section class="card" aria-labelledby="phone-open-title">
                <h2 id="phone-open-title">Open a phone session</h2>
                <p>For \(sessions.options.minutes) minutes, Cairn also listens on your home network, over an encrypted \
                connection, on port \(sessions.options.port). It ends when you end it, when the time is up, when the vault \
                locks and when Cairn stops.</p>
                <form method="post" action="/phone/open">\(Layout.csrfField(csrfToken))\
                <div class="form-actions"><button type="submit" class="button" id="phone-open">Open a phone session</button></div></form>
                </section>
                """
            return Layout.page(title: "Use your phone", section: .settings, body: body)
        }
        let until = DateText.string(status.ends, .clock, in: sessions.timeZone)
        let waiting = status.waiting.map { join -> HTML in
            """
            <section class="card" aria-labelledby="join-\(join.id)">
            <h2 id="join-\(join.id)">A phone asks to join: \(join.browser)</h2>
            <p>Allow it only if it is your phone, and you scanned the code just now.</p>
            <div class="form-actions">\
            <form method="post" action="/phone/joins/\(join.id)/allow">\(Layout.csrfField(csrfToken))<button type="submit" class="button" id="allow-\(join.id)">Allow</button></form>\
            <form method="post" action="/phone/joins/\(join.id)/refuse">\(Layout.csrfField(csrfToken))<button type="submit" class="button button-quiet" id="refuse-\(join.id)">Refuse</button></form>\
            </div>
            </section>
            """
        }
        let phoneItems = status.phones.map { phone -> HTML in
            """
            <li><span>\(phone.browser), connected since \(DateText.string(phone.since, .clock, in: sessions.timeZone))</span> \
            <form method="post" action="/phone/phones/\(phone.id)/disconnect">\(Layout.csrfField(csrfToken))\
            <button type="submit" class="button button-quiet" aria-label="Disconnect \(phone.browser)">Disconnect</button></form></li>
            """
        }
        let phones: HTML = phoneItems.isEmpty ? "<p>No phone is connected yet.</p>" : "<ul class=\"phone-list\">\(phoneItems)</ul>"
        let code: HTML
        if let pairing = status.pairingURL, let qr = try? QRCode(encoding: pairing) {
            code = """
                <figure class="phone-qr">\(HTML(trusted: qr.svg(label: "QR code of the pairing address for your phone")))\
                <figcaption>Scan this code with your phone's camera. It works once; a new one appears after each phone.</figcaption></figure>
                <details><summary>Type the address instead</summary><p><code class="phone-address">\(pairing)</code></p></details>
                """
        } else {
            code = """
                <p>There were too many wrong pairing codes, so pairing is paused.</p>
                <form method="post" action="/phone/renew">\(Layout.csrfField(csrfToken))<button type="submit" class="button" id="phone-new-code">Show a new code</button></form>
                """
        }
        let body: HTML = """
            \(intro)\(problemHTML)
            <p class="notice" role="status" id="phone-session-state" data-stamp="\(stamp(sessions))">A phone session is open at \
            <code>\(status.address)</code> until \(until).</p>
            \(waiting)
            \(labels(sessions, csrfToken: csrfToken))
            <section class="card" aria-labelledby="phone-pair-title">
            <h2 id="phone-pair-title">Pair a phone</h2>
            \(code)
            </section>
            <section class="card" aria-labelledby="phone-cert-title">
            <h2 id="phone-cert-title">The browser's warning</h2>
            <p>Your phone's browser will warn that the connection is not private. That is because Cairn made its own \
            certificate on this computer, and no public authority signed it. Before you continue, open the certificate \
            details from the warning (or from the icon beside the address) and compare its SHA-256 fingerprint with the one \
            below. If they are the same, the phone is talking to this computer and you can continue; if they differ, \
            stop and end the session.</p>
            <p>SHA-256 fingerprint: <code class="phone-fingerprint" id="phone-fingerprint">\(status.fingerprint)</code></p>
            </section>
            <section class="card" aria-labelledby="phone-list-title">
            <h2 id="phone-list-title">Phones in this session</h2>
            \(phones)
            </section>
            <section class="card" aria-labelledby="phone-end-title">
            <h2 id="phone-end-title">Keep open or end</h2>
            <div class="form-actions">\
            <form method="post" action="/phone/renew">\(Layout.csrfField(csrfToken))<button type="submit" class="button button-quiet" id="phone-renew">Keep open \(sessions.options.minutes) more minutes</button></form>\
            <form method="post" action="/phone/end">\(Layout.csrfField(csrfToken))<button type="submit" class="button" id="phone-end">End now</button></form>\
            </div>
            </section>
            """
        return Layout.page(title: "Use your phone", section: .settings, body: body)
    }

    /// The banner and footer words of every computer page while a session is open (DESIGN.md: "Your phone (Chrome on
    /// Android) is connected over your home network until 08:25. End now."), nil while none is.
    static func notice(_ sessions: PhoneSessions, csrfToken: String) -> Layout.PhoneNotice? {
        guard let status = sessions.status else { return nil }
        let until = DateText.string(status.ends, .clock, in: sessions.timeZone)
        let names = status.phones.map(\.browser)
        let text: HTML =
            names.isEmpty
            ? "A phone session is open on your home network until \(until); no phone is connected. <a href=\"/phone\">Use your phone</a>."
            : "Your phone (\(names.joined(separator: ", "))) is connected over your home network until \(until)."
        let footer: HTML =
            names.isEmpty
            ? "Everything stays on this computer. Cairn makes no network connections; the page you are looking at is served by Cairn itself, only to this computer, and until \(until) it also answers a phone you allow on your home network."
            : "Everything stays on this computer. Cairn makes no network connections; the page you are looking at is served by Cairn itself, to this computer and, until \(until), to your phone (\(names.joined(separator: ", "))) over your home network."
        return Layout.PhoneNotice(text: text, footer: footer, csrfToken: csrfToken)
    }

    static func endedText(_ reason: PhoneSessions.EndReason) -> String {
        switch reason {
        case .ended: return "The phone session has ended. Nothing listens on your home network any more."
        case .timeUp: return "The phone session's time ran out. Nothing listens on your home network any more."
        case .locked: return "The phone session ended when the vault locked. Nothing listens on your home network any more."
        case .serverStopped: return "The phone session ended when Cairn stopped."
        }
    }
}
