import CairnCore
import Foundation
import Regimen
import Skin
import Storage

/// Reminders: effective-dated preferences, per-schedule switches, what to notify now (`ReminderPlanner`) and the
/// actions of a notification. "Taken" and "Skip" go through `RegimenService.checkIn`, the same idempotent path
/// as the page and the CLI: a dose logged elsewhere is not open, so it is never reminded again, and a "Taken"
/// after one on the page keeps one record.
///
/// Deciding and recording what is sent happen in one write transaction, so two loops (`cairn serve` and the
/// systemd service) never show the same reminder twice.
public final class ReminderService: ReminderSource, @unchecked Sendable {
    let database: Database
    let vault: Vault
    let regimen: RegimenService
    let skin: SkinService
    let clock: any Clock

    /// The morning summary and refill warning are sent at the first check at or after this time of day.
    public static let morningTime = TimeSlot(hour: 7, minute: 0)!

    /// A service over a migrated database.
    public init(database: Database, vault: Vault, regimen: RegimenService, skin: SkinService, clock: any Clock) {
        self.database = database
        self.vault = vault
        self.regimen = regimen
        self.skin = skin
        self.clock = clock
    }

    // MARK: preferences

    /// The preferences in force on `day` (default today): the newest revision whose day is on or before it,
    /// else `ReminderPreferences.standard`.
    public func preferences(on day: LocalDay? = nil) throws -> ReminderPreferences {
        let day = day ?? regimen.today()
        return try database.read { db in try ReminderStore(db).preferences(on: day) ?? .standard }
    }

    /// Saves a preferences revision in force from `day` (default today); earlier days keep theirs.
    public func setPreferences(_ p: ReminderPreferences, from day: LocalDay? = nil) throws {
        let now = clock.now()
        try database.write { db in try ReminderStore(db).insertPreferences(p, from: day ?? regimen.today(), at: now) }
    }

    /// Turns reminders of one schedule on or off from `day` (default today). Throws `ScheduleError.scheduleNotFound`.
    public func setReminders(_ enabled: Bool, for scheduleID: ScheduleID, from day: LocalDay? = nil) throws {
        _ = try regimen.scheduleHistory(scheduleID)
        let now = clock.now()
        try database.write { db in try ReminderStore(db).insertSwitch(enabled, for: scheduleID, from: day ?? regimen.today(), at: now) }
    }

    /// The schedules whose reminders are off on `day` (default today).
    public func remindersOff(on day: LocalDay? = nil) throws -> Set<ScheduleID> {
        let day = day ?? regimen.today()
        return try database.read { db in try ReminderStore(db).remindersOff(on: day) }
    }

    /// Reminds to photograph an area again every `weeks` weeks after its newest photo, from `day` (default today)
    /// on; 0 turns it off (the default). Throws `SkinJournalError.areaNotFound`, `ReminderError.photoWeeksOutOfRange`.
    public func setPhotoReminder(every weeks: Int, for area: AreaID, from day: LocalDay? = nil) throws {
        guard (0...ReminderPlanner.maximumPhotoWeeks).contains(weeks) else { throw ReminderError.photoWeeksOutOfRange }
        _ = try skin.area(area)
        let now = clock.now()
        try database.write { db in
            try ReminderStore(db).insertPhotoInterval(weeks: weeks, for: area, from: day ?? regimen.today(), at: now)
        }
    }

    /// Every area's photo interval in weeks on `day` (default today); an area missing from it has none.
    public func photoReminders(on day: LocalDay? = nil) throws -> [AreaID: Int] {
        let day = day ?? regimen.today()
        return try database.read { db in try ReminderStore(db).photoIntervals(on: day) }
    }

    // MARK: the loop's two calls

