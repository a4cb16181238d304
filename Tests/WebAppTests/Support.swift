import CairnApp
import CairnCore
import Foundation
import Storage
import Testing

@testable import WebApp

/// An in-memory `SettingsServicing` that records calls and fails loudly on any call it was not told to expect.
final class SettingsDouble: SettingsServicing, @unchecked Sendable {
    enum Kind: Hashable { case isOnboardingComplete, completeOnboarding, flag, setFlag, deleteAllData }
    enum Call: Equatable {
        case isOnboardingComplete, completeOnboarding
        case flag(String)
        case setFlag(String, Bool)
        case deleteAllData
    }
    struct Failure: CairnError {
        var userMessage: String { "The settings could not be read." }
        var errorKind: ErrorKind { .failure }
    }
    struct Unexpected: Error {}

    private let lock = NSLock()
    private var onboarded: Bool
    private var flags: [String: Bool] = [:]
    private var recorded: [Call] = []
    private let allowed: Set<Kind>
    private let failing: Bool

    /// `allowed` defaults to everything except deleting; tests that delete must say so.
    init(
        onboarded: Bool = false, allowed: Set<Kind> = [.isOnboardingComplete, .completeOnboarding, .flag, .setFlag],
        failing: Bool = false
    ) {
        self.onboarded = onboarded
        self.allowed = allowed
        self.failing = failing
    }

    var calls: [Call] { lock.withLock { recorded } }
    var isOnboarded: Bool { lock.withLock { onboarded } }
    var deleted: Bool { calls.contains(.deleteAllData) }

    private func enter(_ kind: Kind, _ call: Call) throws {
        lock.withLock { recorded.append(call) }
        guard allowed.contains(kind) else {
            Issue.record("unexpected call to the settings service: \(call)")
            throw Unexpected()
        }
        if failing { throw Failure() }
    }

    func isOnboardingComplete() throws -> Bool {
        try enter(.isOnboardingComplete, .isOnboardingComplete)
        return isOnboarded
    }
    func completeOnboarding() throws {
        try enter(.completeOnboarding, .completeOnboarding)
        lock.withLock { onboarded = true }
    }
    func flag(_ name: String) throws -> Bool {
        try enter(.flag, .flag(name))
        return lock.withLock { flags[name] ?? false }
    }
    func setFlag(_ name: String, _ value: Bool) throws {
        try enter(.setFlag, .setFlag(name, value))
        lock.withLock { flags[name] = value }
    }
    func deleteAllData() throws { try enter(.deleteAllData, .deleteAllData) }
    private var lockState: LockSetting = .neverSet
    private var records = false
    /// Says the vault holds records (the lock question is asked while the lock was never set).
    func holdRecords() { lock.withLock { records = true } }
    func lockSetting() throws -> LockSetting { lock.withLock { lockState } }
    func declineLock() throws { lock.withLock { if lockState == .neverSet { lockState = .declined } } }
    func holdsRecords() throws -> Bool { lock.withLock { records } }
    private var idleMinutes = LockService.defaultIdleMinutes
    func idleLockMinutes() throws -> Int { lock.withLock { idleMinutes } }
    func setIdleLockMinutes(_ minutes: Int) throws {
        guard LockService.idleChoices.contains(minutes) else { throw LockService.Problem.idleChoice }
        lock.withLock { idleMinutes = minutes }
    }
}

/// Fixed tokens so tests can build cookies and forms.
enum Fixture {
    static let secret = String(repeating: "s", count: 43)
    static let csrf = String(repeating: "c", count: 43)
    static let port: UInt16 = 8737
    static let host = "127.0.0.1:8737"

    static func configuration(maximumBodyBytes: Int = WebConfiguration.defaultMaximumBodyBytes, port: UInt16 = port) throws -> WebConfiguration {
        try WebConfiguration(port: port, secret: secret, csrfToken: csrf, maximumBodyBytes: maximumBodyBytes)
    }

    static func app(_ settings: SettingsDouble) throws -> WebApplication {
        buildApplication(configuration: try configuration(), services: services(settings))
    }

    /// The journals of one empty vault, opened once for the tests that only need the settings double (their pages
    /// read no journal rows, or empty ones, and write none); the folder is removed when the test process ends.
    static let journals: CairnApplication = {
        atexit { try? FileManager.default.removeItem(at: Fixture.journalsDirectory) }
        return try! CairnApplication.open(dataDirectory: journalsDirectory.path, environment: [:])
    }()
    private static let journalsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-fixture-\(getpid())")

    /// The services of `journals` with `settings` in place of the vault's own.
    static func services(_ settings: any SettingsServicing) -> WebServices {
        var services = WebServices(journals)
        services.settings = settings
        return services
    }

    /// A request from a logged-in browser on this computer.
    static func get(_ target: String, headers: [String: String] = [:]) -> Request {
        var all = ["Host": host, "Cookie": "cairn_session=\(secret)"]
        for (k, v) in headers { all[k] = v }
        return Request(method: .get, target: target, headers: all)
    }

    /// A form post from a logged-in browser; the CSRF token is included unless `csrf` is nil.
    static func post(
        _ target: String, form: [String: String] = [:], csrf: String? = Fixture.csrf,
        headers: [String: String] = [:]
    ) -> Request {
        var fields = form
        if let csrf { fields["csrf"] = csrf }
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        var all = ["Host": host, "Cookie": "cairn_session=\(secret)", "Content-Type": "application/x-www-form-urlencoded"]
        for (k, v) in headers { all[k] = v }
        return Request(method: .post, target: target, headers: all, body: Data(body.utf8))
    }
}
