import CairnApp
import CairnCore
import Foundation
import Regimen

/// `cairn regimen today`.
struct RegimenTodayCommand: Command {
    static let name = "today"
    static let readsOnly = true
    static let abstract = "Show today's doses: the batch due now, what comes next, and what is logged."
    static let discussion = """
        Today is the date where you are now (the TZ zone, else the system's). Dose times follow you: a dose at
        08:00 is due at 08:00 local time after a trip, and each dose of a day exists once, so travel and
        daylight-saving changes never add or drop one. A time skipped by a daylight-saving change is due at
        the first minute after it; a time that happens twice is due the first time.

        Log a dose with 'cairn regimen take DOSE-ID' or 'cairn regimen skip DOSE-ID'.
        """
    static let json = Option("--json", help: "Print the view as JSON.")
    static let options: [Option] = [json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let view = try context.openApplication().regimen.todayView()
        if json {
            return try context.console.printJSON(
                TodayJSON(
                    day: view.day.description, timeZone: view.timeZone.identifier, doses: view.doses.map(TodayDoseJSON.init),
                    currentBatch: view.currentBatch.map(TodayDoseJSON.init), next: view.next.map(TodayDoseJSON.init),
                    asNeeded: view.asNeeded.map { AsNeededJSON(scheduleID: $0.scheduleID.rawValue, productName: $0.productName) }))
        }
        let console = context.console
        console.print("Today, \(view.day) (\(view.timeZone.identifier))")
        if view.doses.isEmpty && view.asNeeded.isEmpty {
            console.print("No doses scheduled today. Add a schedule with 'cairn regimen schedules add PRODUCT --times 08:00'.")
            return
        }
        if !view.currentBatch.isEmpty {
            console.print("")
            console.print(view.batchHeading + ":")
            for dose in view.currentBatch { console.print(line(dose)) }
        }
        // Each dose once: the batch above, the rest of today below, tomorrow's first doses when today is done.
        let batch = Set(view.currentBatch.map(\.doseID))
        let rest = view.doses.filter { !batch.contains($0.doseID) }
        if !rest.isEmpty {
            console.print("")
            console.print("The rest of today:")
            for dose in rest { console.print(line(dose)) }
        }
        for entry in view.unscheduledLogged {
            if entry.id == view.unscheduledLogged.first?.id {
                console.print("")
                console.print("Logged today, unscheduled:")
            }
            console.print(
                "  \(DateText.string(entry.takenAt, .numericMinute, in: view.timeZone))  \(entry.productName), "
                    + "\(RegimenCommands.describe(entry.servings))  [\(entry.kind == .asNeeded ? "as needed" : "extra")]  \(entry.id)")
        }
        if !view.tomorrow.isEmpty {
            console.print("")
            console.print("Next, tomorrow:")
            for dose in view.tomorrow { console.print(line(dose, withDay: true)) }
        }
        if !view.asNeeded.isEmpty {
            console.print("")
            console.print("As needed (log with 'cairn regimen take --as-needed SCHEDULE'):")
            for s in view.asNeeded { console.print("  \(s.productName)  schedule \(s.scheduleID)") }
        }
    }

    private func line(_ dose: TodayDose, withDay: Bool = false) -> String {
        let state: String
        switch dose.state {
        case .notLogged: state = "not logged"
        case .taken: state = "taken"
        case .skipped: state = "skipped"
        }
        let when = withDay ? "\(dose.day) \(dose.timeText)" : dose.timeText
        return "  \(when)  \(dose.productName), \(dose.amount)  [\(state)]  \(dose.doseID)"
    }
}

private struct AsNeededJSON: Encodable {
    let scheduleID: String
    let productName: String
}
private struct TodayJSON: Encodable {
    let day: String
    let timeZone: String
    let doses: [TodayDoseJSON]
    let currentBatch: [TodayDoseJSON]
    let next: [TodayDoseJSON]
    let asNeeded: [AsNeededJSON]
}

