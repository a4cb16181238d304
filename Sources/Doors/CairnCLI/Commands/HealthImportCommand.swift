import CairnApp
import CairnCore
import Foundation
import HealthExport

/// The health import commands, registered under `cairn regimen outcomes`.
enum HealthCommands {
    /// The children to list in the `regimen outcomes` group.
    static var outcomesChildren: [CommandEntry] { [.command(HealthImportCommand.self)] }
}

/// `cairn regimen outcomes import-health FILE`.
struct HealthImportCommand: Command {
    static let name = "import-health"
    static let abstract = "Import an Apple Health or Health Connect export, read-only."
    static let synopsis = "FILE"
    static let discussion = """
        FILE is the export.zip from the iPhone Health app's 'Export All Health Data' (or the export.xml inside
        it), or the zip Android's Health Connect export writes (holding health_connect_export.db); which one is
        told from the file, not its name. An Apple export is read as a stream, so several gigabytes are fine;
        Health Connect's database is unpacked for the read into a private file in Cairn's data folder and
        removed after. Progress is shown on stderr for large files. Cairn keeps steps, sleep, resting heart
        rate, body mass, blood pressure, heart rate variability (SDNN, Apple) and heart rate (Health Connect),
        and counts the other record types it skips. Records with impossible values (negative steps, a heart
        rate of 0, ...) are left out and counted. Importing a newer export later adds only the records not
        already stored. An import that fails (a truncated file, say) keeps nothing. Cairn never writes health
        data back.
        """
    static let json = Option("--json", help: "Print the summary as JSON.")
    static let options: [Option] = [json]

    let path: String
    let json: Bool

    init(arguments: Arguments) throws {
        let positionals = try arguments.positionals(exactly: ["FILE"])
        path = arguments.filePath(positionals[0])
        json = arguments.has(Self.json)
    }

    /// The import of `path`, for `outcomes import` handed an export.
    init(path: String, json: Bool) {
        self.path = path
        self.json = json
    }

    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let console = context.console
        var lastShown = -1
        let summary = try app.health.importExport(at: URL(fileURLWithPath: path)) { read, total in
            guard total >= 32 << 20 else { return }
            let percent = Int(read * 100 / max(total, 1))
            guard percent / 5 != lastShown / 5 || lastShown < 0 else { return }
            lastShown = percent
            console.error("Reading the export: \(percent)% (\(read >> 20) of \(total >> 20) MiB)")
        }
        if json {
            return try console.printJSON(
                HealthImportJSON(
                    added: summary.added, alreadyPresent: summary.alreadyPresent, skipped: summary.skippedCount,
                    skippedByType: summary.skippedByType, warnings: summary.warningCount,
                    warningsByKind: Dictionary(uniqueKeysWithValues: summary.warnings.map { ($0.key.rawValue, $0.value) }),
                    fileBytes: summary.fileBytes))
        }
        for sentence in summary.sentences { console.print(sentence) }
        if summary.warningCount > 0 {
            console.print("Left out \(CountText.counted(summary.warningCount, "record")), with their reason:")
            for line in summary.warningLines { console.print("  " + line) }
        }
    }
}

/// The `--json` summary of an import.
struct HealthImportJSON: Encodable {
    let added: Int
    let alreadyPresent: Int
    let skipped: Int
    let skippedByType: [String: Int]
    let warnings: Int
    let warningsByKind: [String: Int]
    let fileBytes: Int64
}
