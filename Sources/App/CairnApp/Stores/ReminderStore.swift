import CairnCore
import Foundation
import Regimen
import Skin
import Storage

/// The reminders' SQL: effective-dated preferences, per-schedule switches and per-area photo intervals, and the
/// log of what was sent. A store holds no rule: `ReminderService` decides what is due and owns the transaction
/// in which deciding and recording happen together.
struct ReminderStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: preferences and switches

    /// The preferences in force on `day`: the newest revision on or before it; nil when there is none.
    func preferences(on day: LocalDay) throws -> ReminderPreferences? {
        try db.queryFirst(
            """
            SELECT * FROM reminder_preferences WHERE effective_from <= ? ORDER BY effective_from DESC, id DESC LIMIT 1
            """, day
        ).map(ReminderPreferences.init(row:))
    }

    func insertPreferences(_ p: ReminderPreferences, from day: LocalDay, at now: Date) throws {
        try db.execute(
            """
            INSERT INTO reminder_preferences (effective_from, quiet_start, quiet_end, show_names, repeat_minutes, repeat_limit,
                morning_summary, refill_days, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, day, p.quietStart?.description, p.quietEnd?.description, p.showProductNames, p.repeatMinutes, p.repeatLimit,
            p.morningSummary, p.refillDays, now)
    }

    func insertSwitch(_ enabled: Bool, for schedule: ScheduleID, from day: LocalDay, at now: Date) throws {
        try db.execute(
            "INSERT INTO reminder_schedule_switches (schedule_id, effective_from, enabled, recorded_at) VALUES (?, ?, ?, ?)",
            schedule.rawValue, day, enabled, now)
    }

    /// The schedules whose newest switch on or before `day` is off.
    func remindersOff(on day: LocalDay) throws -> Set<ScheduleID> {
        var latest: [String: Bool] = [:]
        for row in try db.query(
            """
            SELECT schedule_id, enabled FROM reminder_schedule_switches WHERE effective_from <= ? ORDER BY effective_from, id
            """, day)
        {
            latest[try row.get("schedule_id")] = try row.get("enabled")
        }
        return Set(latest.filter { !$0.value }.keys.map(ScheduleID.init))
    }

    func insertPhotoInterval(weeks: Int, for area: AreaID, from day: LocalDay, at now: Date) throws {
        try db.execute(
            "INSERT INTO reminder_area_intervals (area_id, effective_from, weeks, recorded_at) VALUES (?, ?, ?, ?)",
            area.rawValue, day, weeks, now)
    }

    /// Every area's newest photo interval on or before `day`, in weeks; areas whose newest is 0 (off) are absent.
    func photoIntervals(on day: LocalDay) throws -> [AreaID: Int] {
        var latest: [String: Int] = [:]
        for row in try db.query(
            """
            SELECT area_id, weeks FROM reminder_area_intervals WHERE effective_from <= ? ORDER BY effective_from, id
            """, day)
        {
            latest[try row.get("area_id")] = try row.get("weeks")
        }
        return Dictionary(uniqueKeysWithValues: latest.filter { $0.value > 0 }.map { (AreaID($0.key), $0.value) })
    }

    // MARK: deliveries

    /// What was sent for `subject` (a dose id, or a key such as "summary:2026-03-01"): how many notifications,
    /// the last one, and a snooze still to run out; nil when nothing was sent.
    func history(of subject: String) throws -> ReminderHistory? {
        var sent = 0
        var last: Date?
        var snoozedUntil: Date?
        for row in try db.query("SELECT kind, sent_at, until FROM reminder_deliveries WHERE subject = ? ORDER BY id", subject) {
            let at: Date = try row.get("sent_at")
            if try row.get("kind", as: String.self) == "snooze" {
                snoozedUntil = try row.get("until", as: Date.self)
            } else {
                sent += 1
                last = at
                if let until = snoozedUntil, at >= until { snoozedUntil = nil }
            }
        }
        guard let last else { return nil }
        return ReminderHistory(sent: sent, lastSentAt: last, snoozedUntil: snoozedUntil)
    }

    /// Whether anything was sent for `subject`.
    func hasDelivery(_ subject: String) throws -> Bool {
        try db.scalar("SELECT EXISTS (SELECT 1 FROM reminder_deliveries WHERE subject = ?)", subject, as: Int.self) == 1
    }

    /// Records a notification of `kind` sent for `subject` (`until` for a snooze).
    func insertDelivery(_ subject: String, kind: String, at: Date, until: Date? = nil) throws {
        try db.execute("INSERT INTO reminder_deliveries (subject, kind, sent_at, until) VALUES (?, ?, ?, ?)", subject, kind, at, until)
    }
}

extension ReminderPreferences {
    /// A `reminder_preferences` row.
    init(row: Row) throws {
        let start: String? = try row.optional("quiet_start")
        let end: String? = try row.optional("quiet_end")
        try self.init(
            quietStart: start.flatMap(TimeSlot.init(parsing:)), quietEnd: end.flatMap(TimeSlot.init(parsing:)),
            showProductNames: try row.get("show_names"), repeatMinutes: try row.get("repeat_minutes"),
            repeatLimit: try row.get("repeat_limit"), morningSummary: try row.get("morning_summary"),
            refillDays: try row.get("refill_days"))
    }
}