/// `cairn regimen take`.
struct RegimenTakeCommand: Command {
    static let name = "take"
    static let abstract = "Log a dose as taken: a scheduled dose, an extra dose, or an as-needed dose."
    static let usage = "DOSE-ID [--at TIME] | --extra PRODUCT [--servings N] [--at TIME] | --as-needed SCHEDULE [--at TIME]"
    static let discussion = """
        DOSE-ID comes from 'cairn regimen today': the whole id, any unique start of it, or its first
        characters with the day and time (e760dd42_2026-03-10_0800). Logging a dose that is already logged
        (from here, the page or a reminder) changes nothing and says so. A dose of an earlier day logged
        without --at is recorded at its scheduled time, so it counts on the day it was due. A time is never
        later than now, and is on the dose's own day or today. A dose more than an hour before its time is
        asked about at a terminal; without one it is refused unless --yes is given.
        """

    static let at = Option(
        "--at", "TIME",
        help:
            "When it was taken: HH:MM on the dose's day, YYYY-MM-DD HH:MM, or an ISO\n8601 time (2026-03-10T08:05:00Z). Default: now (a past day's dose: its time)."
    )
    static let extra = Option("--extra", "PRODUCT", help: "Log an unscheduled dose of a product (id or exact name).")
    static let servings = Option("--servings", "N", help: "Servings of an extra dose (default 1).")
    static let asNeeded = Option("--as-needed", "SCHEDULE", help: "Log a dose of an as-needed schedule.")
    static let yes = Option("--yes", help: "Log a dose more than an hour before its time without being asked.")
    static let options: [Option] = [at, extra, servings, asNeeded, yes, .json]

    enum Target {
        case dose(String)
        case extra(String, Decimal)
        case asNeeded(String)
    }
    let target: Target
    let at: String?
    let confirmedEarly: Bool
    let json: Bool

    init(arguments: Arguments) throws {
        at = arguments.value(Self.at)
        confirmedEarly = arguments.has(Self.yes)
        json = arguments.has(.json)
        let extra = arguments.value(Self.extra)
        let asNeeded = arguments.value(Self.asNeeded)
        switch (extra, asNeeded) {
        case (let product?, nil):
            _ = try arguments.positionals(exactly: [])
            target = .extra(product, try arguments.value(Self.servings, as: DoseServings.self)?.value ?? 1)
        case (nil, let schedule?):
            _ = try arguments.positionals(exactly: [])
            target = .asNeeded(schedule)
        case (nil, nil):
            guard arguments.value(Self.servings) == nil else { throw UsageError("--servings goes with --extra.") }
            target = .dose(try arguments.positionals(exactly: ["DOSE-ID"])[0])
        default:
            throw UsageError("Give either --extra or --as-needed, not both.")
        }
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let service = app.regimen
        switch target {
        case .dose(let reference):
            let id = try service.findDoseID(reference)
            let result: CheckInResult
            do {
                result = try service.checkIn(id, status: .taken, typedAt: at, confirmedEarly: confirmedEarly)
            } catch let question as EarlyDoseQuestion {
                // More than an hour early: asked at a terminal; without one, refused unless --yes was given.
                guard let answer = context.console.ask(question.question + " [y/N] ") else {
                    throw RegimenCommands.Unconfirmed(question.userMessage + " Give --yes to log it anyway.")
                }
                guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                    return context.console.print("Nothing was logged.")
                }
                result = try service.checkIn(id, status: .taken, typedAt: at, confirmedEarly: true)
            }
            if json { return try context.console.printJSON(CheckInJSON(entry: result.entry, alreadyLogged: result.alreadyLogged)) }
            report(result, context.console)
        case .extra(let reference, let servings):
            let product = try service.findProduct(reference)
            let entry = try service.logExtra(
                product.product.id, servings: servings,
                at: RegimenCommands.parseAt(at, service))
            if json { return try context.console.printJSON(CheckInJSON(entry: entry, alreadyLogged: false)) }
            context.console.print("Logged an extra dose of \(entry.productName) as taken (record \(entry.id)).")
        case .asNeeded(let schedule):
            let entry = try service.logAsNeeded(try service.findScheduleID(schedule), at: RegimenCommands.parseAt(at, service))
            if json { return try context.console.printJSON(CheckInJSON(entry: entry, alreadyLogged: false)) }
            context.console.print("Logged an as-needed dose of \(entry.productName) as taken (record \(entry.id)).")
        }
    }
}

/// `cairn regimen skip`.
struct RegimenSkipCommand: Command {
    static let name = "skip"
    static let abstract = "Log a scheduled dose as skipped (it never counts as taken)."
    static let synopsis = "DOSE-ID"
    static let at = Option(
        "--at", "TIME", help: "HH:MM on the dose's day, YYYY-MM-DD HH:MM, or an ISO 8601 time. Default: now\n(a past day's dose: its time).")
    static let options: [Option] = [at, .json]

