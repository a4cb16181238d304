import CairnApp
import Regimen
import CairnCore
import Foundation

/// `cairn regimen scan LABEL.jpg`: reads a Supplement Facts photo on this machine and prints the proposed rows
/// as JSON. Nothing is stored: the photo stays in memory for the call.
struct LabelScanCommand: Command {
    static let name = "scan"
    static let abstract = "Read a Supplement Facts photo and print the proposed ingredients as JSON (nothing is saved)."
    static let usage = "LABEL.jpg [--json] [--confirm --name NAME --form FORM [--brand TEXT]]"
    static let discussion = """
    Reads the label with Tesseract on this machine and proposes each row: name, catalogue match, amount, unit,
    %DV, form, blend membership, the word boxes it was read from, and flags with their reasons. The photo is
    used in memory only and is not kept. JSON is the only output format (--json is accepted for clarity).
    """

    static let json = Option("--json", help: "Print the proposal as JSON (the default).")
    static let confirm = Option("--confirm", help: "Save the proposal as a product, once you have checked every row. Needs --name and --form.")
    static let nameOption = Option("--name", "NAME", help: "The product's name.")
    static let form = RegimenCommands.formOption
    static let brand = Option("--brand", "TEXT", help: "The brand, if any.")
    static let options: [Option] = [json, confirm, nameOption, form, brand]

    let path: String
    let confirmation: (name: String, form: ProductForm, brand: String)?

    init(arguments: Arguments) throws {
        path = try arguments.positionals(exactly: ["LABEL.jpg"])[0]
        if arguments.has(Self.confirm) {
            guard let name = arguments.value(Self.nameOption), !name.isEmpty else { throw UsageError("--confirm needs --name.") }
            guard let form = try RegimenCommands.parseForm(arguments.value(Self.form)) else {
                throw UsageError("--confirm needs --form.")
            }
            confirmation = (name, form, arguments.value(Self.brand) ?? "")
        } else {
            guard arguments.value(Self.nameOption) == nil, arguments.value(Self.form) == nil, arguments.value(Self.brand) == nil else {
                throw UsageError("--name, --form and --brand go with --confirm.")
            }
            confirmation = nil
        }
    }

    func run(in context: CommandContext) throws {
        let data = try InputFile.read(path)
        let scanner = try LabelScanService.makeDefault()
        let proposal = try scanner.propose(imageData: data)
        guard let confirmation else {
            try context.console.printJSON(proposal)
            return
        }
        let product = try scanner.product(from: proposal, name: confirmation.name, brand: confirmation.brand,
                                          form: confirmation.form)
        let saved = try context.openApplication().regimen.addProduct(product)
        try context.console.printJSON(ConfirmedScan(proposal: proposal, savedProductID: saved.product.id.rawValue))
    }
}

/// What `scan --confirm` prints: the proposal that was saved and the new product's id.
private struct ConfirmedScan: Encodable {
    let proposal: LabelProposal
    let savedProductID: String
}