    /// The products whose count on hand runs out inside the refill warning's window (none while it is off),
    /// soonest first: what Today and Home show beside the notification.
    public func runningLow() throws -> [SupplyStatus] {
        let today = regimen.today()
        let preferences = try preferences(on: today)
        return try regimen.supplies().filter { s in s.daysLeft(from: today).map(preferences.warnsOfRefill) ?? false }
            .sorted { ($0.runsOutAround!, $0.productName) < ($1.runsOutAround!, $1.productName) }
    }

    /// The notices to show now, recorded as sent in the same transaction.
    public func dueNotices() throws -> [ReminderNotice] {
        let now = clock.now()
        let zone = clock.timeZone
        let today = LocalDay(now, in: zone)
        let open = try regimen.doses(on: today).filter { $0.state == .notLogged }.map(Self.openDose)
        // Read before the write transaction (the services' reads must not nest inside it).
        let yesterday = try regimen.doses(on: today.adding(days: -1)).filter { $0.state == .notLogged }.map(Self.openDose)
        let low = try regimen.supplies().compactMap { s -> (name: String, daysLeft: Int)? in
            s.daysLeft(from: today).map { (s.productName, $0) }
        }
        let areas = try skin.areas()
        let planner = ReminderPlanner()
        return try database.write { db in
            let store = ReminderStore(db)
            let preferences = try store.preferences(on: today) ?? .standard
            var sentBefore: [String: ReminderHistory] = [:]
            for dose in open {
                if let h = try store.history(of: dose.doseID) { sentBefore[dose.doseID] = h }
            }
            var notices = planner.plan(
                open: open, history: sentBefore, preferences: preferences,
                remindersOff: try store.remindersOff(on: today), now: now, zone: zone)
            let wall = TimeSlot(now, in: zone)
            if wall >= Self.morningTime, !preferences.isQuiet(at: wall) {
                let summaryKey = "summary:\(today)"
                if try !store.hasDelivery(summaryKey) {
                    let off = try store.remindersOff(on: today.adding(days: -1))
                    if let summary = planner.morningSummary(
                        unloggedYesterday: yesterday.filter { !off.contains($0.scheduleID) },
                        preferences: preferences)
                    {
                        notices.append(summary)
                    }
                    try store.insertDelivery(summaryKey, kind: "summary", at: now)
                }
                let refillKey = "refill:\(today)"
                if try !store.hasDelivery(refillKey) {
                    if let warning = planner.refillWarning(products: low, preferences: preferences) { notices.append(warning) }
                    try store.insertDelivery(refillKey, kind: "refill", at: now)
                }
                // An area is due `weeks` after its newest photo (never before its first one); reminded once per due day.
                let intervals = try store.photoIntervals(on: today)
                var duePhotos: [(name: String, key: String)] = []
                for summary in areas {
                    guard let weeks = intervals[summary.area.id], let last = summary.latestCapture else { continue }
                    let dueDay = LocalDay(last, in: zone).adding(days: 7 * weeks)
                    let key = "photo:\(summary.area.id.rawValue):\(dueDay)"
                    if dueDay <= today, try !store.hasDelivery(key) { duePhotos.append((summary.area.name, key)) }
                }
                if let photo = planner.photoReminder(areas: duePhotos.map(\.name), preferences: preferences) {
                    notices.append(photo)
                    for due in duePhotos { try store.insertDelivery(due.key, kind: "photo", at: now) }
                }
            }
            for notice in notices where !notice.doseIDs.isEmpty {
                for id in notice.doseIDs { try store.insertDelivery(id, kind: notice.kind.rawValue, at: now) }
            }
            return notices
        }
    }

    /// What a notification's button does for its doses: Taken and Skip log them through the one check-in path
    /// (idempotent: a dose already logged keeps its record); Snooze reminds again in `ReminderPlanner.snoozeMinutes`.
    public func handle(_ action: ReminderAction, doseIDs: [String]) throws {
        switch action {
        case .taken, .skip:
            // A notification shows a dose at its time, so its Taken is never an early dose to ask about.
            try regimen.checkIn(doseIDs.map { CheckInRequest(doseID: $0, status: action == .taken ? .taken : .skipped, confirmedEarly: true) })
        case .snooze:
            let now = clock.now()
            let until = now.addingTimeInterval(Double(ReminderPlanner.snoozeMinutes * 60))
            try database.write { db in
                let store = ReminderStore(db)
                for id in doseIDs { try store.insertDelivery(id, kind: "snooze", at: now, until: until) }
            }
        }
    }

