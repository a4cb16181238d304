import CairnApp
import CairnCore
import Encryption
import Foundation
import PhoneLink

/// The phone session of one `cairn serve`: at most one at a time, opened from Settings → Use your phone or by
/// `cairn serve --phone`, for `PhoneOptions.minutes` from opening (renewable from the computer).
///
/// Decisions (issue 38):
/// - While a session is open a second listener (`PhoneServer`, TLS only) answers on the chosen address and port;
///   when it ends, for any reason (End, the minutes running out, the vault locking, the server stopping), the
///   listener is stopped and everything of the session is forgotten: nothing listens there any more, and nothing is
///   remembered for the next session (pair again each time).
/// - Pairing: the computer shows `https://ADDR:PORT/pair#SECRET`. The secret (32 random bytes) travels only in the
///   URL's fragment, which no request, log or Referer carries; the phone's page posts it. It is compared in constant
///   time and used once: a fresh one replaces it as soon as it is accepted. Wrong secrets slow the next attempt down,
///   and after `maximumFailures` the secret is withdrawn until the computer asks for a new code.
/// - An accepted secret makes a join request, which the computer allows or refuses. Only once it is allowed does the
///   phone get its session: a new random token in a `__Host-` cookie (Secure, HttpOnly, SameSite=Strict) that opens
///   the phone's routes only (`PhoneApplication`), and a CSRF token of its own. The computer lists the phones and
///   can disconnect each.
public final class PhoneSessions: @unchecked Sendable {
    /// A phone waiting for the computer's answer.
    public struct JoinRequest: Sendable, Equatable {
        /// The request's identifier in the computer's forms.
        public let id: String
        /// "Chrome on Android" (`BrowserName`).
        public let browser: String
        let token: String
        var answer: Bool?
    }

    /// A phone of this session.
    public struct Phone: Sendable, Equatable {
        /// Its identifier in the computer's forms.
        public let id: String
        /// "Chrome on Android".
        public let browser: String
        /// When it was allowed.
        public let since: Date
        let token: String
        /// The token its forms and `fetch` calls carry (`X-CSRF-Token` or the `csrf` field).
        public let csrfToken: String
    }

    /// Why the last session ended (the computer's page says it).
    public enum EndReason: String, Sendable {
        case ended, timeUp, locked, serverStopped
    }

    /// What the computer's page shows of the open session.
    public struct Status: Sendable {
        /// `https://ADDR:PORT/`.
        public let address: String
        /// `https://ADDR:PORT/pair#SECRET`, nil while the secret is withdrawn (too many wrong tries).
        public let pairingURL: String?
        /// The certificate's SHA-256 fingerprint, colon-separated hex.
        public let fingerprint: String
        /// SHA-256 of the certificate's public key, base64 (the same for every session of this vault): what
        /// Chromium's `--ignore-certificate-errors-spki-list` and curl's `--pinnedpubkey sha256//` take.
        public let publicKeyPin: String
        /// When the session ends unless renewed.
        public let ends: Date
        /// Phones waiting for an answer.
        public let waiting: [JoinRequest]
        /// Phones allowed in.
        public let phones: [Phone]
    }

    /// Wrong secrets before the secret is withdrawn.
    public static let maximumFailures = 20
    /// Join requests waiting at once; more are refused.
    static let maximumWaiting = 4

    /// The options it opens sessions with.
    public let options: PhoneOptions
    private let gate: VaultGate
    private let clock: any Clock
    private let state = NSLock()
    private var session: Session?
    private var lastEnd: EndReason?
    private var announce: [@Sendable (Status) -> Void] = []

    private final class Session: @unchecked Sendable {  // read and changed only under `state`
        let network: PhoneNetwork
        let identity: PhoneIdentity
        var server: PhoneServer?
        var port: UInt16 = 0
        var secret: String?
        var ends: Date
        var failures = 0
        var nextAttempt = ContinuousClock.now
        var joins: [JoinRequest] = []
        var phones: [Phone] = []
        var timer: Thread?
        var stopTimer = false
        init(network: PhoneNetwork, identity: PhoneIdentity, secret: String, ends: Date) {
            self.network = network
            self.identity = identity
            self.secret = secret
            self.ends = ends
        }
    }

