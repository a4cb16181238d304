import CairnApp
import CairnCore
import Foundation
import Regimen

/// `cairn regimen labels ...`: the label database (the public NIH Dietary Supplement Label Database, DSLD,
/// imported on this computer), searched by name, brand or barcode, and a product added from one of its labels
/// through the same review as a label scan.
enum RegimenLabelsCommands {
    /// Where the data comes from, its licence and that Cairn never fetches it: said by every command's help.
    static let source = """
        The label database is the NIH Office of Dietary Supplements' Dietary Supplement Label Database (DSLD,
        dsld.od.nih.gov), public domain. Download its bulk JSON file yourself (a zip) and import it: Cairn never
        fetches anything. It is kept beside the vault, outside it and its backups; barcodes you teach stay in the
        vault.
        """

    static var group: CommandGroup {
        CommandGroup(
            name: "labels", abstract: "The label database (DSLD, imported from its bulk file): import, search, add a product, teach a barcode.",
            children: [
                .command(RegimenLabelsImportCommand.self),
                .command(RegimenLabelsStatusCommand.self),
                .command(RegimenLabelsRemoveCommand.self),
                .command(RegimenLabelsSearchCommand.self),
                .command(RegimenLabelsShowCommand.self),
                .command(RegimenLabelsAddCommand.self),
                .command(RegimenLabelsTeachCommand.self),
            ])
    }

    /// "12.3 MB".
    static func size(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    static func line(_ label: LabelSummary) -> String {
        var parts = ["\(label.id)", label.name]
        if !label.brand.isEmpty { parts.append(label.brand) }
        if !label.servingText.isEmpty { parts.append(label.servingText) }
        if !label.labelDate.isEmpty { parts.append("label of \(label.labelDate)") }
        if !label.onMarket { parts.append("off the market") }
        return parts.joined(separator: " · ")
    }
}

/// `cairn regimen labels import FILE`.
struct RegimenLabelsImportCommand: Command {
    static let name = "import"
    static let abstract = "Build the label database from DSLD's bulk JSON file (replaces an earlier one once whole)."
    static let synopsis = "FILE"
    static let discussion =
        RegimenLabelsCommands.source + "\n\n"
            + """
            FILE is the zip as downloaded (one JSON file per label, or one large JSON array) or the JSON in it. Labels are
            read one at a time; the new database replaces the old one only once it is whole, so a failed import changes
            nothing.
            """
    let path: String

    init(arguments: Arguments) throws { path = arguments.filePath(try arguments.positionals(exactly: ["FILE"])[0]) }

    func run(in context: CommandContext) throws {
        let labels = try context.openApplication().labels
        var shown = -1
        let result = try labels.importFile(atPath: path) { read, total in
            guard total > 0 else { return }
            let percent = Int(read * 100 / total)
            if percent / 10 != shown / 10 {
                shown = percent
                context.console.error("Reading labels: \(percent)%")
            }
        }
        context.console.print(
            "The label database holds \(result.labels) labels (\(RegimenLabelsCommands.size(result.databaseBytes)) on disk)"
                + (result.replaced ? ", replacing the earlier one." : "."))
        if result.leftOut > 0 { context.console.print("\(result.leftOut) records of the file were not labels and were left out.") }
    }
}

/// `cairn regimen labels status`.
struct RegimenLabelsStatusCommand: Command {
    static let name = "status"
    static let readsOnly = true
    static let abstract = "Say when the label database was imported, from which file, and its size."
    static let discussion = RegimenLabelsCommands.source
    static let options: [Option] = [Option.json]
    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Option.json)
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        let status = try application.labels.status()
        if json { return try context.console.printJSON(status) }
        guard let status else {
            context.console.print(LabelDatabaseError.notImported.userMessage)
            return
        }
        context.console.print(
            "\(status.labels) labels, imported \(DateText.string(status.importedAt, .numericMinute, in: application.clock.timeZone)) from \(status.sourceName); \(RegimenLabelsCommands.size(status.fileBytes)) on disk."
        )
    }
}

/// `cairn regimen labels remove`.
struct RegimenLabelsRemoveCommand: Command {
    static let name = "remove"
    static let abstract = "Remove the label database (barcodes you taught stay in the vault)."
    static let discussion = RegimenLabelsCommands.source

    init(arguments: Arguments) throws { _ = try arguments.positionals(exactly: []) }

    func run(in context: CommandContext) throws {
        let removed = try context.openApplication().labels.remove()
        context.console.print(removed ? "The label database was removed." : "There was no label database to remove.")
    }
}

