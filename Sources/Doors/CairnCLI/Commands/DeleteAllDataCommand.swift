import CairnApp
import CairnCore

/// `cairn settings delete-all-data --yes`: the CLI's side of Settings → Delete all data.
struct DeleteAllDataCommand: Command {
    static let name = "delete-all-data"
    static let notesMissingLock = false
    static let abstract = "Remove every record and photo in the vault. Cannot be undone."
    static let discussion = """
        Removes everything Cairn keeps in this vault and leaves an empty vault:
        \(SettingsService.whatDeleteAllRemoves.map { "  - " + $0 }.joined(separator: "\n"))
        There is no undo. \(SettingsService.whatDeleteAllKeeps) --yes confirms that you mean it.
        """
    static let yes = Option("--yes", help: "Confirm that everything is to be deleted.", required: true)
    static let options: [Option] = [yes]

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        guard arguments.has(Self.yes) else {
            throw UsageError("This removes everything in the vault and cannot be undone; add --yes to confirm.")
        }
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        try application.settings.deleteAllData()
        context.console.print("All data in the vault was removed.")
    }
}