    /// The sessions of a server over `gate` (which ends an open session when the vault locks).
    public init(options: PhoneOptions, gate: VaultGate, clock: any Clock = SystemClock()) {
        self.options = options
        self.gate = gate
        self.clock = clock
        labelInbox = LabelInbox(clock: clock)
        gate.onChange { [weak self] opened in
            if opened == nil {
                self?.end(.locked)
                self?.labelInbox.removeAll()
            }
        }
    }

    /// Label photos phones sent for the computer's review (memory only; kept when a session ends, so the person can
    /// review after ending it; dropped when the vault locks).
    public let labelInbox: LabelInbox

    /// Runs `action` with the status each time a session opens (`cairn serve` prints the address and the QR).
    public func onOpen(_ action: @escaping @Sendable (Status) -> Void) { state.withLock { announce.append(action) } }

    /// Whether a session is open now (a session past its minutes is ended here).
    public var isOpen: Bool {
        endIfTimeUp()
        return state.withLock { session != nil }
    }

    /// The open session as the computer's page shows it, nil when none is open.
    public var status: Status? {
        endIfTimeUp()
        return state.withLock { session.map(Self.status) }
    }

    /// Why the last session ended, nil while one is open or before the first.
    public var endReason: EndReason? { state.withLock { session == nil ? lastEnd : nil } }

    /// Opens a session (or renews the open one): the vault's key and a certificate for the address, a new secret,
    /// the TLS listener. Throws `vaultLocked` while the vault is locked, the address rules' errors
    /// (`PhoneLinkError`), and `cannotListen`.
    @discardableResult
    public func open() throws -> Status {
        if let renewed = renew() { return renewed }
        guard let services = gate.services else { throw PhoneSessionError.vaultLocked }
        let network = try PhoneNetwork.choose(requested: options.address)
        let identity = try services.application.phoneIdentity.identity(for: network.address)
        let session = Session(
            network: network, identity: identity, secret: Self.token(),
            ends: clock.now().addingTimeInterval(TimeInterval(options.minutes * 60)))
        let server = try PhoneServer(network: network, port: options.port, identity: identity, sessions: self)
        let (status, actions) = state.withLock { () -> (Status?, [@Sendable (Status) -> Void]) in
            guard self.session == nil else { return (nil, []) }
            session.server = server
            session.port = server.port
            self.session = session
            lastEnd = nil
            return (Self.status(session), announce)
        }
        guard let status else {
            server.stop()
            return try open()
        }
        startTimer(for: session)
        for action in actions { action(status) }
        return status
    }

    /// Gives the open session its full minutes again from now, and a new pairing secret if it had none; nil when no
    /// session is open.
    @discardableResult
    public func renew() -> Status? {
        endIfTimeUp()
        return state.withLock {
            guard let session else { return nil }
            session.ends = clock.now().addingTimeInterval(TimeInterval(options.minutes * 60))
            if session.secret == nil {
                session.secret = Self.token()
                session.failures = 0
            }
            return Self.status(session)
        }
    }

    /// Ends the open session, if any: the listener stops (nothing listens on its port afterwards) and its phones,
    /// requests and secret are forgotten.
    public func end(_ reason: EndReason = .ended) {
        let ended = state.withLock { () -> Session? in
            guard let ended = session else { return nil }
            session = nil
            lastEnd = reason
            ended.stopTimer = true
            return ended
        }
        ended?.server?.stop()
    }

    /// Allows (`allow`) or refuses a phone waiting to join.
    public func answer(join id: String, allow: Bool) throws {
        try state.withLock {
            guard let session, let index = session.joins.firstIndex(where: { $0.id == id && $0.answer == nil }) else {
                throw PhoneSessionError.unknown
            }
            session.joins[index].answer = allow
        }
    }

    /// Disconnects a phone: its cookie opens nothing any more.
    public func disconnect(phone id: String) throws {
        try state.withLock {
            guard let session, let index = session.phones.firstIndex(where: { $0.id == id }) else { throw PhoneSessionError.unknown }
            session.phones.remove(at: index)
        }
    }

    // MARK: what the phone listener asks

    /// What a pairing attempt came to.
    enum PairingOutcome: Equatable {
        /// The secret fitted: the phone waits for the computer with this token (its pairing cookie).
        case waiting(token: String)
        /// Wrong, used or withdrawn.
        case refused
        /// Too soon after wrong ones.
        case tooSoon
    }

