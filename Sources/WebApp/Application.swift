import CairnApp
import CairnCore
import Foundation

/// The services the web shell calls. The web holds no business rules: every change goes through these.
public struct WebServices: Sendable {
    /// Vault-wide settings, onboarding state and "delete all data".
    public var settings: any SettingsServicing
    /// The Skin journal; without it `/skin` shows the journal's placeholder page.
    public var skin: SkinService?
    /// The Smile journal; while nil, `/smile` shows the journal's placeholder page.
    public var smile: SmileService? = nil
    /// The Regimen journal; while nil, `/regimen` shows the journal's placeholder page.
    public var regimen: RegimenService? = nil
    /// The Apple Health import; while nil, `/regimen/outcomes/health` is not served.
    public var health: HealthService? = nil
    /// Outcome series; while nil, `/regimen/outcomes` is not served.
    public var outcomes: OutcomeService? = nil
    /// Reads Supplement Facts photos for `/regimen/products/scan`; while nil, that page says reading is unavailable.
    public var labelScanner: LabelScanService? = nil
    /// Regimen insights; while nil, `/regimen/insights` is not found.
    public var insights: InsightService? = nil

    /// Creates the bundle of services.
    public init(settings: any SettingsServicing, skin: SkinService? = nil) {
        self.settings = settings
        self.skin = skin
    }
}

/// Builds the application that answers requests; shared by `WebServer` and in-process tests.
///
/// `port` is the port the server is actually bound to (Host and Origin must name it); it defaults to the
/// configured port.
public func buildApplication(configuration: WebConfiguration, services: WebServices, port: UInt16? = nil) -> WebApplication {
    WebApplication(configuration: configuration, services: services, port: port ?? configuration.port, assets: .bundled())
}

/// A pure `Request -> Response` function: security checks, routing and page rendering.
public struct WebApplication: Sendable {
    /// The configuration it was built with.
    public let configuration: WebConfiguration
    /// The services it calls.
    public let services: WebServices
    /// The port that Host and Origin headers must name.
    public let port: UInt16
    let policy: SecurityPolicy
    let assets: AssetStore

    init(configuration: WebConfiguration, services: WebServices, port: UInt16, assets: AssetStore) {
        self.configuration = configuration
        self.services = services
        self.port = port
        self.policy = SecurityPolicy(secret: configuration.secret, csrfToken: configuration.csrfToken, port: port)
        self.assets = assets
    }

    /// The address that logs a browser in: `http://127.0.0.1:PORT/?key=SECRET`.
    public var loginURL: String { "http://127.0.0.1:\(port)/?key=\(configuration.secret)" }

    /// Answers one request. Every response, including errors and redirects, carries the security headers.
    public func handle(_ request: Request) -> Response {
        SecurityPolicy.secure(respond(to: request))
    }

    /// The response for an error, with the security headers (used by the server adapter, e.g. for 413).
    /// A short count for each journal that holds something, for the home page's cards.
    private func journalSummaries() throws -> [Journal: String] {
        var summaries: [Journal: String] = [:]
        if let skin = services.skin {
            let areas = try skin.areas()
            if !areas.isEmpty {
                summaries[.skin] = HomePage.count(areas.count, "area") + ", "
                    + HomePage.count(areas.reduce(0) { $0 + $1.entryCount }, "photo")
            }
        }
        if let smile = services.smile {
            let entries = try smile.entries().count
            if entries > 0 { summaries[.smile] = HomePage.count(entries, "photo") }
        }
        if let regimen = services.regimen {
            let products = try regimen.products().count
            if products > 0 { summaries[.regimen] = HomePage.count(products, "product") }
        }
        return summaries
    }

    public func errorResponse(_ error: WebError) -> Response {
        SecurityPolicy.secure(render(error))
    }

    private func respond(to request: Request) -> Response {
        // 1. DNS rebinding: the Host header must name this server before anything else is looked at.
        guard policy.isAcceptedHost(request.header("host")) else { return render(.wrongHost) }
        // 2. Login: `/?key=SECRET` trades the secret for the session cookie and a clean address.
        if request.path == "/", let key = request.query["key"] {
            guard request.method == .get || request.method == .head, policy.isSecret(key) else { return render(.missingSecret) }
            var response = Response.redirect(to: "/")
            response.headers.append(("Set-Cookie", policy.sessionCookie))
            return response
        }
        // 3. Every other request needs the session cookie.
        guard policy.hasSession(request) else { return render(.missingSecret) }
        guard let method = request.method else { return render(.methodNotAllowed) }
        // 4. State-changing requests need the CSRF token (and our Origin, if one is named).
        if method.isStateChanging, !policy.passesCSRF(request) { return render(.csrfRejected) }
        do {
            return try route(method: method == .head ? .get : method, request: request)
        } catch let error as WebError {
            return render(error)
        } catch let error as CairnError {
            return render(.serviceFailed(error.userMessage))
        } catch {
            return render(.serviceFailed("Cairn could not complete this action. Nothing else was changed."))
        }
    }

