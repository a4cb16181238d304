import Foundation
import PhoneLink

/// What the phone listener answers: its own small route table behind its own checks, never the computer's pages.
///
/// The checks, in order, before any route is asked (the security headers of `SecurityPolicy.secure` on every answer):
/// 1. Host must be exactly `ADDR:PORT` of the session (421), as on the computer (DNS rebinding).
/// 2. No session open any more: the "session ended" page (410), holding nothing.
/// 3. The open routes: the pairing page and its two requests, and the phone's assets. Everything else needs the phone's
///    session cookie (`__Host-cairn_phone`): a cookie the session does not know (disconnected) gets the "session ended"
///    page, no cookie a bare 403.
/// 4. A state-changing request must name our origin (`Origin: https://ADDR:PORT`), must not say it comes from another
///    site (`Sec-Fetch-Site`), and, once paired, must carry the phone's own CSRF token (header or `csrf` field).
/// Then the route table: `PhoneRoutes.routes` (a path it does not have is 404, whatever the computer's table has).
struct PhoneApplication: HTTPAnswering {
    /// The phone's session cookie (a `__Host-` cookie: Secure, Path=/, no Domain, so no other origin can set it).
    static let sessionCookie = "__Host-cairn_phone"
    /// The cookie of a phone whose pairing waits for the computer's answer.
    static let pairingCookie = "__Host-cairn_pairing"
    /// The assets the phone's pages use.
    static let assetNames: Set<String> = ["cairn.css", "mark.svg", "phone.js", "phone-pair.js", "phone-capture.js", "skin.js", "smile.js"]

    let sessions: PhoneSessions
    let host: String
    let origin: String
    private let openRouter: Router
    private let router: Router

    init(sessions: PhoneSessions, address: IPAddress, port: UInt16, assets: AssetStore = .bundled()) {
        self.sessions = sessions
        host = "\(address.urlHost):\(port)"
        origin = "https://\(host)"
        let phoneAssets = AssetStore(assets: assets.assets.filter { Self.assetNames.contains($0.key) })
        openRouter = Router(phoneAssets.routes() + PhonePages.pairingRoutes(sessions))
        router = Router(PhoneRoutes.routes(sessions))
    }

    func maximumBodyBytes(forPath path: String, configured: Int) -> Int {
        PhoneRoutes.maximumBodyBytes(forPath: path, configured: configured)
    }

    /// Why the request is refused on its headers, nil to go on; for an open route the phone is nil.
    private func refusal(_ request: Request) -> Response? {
        guard request.header("host")?.lowercased() == host.lowercased() else { return PhonePages.refused(.wrongHost) }
        guard sessions.isOpen else { return PhonePages.ended() }
        if let method = request.method, method.isStateChanging {
            guard request.header("origin")?.lowercased() == origin.lowercased() else { return PhonePages.refused(.csrfRejected) }
            if let site = request.header("sec-fetch-site"), site != "same-origin" { return PhonePages.refused(.csrfRejected) }
        }
        if isOpenRoute(request) { return nil }
        guard let token = request.cookies[Self.sessionCookie] else { return PhonePages.refused(.missingSecret) }
        guard let phone = sessions.phone(token: token) else { return PhonePages.ended() }
        if let method = request.method, method.isStateChanging, let sent = request.header(SecurityPolicy.csrfHeader),
            !SecurityPolicy.constantTimeEquals(sent, phone.csrfToken)
        {
            return PhonePages.refused(.csrfRejected)
        }
        return nil
    }

    private func isOpenRoute(_ request: Request) -> Bool {
        if case .found = openRouter.match(method: request.method, path: request.path) { return true }
        return false
    }

    /// Runs `body` marked as answering a phone request: a session that ends meanwhile (its minutes ran out) must not
    /// wait for libmicrohttpd to stop on one of libmicrohttpd's own threads (`PhoneServer.stop`).
    private func answering<T>(_ body: () -> T) -> T { PhoneServer.$answering.withValue(true, operation: body) }

    func refusalBeforeBody(_ request: Request, maximumBodyBytes: Int) -> Response? {
        answering { refusalOnHeaders(request, maximumBodyBytes: maximumBodyBytes) }
    }

    private func refusalOnHeaders(_ request: Request, maximumBodyBytes: Int) -> Response? {
        if let refusal = refusal(request) { return SecurityPolicy.secure(refusal) }
        if let declared = request.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            declared > maximumBodyBytes
        {
            return errorResponse(.bodyTooLarge)
        }
        return nil
    }

    /// Only a phone holding its session counts as having passed the checks (its connection is kept, `ConnectionTable`).
    func passesSecurityChecks(_ request: Request) -> Bool {
        answering { refusal(request) == nil && request.cookies[Self.sessionCookie].flatMap(sessions.phone(token:)) != nil }
    }

    func handle(_ request: Request) -> Response {
        answering { SecurityPolicy.secure(respond(to: request)) }
    }

    func errorResponse(_ error: WebError) -> Response { SecurityPolicy.secure(PhonePages.refused(error)) }

    private func respond(to request: Request) -> Response {
        if let refusal = refusal(request) { return refusal }
        if case .found(let route, let parameters) = openRouter.match(method: request.method, path: request.path) {
            return answer(request, route: route, parameters: parameters, phone: nil)
        }
        guard let phone = request.cookies[Self.sessionCookie].flatMap(sessions.phone(token:)) else { return PhonePages.ended() }
        if let method = request.method, method.isStateChanging {
            let sent = request.header(SecurityPolicy.csrfHeader) ?? request.form[SecurityPolicy.csrfField] ?? ""
            guard SecurityPolicy.constantTimeEquals(sent, phone.csrfToken) else { return PhonePages.refused(.csrfRejected) }
        }
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return answer(request, route: route, parameters: parameters, phone: phone)
        case .methodNotAllowed(let allowed):
            var response = PhonePages.refused(.methodNotAllowed)
            response.headers.append(("Allow", allowed.map(\.rawValue).joined(separator: ", ")))
            return response
        case .notFound:
            return PhonePages.refused(request.method == nil ? .methodNotAllowed : .notFound)
        }
    }

    private func answer(_ request: Request, route: Route, parameters: [String: String], phone: PhoneSessions.Phone?) -> Response {
        PhoneRequest.$current.withValue(phone.map { PhoneRequest(phone: $0, ends: sessions.ends ?? Date(), zone: sessions.timeZone) }) {
            do {
                return try route.handler(RouteRequest(request: request, parameters: parameters))
            } catch {
                return PhonePages.refused(WebError(answering: error))
            }
        }
    }
}

/// The paired phone a phone route is answering (set around every handler of `PhoneRoutes`): its browser, its CSRF
/// token for forms, and when the session ends.
struct PhoneRequest: Sendable {
    let phone: PhoneSessions.Phone
    let ends: Date
    let zone: TimeZone
    /// The phone being answered; nil outside a phone route (and on the open pairing routes).
    @TaskLocal static var current: PhoneRequest?
}