/// `cairn regimen labels search TEXT | --barcode-photo FILE | --barcode NUMBER`.
struct RegimenLabelsSearchCommand: Command {
    static let name = "search"
    static let readsOnly = true
    static let abstract = "Find labels by name or brand, or by the barcode in a photo."
    static let usage = "TEXT | --barcode-photo FILE | --barcode NUMBER [--limit N] [--json]"
    static let discussion =
        """
        TEXT finds labels whose name or brand hold every word (each as a word's start). A barcode is compared as a
        GTIN-14 (a UPC-A read as EAN-13 is the same barcode); it finds your own product first when you taught it
        (labels teach), then the labels that carry it. The photo is read in memory and never kept.
        """ + "\n\n" + RegimenLabelsCommands.source
    static let photo = Option("--barcode-photo", "FILE", help: "A photo of the product's barcode (or its label with the barcode).")
    static let barcode = Option("--barcode", "NUMBER", help: "A barcode number (8, 12, 13 or 14 digits).")
    static let limit = Option("--limit", "N", help: "At most N labels (1 to 100; 20 by default).")
    static let options: [Option] = [photo, barcode, limit, Option.json]

    enum Query {
        case text(String)
        case photo(String)
        case barcode(GTIN)
    }

    let query: Query
    let limit: Int
    let json: Bool

    init(arguments: Arguments) throws {
        limit = try arguments.integer(Self.limit, in: 1...100, default: 20)
        json = arguments.has(Option.json)
        let photo = arguments.value(Self.photo)
        let number = try arguments.value(Self.barcode, as: GTIN.self)
        if let photo {
            _ = try arguments.positionals(exactly: [])
            guard number == nil else { throw UsageError("Give --barcode-photo or --barcode, not both.") }
            query = .photo(arguments.filePath(photo))
        } else if let number {
            _ = try arguments.positionals(exactly: [])
            query = .barcode(number)
        } else {
            guard !arguments.positionals.isEmpty else { throw UsageError("Missing TEXT.") }
            query = .text(arguments.positionals.joined(separator: " "))
        }
    }

    func run(in context: CommandContext) throws {
        let labels = try context.openApplication().labels
        switch query {
        case .text(let text):
            let found = try labels.search(text, limit: limit)
            if json { return try context.console.printJSON(found) }
            if found.isEmpty { context.console.print("No label in the label database holds every word of that.") }
            for label in found { context.console.print(RegimenLabelsCommands.line(label)) }
        case .photo(let path):
            try report(try labels.lookUp(photo: try InputFile.read(path)), in: context)
        case .barcode(let gtin):
            try report(try labels.lookUp(gtin), in: context)
        }
    }

    private func report(_ lookup: BarcodeLookup, in context: CommandContext) throws {
        if json { return try context.console.printJSON(lookup) }
        guard let barcode = lookup.barcode else {
            context.console.print(
                "No barcode could be read in this photo. Photograph the bars straight on, filling a third of the frame, or search by name.")
            return
        }
        context.console.print("Barcode \(barcode.printed).")
        if let yours = lookup.yourProduct { context.console.print("Your product: \(yours.name) (\(yours.id.prefix(8))).") }
        for label in lookup.labels { context.console.print(RegimenLabelsCommands.line(label)) }
        if !lookup.labelDatabaseImported { context.console.print(LabelDatabaseError.notImported.userMessage) }
        if lookup.isUnknown {
            context.console.print(
                "Nothing knows this barcode yet. Link it to one of your products: cairn regimen labels teach \(barcode.printed) PRODUCT")
        }
    }
}

/// `cairn regimen labels show ID`.
struct RegimenLabelsShowCommand: Command {
    static let name = "show"
    static let readsOnly = true
    static let abstract = "Print one label of the label database as JSON, its rows flagged as a scan's are."
    static let synopsis = "ID"
    let id: Int

    init(arguments: Arguments) throws {
        let text = try arguments.positionals(exactly: ["ID"])[0]
        guard let id = Int(text), id > 0 else { throw UsageError("ID is a label's number, as search prints it.") }
        self.id = id
    }

    func run(in context: CommandContext) throws {
        let labels = try context.openApplication().labels
        let label = try labels.label(id)
        try context.console.printJSON(ShownLabel(label: LabelSummaryWithBarcodes(label), proposal: try labels.proposal(for: label)))
    }
}

/// `cairn regimen labels add ID`: a product from a label, through the review gate.
struct RegimenLabelsAddCommand: Command {
    static let name = "add"
    static let abstract = "Add a product from a label of the label database (flagged rows need your decision)."
    static let synopsis = "ID"
    static let discussion = """
        The label's rows are checked as a scanned label's are. A flagged row is saved only once you decide it: on a
        terminal, add asks for each; otherwise give --accept N or --leave-out N for each, or nothing is saved. The
        name, brand and form default to the label's.
        """
    static let nameOption = Option("--name", "NAME", help: "The product's name (the label's by default).")
    static let brand = Option("--brand", "TEXT", help: "The brand (the label's by default).")
    static let form = RegimenCommands.formOption
    static let options: [Option] = [nameOption, brand, form, LabelScanCommand.accept, LabelScanCommand.leaveOut]
    let id: Int
    let name: String?
    let brandText: String?
    let productForm: ProductForm?
    let accepted: Set<Int>
    let leftOut: Set<Int>

