import CairnApp
import CairnCore
import Foundation
import Regimen

/// `cairn regimen reminders ...`: the reminder preferences (effective-dated, like plans).
enum RegimenReminderCommands {
    static var group: CommandGroup {
        CommandGroup(
            name: "reminders", abstract: "Reminder preferences: quiet hours, names, repeats, summaries, per schedule, skin photos.",
            children: [
                .command(RegimenRemindersShowCommand.self),
                .command(RegimenRemindersSetCommand.self),
                .command(RegimenRemindersScheduleCommand.self),
                .command(RegimenRemindersAreaCommand.self),
            ])
    }

    static let from = Option("--from", "DATE", help: "The first day the change is in force, YYYY-MM-DD (default today).")

    /// The `--from` day; nil for today.
    static func fromDay(_ arguments: Arguments) throws -> LocalDay? {
        try arguments.value(from, as: LocalDay.self)
    }

    /// "2026-03-10", or "today" for no `--from`.
    static func dayText(_ day: LocalDay?) -> String { day.map(\.description) ?? "today" }

    static func onOff(_ text: String?, option: Option) throws -> Bool? {
        guard let text else { return nil }
        switch text.lowercased() {
        case "on": return true
        case "off": return false
        default: throw UsageError("\(option.name) takes on or off.")
        }
    }

    static func describe(_ p: ReminderPreferences) -> [String] {
        [
            "Quiet hours: \(p.quietHoursText)",
            "Product and area names in the text: \(p.showProductNames ? "on" : "off (\"A dose is due at 08:00\")")",
            "Repeat: " + (p.repeatMinutes == 0 ? "off" : "every \(p.repeatMinutes) minutes, at most \(p.repeatLimit) times"),
            "Morning summary of yesterday's unlogged doses: \(p.morningSummary ? "on" : "off")",
            "Refill warning: " + (p.refillDays == 0 ? "off" : "at \(p.refillDays) days of supply left"),
        ]
    }
}

/// `cairn regimen reminders show`.
struct RegimenRemindersShowCommand: Command {
    static let name = "show"
    static let abstract = "Show the reminder preferences in force today, the schedules with reminders off and the skin photo reminders."

    init(arguments: Arguments) throws { _ = try arguments.positionals(exactly: []) }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        for line in RegimenReminderCommands.describe(try app.reminders.preferences()) { context.console.print(line) }
        let off = try app.reminders.remindersOff()
        let names = try app.regimen.schedules().filter { off.contains($0.scheduleID) }.map { "\($0.productName) (schedule \($0.scheduleID))" }
        context.console.print("Schedules with reminders off: " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        let weeks = try app.reminders.photoReminders()
        let areas = try app.skin.areas().compactMap { a in weeks[a.area.id].map { "\(a.area.name) every \(CountText.counted($0, "week"))" } }
        context.console.print("Skin photo reminders: " + (areas.isEmpty ? "none" : areas.joined(separator: ", ")))
    }
}

/// `cairn regimen reminders set`.
struct RegimenRemindersSetCommand: Command {
    static let name = "set"
    static let abstract = "Change reminder preferences from a day on (earlier days keep theirs)."
    static let discussion = "Options not given keep their current value."
    static let quiet = Option("--quiet", "HH:MM-HH:MM|off", help: "Quiet hours: no notification in this span (it may cross midnight).")
    static let names = Option("--names", "on|off", help: "Name the products and skin areas in the text (default off).")
    static let repeatEvery = Option("--repeat", "MINUTES", help: "Remind again every MINUTES until logged, 0-720 (0: no repeat).")
    static let repeatLimit = Option("--repeat-limit", "N", help: "At most N repeats of one dose, 0-20 (default 3).")
    static let summary = Option("--summary", "on|off", help: "A morning summary of yesterday's unlogged doses (default on).")
    static let refill = Option("--refill-days", "N", help: "Warn at N days of supply left, 0-90 (0: off; default 7).")
    static let options: [Option] = [quiet, names, repeatEvery, repeatLimit, summary, refill, RegimenReminderCommands.from]

