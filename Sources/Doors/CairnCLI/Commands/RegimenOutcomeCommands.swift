import CairnApp
import CairnCore
import Foundation
import Outcomes
import Regimen

/// `cairn regimen outcomes ...`: outcome series (ratings such as sleep quality, your own metrics, and the
/// Apple Health metrics once imported).
enum RegimenOutcomeCommands {
    /// The group registered under `cairn regimen`.
    static var group: CommandGroup {
        CommandGroup(
            name: "outcomes", abstract: "Outcome series: daily ratings and other values you track.",
            children: [
                .command(OutcomesAddCommand.self),
                .command(OutcomesCorrectCommand.self),
                .command(OutcomesImportCommand.self),
                .command(OutcomesListCommand.self),
                .command(OutcomesMetricsCommand.self),
                .command(OutcomesDefineCommand.self),
            ] + HealthCommands.outcomesChildren)
    }

    /// A value as typed on the command line: a plain decimal number.
    static func parseValue(_ text: String) throws -> Double {
        guard let value = OutcomeCSV.number(text) else { throw UsageError("VALUE takes a number such as 3 or 3.5.") }
        return value
    }

    /// Prints every bad line of a refused import on stderr, then rethrows so the command exits 1.
    static func reportingBadLines<T>(_ console: Console, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ImportLinesError {
            for line in error.listedProblems { console.error(line) }
            throw error
        }
    }
}

/// `cairn regimen outcomes add`.
struct OutcomesAddCommand: Command {
    static let name = "add"
    static let abstract = "Log one value of a metric for a day (today by default)."
    static let synopsis = "METRIC VALUE"
    static let discussion = """
        METRIC is a metric id from 'cairn regimen outcomes metrics' (sleep_quality, energy, skin, mood, or one
        of your own). Several values on one day are combined by the metric's daily rule (mean, sum or last).
        """
    static let date = Option("--date", "YYYY-MM-DD", help: "The day the value belongs to (default: today).")
    static let note = Option("--note", "TEXT", help: "A note kept with the value.")
    static let json = Option("--json", help: "Print the saved entry as JSON.")
    static let options: [Option] = [date, note, json]

    let metric: String
    let value: Double
    let day: LocalDay?
    let note: String
    let json: Bool

    init(arguments: Arguments) throws {
        let values = try arguments.positionals(exactly: ["METRIC", "VALUE"])
        metric = values[0]
        value = try RegimenOutcomeCommands.parseValue(values[1])
        day = try arguments.value(Self.date, as: LocalDay.self)
        note = arguments.value(Self.note) ?? ""
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().outcomes
        let entry = try service.add(metricID: metric, value: value, on: day, note: note)
        if json { return try context.console.printJSON(OutcomeEntryJSON(entry)) }
        let definition = try service.definition(entry.metricID)
        context.console.print(
            "Logged \(definition?.name ?? entry.metricID) \(MetricDefinition.number(entry.value)) for \(entry.day) (entry \(entry.id)).")
    }
}

/// `cairn regimen outcomes correct`.
struct OutcomesCorrectCommand: Command {
    static let name = "correct"
    static let abstract = "Correct a logged value: a new entry replaces it, and the history keeps both."
    static let synopsis = "ENTRY-ID VALUE"
    static let discussion = "ENTRY-ID comes from 'cairn regimen outcomes list'."
    static let note = Option("--note", "TEXT", help: "A new note (default: the old entry's note).")
    static let options: [Option] = [note]

    let id: OutcomeEntryID
    let value: Double
    let note: String?

    init(arguments: Arguments) throws {
        let values = try arguments.positionals(exactly: ["ENTRY-ID", "VALUE"])
        id = OutcomeEntryID(values[0])
        value = try RegimenOutcomeCommands.parseValue(values[1])
        note = arguments.value(Self.note)
    }

