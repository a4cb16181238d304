import Foundation

/// The request checks and response headers that make the loopback server private.
///
/// Decisions:
/// - Login: `GET /?key=SECRET` sets `cairn_session=SECRET; HttpOnly; SameSite=Strict; Path=/` and answers
///   `303` to `/`, so the secret does not stay in the address bar or history entry in use.
/// - Every other request needs that cookie; otherwise `403` with a short plain page.
/// - Host must be exactly `127.0.0.1:PORT` or `localhost:PORT`; otherwise `421 Misdirected Request`. This runs
///   before the secret check so a rebinding page never learns anything.
/// - CSRF: a separate random per-launch token, in forms as hidden input `csrf` or in header `X-CSRF-Token`;
///   required on POST/PUT/PATCH/DELETE. An `Origin` header, when present, must be our own origin.
/// - All secrets are compared in constant time.
public struct SecurityPolicy: Sendable {
    /// The name of the session cookie.
    public static let cookieName = "cairn_session"
    /// The form field that carries the CSRF token.
    public static let csrfField = "csrf"
    /// The header that carries the CSRF token for `fetch` requests.
    public static let csrfHeader = "X-CSRF-Token"
    /// The Content-Security-Policy sent with every response: nothing but this server.
    public static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

    let secret: String
    let csrfToken: String
    /// Port the server is bound to; Host and Origin must name it.
    let port: UInt16

    /// The Host header values accepted.
    var acceptedHosts: [String] { ["127.0.0.1:\(port)", "localhost:\(port)"] }

    /// Whether the Host header names this server exactly.
    func isAcceptedHost(_ host: String?) -> Bool {
        guard let host else { return false }
        return acceptedHosts.contains(host.lowercased())
    }

    /// Whether `candidate` is the per-launch secret (constant time).
    func isSecret(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        return SecurityPolicy.constantTimeEquals(candidate, secret)
    }

    /// Whether the request carries the session cookie.
    func hasSession(_ request: Request) -> Bool { isSecret(request.cookies[SecurityPolicy.cookieName]) }

    /// Whether a state-changing request carries our CSRF token and, if it names an origin, ours.
    func passesCSRF(_ request: Request) -> Bool {
        if let origin = request.header("origin") {
            let ours = acceptedHosts.map { "http://\($0)" }
            guard ours.contains(origin.lowercased()) else { return false }
        }
        let token = request.header(SecurityPolicy.csrfHeader) ?? request.form[SecurityPolicy.csrfField]
        guard let token else { return false }
        return SecurityPolicy.constantTimeEquals(token, csrfToken)
    }

    /// The `Set-Cookie` value that starts a session.
    var sessionCookie: String { "\(SecurityPolicy.cookieName)=\(secret); HttpOnly; SameSite=Strict; Path=/" }

    /// Compares two strings without stopping at the first difference (length is not secret).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// Adds the headers every response carries (CSP, nosniff, same-origin referrer, no-store, DENY framing).
    static func secure(_ response: Response) -> Response {
        var r = response
        let fixed: [(String, String)] = [
            ("Content-Security-Policy", contentSecurityPolicy),
            ("X-Content-Type-Options", "nosniff"),
            // `same-origin`, not `no-referrer`: under `no-referrer` Chromium sends `Origin: null` on form posts,
            // which the Origin check must refuse. There is no other origin to leak a referrer to.
            ("Referrer-Policy", "same-origin"),
            ("X-Frame-Options", "DENY"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
            ("Cache-Control", "no-store"),
        ]
        for (name, value) in fixed where r.header(name) == nil { r.headers.append((name, value)) }
        return r
    }
}