    let quiet: (start: TimeSlot, end: TimeSlot)??
    let names: Bool?, summary: Bool?
    let repeatMinutes: Int?, repeatLimit: Int?, refillDays: Int?
    let from: LocalDay?

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        do {
            quiet = try arguments.value(Self.quiet).map { try ReminderPreferences.quietHours(parsing: $0) }
        } catch let error as ReminderError {
            throw UsageError(error.userMessage)
        }
        names = try RegimenReminderCommands.onOff(arguments.value(Self.names), option: Self.names)
        summary = try RegimenReminderCommands.onOff(arguments.value(Self.summary), option: Self.summary)
        repeatMinutes = try arguments.value(Self.repeatEvery) == nil ? nil : arguments.integer(Self.repeatEvery, in: 0...720, default: 0)
        repeatLimit = try arguments.value(Self.repeatLimit) == nil ? nil : arguments.integer(Self.repeatLimit, in: 0...20, default: 3)
        refillDays = try arguments.value(Self.refill) == nil ? nil : arguments.integer(Self.refill, in: 0...90, default: 7)
        from = try RegimenReminderCommands.fromDay(arguments)
    }

    func run(in context: CommandContext) throws {
        let reminders = try context.openApplication().reminders
        let current = try reminders.preferences(on: from)
        let next = try current.with(
            quiet: quiet, showProductNames: names, repeatMinutes: repeatMinutes, repeatLimit: repeatLimit,
            morningSummary: summary, refillDays: refillDays)
        try reminders.setPreferences(next, from: from)
        context.console.print("Saved. From \(RegimenReminderCommands.dayText(from)):")
        for line in RegimenReminderCommands.describe(next) { context.console.print("  " + line) }
    }
}

/// `cairn regimen reminders schedule`.
struct RegimenRemindersScheduleCommand: Command {
    static let name = "schedule"
    static let abstract = "Turn the reminders of one schedule on or off from a day on."
    static let synopsis = "SCHEDULE on|off"
    static let options: [Option] = [RegimenReminderCommands.from]

    let schedule: String
    let enabled: Bool
    let from: LocalDay?

    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["SCHEDULE", "on|off"])
        schedule = p[0]
        guard let enabled = ["on": true, "off": false][p[1].lowercased()] else { throw UsageError("Say on or off after the schedule.") }
        self.enabled = enabled
        from = try RegimenReminderCommands.fromDay(arguments)
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        try app.reminders.setReminders(enabled, for: try app.regimen.findScheduleID(schedule), from: from)
        context.console.print("Reminders of that schedule are \(enabled ? "on" : "off") from \(RegimenReminderCommands.dayText(from)).")
    }
}

/// `cairn regimen reminders area`.
struct RegimenRemindersAreaCommand: Command {
    static let name = "area"
    static let abstract = "Remind to photograph a skin area again every N weeks after its newest photo (off by default)."
    static let synopsis = "AREA WEEKS|off"
    static let discussion = "AREA is the area's name or id. The reminder comes once each time the area is due, at the first check after 07:00."
    static let options: [Option] = [RegimenReminderCommands.from]

    let area: String
    let weeks: Int
    let from: LocalDay?

    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["AREA", "WEEKS|off"])
        area = p[0]
        if p[1].lowercased() == "off" {
            weeks = 0
        } else if let n = Int(p[1]), (0...ReminderPlanner.maximumPhotoWeeks).contains(n) {
            weeks = n
        } else {
            throw UsageError(ReminderError.photoWeeksOutOfRange.userMessage)
        }
        from = try RegimenReminderCommands.fromDay(arguments)
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let found = try app.skin.area(namedOnCommandLine: area)
        try app.reminders.setPhotoReminder(every: weeks, for: found.id, from: from)
        let when = RegimenReminderCommands.dayText(from)
        context.console.print(
            weeks == 0
                ? "No photo reminders for \(found.name) from \(when)."
                : "A reminder to photograph \(found.name) every \(CountText.counted(weeks, "week")) after its newest photo, from \(when).")
    }
}