    func run(in context: CommandContext) throws {
        let entry = try context.openApplication().outcomes.correct(id, value: value, note: note)
        context.console.print("Corrected: \(MetricDefinition.number(entry.value)) for \(entry.day) (entry \(entry.id) replaces \(id)).")
    }
}

/// `cairn regimen outcomes import`.
struct OutcomesImportCommand: Command {
    static let name = "import"
    static let abstract = "Import outcome values from a CSV file (date, metric, value), or a health export."
    static let synopsis = "FILE.csv|export.zip|export.xml"
    static let discussion = """
        The file needs a header row naming the columns date, metric and value (any order, any case), and may
        have a note column. Dates are YYYY-MM-DD; metrics are ids or names from 'cairn regimen outcomes metrics';
        values use a dot for decimals. Example:

          date,metric,value,note
          2026-03-01,sleep_quality,4,
          2026-03-01,energy,3.5,after a long walk

        A file with any bad line imports nothing: every bad line is listed with its line number. Importing
        the same file again adds nothing; a newer file adds its new lines, and a changed value replaces the
        one imported before (both stay in the history). Health metrics come only from a health export: a FILE
        ending in .zip or .xml (Apple Health's export.zip or export.xml, or Health Connect's zip) is read as
        one, exactly as 'cairn regimen outcomes import-health' does.
        """
    static let json = Option("--json", help: "Print the result of every line as JSON.")
    static let options: [Option] = [json]

    let path: String
    let json: Bool

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE.csv"])[0])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let suffix = path.lowercased()
        if suffix.hasSuffix(".zip") || suffix.hasSuffix(".xml") {
            return try HealthImportCommand(path: path, json: json).run(in: context)
        }
        let data = try about(path) { try InputFile.read(path, maximumBytes: 64 << 20) }
        let service = try context.openApplication().outcomes
        let report = try RegimenOutcomeCommands.reportingBadLines(context.console) { try service.importCSV(data) }
        if json {
            return try context.console.printJSON(
                ImportJSON(
                    added: report.added, replaced: report.replaced, unchanged: report.unchanged,
                    lines: report.lines.map {
                        .init(line: $0.line, result: $0.result.rawValue, metric: $0.metricID, date: $0.day.description, value: $0.value)
                    }))
        }
        context.console.print(report.summary)
    }

    private struct ImportJSON: Encodable {
        struct Line: Encodable {
            let line: Int
            let result: String
            let metric: String
            let date: String
            let value: Double
        }
        let added: Int, replaced: Int, unchanged: Int
        let lines: [Line]
    }
}

/// `cairn regimen outcomes list`.
struct OutcomesListCommand: Command {
    static let name = "list"
    static let abstract = "List logged values, newest day first, or one value per day with --daily."
    static let metric = Option("--metric", "METRIC", help: "Only this metric (its id).")
    static let from = Option("--from", "DATE", help: "Only days in this range (YYYY-MM-DD).")
    static let to = Option("--to", "DATE", help: "Only days in this range (YYYY-MM-DD).")
    static let daily = Option(
        "--daily",
        help: "One value per metric and day, combined by the metric's daily rule\n(Apple Health metrics included once a Health export is imported).")
    static let options: [Option] = [metric, from, to, daily, .json]

