import CairnCore
import Foundation
import Regimen
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// What dose reminders need while the vault's database cannot be read (the vault is locked), kept outside it in
/// `reminders.timetable` (mode 0600): the open doses of today and the next `ReminderTimetable.days` days, each
/// with its id (schedule revision, day, slot), its schedule id, when it is due and what was already sent for it,
/// plus quiet hours and the repeat settings. No product name, amount, ledger or outcome is in it: see
/// docs/REMINDERS.md for what it does reveal. The reminder loop rewrites it after each check while the database
/// is readable (only when it changed), so it trails a change by at most one check.
public struct ReminderTimetable: Codable, Equatable, Sendable {
    /// How many days after today it covers.
    public static let days = 7
    /// The format's version.
    public static let currentVersion = 1

    /// One open dose.
    public struct Dose: Codable, Equatable, Sendable {
        /// `DoseOccurrence.doseID`.
        public let dose: String
        /// Its schedule's id.
        public let schedule: String
        /// Its local day, YYYY-MM-DD.
        public let day: String
        /// Its wall-clock time, HH:MM.
        public let slot: String
        /// The instant it is due (ISO 8601, UTC).
        public let due: String
        /// Notifications already sent for it.
        public let sent: Int
        /// The last one, if any.
        public let lastSent: String?
        /// Snoozed until then, if snoozed.
        public let snoozedUntil: String?
    }

    /// The format's version.
    public let version: Int
    /// Quiet hours, HH:MM, or nil.
    public let quietStart: String?
    /// The end of quiet hours.
    public let quietEnd: String?
    /// Repeat every N minutes (0: none).
    public let repeatMinutes: Int
    /// At most N repeats.
    public let repeatLimit: Int
    /// The open doses whose schedules have reminders on, in due order.
    public let doses: [Dose]

    /// Reads the timetable at `url`; nil when there is none or it cannot be read as one (never a crash).
    static func read(at url: URL) -> ReminderTimetable? {
        guard let data = try? Data(contentsOf: url),
            let table = try? JSONDecoder().decode(ReminderTimetable.self, from: data), table.version == currentVersion
        else { return nil }
        return table
    }

    /// Writes it at `url` (a whole new 0600 file that takes the name only once flushed), unless the file
    /// already holds exactly this.
    func write(at url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        if (try? Data(contentsOf: url)) == data { return }
        try OutputFile.write(data, to: url.path, replace: true)
    }

    /// The preferences it carries; names are never shown from it, and the daily notices need the database.
    var preferences: ReminderPreferences {
        (try? ReminderPreferences(
            quietStart: quietStart.flatMap(TimeSlot.init(parsing:)), quietEnd: quietEnd.flatMap(TimeSlot.init(parsing:)),
            showProductNames: false, repeatMinutes: repeatMinutes, repeatLimit: repeatLimit,
            morningSummary: false, refillDays: 0)) ?? .standard
    }
}

/// A notification button pressed (or a notification shown) while the database was locked: one JSON line of
/// `reminders.queue`, appended and flushed at once, replayed at the next unlock by `ReminderService.replayQueue()`.
struct QueuedReminderEvent: Codable, Equatable {
    /// `taken`, `skip`, `snooze`, or `shown` (a notification was sent: recorded so it is not sent again).
    let event: String
    /// The dose.
    let dose: String
    /// When (ISO 8601, UTC).
    let at: String

    /// Appends `events` to the queue at `url` (created 0600), flushed before returning.
    static func append(_ events: [QueuedReminderEvent], to url: URL) throws {
        guard !events.isEmpty else { return }
        var bytes = Data()
        for e in events { bytes += try JSONEncoder().encode(e) + Data("\n".utf8) }
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw OutputFileError.unwritable }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else { throw OutputFileError.unwritable }
    }

    /// The queued events, in order; a line cut off by a crash is skipped.
    static func read(from url: URL) -> [QueuedReminderEvent] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONDecoder().decode(QueuedReminderEvent.self, from: Data($0)) }
    }
}

