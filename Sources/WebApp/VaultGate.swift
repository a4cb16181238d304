import CairnApp
import CairnCore
import Encryption
import Foundation

/// The services of one unlocked vault, and how to let go of them (close the database, release the vault). The
/// route table over them is made on first use and goes with them.
public final class OpenedVault: @unchecked Sendable {
    /// What the pages call.
    public let services: WebServices
    private let closing: @Sendable () -> Void
    private let lock = NSLock()
    private var routes: Router?

    /// `close` closes what `services` run on; it is called once, when the vault is locked again.
    public init(services: WebServices, close: @escaping @Sendable () -> Void = {}) {
        self.services = services
        closing = close
    }

    func close() { closing() }

    /// The route table over these services, made by `make` on first use.
    func router(_ make: (WebServices) -> Router) -> Router {
        lock.withLock {
            if let routes { return routes }
            let made = make(services)
            routes = made
            return made
        }
    }
}

/// The one place that decides whether the web app's pages may be shown: the vault's lock, as `cairn serve` holds it.
///
/// Decisions (issue 21):
/// - A vault without a lock (`VaultGate(open:)`) is always open and never locks.
/// - A vault with a lock starts locked (`VaultGate(locked:)`): the server holds no vault key and no service over the
///   vault, only `unlock`, which derives the key from a passphrase and opens the services. While locked, every page
///   but the unlock page and the static assets answers 303 to `/unlock`, and no photo, thumbnail or JSON route is
///   reached at all (nothing is open to answer them). Locking again (Lock now, idle, the server stopping) drops the
///   services and closes the database, so the key goes with them.
/// - Wrong passphrases are slowed down: after the n-th wrong one in a row the next attempt waits 2^n seconds (2, 4,
///   8, … at most `maximumDelay`); an attempt sooner is answered 429 with the seconds left. Attempts run one at a
///   time (a second one waits for the first), so parallel guesses gain nothing. The count lives in memory: a new
///   launch needs the new launch key, printed only at the terminal that started it.
/// - Idle: no request of a logged-in page for `idle limit` (the person's choice in Settings) locks the vault; only
///   requests count, so a camera prompt or a file picker (which make none) cannot lock it while they are open
///   unless they stay open for the whole limit. Checked at every request and by `lockIfIdle()` (the server's timer).
public final class VaultGate: @unchecked Sendable {
    /// The longest wait between two wrong passphrases, in seconds.
    public static let maximumDelay = 300

    /// What an unlock attempt came to.
    public enum Attempt: Equatable, Sendable {
        /// The vault is open.
        case unlocked
        /// The passphrase does not unlock the vault; the next attempt may come after `retryAfter` seconds.
        case wrong(retryAfter: Int)
        /// Too soon after a wrong passphrase: try again after `retryAfter` seconds (nothing was tried).
        case tooSoon(retryAfter: Int)
    }

    /// Whether the vault has a lock (and so can be locked; "Lock now" is offered).
    public let hasLock: Bool
    private let opener: (@Sendable (Passphrase) throws -> OpenedVault)?
    private let clock: any Clock
    private let state = NSLock()
    private let attempts = NSLock()
    private var opened: OpenedVault?
    private var lastActivity: Date
    private var idleLimit: TimeInterval
    private var failures = 0
    private var nextAttempt = Date.distantPast
    private var onChange: [@Sendable (OpenedVault?) -> Void] = []

    /// A vault without a lock: always open with `services`.
    public init(open services: WebServices) {
        hasLock = false
        opener = nil
        clock = SystemClock()
        opened = OpenedVault(services: services)
        lastActivity = .distantPast
        idleLimit = .infinity
    }

    /// A locked vault: `open` turns a passphrase into the opened vault, or throws
    /// `EncryptionError.wrongVaultPassphrase` (any other error is shown as it is and is not counted as a guess).
    public init(locked open: @escaping @Sendable (Passphrase) throws -> OpenedVault, clock: any Clock = SystemClock()) {
        hasLock = true
        opener = open
        self.clock = clock
        lastActivity = clock.now()
        idleLimit = TimeInterval(LockService.defaultIdleMinutes * 60)
    }

