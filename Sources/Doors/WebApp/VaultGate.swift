import CairnApp
import CairnCore
import Encryption
import Foundation
import Storage

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

    /// How a vault is opened when nothing more is needed (tests, the benchmarks; `cairn serve` also claims the
    /// vault and starts its housekeeping): a new `CairnApplication` over `vault`, with the passphrase when its
    /// lock is on (nil when it is off), its database closed when the vault locks again.
    public static func opening(_ vault: Vault, clock: any Clock, labelScanner: LabelScanService? = nil)
        -> @Sendable (Passphrase?) throws -> OpenedVault
    {
        { passphrase in
            let application = try CairnApplication(
                vault: vault, clock: clock, housekeeping: .none,
                passphrase: passphrase.map { given in { given } })
            return OpenedVault(services: WebServices(application, labelScanner: labelScanner)) { application.database.close() }
        }
    }

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
/// - A vault whose lock is off is always open and never locks. A vault whose lock is on starts locked unless it was
///   unlocked at start: the server holds no vault key and no service over the vault, only `unlock`, which derives the
///   key from a passphrase and opens the services. While locked, every page but the unlock page and the static
///   assets answers 303 to `/unlock`, and no photo, thumbnail or JSON route is reached at all (nothing is open to
///   answer them). Locking again (Lock now, idle, the server stopping) drops the services and closes the database,
///   so the key goes with them.
/// - The lock can be turned on and off from Settings while the server runs (`changeLock`): the opened vault is let
///   go (its database closed), converted in place by `LockService` (crash-safe: `Vault.turnLockOn/turnLockOff`),
///   then opened again as it now is: with the passphrase just chosen after turning it on (the person just typed
///   it), without any key after turning it off. Meanwhile every page answers "the lock is changing" (503, with
///   how many photos are done), never the unlock page. Changing the passphrase only wraps the key anew: the vault
///   stays open.
/// - Wrong passphrases are slowed down, on the unlock page and in Settings alike (one count): after the n-th wrong
///   one in a row the next attempt waits 2^n seconds (2, 4, 8, … at most `maximumDelay`); an attempt sooner is
///   answered 429 with the seconds left. Attempts run one at a time (a second one waits for the first), so parallel
///   guesses gain nothing. The count lives in memory: a new launch needs the new launch key, printed only at the
///   terminal that started it.
/// - Idle: no request of a logged-in page for `idle limit` (the person's choice in Settings) locks the vault; only
///   requests count, so a camera prompt or a file picker (which make none) cannot lock it while they are open
///   unless they stay open for the whole limit. Checked at every request and by `startIdleTimer` (the server's
///   timer), both on the injected clock.
public final class VaultGate: @unchecked Sendable {
    /// The longest wait between two wrong passphrases, in seconds.
    public static let maximumDelay = 300

    /// What a passphrase attempt came to (the unlock page, or a lock change in Settings).
    public enum Attempt: Equatable, Sendable {
        /// The passphrase fitted: the vault is open, or the change is made.
        case accepted
        /// The passphrase does not unlock the vault; the next attempt may come after `retryAfter` seconds.
        case wrong(retryAfter: Int)
        /// Too soon after a wrong passphrase: try again after `retryAfter` seconds (nothing was tried).
        case tooSoon(retryAfter: Int)
    }

    /// A change of the lock asked for in Settings.
    public enum LockChange: Sendable {
        /// Turn the lock on with this new passphrase (already typed twice and checked by the page).
        case turnOn(Passphrase)
        /// Turn the lock off; the current passphrase.
        case turnOff(Passphrase)
        /// Change the passphrase: the current one, then the new one.
        case change(from: Passphrase, to: Passphrase)
    }

    /// A lock change under way: which way, and how many photo files are converted so far.
    public struct ChangeProgress: Sendable, Equatable {
        /// True while encrypting (turning the lock on), false while decrypting.
        public let turningOn: Bool
        /// Photo files rewritten so far.
        public internal(set) var photos: Int
    }

    private let opener: @Sendable (Passphrase?) throws -> OpenedVault
    private let clock: any Clock
    private let state = NSLock()
    private let attempts = NSLock()
    private var lockIsOn: Bool
    private var opened: OpenedVault?
    private var changing: ChangeProgress?
    private var lockWhenChanged = false
    private var lastActivity: Date
    private var idleLimit: TimeInterval
    private var failures = 0
    private var nextAttempt = Date.distantPast
    private var onChange: [@Sendable (OpenedVault?) -> Void] = []

