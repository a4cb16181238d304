import CairnApp
import CairnCore
import Foundation
import Regimen

/// The options that describe a plan, shared by `schedules add` and `schedules edit`.
private enum PlanOptions {
    static let times = Option(
        "--times", "LIST",
        help:
            "Times of day, HH:MM separated by commas (08:00,21:00). Times follow you: 08:00 means\n08:00 wherever you are, unless --zone names a zone."
    )
    static let days = Option(
        "--days", "DAYS",
        help:
            "daily (default), weekdays such as mon,wed,fri, every:N (every N days from the start),\nor as-needed (no times; log each dose with 'take --as-needed')."
    )
    static let servings = Option("--servings", "N", help: "Servings per dose (default 1; 0.5 is allowed).")
    static let zone = Option(
        "--zone", "ZONE|local",
        help: "Keep the times on one zone's clock, such as America/New_York, wherever you are;\nlocal (the default) makes them follow you.")
}

/// `cairn regimen schedules list`.
struct RegimenSchedulesListCommand: Command {
    static let name = "list"
    static let readsOnly = true
    static let abstract = "List every schedule with its newest revision."
    static let options: [Option] = [.json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let schedules = try context.openApplication().regimen.schedules()
        if json { return try context.console.printJSON(schedules.map { ScheduleRevisionJSON($0.latest) }) }
        if schedules.isEmpty { context.console.print("No schedules yet. Add one with 'cairn regimen schedules add PRODUCT --times 08:00'.") }
        for s in schedules {
            context.console.print("\(s.scheduleID)  \(s.productName)  \(summary(s.latest))")
        }
    }
}

/// `cairn regimen schedules add`.
struct RegimenSchedulesAddCommand: Command {
    static let name = "add"
    static let abstract = "Add a schedule for a product."
    static let synopsis = "PRODUCT"
    static let discussion = "PRODUCT is a product id or its exact name."

    static let times = PlanOptions.times
    static let days = PlanOptions.days
    static let servings = PlanOptions.servings
    static let start = Option("--start", "DATE", help: "First day, YYYY-MM-DD (default today).")
    static let end = Option("--end", "DATE", help: "Last day, if any.")
    static let zone = PlanOptions.zone
    static let options: [Option] = [times, days, servings, start, end, zone, .json]

    let reference: String
    let times: [TimeSlot]
    let days: Recurrence
    let servings: Decimal
    let start: LocalDay?
    let end: LocalDay?
    let zone: ScheduleZone
    let json: Bool

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["PRODUCT"])[0]
        times = try arguments.value(Self.times, as: [TimeSlot].self) ?? []
        days = try arguments.value(Self.days, as: Recurrence.self) ?? .daily
        servings = try arguments.value(Self.servings, as: DoseServings.self)?.value ?? 1
        start = try arguments.value(Self.start, as: LocalDay.self)
        end = try arguments.value(Self.end, as: LocalDay.self)
        zone = try arguments.value(Self.zone, as: ScheduleZone.self) ?? .followsYou
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let product = try service.findProduct(reference)
        let plan = try SchedulePlan(
            productID: product.product.id, servings: servings, times: times, recurrence: days,
            startDay: start ?? service.today(), endDay: end, zone: zone)
        let revision = try service.addSchedule(plan)
        if json { return try context.console.printJSON(ScheduleRevisionJSON(revision)) }
        context.console.print("Added schedule \(revision.scheduleID): \(product.product.name) \(summary(revision))")
    }
}

/// `cairn regimen schedules edit`.
struct RegimenSchedulesEditCommand: Command {
    static let name = "edit"
    static let abstract = "Change a schedule from a given day; earlier days keep what was in force."
    static let synopsis = "SCHEDULE"
    static let discussion = "Saves a new revision. Options not given keep their current value."

    static let times = PlanOptions.times
    static let days = PlanOptions.days
    static let servings = PlanOptions.servings
    static let end = Option("--end", "DATE|none", help: "New last day, or none.")
    static let from = Option(
        "--from", "DATE",
        help:
            "The first day the change is in force (default today). It must be after the day the\nprevious change started, and after any day with logged doses."
    )
    static let zone = PlanOptions.zone
    static let options: [Option] = [times, days, servings, end, zone, from, .json]

