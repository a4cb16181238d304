import CairnApp
import CairnCore
import Foundation
import Regimen

private let ingredientHelp = """
      INGREDIENT        A label row written NAME=AMOUNT, e.g. "Vitamin D3=25 mcg" or "Magnesium=200 mg"
                        (or a NAME alone for a row without an amount); a form and the %DV may follow:
                        "Magnesium (as magnesium glycinate)=200 mg, 48% DV". Names are matched against Cairn's
                        ingredient catalogue; rows it does not know are kept and marked "not in catalogue".
    Rows are checked as scanned ones are (catalogue, unit, usual range, upper limit, %DV, a missing amount); a
    flagged row is saved only with --accept N, after you have checked it. Without it nothing is saved.
    """

/// `cairn regimen products list`.
struct RegimenProductsListCommand: Command {
    static let name = "list"
    static let readsOnly = true
    static let abstract = "List every product (archived ones with --archived)."
    static let archived = Option("--archived", help: "List the archived products instead.")
    static let options: [Option] = [archived, .json]

    let json: Bool
    let archived: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(.json)
        archived = arguments.has(Self.archived)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let products = archived ? try service.archivedProducts() : try service.products()
        if json { return try context.console.printJSON(products.map(ProductJSON.init)) }
        if products.isEmpty {
            context.console.print(
                archived
                    ? "No archived products." : "No products yet. Add one with 'cairn regimen products add NAME --form FORM INGREDIENT...'.")
        }
        for p in products {
            context.console.print(
                "\(p.product.id)  \(p.product.name)  (\(p.product.form.rawValue), \(CountText.counted(p.product.ingredients.count, "ingredient")))")
        }
    }
}

/// `cairn regimen products add`.
struct RegimenProductsAddCommand: Command {
    static let name = "add"
    static let abstract = "Add a product with its label rows."
    static let synopsis = "NAME [INGREDIENT ...]"
    static let discussion = """
        \(ingredientHelp)
        Amounts on the label are checked: an unknown unit, a negative amount or one no serving can hold is
        refused and nothing is saved.
        """

    static let form = RegimenCommands.formOption.required
    static let serving = Option(
        "--serving", "AMOUNT", help: "One serving: a count (\"2\" capsules, the default is 1), a mass (\"5 g\") or a volume (\"1 mL\").")
    static let brand = Option("--brand", "TEXT", help: "The brand, if any.")
    static let accept = Option("--accept", "N", help: "Save flagged INGREDIENT row N (its number, from 1) as typed; repeat per row, or \"2,5\".")
    static let options: [Option] = [form, serving, brand, accept, .json]

    let name: String
    let form: ProductForm
    let serving: String
    let brand: String
    let ingredients: [String]
    let json: Bool

    init(arguments: Arguments) throws {
        guard let first = arguments.positionals.first else { throw UsageError("Missing NAME.") }
        name = first
        ingredients = Array(arguments.positionals.dropFirst())
        guard let form = try arguments.value(Self.form, as: ProductForm.self) else { throw UsageError("--form is required.") }
        self.form = form
        serving = arguments.value(Self.serving) ?? "1"
        brand = arguments.value(Self.brand) ?? ""
        json = arguments.has(.json)
        accepted = try RegimenCommands.rowNumbers(arguments.values(Self.accept), option: Self.accept.name)
    }

    let accepted: Set<Int>

    func run(in context: CommandContext) throws {
        let input = ProductInput(name: name, brand: brand, form: form.rawValue, serving: serving, ingredients: ingredients)
        let saved = try typedRowsGate {
            try context.openApplication().regimen.addProduct(input, decisions: RowDecisions(accepted: accepted))
        }
        if json { return try context.console.printJSON(ProductJSON(saved)) }
        context.console.print("Added product \(saved.product.id)")
        printRows(saved, context.console)
    }
}

/// `cairn regimen products show`.
struct RegimenProductsShowCommand: Command {
    static let name = "show"
    static let readsOnly = true
    static let abstract = "Show a product's label rows and how many revisions it has."
    static let synopsis = "PRODUCT"
    static let discussion = "PRODUCT is a product id or its exact name."
    static let options: [Option] = [.json]

