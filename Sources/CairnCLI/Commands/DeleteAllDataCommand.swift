import CairnApp
import CairnCore

/// `cairn settings delete-all-data --yes`: the CLI's side of Settings → Delete all data.
struct DeleteAllDataCommand: Command {
    static let name = "delete-all-data"
    static let abstract = "Remove every record and photo in the vault. Cannot be undone."
    static let discussion = """
    Removes every area, photo, product, schedule and log entry that Cairn keeps on this computer, and
    leaves an empty vault. There is no undo and no copy elsewhere. --yes confirms that you mean it.
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
