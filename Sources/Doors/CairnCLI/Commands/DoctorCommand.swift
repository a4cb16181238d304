import CairnApp
import CairnCore
import Notifications
import PhoneLink
import WebApp

/// `cairn doctor`: which native libraries and models are present, where the vault is, and whether it is sound.
struct DoctorCommand: Command {
    static let name = "doctor"
    static let abstract = "Check the vault (database, every photo, leftovers) and report which native parts are present."
    static let discussion = """
        Reads the database (SQLite's integrity check) and every photo whole, decrypted where the vault is locked, and
        compares each with the digest recorded when it was stored; lists photo files no record names, what was kept
        aside in lost+found, and leftovers of commands that were stopped (which it removes, as any command does). Then
        it reports each library Cairn uses and each model file. Exit 0 when the vault is sound (a missing optional part
        is only a warning line), 1 when the vault itself has a problem. A locked vault asks for its passphrase.
        """

    static let json = Option("--json", help: "Print the report as JSON.")
    static let options: [Option] = [json]

    /// It never runs inside `cairn serve` (CommandForwarding): it reads the vault's files as they are on disk.
    var goesThroughServer: Bool { false }

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    /// The vault has a problem: the command exits 1 after its report.
    struct VaultProblems: CairnError {
        let count: Int
        var errorKind: ErrorKind { .failure }
        var userMessage: String {
            "The vault has \(CountText.counted(count, "problem")) (listed above). A backup made before it happened restores it."
        }
    }

    struct Report: Encodable {
        let components: [ComponentStatus]
        let vault: DiagnosticsReport.VaultLocation
        let check: VaultCheckReport
    }

    func run(in context: CommandContext) throws {
        let report = Diagnostics.report(
            dataDirectory: context.dataDirectory, environment: context.environment,
            extra: WebLibraries.statuses() + PhoneLinkLibraries.statuses() + NotificationLibraries.statuses(environment: context.environment)
                + [LabelDatabaseService.barcodeLibraryStatus()])
        let check = Diagnostics.checkVault(
            dataDirectory: context.dataDirectory, environment: context.environment,
            clock: context.clock, passphrase: context.askVaultPassphrase)
        let problems = check.problemCount
        if json {
            try context.console.printJSON(Report(components: report.components, vault: report.vault, check: check))
            if problems > 0 { throw VaultProblems(count: problems) }
            return
        }
        let width = (report.components.map { $0.name.count }.max() ?? 0) + 2
        for component in report.components {
            let name = component.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let state = component.present ? "present" : "missing (warning)"
            let version = component.version.map { " \($0)" } ?? ""
            context.console.print("\(name)\(state)\(version)  (\(component.role))")
            if let note = component.note { context.console.print(String(repeating: " ", count: width) + note) }
        }
        context.console.print("")
        context.console.print("Vault: \(report.vault.path)\(report.vault.exists ? "" : " (not created yet)")")
        for finding in check.findings {
            let label =
                switch finding.kind {
                case .problem: "Problem: "
                case .repaired: "Repaired: "
                case .note: ""
                }
            context.console.print("  " + label + finding.message)
        }
        if problems > 0 { throw VaultProblems(count: problems) }
    }
}