    // MARK: internals

    private static func openDose(_ d: TodayDose) -> OpenDose {
        OpenDose(
            doseID: d.doseID, scheduleID: d.scheduleID, productName: d.productName, day: d.day,
            slot: d.time, dueAt: d.dueAt)
    }

    /// What was sent for each of `subjects` that has a history, read in one transaction.
    func sentHistories(of subjects: [String]) throws -> [String: ReminderHistory] {
        try database.read { db in
            var found: [String: ReminderHistory] = [:]
            let store = ReminderStore(db)
            for subject in subjects { found[subject] = try store.history(of: subject) }
            return found
        }
    }

    /// Records one notification (or snooze) sent for `subject`.
    func recordSent(_ subject: String, kind: String, at: Date, until: Date?) throws {
        try database.write { db in try ReminderStore(db).insertDelivery(subject, kind: kind, at: at, until: until) }
    }
}

/// Where the reminder loop gets its notices and sends button presses: the database (`ReminderService`) or, while
/// the database is locked, the timetable (`LockedReminders`).
public protocol ReminderSource: AnyObject {
    /// The notices to show now, recorded as sent.
    func dueNotices() throws -> [ReminderNotice]
    /// What a notification's button does for its doses.
    func handle(_ action: ReminderAction, doseIDs: [String]) throws
}

/// The reminder loop: every `interval` it asks its source for the notices due and posts them, and it pumps the
/// notifier so a pressed button reaches the source's `handle`. Run by `cairn remind` and inside `cairn serve`.
/// While the database is readable it first logs what was queued while it was locked, and afterwards rewrites
/// the timetable; while `isLocked()` it plans from the timetable.
public final class ReminderLoop {
    /// The service over the readable database, or nil while the vault is locked.
    let current: () -> ReminderService?
    let locked: LockedReminders
    let notifier: any ReminderPosting
    let report: (String) -> Void
    let afterEachCheck: () -> Void

    /// A loop; `report` receives one line per problem (never user content). `isLocked` says whether the
    /// database is locked (the vault lock will answer it; until then nothing is locked). `afterEachCheck` runs at
    /// the end of every check (`cairn remind` lets go of its writer's hold there, so `cairn serve` can start).
    public convenience init(
        reminders: ReminderService, locked: LockedReminders? = nil, isLocked: @escaping () -> Bool = { false },
        notifier: any ReminderPosting, report: @escaping (String) -> Void = { _ in },
        afterEachCheck: @escaping () -> Void = {}
    ) {
        self.init(
            current: { isLocked() ? nil : reminders },
            locked: locked ?? LockedReminders(vault: reminders.vault, clock: reminders.clock),
            notifier: notifier, report: report, afterEachCheck: afterEachCheck)
    }

    /// A loop whose database may come and go (`cairn serve`, which locks and unlocks the vault): `current` is the
    /// service over the unlocked vault, or nil while it is locked (then `locked`, the timetable, is used).
    public init(
        current: @escaping () -> ReminderService?, locked: LockedReminders, notifier: any ReminderPosting,
        report: @escaping (String) -> Void = { _ in }, afterEachCheck: @escaping () -> Void = {}
    ) {
        self.current = current
        self.locked = locked
        self.notifier = notifier
        self.report = report
        self.afterEachCheck = afterEachCheck
    }

