import CairnApp
import CairnCore
import Foundation
import Storage

/// The services the web shell calls. The web holds no business rules: every change goes through these.
public struct WebServices: Sendable {
    /// Vault-wide settings, onboarding state and "delete all data".
    public var settings: any SettingsServicing
    /// The Skin journal.
    public var skin: SkinService
    /// The Smile journal.
    public var smile: SmileService
    /// The Regimen journal.
    public var regimen: RegimenService
    /// The Apple Health import.
    public var health: HealthService
    /// Outcome series.
    public var outcomes: OutcomeService
    /// Regimen insights.
    public var insights: InsightService
    /// Reads Supplement Facts photos for `/regimen/products/scan`; nil when Tesseract cannot be loaded on this
    /// computer, and then that page says reading is unavailable (the rest of the app works).
    public var labelScanner: LabelScanService?
    /// The PDF reports (made for a download, stored nowhere).
    public var reports: ReportService
    /// Reminder preferences.
    public var reminders: ReminderService
    /// Encrypted backups (the Settings download).
    public var backups: BackupService
    /// Whether this server shows reminders (nil: it runs no reminder loop, as in tests).
    public var reminderStatus: ReminderStatus?
    /// The label database (Settings imports and removes it; the Products page adds from it).
    public var labels: LabelDatabaseService
    /// The opened vault itself: Settings turns its lock on or off through `LockService` (`VaultGate.changeLock`).
    let application: CairnApplication

    /// The services of one opened vault (tests replace `settings` with a double).
    public init(_ application: CairnApplication, labelScanner: LabelScanService? = nil, reminderStatus: ReminderStatus? = nil) {
        settings = application.settings
        skin = application.skin
        smile = application.smile
        regimen = application.regimen
        health = application.health
        outcomes = application.outcomes
        insights = application.insights
        reports = application.reports
        reminders = application.reminders
        backups = application.backups
        labels = application.labels
        self.application = application
        self.labelScanner = labelScanner
        self.reminderStatus = reminderStatus
    }
}

/// Builds the application that answers requests; shared by `WebServer` and in-process tests.
///
/// `port` is the port the server is actually bound to (Host and Origin must name it); it defaults to the
/// configured port.
public func buildApplication(configuration: WebConfiguration, services: WebServices, port: UInt16? = nil) -> WebApplication {
    buildApplication(configuration: configuration, gate: VaultGate(open: services), port: port)
}

/// The same for a vault whose pages `gate` opens and closes (a vault with a lock); `phone` is the server's phone
/// session (Settings → Use your phone), nil when it offers none.
public func buildApplication(configuration: WebConfiguration, gate: VaultGate, port: UInt16? = nil, phone: PhoneSessions? = nil) -> WebApplication {
    WebApplication(configuration: configuration, gate: gate, port: port ?? configuration.port, assets: .bundled(), phone: phone)
}

/// A pure `Request -> Response` function: security checks, routing and page rendering.
public struct WebApplication: Sendable {
    /// The configuration it was built with.
    public let configuration: WebConfiguration
    /// Whether the vault's pages may be shown (its lock), and the services they call when they may.
    public let gate: VaultGate
    /// The port that Host and Origin headers must name.
    public let port: UInt16
    let policy: SecurityPolicy
    /// The routes answered whether the vault is locked or not: the assets and the unlock and lock pages.
    let openRouter: Router
    /// The server's phone session, nil when it offers none.
    let phone: PhoneSessions?
    private let makeRouter: @Sendable (WebServices) -> Router

    init(configuration: WebConfiguration, gate: VaultGate, port: UInt16, assets: AssetStore, phone: PhoneSessions? = nil) {
        self.configuration = configuration
        self.gate = gate
        self.port = port
        self.policy = SecurityPolicy(secret: configuration.secret, csrfToken: configuration.csrfToken, port: port)
        self.openRouter = Router(assets.routes() + LockPages.routes(gate, csrfToken: configuration.csrfToken))
        let csrfToken = configuration.csrfToken
        self.phone = phone
        self.makeRouter = { services in Router(Self.routes(services, gate: gate, csrfToken: csrfToken, phone: phone)) }
    }

    /// The whole route table of the opened vault, the open routes included (for tests; nil services: only those).
    var router: Router {
        Router(openRouter.routes + (gate.services.map { Self.routes($0, gate: gate, csrfToken: configuration.csrfToken, phone: phone) } ?? []))
    }