    let id: String
    let at: String?
    let json: Bool

    init(arguments: Arguments) throws {
        id = try arguments.positionals(exactly: ["DOSE-ID"])[0]
        at = arguments.value(Self.at)
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let result = try app.regimen.checkIn(try app.regimen.findDoseID(id), status: .skipped, typedAt: at)
        if json { return try context.console.printJSON(CheckInJSON(entry: result.entry, alreadyLogged: result.alreadyLogged)) }
        report(result, context.console)
    }
}

/// A logged dose as `take`, `skip` and `undo` print it with `--json`: the record in force, and whether it was
/// there already (nothing new written).
private struct CheckInJSON: Encodable {
    let entry: LedgerEntry
    let alreadyLogged: Bool
}

private func report(_ result: CheckInResult, _ console: Console) {
    let e = result.entry
    let what = e.occurrence.map { "\(e.productName), \($0.slot) on \($0.day)" } ?? e.productName
    if result.alreadyLogged {
        console.print("Already logged as \(e.status.rawValue): \(what) (record \(e.id)). Nothing was changed.")
    } else if result.atScheduledTime {
        console.print(
            "Logged as \(e.status.rawValue): \(what) (record \(e.id)), at its scheduled time "
                + "\(DateText.string(e.takenAt, .numericMinute, in: e.timeZone)) because no --at was given.")
    } else {
        console.print("Logged as \(e.status.rawValue): \(what) (record \(e.id)).")
    }
}

/// `cairn regimen correct`.
struct RegimenCorrectCommand: Command {
    static let name = "correct"
    static let abstract = "Correct a log entry: a new entry replaces it, and the history keeps both."
    static let synopsis = "RECORD-ID"
    static let discussion = "RECORD-ID comes from 'cairn regimen ledger' (any unique start of it, 4 characters or more)."
    static let status = Option("--status", "taken|skipped", help: "What really happened.", required: true)
    static let at = Option("--at", "TIME", help: "When: HH:MM on the entry's day, or an ISO 8601 time. Default: the entry's time.")
    static let options: [Option] = [status, at]

    let reference: String
    let status: IntakeStatus
    let at: String?

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["RECORD-ID"])[0]
        guard let text = arguments.value(Self.status), let status = IntakeStatus(rawValue: text), status.isLoggable else {
            throw UsageError("--status takes taken or skipped.")
        }
        self.status = status
        at = arguments.value(Self.at)
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let id = try app.regimen.findRecordID(reference)
        guard let old = try app.regimen.record(id) else { throw ScheduleError.recordNotFound }
        let entry = try app.regimen.correct(id, status: status, at: try at.map { try app.regimen.takenTime($0, correcting: old) })
        context.console.print(
            "Corrected: \(entry.productName) is now \(entry.status.rawValue) at "
                + "\(DateText.string(entry.takenAt, .numericMinute, in: entry.timeZone)) (record \(entry.id) replaces \(old.id)).")
    }
}

/// `cairn regimen undo`.
struct RegimenUndoCommand: Command {
    static let name = "undo"
    static let abstract = "Undo a log entry: the dose is back to not logged, and the history keeps both entries."
    static let synopsis = "RECORD-ID"
    static let discussion = """
        RECORD-ID comes from 'cairn regimen ledger' or from the message of 'take' and 'skip' (any unique start
        of it, 4 characters or more).
        """
    static let options: [Option] = [.json]

    let reference: String
    let json: Bool

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["RECORD-ID"])[0]
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let result = try service.undo(try service.findRecordID(reference))
        if json { return try context.console.printJSON(CheckInJSON(entry: result.entry, alreadyLogged: result.alreadyUndone)) }
        let old = result.undid
        let what = old.occurrence.map { "\(old.productName), \($0.slot) on \($0.day)" } ?? old.productName
        if result.alreadyUndone {
            context.console.print("Already undone: \(what). Nothing was changed.")
        } else {
            context.console.print(
                "Undone: \(what) was logged as \(old.status.rawValue); it is now not logged "
                    + "(record \(result.entry.id) undoes \(old.id)).")
        }
    }
}