    /// Checks `secret` (constant time; used once) and makes a join request for the phone whose browser is `userAgent`.
    func pair(secret: String, userAgent: String?) -> PairingOutcome {
        endIfTimeUp()
        return state.withLock {
            guard let session else { return .refused }
            let now = ContinuousClock.now
            guard now >= session.nextAttempt else { return .tooSoon }
            guard let current = session.secret, SecurityPolicy.constantTimeEquals(secret, current),
                session.joins.filter({ $0.answer == nil }).count < Self.maximumWaiting
            else {
                session.failures += 1
                if session.failures >= 3 { session.nextAttempt = now + .seconds(min(60, 1 << min(session.failures - 3, 6))) }
                if session.failures >= Self.maximumFailures { session.secret = nil }
                return .refused
            }
            session.secret = Self.token()  // used once: the computer shows a new code for another phone
            let join = JoinRequest(id: Self.shortID(), browser: BrowserName.describe(userAgent), token: Self.token(), answer: nil)
            session.joins.append(join)
            return .waiting(token: join.token)
        }
    }

    /// What a waiting phone learns when it asks.
    enum JoinOutcome: Equatable {
        case waiting
        /// Allowed: the phone's session is minted now (its cookie's token).
        case allowed(Phone)
        case refused
    }

    /// The answer to the join request of pairing token `token`; an allowed one becomes a phone of the session (once).
    func join(token: String) -> JoinOutcome {
        state.withLock {
            guard let session, let index = session.joins.firstIndex(where: { SecurityPolicy.constantTimeEquals($0.token, token) }) else {
                return .refused
            }
            switch session.joins[index].answer {
            case nil: return .waiting
            case false?:
                session.joins.remove(at: index)
                return .refused
            case true?:
                let join = session.joins.remove(at: index)
                let phone = Phone(id: join.id, browser: join.browser, since: clock.now(), token: Self.token(), csrfToken: Self.token())
                session.phones.append(phone)
                return .allowed(phone)
            }
        }
    }

    /// The phone whose session cookie holds `token`, nil for none (never paired, disconnected, or the session ended).
    func phone(token: String) -> Phone? {
        state.withLock { session?.phones.first { SecurityPolicy.constantTimeEquals($0.token, token) } }
    }

    /// When the open session ends, nil when none is open.
    var ends: Date? { state.withLock { session?.ends } }

    /// The person's time zone (the end time is shown in it).
    var timeZone: TimeZone { clock.timeZone }

    /// The opened vault's services, nil while it is locked (a phone route calls them; the session ends on locking).
    var services: WebServices? { gate.services }

    /// The services for a phone's journal page or action, which counts as activity for the idle lock: a person taking
    /// photos or logging doses on the phone is using Cairn. (The phone's `/session` poll does not count, and the
    /// session itself ends after its minutes, so a forgotten phone cannot keep the vault open.)
    var servicesInUse: WebServices? { gate.current(touch: true)?.services }

    // MARK: internals

    private func endIfTimeUp() {
        let now = clock.now()
        if state.withLock({ session.map { now >= $0.ends } ?? false }) { end(.timeUp) }
    }

    /// Checks the minutes once a second until the session ends (or is replaced).
    private func startTimer(for session: Session) {
        let thread = Thread { [weak self, session] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                guard let self, !self.state.withLock({ session.stopTimer }) else { return }
                self.endIfTimeUp()
            }
        }
        thread.name = "cairn-phone-minutes"
        thread.start()
    }

    private static func status(_ session: Session) -> Status {
        let base = "https://\(session.network.address.urlHost):\(session.port)/"
        return Status(
            address: base, pairingURL: session.secret.map { "\(base)pair#\($0)" },
            fingerprint: session.identity.certificate.fingerprint, publicKeyPin: session.identity.certificate.publicKeyPin,
            ends: session.ends,
            waiting: session.joins.filter { $0.answer == nil }, phones: session.phones)
    }

    /// 32 random bytes (libsodium's `randombytes_buf`, through `Encryption`), base64url.
    static func token() -> String {
        Data(SecretKey.randomBytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A short identifier for a form (not a secret).
    static func shortID() -> String { SecretKey.randomBytes(6).map { String(format: "%02x", $0) }.joined() }
}