/// Reminders while the database is locked: planned by the same `ReminderPlanner` from the timetable (always
/// the discreet text), with every button press queued for the next unlock. What it shows is queued too, so
/// nothing shown while locked is shown again after the unlock.
public final class LockedReminders: ReminderSource, @unchecked Sendable {
    let timetableURL: URL
    let queueURL: URL
    let clock: any Clock
    /// One reminder check at a time across processes (`reminders.lock`).
    let checkLock: ReminderCheckLock

    /// Reminders from the timetable of `vault`.
    public init(vault: Vault, clock: any Clock) {
        timetableURL = vault.reminderTimetableURL
        queueURL = vault.reminderQueueURL
        checkLock = ReminderCheckLock(url: vault.reminderLockURL)
        self.clock = clock
    }

    /// Plans from the timetable and the queue: what was shown, snoozed or logged since the lock is read from the
    /// queue, not from memory, so two processes reminding from one locked vault (`cairn serve` and `cairn remind`)
    /// never show one reminder twice (their checks take turns under `reminders.lock`).
    public func dueNotices() throws -> [ReminderNotice] {
        guard let table = ReminderTimetable.read(at: timetableURL) else { return [] }
        let now = clock.now()
        var history: [String: ReminderHistory] = [:]
        var logged: Set<String> = []
        for d in table.doses {
            if let last = d.lastSent.flatMap(Timestamp.date(from:)) {
                history[d.dose] = ReminderHistory(sent: d.sent, lastSentAt: last, snoozedUntil: d.snoozedUntil.flatMap(Timestamp.date(from:)))
            }
        }
        for event in QueuedReminderEvent.read(from: queueURL) {
            guard let at = Timestamp.date(from: event.at) else { continue }
            let before = history[event.dose]
            switch event.event {
            case "shown": history[event.dose] = ReminderHistory(sent: (before?.sent ?? 0) + 1, lastSentAt: at, snoozedUntil: nil)
            case "snooze":
                history[event.dose] = ReminderHistory(
                    sent: before?.sent ?? 1, lastSentAt: before?.lastSentAt ?? at,
                    snoozedUntil: at.addingTimeInterval(Double(ReminderPlanner.snoozeMinutes * 60)))
            case "taken", "skip": logged.insert(event.dose)
            default: continue
            }
        }
        var open: [OpenDose] = []
        for d in table.doses where !logged.contains(d.dose) {
            guard let day = LocalDay(parsing: d.day), let slot = TimeSlot(parsing: d.slot), let due = Timestamp.date(from: d.due) else { continue }
            open.append(OpenDose(doseID: d.dose, scheduleID: ScheduleID(d.schedule), productName: "", day: day, slot: slot, dueAt: due))
        }
        let openIDs = Set(open.map(\.doseID))
        let notices = ReminderPlanner().plan(
            open: open, history: history.filter { openIDs.contains($0.key) }, preferences: table.preferences,
            remindersOff: [], now: now, zone: clock.timeZone)
        let shown = notices.flatMap(\.doseIDs).map { QueuedReminderEvent(event: "shown", dose: $0, at: Timestamp.string(from: now)) }
        try QueuedReminderEvent.append(shown, to: queueURL)
        return notices
    }

    public func handle(_ action: ReminderAction, doseIDs: [String]) throws {
        let now = clock.now()
        try checkLock.hold {
            try QueuedReminderEvent.append(
                doseIDs.map { QueuedReminderEvent(event: action.rawValue, dose: $0, at: Timestamp.string(from: now)) },
                to: queueURL)
        }
    }
}

/// Lets one process at a time check reminders of a vault: the replay of the queue, the plan and what it records,
/// and the new timetable happen together under an exclusive `flock` on `reminders.lock` (see docs/REMINDERS.md).
struct ReminderCheckLock {
    /// Another process held it for longer than a check takes.
    struct Busy: CairnError {
        var userMessage: String { "Another Cairn process is checking reminders; the next check tries again." }
        var errorKind: ErrorKind { .conflict }
    }