    let reference: String
    let json: Bool

    init(arguments: Arguments) throws {
        reference = try arguments.positionals(exactly: ["PRODUCT"])[0]
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let product = try service.findProduct(reference)
        if json { return try context.console.printJSON(ProductJSON(product)) }
        context.console.print("\(product.product.name)\(product.product.brand.isEmpty ? "" : " (\(product.product.brand))")")
        context.console.print(
            "Id: \(product.product.id)   Revision \(product.revisionNumber) of \(try service.productHistory(product.product.id).count)")
        if let supply = try service.supply(product.product.id) { context.console.print("Supply: " + supply.summary) }
        printRows(product, context.console)
    }
}

/// What `products archive` and `products restore` do to a product's place on the lists.
protocol ProductShelfAction {
    static var name: String { get }
    static var abstract: String { get }
    static var discussion: String { get }
    /// Applies the action and says what was done.
    static func apply(_ service: RegimenService, _ product: StoredProduct) throws -> String
}

/// `cairn regimen products archive` and `restore`: one product, named by id or exact name.
struct RegimenProductsShelfCommand<Action: ProductShelfAction>: Command {
    static var name: String { Action.name }
    static var abstract: String { Action.abstract }
    static var synopsis: String { "PRODUCT" }
    static var discussion: String { Action.discussion }

    let reference: String

    init(arguments: Arguments) throws { reference = try arguments.positionals(exactly: ["PRODUCT"])[0] }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        context.console.print(try Action.apply(service, try service.findProduct(reference)))
    }
}

enum ArchiveProduct: ProductShelfAction {
    static let name = "archive"
    static let abstract = "Take a product off your lists; its versions and logged doses stay."
    static let discussion = "PRODUCT is a product id or its exact name. Stop its schedules first. 'products restore' puts it back."
    static func apply(_ service: RegimenService, _ product: StoredProduct) throws -> String {
        try service.archiveProduct(product.product.id)
        return "Archived \(product.product.name). Its history stays; 'cairn regimen products restore' puts it back."
    }
}

enum RestoreProduct: ProductShelfAction {
    static let name = "restore"
    static let abstract = "Put an archived product back on your lists."
    static let discussion = "PRODUCT is a product id or its exact name ('products list --archived' lists them)."
    static func apply(_ service: RegimenService, _ product: StoredProduct) throws -> String {
        try service.restoreProduct(product.product.id)
        return "Restored \(product.product.name) to your lists."
    }
}

/// `cairn regimen products edit`.
struct RegimenProductsEditCommand: Command {
    static let name = "edit"
    static let abstract = "Save a new revision of a product's label (earlier log entries keep the old one)."
    static let synopsis = "PRODUCT [INGREDIENT ...]"
    static let discussion = """
        Options not given keep their current value. INGREDIENT rows, when given, replace all rows; a row named as
        before keeps its form and catalogue entry unless you write them, and its %DV while the amount is unchanged.
        A row left as it was keeps the decision made when it was saved; an edit that changes nothing saves nothing.
        \(ingredientHelp)
        """

    static let nameOption = Option("--name", "TEXT", help: "The new name.")
    static let form = RegimenCommands.formOption
    static let serving = Option("--serving", "AMOUNT", help: "One serving: a count (\"2\" capsules), a mass (\"5 g\") or a volume (\"1 mL\").")
    static let brand = Option("--brand", "TEXT", help: "The brand.")
    static let accept = Option("--accept", "N", help: "Save flagged INGREDIENT row N (its number, from 1) as typed; repeat per row, or \"2,5\".")
    static let options: [Option] = [nameOption, form, serving, brand, accept, .json]

    let reference: String
    let name: String?
    let form: ProductForm?
    let serving: String?
    let brand: String?
    let ingredients: [String]
    let json: Bool
    let accepted: Set<Int>

