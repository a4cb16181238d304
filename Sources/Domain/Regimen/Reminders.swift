import CairnCore
import Foundation

/// How reminders behave, effective-dated like plans (a change is a new revision from a day on).
public struct ReminderPreferences: Hashable, Sendable {
    /// The longest repeat interval, in minutes.
    public static let maximumRepeatMinutes = 720
    /// The most repeats of one dose.
    public static let maximumRepeats = 20
    /// The most days of supply a refill warning may look ahead.
    public static let maximumRefillDays = 90

    /// Quiet hours: no notification while the wall clock is from `quietStart` up to (not including) `quietEnd`;
    /// the span may cross midnight (22:00-07:00). Nil: none.
    public let quietStart: TimeSlot?
    /// The end of quiet hours.
    public let quietEnd: TimeSlot?
    /// Name the products in the text (off by default: "A dose is due at 08:00").
    public let showProductNames: Bool
    /// Repeat a reminder every N minutes until the dose is logged; 0 for no repeat.
    public let repeatMinutes: Int
    /// At most this many repeats of one dose.
    public let repeatLimit: Int
    /// One notification in the morning when doses of yesterday were not logged.
    public let morningSummary: Bool
    /// Warn when a product's supply lasts this many days or fewer; 0 for no warning.
    public let refillDays: Int

    /// The defaults: no quiet hours, discreet text, no repeats (limit 3 once turned on), a morning summary,
    /// refill warnings at 7 days.
    public static let standard = try! ReminderPreferences()

    /// Preferences. Throws `ReminderError` for quiet hours with one end only or an empty span, or a number out of range.
    public init(
        quietStart: TimeSlot? = nil, quietEnd: TimeSlot? = nil, showProductNames: Bool = false, repeatMinutes: Int = 0,
        repeatLimit: Int = 3, morningSummary: Bool = true, refillDays: Int = 7
    ) throws {
        guard (quietStart == nil) == (quietEnd == nil), quietStart == nil || quietStart != quietEnd else {
            throw ReminderError.quietHoursIncomplete
        }
        guard (0...Self.maximumRepeatMinutes).contains(repeatMinutes), (0...Self.maximumRepeats).contains(repeatLimit) else {
            throw ReminderError.repeatOutOfRange
        }
        guard (0...Self.maximumRefillDays).contains(refillDays) else { throw ReminderError.refillDaysOutOfRange }
        self.quietStart = quietStart
        self.quietEnd = quietEnd
        self.showProductNames = showProductNames
        self.repeatMinutes = repeatMinutes
        self.repeatLimit = repeatLimit
        self.morningSummary = morningSummary
        self.refillDays = refillDays
    }

    /// Whether a supply lasting `daysLeft` more days is inside the refill warning's window (never when it is off).
    public func warnsOfRefill(daysLeft: Int) -> Bool { refillDays > 0 && daysLeft <= refillDays }

    /// Parses quiet hours as the person types them: "22:00-07:00" (start-end), or "off" / "" for none. The one
    /// parser for the CLI's `--quiet` and the Settings page. Throws `ReminderError.quietHoursIncomplete`.
    public static func quietHours(parsing text: String) throws -> (start: TimeSlot, end: TimeSlot)? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.isEmpty || t == "off" || t == "none" { return nil }
        let parts = t.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let start = TimeSlot(parsing: parts[0]), let end = TimeSlot(parsing: parts[1]), start != end else {
            throw ReminderError.quietHoursIncomplete
        }
        return (start, end)
    }

    /// "22:00-07:00", or "off".
    public var quietHoursText: String {
        guard let quietStart, let quietEnd else { return "off" }
        return "\(quietStart)-\(quietEnd)"
    }

    /// A copy with some values changed (each nil keeps the current one; `quiet` .some(nil) turns quiet hours off).
    public func with(
        quiet: (start: TimeSlot, end: TimeSlot)?? = nil, showProductNames: Bool? = nil, repeatMinutes: Int? = nil,
        repeatLimit: Int? = nil, morningSummary: Bool? = nil, refillDays: Int? = nil
    ) throws -> ReminderPreferences {
        let q: (start: TimeSlot, end: TimeSlot)? = quiet ?? quietStart.map { (start: $0, end: quietEnd!) }
        return try ReminderPreferences(
            quietStart: q?.start, quietEnd: q?.end, showProductNames: showProductNames ?? self.showProductNames,
            repeatMinutes: repeatMinutes ?? self.repeatMinutes, repeatLimit: repeatLimit ?? self.repeatLimit,
            morningSummary: morningSummary ?? self.morningSummary, refillDays: refillDays ?? self.refillDays)
    }

    /// Whether `slot` falls in the quiet hours.
    public func isQuiet(at slot: TimeSlot) -> Bool {
        guard let start = quietStart, let end = quietEnd else { return false }
        return start < end ? (slot >= start && slot < end) : (slot >= start || slot < end)
    }
}

