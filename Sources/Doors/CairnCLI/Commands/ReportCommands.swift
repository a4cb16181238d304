import CairnApp
import CairnCore
import Foundation
import Regimen
import Reports

/// What the three `report` commands share: `--out FILE` (required), `--paper a4|letter`, `--force`, and how
/// the written file is announced (page count and, line by line, what it holds).
enum ReportCommands {
    static let out = Option(
        "--out", "FILE", help: "The PDF to write (owner-only access, mode 0600). Nothing half-written is left if it fails.",
        required: true)
    static let paper = Option("--paper", "a4|letter", help: "Paper size (default a4).")
    static let force = Option("--force", help: "Replace a file already at FILE (otherwise it is left alone and nothing is written).")
    static let options = [out, paper, force]
    static let discussion = "The file is written on this computer and sent nowhere; where it goes next is up to you."

    struct Output {
        let path: String, paper: PaperSize, force: Bool
        init(_ arguments: Arguments) throws {
            guard let out = arguments.value(ReportCommands.out), !out.isEmpty else { throw UsageError("Missing --out FILE.pdf.") }
            path = arguments.filePath(out)
            let paperText = arguments.value(ReportCommands.paper) ?? "a4"
            guard let paper = PaperSize(parsing: paperText) else { throw UsageError("--paper takes a4 or letter.") }
            self.paper = paper
            force = arguments.has(ReportCommands.force)
        }
    }

    static func write(_ report: Report, _ output: Output, app: CairnApplication, console: Console) throws {
        let pages = try app.reports.write(report, to: output.path, replace: output.force)
        console.print("Wrote \(pages) page\(pages == 1 ? "" : "s") (\(output.paper.label)) to \(output.path). It holds:")
        for line in report.contents { console.print("- " + line) }
    }
}

/// `cairn skin report AREA --out FILE.pdf`
struct SkinReportCommand: Command {
    static let name = "report"
    static let abstract = "Write a PDF photo log of one area: every photo with its date, note and similarity, and the trend."
    static let synopsis = "AREA"
    static let options = ReportCommands.options
    static let discussion = ReportCommands.discussion
    let area: String, output: ReportCommands.Output
    init(arguments: Arguments) throws {
        area = try arguments.positionals(exactly: ["AREA"])[0]
        output = try ReportCommands.Output(arguments)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let found = try app.skin.area(namedOnCommandLine: area)
        try ReportCommands.write(try app.reports.skinPhotoLog(area: found.id, paper: output.paper), output, app: app, console: context.console)
    }
}

/// `cairn smile report --out FILE.pdf`
struct SmileReportCommand: Command {
    static let name = "report"
    static let abstract = "Write a PDF progress sheet of the mouth crops in date order (only the anonymised crops)."
    static let options = ReportCommands.options
    static let discussion = ReportCommands.discussion
    let output: ReportCommands.Output
    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        output = try ReportCommands.Output(arguments)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        try ReportCommands.write(try app.reports.smileProgressSheet(paper: output.paper), output, app: app, console: context.console)
    }
}

/// `cairn regimen report --from DATE --to DATE --out FILE.pdf`
struct RegimenReportCommand: Command {
    static let name = "report"
    static let abstract = "Write a PDF summary of a period: products, schedules, logged doses, ingredient totals, outcomes, insights."
    static let from = Option("--from", "YYYY-MM-DD", help: "The first and last day of the period (local days, inclusive).", required: true)
    static let to = Option("--to", "YYYY-MM-DD", help: "The first and last day of the period (local days, inclusive).", required: true)
    static let noDetails = Option(
        "--no-insight-details", help: "Leave out the appendix of insight figures (each insight's sentence and disclaimer stay).")
    static let options = [from, to, noDetails] + ReportCommands.options
    static let discussion = ReportCommands.discussion
    let period: ReportPeriod, output: ReportCommands.Output, details: Bool
    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        guard let from = try arguments.value(Self.from, as: LocalDay.self) else {
            throw UsageError("Missing --from YYYY-MM-DD.")
        }
        guard let to = try arguments.value(Self.to, as: LocalDay.self) else {
            throw UsageError("Missing --to YYYY-MM-DD.")
        }
        do { period = try ReportPeriod(from: from, to: to) } catch let refusal as ReportPeriodError { throw UsageError(refusal.userMessage) }
        output = try ReportCommands.Output(arguments)
        details = !arguments.has(Self.noDetails)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        try ReportCommands.write(
            try app.reports.regimenSummary(period, paper: output.paper, insightDetails: details), output, app: app,
            console: context.console)
    }
}