    init(arguments: Arguments) throws {
        guard let first = arguments.positionals.first else { throw UsageError("Missing PRODUCT.") }
        reference = first
        ingredients = Array(arguments.positionals.dropFirst())
        name = arguments.value(Self.nameOption)
        form = try arguments.value(Self.form, as: ProductForm.self)
        serving = arguments.value(Self.serving)
        brand = arguments.value(Self.brand)
        json = arguments.has(.json)
        accepted = try RegimenCommands.rowNumbers(arguments.values(Self.accept), option: Self.accept.name)
        if name == nil, form == nil, serving == nil, brand == nil, ingredients.isEmpty {
            throw UsageError("Nothing to change: give --name, --form, --serving, --brand or INGREDIENT rows.")
        }
    }

    func run(in context: CommandContext) throws {
        let service = try context.openApplication().regimen
        let current = try service.findProduct(reference).product
        let input = ProductInput(
            name: name, brand: brand, form: form?.rawValue, serving: serving,
            ingredients: ingredients.isEmpty ? nil : ingredients)
        let outcome = try typedRowsGate {
            try service.editProduct(current.id, input, decisions: RowDecisions(accepted: accepted))
        }
        if json { return try context.console.printJSON(ProductJSON(outcome.product)) }
        switch outcome {
        case .saved(let saved): context.console.print("Saved revision \(saved.revisionNumber) of product \(saved.product.id)")
        case .unchanged(let kept): context.console.print("Nothing changed: product \(kept.product.id) stays at revision \(kept.revisionNumber).")
        }
        printRows(outcome.product, context.console)
    }
}

/// Runs a save of typed rows, turning the gate's refusal into one that says what is wrong with each row and how
/// to accept it (by number: messages never repeat what was typed).
private func typedRowsGate<T>(_ save: () throws -> T) throws -> T {
    do { return try save() } catch let refusal as FlaggedRowsUndecided {
        throw TypedRowsUndecided(rows: refusal.rows)
    } catch let refusal as FieldProblems<ProductField> {
        throw TypedProductRefused(problems: refusal)
    }
}

/// Every refusal of a typed product at once, one a line, each naming what it is about.
struct TypedProductRefused: CairnError {
    let problems: FieldProblems<ProductField>

    var userMessage: String {
        let lines = ProblemList.entries(problems.problems) { p -> String in
            let what: String =
                switch p.field {
                case .name: "NAME"
                case .brand: "--brand"
                case .form: "--form"
                case .serving: "--serving"
                case .ingredients: p.row.map { "INGREDIENT row \($0)" } ?? "INGREDIENT rows"
                }
            return "  \(what): \(p.message)"
        }
        return "Nothing was saved:\n" + lines.joined(separator: "\n")
    }
}

/// Why `products add` or `products edit` saved nothing: flagged rows without `--accept N`.
struct TypedRowsUndecided: CairnError {
    let rows: [FlaggedRow]

    var userMessage: String {
        let list = ProblemList.entries(rows) { row in
            "  row \(row.number):\n" + row.flags.map { "    \($0.title): \($0.reason)" }.joined(separator: "\n")
        }
        let numbers =
            rows.count > ProblemList.shown
            ? ProblemList.joined(rows, separator: ", ") { "\($0.number)" }
            : FlaggedRowsUndecided.join(rows.map { "\($0.number)" })
        return """
            \(rows.count == 1 ? "Row \(numbers) is" : "Rows \(numbers) are") flagged (rows count from 1, in the order given):
            \(list.joined(separator: "\n"))
            Nothing was saved. Check each against the label; to save it as written, add --accept \(rows.map { "\($0.number)" }.joined(separator: ",")).
            """
    }
}

private func printRows(_ stored: StoredProduct, _ console: Console) {
    let p = stored.product
    let serving = p.servingSize.unit == .count ? "\(p.servingSize.value) x \(p.form.rawValue)" : p.servingSize.description
    console.print("\(p.name): \(serving) per serving")
    for row in p.ingredients {
        let amount = row.amount.map { " \($0)" } ?? ""
        console.print("  \(row.nameOnLabel)\(amount)\(row.catalogueID == nil ? "  (not in catalogue: check the name)" : "")")
    }
}
