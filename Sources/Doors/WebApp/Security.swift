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

    /// The checks that need nothing but the request line and headers, made before a single body byte is read
    /// (the server adapter answers with the error at once; `WebApplication.handle` makes the same checks):
    /// 1. DNS rebinding: Host must name this server, before anything else is looked at (421).
    /// 2. The login address `/?key=SECRET` must carry the secret and be a GET/HEAD (403).
    /// 3. Every other request needs the session cookie (403).
    /// 4. A state-changing request naming an `Origin` must name ours, and an `X-CSRF-Token` header, when
    ///    sent, must be ours (403). A form's hidden `csrf` field is in the body, so it is checked after the body,
    ///    but only for a request that already proved it holds the key.
    func refusal(forHeadersOf request: Request) -> WebError? {
        guard isAcceptedHost(request.header("host")) else { return .wrongHost }
        if request.path == "/", let key = request.query["key"] {
            return (request.method == .get || request.method == .head) && isSecret(key) ? nil : .missingSecret
        }
        guard hasSession(request) else { return .missingSecret }
        if let method = request.method, method.isStateChanging {
            guard passesOrigin(request) else { return .csrfRejected }
            if let token = request.header(SecurityPolicy.csrfHeader),
                !SecurityPolicy.constantTimeEquals(token, csrfToken)
            {
                return .csrfRejected
            }
        }
        return nil
    }

    /// Whether the request names no `Origin`, or ours.
    private func passesOrigin(_ request: Request) -> Bool {
        guard let origin = request.header("origin") else { return true }
        return acceptedHosts.map { "http://\($0)" }.contains(origin.lowercased())
    }

    /// Whether a state-changing request carries our CSRF token and, if it names an origin, ours.
    func passesCSRF(_ request: Request) -> Bool {
        guard passesOrigin(request) else { return false }
        let token = request.header(SecurityPolicy.csrfHeader) ?? request.form[SecurityPolicy.csrfField]
        guard let token else { return false }
        return SecurityPolicy.constantTimeEquals(token, csrfToken)
    }

    /// The `Set-Cookie` value that starts a session.
    var sessionCookie: String { "\(SecurityPolicy.cookieName)=\(secret); HttpOnly; SameSite=Strict; Path=/" }

    /// Compares two strings without stopping at the first difference (length is not secret).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// The largest text form accepted by a route that takes no file (notes are at most a few thousand characters).
    static let maximumFormBytes = 1024 * 1024

    /// The largest body `path` accepts: the routes that take a file (a photo, a Health export, a CSV) accept the
    /// configured maximum, every other route `maximumFormBytes` (or the configured maximum, if smaller).
    static func maximumBodyBytes(forPath path: String, configured: Int) -> Int {
        let parts = path.split(separator: "/").map(String.init)
        let takesFile: Bool
        switch parts.count {
        case 2: takesFile = parts == ["smile", "upload"]
        case 3:
            takesFile =
                parts == ["regimen", "outcomes", "import"] || parts == ["regimen", "outcomes", "health"]
                || parts == ["regimen", "ledger", "import"] || parts == ["regimen", "products", "scan"]
        case 4: takesFile = parts[0] == "skin" && parts[1] == "areas" && (parts[3] == "photos" || parts[3] == "quality")
        default: takesFile = false
        }
        return takesFile ? configured : min(configured, maximumFormBytes)
    }

    /// Adds the headers every response carries (CSP, nosniff, same-origin referrer, DENY framing) and makes
    /// `Cache-Control: no-store` the only caching header.
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
        ]
        for (name, value) in fixed where r.header(name) == nil { r.headers.append((name, value)) }
        // Never a copy outside the vault: photos included, whatever a route asked for (Delete all data must
        // leave nothing readable, and a browser cache is outside Cairn's reach).
        r.headers.removeAll { $0.name.lowercased() == "cache-control" }
        r.headers.append(("Cache-Control", "no-store"))
        return r
    }
}

extension WebApplication: HTTPAnswering {
    func maximumBodyBytes(forPath path: String, configured: Int) -> Int {
        SecurityPolicy.maximumBodyBytes(forPath: path, configured: configured)
    }

    /// The answer to a request refused on its request line and headers alone (wrong Host, no key, another
    /// Origin, a declared body over the route's limit), or nil to go on and read its body. The server adapter
    /// calls it before any body byte is read.
    /// Whether the request's line and headers pass the security checks (its connection then counts as one with
    /// the key: `ConnectionTable`).
    func passesSecurityChecks(_ request: Request) -> Bool { policy.refusal(forHeadersOf: request) == nil }

    func refusalBeforeBody(_ request: Request, maximumBodyBytes: Int) -> Response? {
        if let refusal = policy.refusal(forHeadersOf: request) { return errorResponse(refusal) }
        if let declared = request.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            declared > maximumBodyBytes
        {
            return errorResponse(.bodyTooLarge)
        }
        return nil
    }
}