/// Why reminder preferences were refused. Messages never repeat what was typed.
public enum ReminderError: CairnError, Hashable, Sendable {
    /// Quiet hours need a start and an end, and they differ.
    case quietHoursIncomplete
    /// A repeat interval outside 0...720 minutes or a limit outside 0...20.
    case repeatOutOfRange
    /// Refill days outside 0...90.
    case refillDaysOutOfRange
    /// A photo interval outside 0...52 weeks.
    case photoWeeksOutOfRange

    public var userMessage: String {
        switch self {
        case .quietHoursIncomplete: "Quiet hours need a start and an end time that differ, for example 22:00 to 07:00."
        case .repeatOutOfRange: "Repeat every 0 to 720 minutes (0: no repeat), at most 20 times."
        case .refillDaysOutOfRange: "A refill warning looks 0 to 90 days ahead (0: no warning)."
        case .photoWeeksOutOfRange: "A photo reminder comes every 1 to 52 weeks (0: no reminder)."
        }
    }
}

/// A scheduled dose not logged yet, as the reminder planner sees it.
public struct OpenDose: Hashable, Sendable {
    /// The dose (`DoseOccurrence.doseID`).
    public let doseID: String
    /// Its schedule (reminders are switched on or off per schedule).
    public let scheduleID: ScheduleID
    /// The product's name (shown only when the person turned names on).
    public let productName: String
    /// The local day and slot.
    public let day: LocalDay
    /// The wall-clock time.
    public let slot: TimeSlot
    /// The instant it is due (`WallClock` in the schedule's zone rule).
    public let dueAt: Date

    /// An open dose.
    public init(doseID: String, scheduleID: ScheduleID, productName: String, day: LocalDay, slot: TimeSlot, dueAt: Date) {
        self.doseID = doseID
        self.scheduleID = scheduleID
        self.productName = productName
        self.day = day
        self.slot = slot
        self.dueAt = dueAt
    }
}

/// What was already sent for one dose.
public struct ReminderHistory: Hashable, Sendable {
    /// Notifications sent for the dose (the first one and its repeats).
    public let sent: Int
    /// The last one.
    public let lastSentAt: Date
    /// Snoozed until then, if the person chose Snooze.
    public let snoozedUntil: Date?

    /// A history.
    public init(sent: Int, lastSentAt: Date, snoozedUntil: Date?) {
        self.sent = sent
        self.lastSentAt = lastSentAt
        self.snoozedUntil = snoozedUntil
    }
}

/// The buttons of a dose notification.
public enum ReminderAction: String, Hashable, Sendable, CaseIterable {
    /// Log the doses as taken now.
    case taken
    /// Log the doses as skipped.
    case skip
    /// Remind again in `ReminderPlanner.snoozeMinutes`.
    case snooze

    /// The button's label.
    public var label: String {
        switch self {
        case .taken: "Taken"
        case .skip: "Skip"
        case .snooze: "Snooze"
        }
    }
}