    init(arguments: Arguments) throws {
        let text = try arguments.positionals(exactly: ["ID"])[0]
        guard let id = Int(text), id > 0 else { throw UsageError("ID is a label's number, as search prints it.") }
        self.id = id
        name = arguments.value(Self.nameOption)
        brandText = arguments.value(Self.brand)
        productForm = try arguments.value(Self.form, as: ProductForm.self)
        accepted = try RegimenCommands.rowNumbers(arguments.values(LabelScanCommand.accept), option: LabelScanCommand.accept.name)
        leftOut = try RegimenCommands.rowNumbers(arguments.values(LabelScanCommand.leaveOut), option: LabelScanCommand.leaveOut.name)
        if let both = accepted.intersection(leftOut).min() {
            throw UsageError("Row \(both) is given to both --accept and --leave-out; choose one.")
        }
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        let labels = application.labels
        let label = try labels.label(id)
        let proposal = try labels.proposal(for: label)
        guard let form = productForm ?? label.suggestedForm else {
            throw UsageError("The label's form (\(label.formText.isEmpty ? "none" : label.formText)) is not one Cairn knows: give --form.")
        }
        if let unknown = accepted.union(leftOut).first(where: { $0 > proposal.rows.count }) {
            throw UsageError("There is no row \(unknown): the label has \(proposal.rows.count) rows.")
        }
        let checker = try labels.checker()
        let review = ScanReview(proposal: proposal, accepted: accepted, leftOut: leftOut, scanner: checker, console: context.console)
        let kept = try review.decide()
        let product = try checker.product(
            fromReviewed: kept.map(\.row), servingSize: proposal.servingSize, name: name ?? label.name, brand: brandText ?? label.brand,
            form: form)
        let decisions = RowDecisions(
            accepted: Set(kept.enumerated().filter { $0.element.accepted }.map { $0.offset + 1 }),
            readFlags: Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($0.offset + 1, $0.element.row.flags) }))
        let saved = try application.regimen.addProduct(product, decisions: decisions)
        context.console.print(
            "Added \(saved.product.name) (\(saved.product.id.rawValue.prefix(8))) from label \(label.id), \(kept.count) of \(proposal.rows.count) rows."
        )
    }
}

/// `cairn regimen labels teach BARCODE PRODUCT`.
struct RegimenLabelsTeachCommand: Command {
    static let name = "teach"
    static let abstract = "Link a barcode to one of your products, so it finds that product next time."
    static let usage = "BARCODE PRODUCT | --barcode-photo FILE PRODUCT"
    static let discussion = """
        The link is kept in your vault (the label database is not changed). The photo is read in memory and never
        kept.
        """
    static let options: [Option] = [RegimenLabelsSearchCommand.photo]
    let barcode: GTIN?
    let photo: String?
    let product: String

    init(arguments: Arguments) throws {
        if let photo = arguments.value(RegimenLabelsSearchCommand.photo) {
            self.photo = arguments.filePath(photo)
            barcode = nil
            product = try arguments.positionals(exactly: ["PRODUCT"])[0]
        } else {
            let values = try arguments.positionals(exactly: ["BARCODE", "PRODUCT"])
            barcode = try Arguments.parse(values[0], as: GTIN.self, naming: "BARCODE")
            photo = nil
            product = values[1]
        }
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        let target = try application.regimen.findProduct(product)
        var gtin = barcode
        if let photo {
            guard let read = try application.labels.lookUp(photo: try InputFile.read(photo)).barcode else {
                throw UsageError("No barcode could be read in this photo; give the number instead.")
            }
            gtin = read
        }
        guard let gtin else { return }
        let stored = try application.labels.teach(gtin, to: target.product.id)
        context.console.print("Barcode \(gtin.printed) now finds \(stored.product.name).")
    }
}

/// A label as `show` prints it.
private struct LabelSummaryWithBarcodes: Encodable {
    let id: Int
    let name: String
    let brand: String
    let barcodes: [String]
    let servingSize: String
    let form: String
    let labelDate: String
    let onMarket: Bool

    init(_ label: LabelRecord) {
        id = label.id
        name = label.name
        brand = label.brand
        barcodes = label.barcodes.map(\.printed)
        servingSize = label.servingText
        form = label.formText
        labelDate = label.labelDate
        onMarket = label.onMarket
    }
}

private struct ShownLabel: Encodable {
    let label: LabelSummaryWithBarcodes
    let proposal: LabelProposal
}