/// `cairn regimen ledger`.
struct RegimenLedgerCommand: Command {
    static let name = "ledger"
    static let readsOnly = true
    static let abstract = "List log entries, newest first, corrected entries included."
    static let from = Option("--from", "DATE", help: "Only entries whose local date is in this range.")
    static let to = Option("--to", "DATE", help: "Only entries whose local date is in this range.")
    static let product = Option("--product", "PRODUCT", help: "Only this product (id or exact name).")
    static let limit = Option("--limit", "N", help: "Entries per page, 1-1000 (default 50).")
    static let offset = Option("--offset", "N", help: "Entries to skip (default 0).")
    static let json = Option("--json", help: "Print the page as JSON.")
    static let options: [Option] = [from, to, product, limit, offset, json]

    let from: LocalDay?
    let to: LocalDay?
    let product: String?
    let limit: Int
    let offset: Int
    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        from = try arguments.value(Self.from, as: LocalDay.self)
        to = try arguments.value(Self.to, as: LocalDay.self)
        product = arguments.value(Self.product)
        limit = try arguments.integer(Self.limit, in: 1...1000, default: 50)
        offset = try arguments.integer(Self.offset, in: 0...Int(Int32.max), default: 0)
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let productID = try product.map { try service.findProduct($0).product.id }
        let page = try service.ledger(LedgerQuery(from: from, to: to, productID: productID, limit: limit, offset: offset))
        if json { return try context.console.printJSON(LedgerPageJSON(entries: page.entries, nextOffset: page.nextOffset)) }
        if page.entries.isEmpty { context.console.print("No log entries.") }
        for e in page.entries {
            var line =
                "\(DateText.string(e.takenAt, .numericMinute, in: e.timeZone)) \(e.timeZone.identifier)  \(e.status.rawValue)  "
                + "\(e.productName), \(try service.amountText(of: e))  [\(e.importedFrom.map { $0.isEmpty ? "imported" : "imported from \($0)" } ?? e.kind.rawValue)]  \(e.id)"
            if let old = e.supersedes { line += e.isUndo ? "  (undoes \(old))" : "  (corrects \(old))" }
            if let by = e.supersededBy { line += "  (replaced by \(by))" }
            context.console.print(line)
        }
        if let next = page.nextOffset { context.console.print("More: --offset \(next)") }
    }
}

private struct LedgerPageJSON: Encodable {
    let entries: [LedgerEntry]
    let nextOffset: Int?
}

/// `cairn regimen export`.
struct RegimenExportCommand: Command {
    static let name = "export"
    static let readsOnly = true
    static let abstract = "Export the whole log as CSV or JSON."
    static let discussion = """
        Every entry, oldest first, corrected ones included, with UTC times and the zone each was logged in.
        """
    static let format = Option("--format", "csv|json", help: "The format.", required: true)
    static let out = Option("--out", "FILE", help: "Write to FILE (created with owner-only access) instead of standard output.")
    static let options: [Option] = [format, out]

    let format: LedgerExportFormat
    let out: String?

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        guard let text = arguments.value(Self.format), let format = LedgerExportFormat(rawValue: text) else {
            throw UsageError("--format takes csv or json.")
        }
        self.format = format
        out = arguments.value(Self.out).map(arguments.filePath)
    }

    func run(in context: CommandContext) throws {
        let text = try context.openApplication().regimen.exportLedger(as: format)
        guard let out else {
            context.console.print(text.hasSuffix("\r\n") ? String(text.dropLast(2)) : text)
            return
        }
        do {
            try OutputFile.write(Data(text.utf8), to: out, replace: true)
        } catch {
            throw ExportError.cannotWrite
        }
        context.console.print("Wrote the log to the file.")
    }
}

/// Why an export file could not be written.
enum ExportError: CairnError {
    case cannotWrite
    var userMessage: String { "The export file could not be written. Check that the folder exists and that you can write to it." }
}

/// `cairn regimen exposure`.
struct RegimenExposureCommand: Command {
    static let name = "exposure"
    static let readsOnly = true
    static let abstract = "Sum what was taken per product and per ingredient, per day."
    static let discussion = """
        Only doses logged as taken count. Amounts of one ingredient add up when their units convert exactly;
        other units stay on their own line. Default range: the last 7 days up to today.
        """
    static let from = Option("--from", "DATE", help: "Only days in this range, YYYY-MM-DD (default: the last 7 days up to today).")
    static let to = Option("--to", "DATE", help: "Only days in this range, YYYY-MM-DD (default: the last 7 days up to today).")
    static let options: [Option] = [from, to, .json]