    /// Every page group's routes over an opened vault (the assets and the unlock page are in `openRouter`).
    static func routes(_ services: WebServices, gate: VaultGate, csrfToken: String, phone: PhoneSessions? = nil) -> [Route] {
        let groups: [[Route]] = [
            HomePage.routes(services),
            OnboardingPages.routes(services.settings, csrfToken: csrfToken),
            SettingsPages.routes(services.settings, labels: services.labels, csrfToken: csrfToken),
            LockPages.settingsRoutes(services.settings, gate: gate, csrfToken: csrfToken),
            BackupPages.routes(services.backups, csrfToken: csrfToken),
            ReminderSettingsPage.routes(
                services.reminders, regimen: services.regimen, skin: services.skin, status: services.reminderStatus, csrfToken: csrfToken),
            SkinRoutes.routes(services.skin, settings: services.settings, csrfToken: csrfToken),
            SmilePages.routes(services.smile, csrfToken: csrfToken),
            RegimenPages.routes(services.regimen, reminders: services.reminders, csrfToken: csrfToken),
            RegimenProductPages.routes(services.regimen, csrfToken: csrfToken),
            LabelScanPages.routes(services.regimen, scanner: services.labelScanner, labels: services.labels, csrfToken: csrfToken),
            LabelDatabasePages.routes(services.labels, regimen: services.regimen, csrfToken: csrfToken),
            RegimenSchedulePages.routes(services.regimen, csrfToken: csrfToken),
            RegimenLedgerPage.routes(services.regimen, csrfToken: csrfToken),
            RegimenRecordPage.routes(services.regimen, csrfToken: csrfToken),
            RegimenOutcomesPage.routes(services.outcomes, insights: services.insights, csrfToken: csrfToken),
            RegimenHealthImportPage.routes(services.health, csrfToken: csrfToken),
            FHIRExportPage.routes(FHIRExportService(regimen: services.regimen, outcomes: services.outcomes), csrfToken: csrfToken),
            RegimenInsightsPage.routes(services.insights, csrfToken: csrfToken),
            ReportPages.routes(services.reports, skin: services.skin, regimen: services.regimen, csrfToken: csrfToken),
            UsePhonePage.routes(phone, scanner: services.labelScanner, csrfToken: csrfToken),
        ]
        return groups.flatMap { $0 }
    }

    /// The address that logs a browser in: `http://127.0.0.1:PORT/?key=SECRET`.
    public var loginURL: String { "http://127.0.0.1:\(port)/?key=\(configuration.secret)" }

    /// Answers one request. Every response, including errors and redirects, carries the security headers.
    public func handle(_ request: Request) -> Response {
        // While a phone session is open, every page says so (`Layout.phoneNotice`).
        Layout.$phoneNotice.withValue(phone.flatMap { UsePhonePage.notice($0, csrfToken: configuration.csrfToken) }) {
            SecurityPolicy.secure(respond(to: request))
        }
    }

    /// The response for an error, with the security headers (used by the server adapter, e.g. for 413).
    public func errorResponse(_ error: WebError) -> Response {
        SecurityPolicy.secure(render(error))
    }

    private func respond(to request: Request) -> Response {
        // 1-3. Host, the key (login address or session cookie) and Origin: the checks made on the headers alone.
        if let refusal = policy.refusal(forHeadersOf: request) { return render(refusal) }
        // Login: `/?key=SECRET` trades the secret for the session cookie and a clean address.
        if request.path == "/", request.query["key"] != nil {
            var response = Response.redirect(to: "/")
            response.headers.append(("Set-Cookie", policy.sessionCookie))
            return response
        }
        // 4. State-changing requests need the CSRF token (and our Origin, if one is named).
        if let method = request.method, method.isStateChanging, !policy.passesCSRF(request) { return render(.csrfRejected) }
        // 5. The assets and the unlock page answer whether the vault is locked or not.
        if case .found(let route, let parameters) = openRouter.match(method: request.method, path: request.path) {
            return answer(request, route: route, parameters: parameters)
        }
        // 6. Every other page needs the vault open (`VaultGate`): while it is locked, nothing is open to answer.
        //    While the lock changes (Settings), every page says so instead.
        guard let vault = gate.current(touch: true) else {
            return gate.changeProgress.map(LockPages.changing) ?? LockPages.redirectToUnlock(from: request)
        }
        let hasLock = gate.hasLock
        let chrome = hasLock ? Layout.LockChrome(csrfToken: configuration.csrfToken, idleSeconds: gate.idleSeconds) : nil
        // Without a lock, a page asks once the vault holds something (read only when a page with the frame is drawn).
        let settings = vault.services.settings
        let prompt =
            hasLock
            ? nil
            : Layout.LockPrompt(
                csrfToken: configuration.csrfToken, path: request.path,
                ask: {
                    guard let setting = try? settings.lockSetting(), setting == .neverSet else { return false }
                    return LockService.shouldAsk(setting, holdsRecords: (try? settings.holdsRecords()) ?? false)
                })
        return Layout.$lockChrome.withValue(chrome) {
            Layout.$lockPrompt.withValue(prompt) {
                let response = route(request, with: vault.router(makeRouter))
                // After any form that was taken (an import, an edit, a check-in), insights catch up on their own: in the
                // background in `cairn serve`, inline elsewhere (`InsightService.recomputeInBackgroundIfNeeded`); not
                // once the form has locked the vault.
                if request.method?.isStateChanging == true, response.status < 400, gate.current(touch: false) === vault {
                    _ = try? vault.services.insights.recomputeInBackgroundIfNeeded()
                }
                return response
            }
        }
    }

    /// 7. The route table answers, or says 404, or 405 with the methods it has for this path.
    private func route(_ request: Request, with router: Router) -> Response {
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return answer(request, route: route, parameters: parameters)
        case .methodNotAllowed(let allowed):
            var response = render(.methodNotAllowed)
            response.headers.append(("Allow", allowed.map(\.rawValue).joined(separator: ", ")))
            return response
        case .notFound:
            return render(request.method == nil ? .methodNotAllowed : .notFound)
        }
    }

    private func answer(_ request: Request, route: Route, parameters: [String: String]) -> Response {
        do {
            return try route.handler(RouteRequest(request: request, parameters: parameters))
        } catch {
            return render(WebError(answering: error))
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
