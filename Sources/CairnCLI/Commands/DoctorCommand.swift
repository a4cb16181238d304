import CairnApp
import CairnCore
import WebApp

/// `cairn doctor`: which native libraries and models are present, and where the vault is.
struct DoctorCommand: Command {
    static let name = "doctor"
    static let abstract = "Report which native libraries and models are present, and where the vault is."
    static let discussion = """
    Checks each library Cairn links and each model file it can use, without changing anything.
    """

    static let json = Option("--json", help: "Print the report as JSON.")
    static let options: [Option] = [json]

    /// It never runs inside `cairn serve` (CommandForwarding): it opens no vault.
    var goesThroughServer: Bool { false }

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let report = Diagnostics.report(dataDirectory: context.dataDirectory, environment: context.environment,
                                        extra: WebLibraries.statuses())
        if json {
            try context.console.printJSON(report)
            return
        }
        let width = (report.components.map { $0.name.count }.max() ?? 0) + 2
        for component in report.components {
            let name = component.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let state = component.present ? "present" : "missing"
            let version = component.version.map { " \($0)" } ?? ""
            context.console.print("\(name)\(state)\(version)  (\(component.role))")
            if let note = component.note { context.console.print(String(repeating: " ", count: width) + note) }
        }
        context.console.print("")
        context.console.print("Vault: \(report.vault.path)\(report.vault.exists ? "" : " (not created yet)")")
    }
}