    /// A vault with a lock already unlocked (at the terminal, or with `--vault-passphrase-file`): `open` is used for
    /// the unlocks that follow a relock.
    public convenience init(unlocked vault: OpenedVault, relocking open: @escaping @Sendable (Passphrase) throws -> OpenedVault,
                            clock: any Clock = SystemClock()) {
        self.init(locked: open, clock: clock)
        becomeOpen(vault)
    }

    /// The services of the opened vault, nil while locked (the reminder loop asks; it is not a use).
    public var services: WebServices? { state.withLock { opened?.services } }

    /// Whether the pages are locked now.
    public var isLocked: Bool { state.withLock { opened == nil } }

    /// The opened vault, if unlocked and not idle past the limit (an idle vault is locked here); counts as activity
    /// when `touch`.
    func current(touch: Bool) -> OpenedVault? {
        if hasLock { lockIfIdle() }
        return state.withLock {
            if touch, opened != nil { lastActivity = clock.now() }
            return opened
        }
    }

    /// The idle limit in seconds (the Settings choice of the opened vault).
    var idleSeconds: Int { state.withLock { idleLimit.isFinite ? Int(idleLimit) : 0 } }

    /// Sets the idle limit (after the person chose one in Settings).
    func setIdleMinutes(_ minutes: Int) { state.withLock { idleLimit = TimeInterval(minutes * 60) } }

    /// Runs `action` with the opened vault (or nil) after every unlock and lock (the reminder loop follows it).
    public func onChange(_ action: @escaping @Sendable (OpenedVault?) -> Void) { state.withLock { onChange.append(action) } }

    /// Tries `passphrase`. See the type's decisions for the delay.
    func unlock(_ passphrase: Passphrase) throws -> Attempt {
        guard let opener else { return .unlocked }
        return try attempts.withLock {
            if !isLocked { return .unlocked }
            let now = clock.now()
            let wait = state.withLock { nextAttempt.timeIntervalSince(now) }
            if wait > 0 { return .tooSoon(retryAfter: Int(wait.rounded(.up))) }
            do {
                let vault = try opener(passphrase)
                state.withLock { failures = 0; nextAttempt = .distantPast }
                becomeOpen(vault)
                return .unlocked
            } catch EncryptionError.wrongVaultPassphrase {
                let delay = state.withLock { () -> Int in
                    failures += 1
                    let delay = failures >= 9 ? Self.maximumDelay : min(Self.maximumDelay, 1 << failures)
                    nextAttempt = clock.now().addingTimeInterval(TimeInterval(delay))
                    return delay
                }
                return .wrong(retryAfter: delay)
            }
        }
    }

    /// Seconds until the next attempt is allowed (0: now).
    var secondsUntilNextAttempt: Int {
        let now = clock.now()
        return state.withLock { max(0, Int(nextAttempt.timeIntervalSince(now).rounded(.up))) }
    }

    /// Locks the vault now (Lock now, the server stopping): the services are dropped and their database closed.
    /// Nothing happens for a vault without a lock.
    public func lock() {
        guard hasLock else { return }
        let (dropped, actions) = state.withLock { () -> (OpenedVault?, [@Sendable (OpenedVault?) -> Void]) in
            let dropped = opened
            opened = nil
            return (dropped, onChange)
        }
        guard let dropped else { return }
        for action in actions { action(nil) }
        dropped.close()
    }

    /// Locks the vault when no request came for the idle limit (the server's timer calls it).
    public func lockIfIdle() {
        guard hasLock else { return }
        let now = clock.now()
        let idle = state.withLock { opened != nil && now.timeIntervalSince(lastActivity) >= idleLimit }
        if idle { lock() }
    }

    private func becomeOpen(_ vault: OpenedVault) {
        let minutes = (try? vault.services.settings.idleLockMinutes()) ?? LockService.defaultIdleMinutes
        let actions = state.withLock { () -> [@Sendable (OpenedVault?) -> Void] in
            opened = vault
            lastActivity = clock.now()
            idleLimit = TimeInterval(minutes * 60)
            return onChange
        }
        for action in actions { action(vault) }
    }
}