    /// A vault whose lock is on (`lockIsOn`) or off, open with `opened` or locked (nil; only with the lock on).
    /// `open` opens it again after a relock or a lock change: with the passphrase while the lock is on, with nil
    /// while it is off; it throws `EncryptionError.wrongVaultPassphrase` for a passphrase that does not fit (any
    /// other error is shown as it is and is not counted as a guess).
    public init(
        lockIsOn: Bool, opened: OpenedVault?, opening open: @escaping @Sendable (Passphrase?) throws -> OpenedVault,
        clock: any Clock = SystemClock()
    ) {
        self.lockIsOn = lockIsOn
        opener = open
        self.clock = clock
        lastActivity = clock.now()
        idleLimit = TimeInterval(LockService.defaultIdleMinutes * 60)
        if let opened { becomeOpen(opened) }
    }

    /// The gate of `cairn serve`: a vault whose lock is off is opened at once; one whose lock is on is opened with
    /// `passphrase` when it is given (at the terminal, `--vault-passphrase-file`), else it starts locked.
    public convenience init(
        lockIsOn: Bool, passphrase: (() throws -> Passphrase)?,
        opening open: @escaping @Sendable (Passphrase?) throws -> OpenedVault, clock: any Clock = SystemClock()
    ) throws {
        let opened = lockIsOn ? try passphrase.map { try open($0()) } : try open(nil)
        self.init(lockIsOn: lockIsOn, opened: opened, opening: open, clock: clock)
    }

    /// A vault whose lock is off, open with `services` (tests and benchmarks; a lock turned on in Settings opens
    /// it again with `OpenedVault.opening`).
    public convenience init(open services: WebServices) {
        let application = services.application
        self.init(
            lockIsOn: false, opened: OpenedVault(services: services),
            opening: OpenedVault.opening(application.vault, clock: application.clock, labelScanner: services.labelScanner))
    }

    /// A vault whose lock is on, locked: `open` turns a passphrase into the opened vault.
    public convenience init(locked open: @escaping @Sendable (Passphrase?) throws -> OpenedVault, clock: any Clock = SystemClock()) {
        self.init(lockIsOn: true, opened: nil, opening: open, clock: clock)
    }

    /// Whether the vault's lock is on (and so it can be locked; "Lock now" is offered).
    public var hasLock: Bool { state.withLock { lockIsOn } }

    /// The services of the opened vault, nil while locked (the reminder loop asks; it is not a use).
    public var services: WebServices? { state.withLock { opened?.services } }

    /// Whether the pages are closed now (locked, or a lock change under way).
    public var isLocked: Bool { state.withLock { opened == nil } }

    /// The lock change under way, if any.
    public var changeProgress: ChangeProgress? { state.withLock { changing } }

    /// The opened vault, if unlocked and not idle past the limit (an idle vault is locked here); counts as activity
    /// when `touch`.
    func current(touch: Bool) -> OpenedVault? {
        lockIfIdle()
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
        try attempt {
            guard isLocked, changeProgress == nil else { return }
            becomeOpen(try opener(passphrase))
        }
    }

    /// Turns the lock on or off, or changes the passphrase, of the opened vault (see the type's decisions). A
    /// current passphrase that does not fit is counted like a wrong one on the unlock page. Throws
    /// `LockService.Problem.locked` while the vault is locked, and what `LockService` and the vault throw (a new
    /// passphrase too short, the lock already on or off, a file that cannot be written); after a failed conversion
    /// the vault is open again as it stands (the old one, or the new one when the change got past its commit point).
    func changeLock(_ change: LockChange) throws -> Attempt {
        try attempt {
            guard let vault = current(touch: true) else { throw LockService.Problem.locked }
            let application = vault.services.application
            switch change {
            case .change(let current, let new):
                try LockService.changePassphrase(of: application.vault, from: current, to: new)
            case .turnOn(let new):
                try LockService.checkNew(new)
                guard !hasLock else { throw VaultError.lockAlreadyOn }
                try convert(vault, turningOn: true, reopenWith: new) { try LockService.turnOn(application, passphrase: new, reached: $0) }
            case .turnOff(let current):
                try LockService.checkPassphrase(current, of: application.vault)
                try convert(vault, turningOn: false, reopenWith: current) { try LockService.turnOff(application, passphrase: current, reached: $0) }
            }
        }
    }