/// One notification to show.
public struct ReminderNotice: Hashable, Sendable {
    /// What it is about.
    public enum Kind: String, Hashable, Sendable {
        /// Doses due now.
        case due
        /// A repeat or the end of a snooze.
        case repeated = "repeat"
        /// Doses whose time passed while nothing could remind (the machine slept, quiet hours): one notice.
        case catchUp = "catch-up"
        /// Yesterday's doses that were not logged.
        case summary
        /// A product running low.
        case refill
        /// Skin areas due for a new photo.
        case photo
    }

    /// The kind.
    public let kind: Kind
    /// The doses it is about (empty for a summary or refill warning).
    public let doseIDs: [String]
    /// The title ("Cairn").
    public let title: String
    /// The text.
    public let body: String
    /// The buttons (dose notices only).
    public let actions: [ReminderAction]

    /// A notice.
    public init(kind: Kind, doseIDs: [String], title: String = "Cairn", body: String, actions: [ReminderAction]) {
        self.kind = kind
        self.doseIDs = doseIDs
        self.title = title
        self.body = body
        self.actions = actions
    }
}

/// Decides which notifications to show at a moment: pure, so the DST, zone and sleep cases run on a fixed clock.
///
/// Rules:
/// - a dose is reminded once when its time comes (identified by its dose id, never by an instant, so 02:30 on
///   a spring-forward day and 01:30 on a fall-back day each fire once); the doses of one slot share a notice;
/// - a dose more than `lateAfter` past its time that was never reminded (the machine slept, quiet hours held
///   it back) is part of ONE catch-up notice with every other such dose, never a burst;
/// - repeats every `repeatMinutes` up to `repeatLimit` times while it is not logged; Snooze reminds again after
///   `snoozeMinutes` (not counted as a repeat);
/// - nothing is shown during quiet hours or for a schedule whose reminders are off; a logged dose is not open, so
///   it is never reminded again;
/// - text is discreet unless the person turned product names on.
public struct ReminderPlanner: Sendable {
    /// A reminder later than this is a catch-up.
    public static let lateAfter: TimeInterval = 15 * 60
    /// Snooze length.
    public static let snoozeMinutes = 10

    /// A planner.
    public init() {}

    /// The notices to show at `now` for `open` doses, given what was sent before.
    public func plan(
        open: [OpenDose], history: [String: ReminderHistory], preferences: ReminderPreferences,
        remindersOff: Set<ScheduleID>, now: Date, zone: TimeZone
    ) -> [ReminderNotice] {
        let wall = TimeSlot(now, in: zone)
        guard !preferences.isQuiet(at: wall) else { return [] }
        let due = open.filter { $0.dueAt <= now && !remindersOff.contains($0.scheduleID) }.sorted { $0.dueAt < $1.dueAt }
        var fresh: [OpenDose] = []
        var late: [OpenDose] = []
        var again: [OpenDose] = []
        for dose in due {
            guard let sent = history[dose.doseID] else {
                if now.timeIntervalSince(dose.dueAt) > Self.lateAfter { late.append(dose) } else { fresh.append(dose) }
                continue
            }
            if let until = sent.snoozedUntil {
                if now >= until && sent.lastSentAt < until { again.append(dose) }
            } else if preferences.repeatMinutes > 0, sent.sent <= preferences.repeatLimit,
                now.timeIntervalSince(sent.lastSentAt) >= Double(preferences.repeatMinutes * 60)
            {
                again.append(dose)
            }
        }
        var notices: [ReminderNotice] = []
        for slot in Set(fresh.map(\.slot)).sorted() {
            let doses = fresh.filter { $0.slot == slot }
            notices.append(
                ReminderNotice(
                    kind: .due, doseIDs: doses.map(\.doseID), body: text(doses, verb: "due at \(slot)", preferences),
                    actions: ReminderAction.allCases))
        }
        if !late.isEmpty {
            let times = Set(late.map(\.slot)).sorted().map(\.description).joined(separator: ", ")
            notices.append(
                ReminderNotice(
                    kind: .catchUp, doseIDs: late.map(\.doseID),
                    body: text(late, verb: "due earlier (\(times)) and not logged yet", preferences, past: true),
                    actions: ReminderAction.allCases))
        }
        if !again.isEmpty {
            let times = Set(again.map(\.slot)).sorted().map(\.description).joined(separator: ", ")
            notices.append(
                ReminderNotice(
                    kind: .repeated, doseIDs: again.map(\.doseID),
                    body: text(again, verb: "due at \(times), not logged yet", preferences),
                    actions: ReminderAction.allCases))
        }
        return notices
    }