    let reference: String
    let times: [TimeSlot]?
    let days: Recurrence?
    let servings: Decimal?
    let end: LocalDay??
    let zone: ScheduleZone?
    let from: LocalDay?
    let json: Bool

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["SCHEDULE"])[0]
        times = try arguments.value(Self.times, as: [TimeSlot].self)
        days = try arguments.value(Self.days, as: Recurrence.self)
        servings = try arguments.value(Self.servings, as: DoseServings.self)?.value
        if let text = arguments.value(Self.end) {
            end = text == "none" ? .some(nil) : .some(try Arguments.parse(text, as: LocalDay.self, naming: Self.end.name))
        } else {
            end = nil
        }
        zone = try arguments.value(Self.zone, as: ScheduleZone.self)
        from = try arguments.value(Self.from, as: LocalDay.self)
        json = arguments.has(.json)
        if times == nil, days == nil, servings == nil, end == nil, zone == nil {
            throw UsageError("Nothing to change: give --times, --days, --servings, --end or --zone.")
        }
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let id = try service.findScheduleID(reference)
        guard let latest = try service.scheduleHistory(id).latest else { throw ScheduleError.scheduleNotFound }
        let recurrence = days ?? latest.plan.recurrence
        let plan = try SchedulePlan(
            productID: latest.plan.productID, servings: servings ?? latest.plan.servings,
            times: times ?? (recurrence == .asNeeded ? [] : latest.plan.times), recurrence: recurrence,
            startDay: latest.plan.startDay, endDay: end ?? latest.plan.endDay, zone: zone ?? latest.plan.zone)
        let revision = try service.editSchedule(id, plan: plan, effectiveFrom: from)
        if json { return try context.console.printJSON(ScheduleRevisionJSON(revision)) }
        context.console.print("Saved revision \(revision.number), in force from \(revision.effectiveFrom): \(summary(revision))")
    }
}

/// What pause, resume and stop do.
protocol ScheduleStateAction {
    static var name: String { get }
    static var abstract: String { get }
    static func apply(_ service: RegimenService, _ id: ScheduleID, _ day: LocalDay?) throws -> ScheduleRevision
}

enum PauseAction: ScheduleStateAction {
    static let name = "pause"
    static let abstract = "Pause a schedule from a day (a revision with no doses)."
    static func apply(_ s: RegimenService, _ id: ScheduleID, _ day: LocalDay?) throws -> ScheduleRevision { try s.pauseSchedule(id, from: day) }
}

enum ResumeAction: ScheduleStateAction {
    static let name = "resume"
    static let abstract = "Resume a paused schedule from a day."
    static func apply(_ s: RegimenService, _ id: ScheduleID, _ day: LocalDay?) throws -> ScheduleRevision { try s.resumeSchedule(id, from: day) }
}

enum StopAction: ScheduleStateAction {
    static let name = "stop"
    static let abstract = "Stop a schedule from a day, for good (its history stays)."
    static func apply(_ s: RegimenService, _ id: ScheduleID, _ day: LocalDay?) throws -> ScheduleRevision { try s.stopSchedule(id, from: day) }
}

/// `cairn regimen schedules pause|resume|stop`.
struct RegimenScheduleStateCommand<Action: ScheduleStateAction>: Command {
    static var name: String { Action.name }
    static var abstract: String { Action.abstract }
    static var synopsis: String { "SCHEDULE" }
    static var options: [Option] { [from] }
    static var from: Option { Option("--from", "DATE", help: "The first day of the change, YYYY-MM-DD (default today).") }

    let reference: String
    let from: LocalDay?

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["SCHEDULE"])[0]
        from = try arguments.value(Self.from, as: LocalDay.self)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let revision = try Action.apply(service, try service.findScheduleID(reference), from)
        context.console.print("Schedule \(revision.scheduleID) is \(revision.state.rawValue) from \(revision.effectiveFrom).")
    }
}

/// `cairn regimen schedules history`.
struct RegimenSchedulesHistoryCommand: Command {
    static let name = "history"
    static let readsOnly = true
    static let abstract = "Show every revision of a schedule."
    static let synopsis = "SCHEDULE"
    static let options: [Option] = [.json]

    let reference: String
    let json: Bool

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["SCHEDULE"])[0]
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let history = try service.scheduleHistory(try service.findScheduleID(reference))
        if json { return try context.console.printJSON(history.revisions.map(ScheduleRevisionJSON.init)) }
        for r in history.revisions {
            context.console.print("Revision \(r.number), from \(r.effectiveFrom): \(summary(r))")
        }
    }
}

func summary(_ r: ScheduleRevision) -> String {
    let p = r.plan
    var text = r.state == .active ? "" : "\(r.state.rawValue); "
    text += RegimenCommands.describe(p.servings)
    if !p.times.isEmpty { text += " at " + p.times.map(\.description).joined(separator: ", ") }
    if let zone = p.zone.identifier { text += " \(zone) time" }
    text += ", \(p.recurrence.summary), from \(p.startDay)"
    if let end = p.endDay { text += " to \(end)" }
    return text
}