    /// Seconds until the next attempt is allowed (0: now).
    var secondsUntilNextAttempt: Int {
        let now = clock.now()
        return state.withLock { max(0, Int(nextAttempt.timeIntervalSince(now).rounded(.up))) }
    }

    /// Locks the vault now (Lock now, the server stopping): the services are dropped and their database closed.
    /// Nothing happens while the lock is off. During a lock change, the vault stays locked when the change ends.
    public func lock() {
        let (dropped, actions) = state.withLock { () -> (OpenedVault?, [@Sendable (OpenedVault?) -> Void]) in
            guard lockIsOn || changing != nil else { return (nil, []) }
            if changing != nil { lockWhenChanged = true }
            let dropped = opened
            opened = nil
            return (dropped, onChange)
        }
        guard let dropped else { return }
        for action in actions { action(nil) }
        dropped.close()
    }

    /// Locks the vault when no request came for the idle limit (the timer calls it, and every request).
    public func lockIfIdle() {
        let now = clock.now()
        let idle = state.withLock { lockIsOn && opened != nil && now.timeIntervalSince(lastActivity) >= idleLimit }
        if idle { lock() }
    }

    /// Calls `lockIfIdle` every `interval` seconds on a thread of its own until the returned function is called, so
    /// the key leaves memory even when no request comes to notice the idle time (`cairn serve` starts it whatever
    /// the lock: it may be turned on in Settings).
    public func startIdleTimer(every interval: TimeInterval = 2) -> @Sendable () -> Void {
        let stop = StopSignal()
        let thread = Thread { [weak self] in
            while !stop.isRaised {
                self?.lockIfIdle()
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "cairn-idle-lock"
        thread.start()
        return { stop.raise() }
    }

    /// A flag one thread raises and another reads.
    private final class StopSignal: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        var isRaised: Bool { lock.withLock { raised } }
        func raise() { lock.withLock { raised = true } }
    }

    /// Runs `body` (which throws `EncryptionError.wrongVaultPassphrase` for a passphrase that does not fit) one
    /// attempt at a time, under the growing delay.
    private func attempt(_ body: () throws -> Void) throws -> Attempt {
        try attempts.withLock {
            let now = clock.now()
            let wait = state.withLock { nextAttempt.timeIntervalSince(now) }
            if wait > 0 { return .tooSoon(retryAfter: Int(wait.rounded(.up))) }
            do {
                try body()
                state.withLock {
                    failures = 0
                    nextAttempt = .distantPast
                }
                return .accepted
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

    /// Lets `vault` go (pages say the lock is changing), runs the conversion `body` (told each stage), and opens
    /// the vault again as it now stands: with `passphrase` when its lock is on, without when it is off.
    private func convert(
        _ vault: OpenedVault, turningOn: Bool, reopenWith passphrase: Passphrase,
        _ body: (_ reached: (LockChangeStage) -> Void) throws -> Void
    ) throws {
        let actions = state.withLock { () -> [@Sendable (OpenedVault?) -> Void] in
            opened = nil
            changing = ChangeProgress(turningOn: turningOn, photos: 0)
            lockWhenChanged = false
            return onChange
        }
        for action in actions { action(nil) }
        var failure: (any Error)?
        do {
            try body { stage in if stage == .photoConverted { self.state.withLock { self.changing?.photos += 1 } } }
        } catch {
            failure = error
        }
        vault.close()
        let lockOn = (try? vault.services.application.vault.lockSetting()) == .on
        let reopened: OpenedVault?
        if state.withLock({ lockWhenChanged }) && lockOn {
            reopened = nil
        } else {
            do { reopened = try opener(lockOn ? passphrase : nil) } catch {
                failure = failure ?? error
                reopened = nil
            }
        }
        state.withLock {
            lockIsOn = lockOn
            changing = nil
        }
        if let reopened { becomeOpen(reopened) }
        if let failure { throw failure }
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