    /// The morning summary for `unloggedYesterday` doses; nil when there are none or it is turned off.
    public func morningSummary(unloggedYesterday: [OpenDose], preferences: ReminderPreferences) -> ReminderNotice? {
        guard preferences.morningSummary, !unloggedYesterday.isEmpty else { return nil }
        let n = unloggedYesterday.count
        var body = n == 1 ? "1 dose of yesterday was not logged." : "\(n) doses of yesterday were not logged."
        if preferences.showProductNames { body += " (" + Self.list(unloggedYesterday.map(\.productName)) + ")" }
        return ReminderNotice(kind: .summary, doseIDs: [], body: body + " Open Cairn to log them.", actions: [])
    }

    /// The refill warning for products whose supply runs out within the preference's days.
    public func refillWarning(products: [(name: String, daysLeft: Int)], preferences: ReminderPreferences) -> ReminderNotice? {
        let low = products.filter { preferences.warnsOfRefill(daysLeft: $0.daysLeft) }
        guard !low.isEmpty else { return nil }
        let days = low.map(\.daysLeft).min()!
        let when = days <= 0 ? "runs out today" : days == 1 ? "lasts about 1 more day" : "lasts about \(days) more days"
        let body =
            preferences.showProductNames
            ? "\(Self.list(low.map(\.name))): the supply \(when)."
            : (low.count == 1 ? "A product's supply \(when)." : "\(low.count) products run low; the first \(when).")
        return ReminderNotice(kind: .refill, doseIDs: [], body: body, actions: [])
    }

    /// The longest photo interval of an area, in weeks.
    public static let maximumPhotoWeeks = 52

    /// The reminder for skin areas due for a new photo (`areas`: their names); nil when none is due. Discreet
    /// unless names are turned on (an area's name can say as much as a product's).
    public func photoReminder(areas: [String], preferences: ReminderPreferences) -> ReminderNotice? {
        guard !areas.isEmpty else { return nil }
        let body =
            preferences.showProductNames
            ? "Time for a new photo of \(Self.list(areas))."
            : (areas.count == 1 ? "A skin area is due for a new photo." : "\(areas.count) skin areas are due for a new photo.")
        return ReminderNotice(kind: .photo, doseIDs: [], body: body, actions: [])
    }

    private func text(_ doses: [OpenDose], verb: String, _ preferences: ReminderPreferences, past: Bool = false) -> String {
        if preferences.showProductNames {
            let names = Self.list(doses.map(\.productName))
            return "\(names) \(doses.count == 1 ? (past ? "was" : "is") : (past ? "were" : "are")) \(verb)."
        }
        let count = doses.count == 1 ? "A dose" : "\(doses.count) doses"
        let be = doses.count == 1 ? (past ? "was" : "is") : (past ? "were" : "are")
        return "\(count) \(be) \(verb)."
    }

    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

/// The port the notification adapter implements (`Notifications.DesktopNotifier` over libnotify): shows a
/// notice and reports the button the person pressed. Called from one thread, the reminder loop's.
public protocol ReminderPosting: AnyObject {
    /// Shows `notice`; `onAction` is called (from `pumpEvents`) when one of its buttons is pressed.
    func post(_ notice: ReminderNotice, onAction: @escaping (ReminderAction) -> Void) throws
    /// Delivers pending button presses to their `onAction`; returns without waiting.
    func pumpEvents()
}