    private func route(method: HTTPMethod, request: Request) throws -> Response {
        let path = request.path
        let csrf = configuration.csrfToken
        let settings = services.settings

        if path.hasPrefix("/assets/") {
            guard method == .get else { throw WebError.methodNotAllowed }
            let name = String(path.dropFirst("/assets/".count))
            guard let asset = assets.asset(named: name) else { throw WebError.notFound }
            return Response(status: 200, headers: [("Content-Type", asset.contentType)], body: asset.data)
        }

        if let skin = services.skin, path == "/skin" || path.hasPrefix("/skin/") {
            return try SkinRoutes.route(method: method, request: request, skin: skin, settings: settings, csrfToken: csrf)
        }

        if let smile = services.smile, path == "/smile" || path.hasPrefix("/smile/") {
            return try SmilePages.route(method: method, request: request, smile: smile, csrfToken: csrf)
        }

        if let insights = services.insights, path == "/regimen/insights" || path.hasPrefix("/regimen/insights/") {
            return try RegimenInsightsPage.route(method: method, request: request, insights: insights, csrfToken: csrf)
        }

        if let health = services.health, path == "/regimen/outcomes/health" {
            return try RegimenHealthImportPage.route(method: method, request: request, health: health, csrfToken: csrf)
        }

        if let outcomes = services.outcomes, path == "/regimen/outcomes" || path.hasPrefix("/regimen/outcomes/") {
            return try RegimenOutcomesPage.route(method: method, request: request, outcomes: outcomes, insights: services.insights, csrfToken: csrf)
        }

        if let regimen = services.regimen, path == "/regimen" || path.hasPrefix("/regimen/") {
            return try RegimenPages.route(method: method, request: request, regimen: regimen, csrfToken: csrf,
                                          labelScanner: services.labelScanner)
        }
        switch path {
        case "/":
            guard method == .get else { throw WebError.methodNotAllowed }
            if try !settings.isOnboardingComplete() { return .redirect(to: "/welcome/1") }
            return .html(HomePage.render(summaries: try journalSummaries()))
        case "/welcome/1", "/welcome/2", "/welcome/3":
            guard method == .get else { throw WebError.methodNotAllowed }
            let step = Int(path.dropFirst("/welcome/".count))!
            return .html(OnboardingPages.render(step: step, csrfToken: csrf))
        case "/welcome/finish":
            guard method == .post else { throw WebError.methodNotAllowed }
            try settings.completeOnboarding()
            return .redirect(to: "/")
        case "/skin", "/smile", "/regimen":
            guard method == .get, let journal = Journal(rawValue: String(path.dropFirst())) else { throw WebError.methodNotAllowed }
            return .html(HomePage.journal(journal))
        case "/settings":
            guard method == .get else { throw WebError.methodNotAllowed }
            let saved = request.query["saved"] == "1" ? "Saved." : nil
            return .html(SettingsPages.render(showComparisonDetails: try settings.flag(SettingsPages.comparisonDetailsFlag),
                                              csrfToken: csrf, notice: saved))
        case "/settings/comparison-details":
            guard method == .post else { throw WebError.methodNotAllowed }
            let value: Bool
            switch request.form["value"] {
            case "on": value = true
            case "off": value = false
            default: throw WebError.badForm
            }
            try settings.setFlag(SettingsPages.comparisonDetailsFlag, value)
            return .redirect(to: "/settings?saved=1")
        case "/settings/delete":
            if method == .get { return .html(SettingsPages.confirmDelete(csrfToken: csrf)) }
            guard method == .post else { throw WebError.methodNotAllowed }
            let typed = request.form["confirm"]?.trimmingCharacters(in: .whitespaces)
            guard typed == SettingsPages.confirmationWord else {
                return .html(SettingsPages.confirmDelete(csrfToken: csrf, mistyped: true), status: 400)
            }
            try settings.deleteAllData()
            return .html(SettingsPages.deleted())
        default:
            throw WebError.notFound
        }
    }

    private func render(_ error: WebError) -> Response {
        switch error {
        case .missingSecret, .wrongHost:
            // Outsiders get a bare page: no layout, no links, nothing about the vault.
            return .html(Layout.plainPage(title: error.title, message: error.userMessage), status: error.status)
        default:
            return .html(SettingsPages.error(error), status: error.status)
        }
    }
}