    let metric: String?
    let from: LocalDay?
    let to: LocalDay?
    let daily: Bool
    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        metric = arguments.value(Self.metric)
        from = try arguments.value(Self.from, as: LocalDay.self)
        to = try arguments.value(Self.to, as: LocalDay.self)
        daily = arguments.has(Self.daily)
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().outcomes
        if let from, let to, to < from { throw ScheduleError.rangeEndsBeforeStart }
        if let metric, try service.definition(metric) == nil { throw OutcomeError.unknownMetric }
        let inRange = { (day: LocalDay) in (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true) }
        if daily {
            let series = try service.dailySeries().filter { metric == nil || $0.metric.id == metric }
            let rows = series.flatMap { s in
                s.days.filter(inRange).map { SeriesDayJSON(metric: s.metric.id, unit: s.metric.unit, date: $0.description, value: s.values[$0]!) }
            }
            if json { return try context.console.printJSON(rows) }
            if rows.isEmpty { context.console.print("No values yet. Log one with 'cairn regimen outcomes add METRIC VALUE'.") }
            for s in series {
                let days = s.days.filter(inRange)
                guard !days.isEmpty else { continue }
                context.console.print("\(s.metric.name) (\(s.metric.unit), \(s.metric.aggregation.rawValue) per day)")
                for day in days { context.console.print("  \(day)  \(MetricDefinition.number(s.values[day]!))") }
            }
            return
        }
        let entries = try service.entries(metricID: metric, from: from, to: to, limit: 100_000)
        if json { return try context.console.printJSON(entries.map(OutcomeEntryJSON.init)) }
        if entries.isEmpty { context.console.print("No values yet. Log one with 'cairn regimen outcomes add METRIC VALUE'.") }
        for e in entries {
            var line = "\(e.day)  \(e.metricID)  \(MetricDefinition.number(e.value))  [\(e.origin == .manual ? "typed" : "imported")]  \(e.id)"
            if let by = e.supersededBy { line += "  (corrected by \(by))" }
            if !e.note.isEmpty { line += "  note: \(SkinCommands.noteLine(e.note))" }
            context.console.print(line)
        }
    }

    private struct SeriesDayJSON: Encodable {
        let metric: String
        let unit: String
        let date: String
        let value: Double
    }
}

/// `cairn regimen outcomes metrics`.
struct OutcomesMetricsCommand: Command {
    static let name = "metrics"
    static let abstract = "List the metrics: built-in ratings, health export metrics and your own."
    static let json = Option("--json", help: "Print the definitions as JSON.")
    static let options: [Option] = [json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let metrics = try context.openApplication().outcomes.definitions()
        if json { return try context.console.printJSON(metrics.map(MetricJSON.init)) }
        let width = (metrics.map(\.id.count).max() ?? 0) + 2
        for m in metrics {
            let source = m.source == .manual ? "typed in or CSV" : "a health export"
            context.console.print(
                m.id.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "\(m.name): \(m.unit), \(m.rangeText), \(m.aggregation.rawValue) per day, from \(source)")
        }
    }
}

/// `cairn regimen outcomes define`.
struct OutcomesDefineCommand: Command {
    static let name = "define"
    static let abstract = "Add a metric of your own (for example a 1-5 headache rating)."
    static let synopsis = "ID NAME"
    static let discussion = """
        ID is 1 to 40 lower-case letters, digits or underscores, starting with a letter. A metric cannot be
        changed once defined.
        """
    static let unit = Option("--unit", "UNIT", help: "The unit shown with values (default 1-5).")
    static let min = Option("--min", "N", help: "The values accepted (default 1 and 5).")
    static let max = Option("--max", "N", help: "The values accepted (default 1 and 5).")
    static let daily = Option("--daily", "mean|sum|last", help: "How several values on one day combine (default mean).")
    static let options: [Option] = [unit, min, max, daily]

    let id: String
    let name: String
    let unit: String
    let range: ClosedRange<Double>
    let aggregation: DailyAggregation

    init(arguments: Arguments) throws {
        let values = try arguments.positionals(exactly: ["ID", "NAME"])
        id = values[0]
        name = values[1]
        unit = arguments.value(Self.unit) ?? "1-5"
        let low =
            try arguments.value(Self.min).map { text -> Double in
                guard let v = OutcomeCSV.number(text) else { throw UsageError("--min takes a number.") }
                return v
            } ?? 1
        let high =
            try arguments.value(Self.max).map { text -> Double in
                guard let v = OutcomeCSV.number(text) else { throw UsageError("--max takes a number.") }
                return v
            } ?? 5
        guard low < high else { throw UsageError("--min must be below --max.") }
        range = low...high
        aggregation =
            try arguments.value(Self.daily).map { text in
                guard let parsed = DailyAggregation(rawValue: text) else { throw UsageError("--daily takes mean, sum or last.") }
                return parsed
            } ?? .mean
    }