    /// One check: posts what is due now and delivers pending button presses. Returns what was posted.
    @discardableResult
    public func tick() -> [ReminderNotice] {
        notifier.pumpEvents()
        var posted: [ReminderNotice] = []
        let reminders = current()
        let source: any ReminderSource = reminders ?? locked
        do {
            // One check at a time across processes: the queue's replay, the plan and the timetable it leaves.
            let due = try locked.checkLock.hold { () throws -> [ReminderNotice] in
                if let reminders { try reminders.replayQueue() }
                let due = try source.dueNotices()
                if let reminders { try reminders.writeTimetable() }
                return due
            }
            for notice in due {
                let ids = notice.doseIDs
                do {
                    try notifier.post(notice) { [source, report, afterEachCheck] action in
                        do { try source.handle(action, doseIDs: ids) } catch { report("A reminder's action could not be logged.") }
                        afterEachCheck()
                    }
                    posted.append(notice)
                } catch {
                    report("A reminder could not be shown: the desktop's notification service did not answer.")
                }
            }
        } catch {
            report("Reminders could not read the vault this time; the next check tries again.")
        }
        afterEachCheck()
        return posted
    }

    /// The notice a page's "Send a test reminder" shows: no dose, no button, nothing logged.
    public static let testNotice = ReminderNotice(
        kind: .summary, doseIDs: [], body: "A test reminder from Cairn: dose reminders will show like this.", actions: [])

    /// Checks every `interval` seconds, pumping button presses every half second in between, until `shouldStop`.
    /// A test reminder asked through `status` is shown at the next half second.
    public func run(interval: TimeInterval = 30, status: ReminderStatus? = nil, shouldStop: @escaping () -> Bool = { false }) {
        var next = Date.distantPast
        while !shouldStop() {
            if Date() >= next {
                tick()
                next = Date().addingTimeInterval(interval)
            }
            if let status, status.takeTestRequest() {
                let shown: Bool
                do {
                    try notifier.post(Self.testNotice) { _ in }
                    shown = true
                } catch { shown = false }
                status.reportTest(shown: shown)
            }
            notifier.pumpEvents()
            Thread.sleep(forTimeInterval: 0.5)
        }
    }
}

/// Whether this process shows reminders, for the pages that say so (the Reminders page, Home): set by the loop's
/// starter (`cairn serve`), read by the web. A page's test reminder is handed to the loop's thread (libnotify is used
/// from that thread only) and its outcome waited for.
public final class ReminderStatus: @unchecked Sendable {
    /// What the pages say.
    public enum State: Sendable, Equatable {
        /// The loop runs and a notification service answered (its name and version, when it gave them).
        case on(service: String?)
        /// No desktop notification service answered: reminders cannot show while this runs.
        case off
    }

    private let lock = NSLock()
    private var state: State
    private var wanted = false
    private var waiting: [(Bool) -> Void] = []

    public init(_ state: State) { self.state = state }

    /// The state now.
    public var current: State { lock.withLock { state } }

    /// Sets the state (the loop's starter, once it knows).
    public func set(_ new: State) { lock.withLock { state = new } }

    /// Asks the loop for a test reminder and waits up to `timeout` seconds: true when it was shown, false when the
    /// service refused it, nil when reminders are off or the loop did not answer in time.
    public func sendTest(timeout: TimeInterval = 3) -> Bool? {
        let done = DispatchSemaphore(value: 0)
        let answer = Answer()
        let asked: Bool = lock.withLock {
            guard case .on = state else { return false }
            wanted = true
            waiting.append { shown in
                answer.value = shown
                done.signal()
            }
            return true
        }
        guard asked, done.wait(timeout: .now() + timeout) == .success else { return nil }
        return answer.value
    }

    /// For the loop: whether a test reminder was asked for since the last call.
    public func takeTestRequest() -> Bool {
        lock.withLock {
            defer { wanted = false }
            return wanted
        }
    }

    /// For the loop: how the test reminder went; every page waiting for it hears.
    public func reportTest(shown: Bool) {
        let callbacks = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        for callback in callbacks { callback(shown) }
    }

    private final class Answer: @unchecked Sendable { var value: Bool? }
}