    let from: LocalDay?
    let to: LocalDay?
    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        from = try arguments.value(Self.from, as: LocalDay.self)
        to = try arguments.value(Self.to, as: LocalDay.self)
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let last = to ?? service.today()
        let first = from ?? last.adding(days: -6)
        guard first <= last else { throw ScheduleError.rangeEndsBeforeStart }
        let report = try service.exposure(in: first...last)
        let names = Dictionary(
            try service.products(includingArchived: true).map { ($0.product.id, $0.product.name) }, uniquingKeysWith: { a, _ in a })
        let catalogue = try? Catalogue.bundled()
        func ingredientName(_ key: String) -> String {
            IngredientDose.name(ofKey: key, catalogue: catalogue)
        }
        if json {
            return try context.console.printJSON(
                ExposureJSON(
                    products: report.products.map {
                        .init(
                            day: $0.day.description, productID: $0.productID.rawValue,
                            productName: names[$0.productID] ?? "", servings: "\($0.servings)",
                            intakes: $0.intakeCount, timeOfDay: $0.dominantBucket?.rawValue)
                    },
                    ingredients: report.ingredients.map {
                        .init(
                            day: $0.day.description, ingredient: $0.ingredientKey,
                            name: ingredientName($0.ingredientKey), amount: $0.amount)
                    }))
        }
        if report.products.isEmpty { context.console.print("Nothing logged as taken from \(first) to \(last).") }
        for day in Set(report.products.map(\.day)).sorted() {
            context.console.print("\(day)")
            for p in report.products where p.day == day {
                context.console.print("  \(names[p.productID] ?? p.productID.rawValue): \(RegimenCommands.describe(p.servings))")
            }
            for i in report.ingredients where i.day == day {
                context.console.print("    \(ingredientName(i.ingredientKey)) \(i.amount)")
            }
        }
    }
}

private struct ExposureJSON: Encodable {
    struct ProductDay: Encodable {
        let day: String, productID: String, productName: String, servings: String, intakes: Int, timeOfDay: String?
    }
    struct IngredientDay: Encodable { let day: String, ingredient: String, name: String, amount: Amount }
    let products: [ProductDay]
    let ingredients: [IngredientDay]
}

/// `cairn regimen supply set`.
struct RegimenSupplySetCommand: Command {
    static let name = "set"
    static let abstract = "Set how many units (or servings) of a product are on hand."
    static let synopsis = "PRODUCT COUNT"
    static let discussion = """
        COUNT is in units (capsules, tablets, ...) when a serving is a count, else in servings. Each dose
        logged as taken counts it down.
        """
    let reference: String
    let count: Decimal

    init(arguments: Arguments) throws {
        let values = try arguments.positionals(exactly: ["PRODUCT", "COUNT"])
        reference = values[0]
        let count = try Arguments.parse(values[1], as: PlainDecimal.self, naming: "COUNT").value
        self.count = count
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let product = try service.findProduct(reference)
        try service.setSupply(product.product.id, count: count)
        if let status = try service.supply(product.product.id) {
            context.console.print("\(product.product.name): \(status.summary)")
        }
    }
}

/// `cairn regimen supply list`.
struct RegimenSupplyListCommand: Command {
    static let name = "list"
    static let readsOnly = true
    static let abstract = "List counts on hand and when each runs out."
    static let options: [Option] = [.json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let supplies = try context.openApplication().regimen.supplies()
        if json { return try context.console.printJSON(supplies.map(SupplyJSON.init)) }
        if supplies.isEmpty { context.console.print("No counts on hand yet. Set one with 'cairn regimen supply set PRODUCT COUNT'.") }
        for s in supplies { context.console.print("\(s.productName): \(s.summary)") }
    }
}

/// A count on hand as `supply list --json` prints it (decimals as text, days as YYYY-MM-DD).
private struct SupplyJSON: Encodable {
    let productID: String, productName: String, onHand: String, counts: String, dailyUse: String?, runsOutAround: String?

    init(_ s: SupplyStatus) {
        productID = s.productID.rawValue
        productName = s.productName
        onHand = "\(s.onHand)"
        counts = s.noun
        dailyUse = s.dailyUse.map { "\($0)" }
        runsOutAround = s.runsOutAround?.description
    }
}