    func run(in context: CommandContext) throws {
        let metric = try MetricDefinition.custom(id: id, name: name, unit: unit, range: range, aggregation: aggregation)
        let saved = try context.openApplication().outcomes.defineMetric(metric)
        context.console.print("Defined \(saved.id): \(saved.unit), \(saved.rangeText), \(saved.aggregation.rawValue) per day.")
    }
}

/// `cairn regimen import`.
struct RegimenImportCommand: Command {
    static let name = "import"
    static let abstract = "Import past doses from a CSV file (another app's history)."
    static let synopsis = "FILE.csv"
    static let discussion = """
        The file needs a header row naming the columns date, time, time zone, product, amount, unit
        (optional) and status, in any order and any case. Example:

          date,time,time zone,product,amount,unit,status
          2026-03-01,08:00,Europe/Berlin,Vitamin D3,1,softgel,taken
          2026-03-01,21:30,Europe/Berlin,Magnesium,2,capsules,skipped

        time is HH:MM or HH:MM:SS on the wall clock of the time zone (an IANA name such as Europe/Berlin, or
        UTC). product is a product's name (ignoring case) or its id. status is taken or skipped.
        Amount and unit become servings of the product's label in force on that day: no unit or "servings"
        counts servings; capsules, tablets and other counts are divided by the units per serving; g, mg, mL
        and other masses or volumes are converted to the serving's unit and divided by it. An empty amount is
        one serving.

        Doses are added to the log as unscheduled entries with their own time and zone; schedules, Today and
        the count on hand are not changed. A file with any bad line imports nothing: every bad line is listed
        with its line number. Importing the same file again adds nothing; a newer export adds only its new
        lines, and a line whose status or amount changed is added as a correction (the history keeps both).
        """
    static let json = Option("--json", help: "Print the result of every line as JSON.")
    static let options: [Option] = [json]

    let path: String
    let json: Bool

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE.csv"])[0])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let data = try about(path) { try InputFile.read(path, maximumBytes: 64 << 20) }
        let service = try context.openApplication().regimen
        let report = try RegimenOutcomeCommands.reportingBadLines(context.console) {
            try service.importIntakeHistory(data, sourceName: URL(fileURLWithPath: path).lastPathComponent, keepingLines: json)
        }
        if json {
            return try context.console.printJSON(
                ImportJSON(
                    added: report.added, replaced: report.replaced, unchanged: report.unchanged,
                    lines: report.lines.map { .init(line: $0.line, result: $0.result.rawValue, entry: $0.entry) }))
        }
        context.console.print(report.summary)
    }

    private struct ImportJSON: Encodable {
        struct Line: Encodable {
            let line: Int
            let result: String
            let entry: LedgerEntry
        }
        let added: Int, replaced: Int, unchanged: Int
        let lines: [Line]
    }
}

// MARK: JSON shapes

struct OutcomeEntryJSON: Encodable {
    let id: String
    let metric: String
    let date: String
    let value: Double
    let note: String
    let origin: String
    let recordedAt: String
    let supersedes: String?
    let supersededBy: String?

    init(_ e: OutcomeEntry) {
        id = e.id.rawValue
        metric = e.metricID
        date = e.day.description
        value = e.value
        note = e.note
        origin = e.origin.rawValue
        recordedAt = DateText.utc(e.recordedAt)
        supersedes = e.supersedes?.rawValue
        supersededBy = e.supersededBy?.rawValue
    }
}

struct MetricJSON: Encodable {
    let id: String
    let name: String
    let unit: String
    let aggregation: String
    let min: Double
    let max: Double
    let source: String

    init(_ m: MetricDefinition) {
        id = m.id
        name = m.name
        unit = m.unit
        aggregation = m.aggregation.rawValue
        min = m.valueRange.lowerBound
        max = m.valueRange.upperBound
        source = m.source.rawValue
    }
}