    let url: URL

    /// Runs `body` holding the lock, waiting up to 10 s for another process's check to end.
    func hold<T>(_ body: () throws -> T) throws -> T {
        let file = try FileLock(path: url.path)
        let deadline = Date().addingTimeInterval(10)
        while !file.tryLock(exclusive: true) {
            guard Date() < deadline else { throw Busy() }
            Thread.sleep(forTimeInterval: 0.02)
        }
        defer { file.unlock() }
        return try body()
    }
}

extension ReminderService {
    /// The timetable of now: the open doses of today and the next `ReminderTimetable.days` days of the schedules
    /// with reminders on, with what was sent for each.
    public func timetable() throws -> ReminderTimetable {
        let today = regimen.today()
        let preferences = try preferences(on: today)
        let doses = try regimen.doses(in: today...today.adding(days: ReminderTimetable.days)).filter { $0.state == .notLogged }
        let histories = try sentHistories(of: doses.map(\.doseID))
        var rows: [ReminderTimetable.Dose] = []
        var offOn: [LocalDay: Set<ScheduleID>] = [:]
        for dose in doses.sorted(by: { $0.dueAt < $1.dueAt }) {
            let day = dose.day
            let off = try offOn[day] ?? remindersOff(on: day)
            offOn[day] = off
            guard !off.contains(dose.scheduleID) else { continue }
            let sent = histories[dose.doseID]
            rows.append(
                ReminderTimetable.Dose(
                    dose: dose.doseID, schedule: dose.scheduleID.rawValue, day: dose.day.description,
                    slot: dose.time.description, due: Timestamp.string(from: dose.dueAt),
                    sent: sent?.sent ?? 0, lastSent: sent.map { Timestamp.string(from: $0.lastSentAt) },
                    snoozedUntil: sent?.snoozedUntil.map(Timestamp.string(from:))))
        }
        return ReminderTimetable(
            version: ReminderTimetable.currentVersion, quietStart: preferences.quietStart?.description,
            quietEnd: preferences.quietEnd?.description, repeatMinutes: preferences.repeatMinutes,
            repeatLimit: preferences.repeatLimit, doses: rows)
    }

    /// Rewrites `reminders.timetable` when it changed.
    public func writeTimetable() throws {
        try timetable().write(at: vault.reminderTimetableURL)
    }

    /// Logs what was queued while the database was locked, then removes the queue: Taken and Skip through the
    /// one idempotent check-in (at the moment pressed, so a dose logged meanwhile keeps one record), shown
    /// notifications and snoozes as sent. Replaying twice is harmless (check-ins are idempotent), so a failure
    /// part-way keeps the whole queue for the next check. Returns how many events it read.
    @discardableResult
    public func replayQueue() throws -> Int {
        let events = QueuedReminderEvent.read(from: vault.reminderQueueURL)
        guard FileManager.default.fileExists(atPath: vault.reminderQueueURL.path) else { return 0 }
        for event in events {
            guard let at = Timestamp.date(from: event.at) else { continue }
            switch event.event {
            case "taken", "skip":
                do {
                    _ = try regimen.checkIn([
                        CheckInRequest(doseID: event.dose, status: event.event == "taken" ? .taken : .skipped, at: at, confirmedEarly: true)
                    ])
                } catch is ScheduleError {
                    // The dose can no longer be logged (its schedule changed meanwhile): left out, not retried forever.
                    // Any other failure (the vault busy or held by another process) keeps the queue for the next check.
                }
            case "shown": try recordSent(event.dose, kind: "due", at: at, until: nil)
            case "snooze":
                try recordSent(event.dose, kind: "snooze", at: at, until: at.addingTimeInterval(Double(ReminderPlanner.snoozeMinutes * 60)))
            default: continue
            }
        }
        try FileManager.default.removeItem(at: vault.reminderQueueURL)
        return events.count
    }
}
