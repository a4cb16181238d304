import CairnApp
import CairnCore
import Foundation
import Regimen

/// `cairn regimen scan LABEL.jpg`: reads a Supplement Facts photo on this machine and prints the proposed rows
/// as JSON. Nothing is stored: the photo stays in memory for the call. With `--confirm` the product is saved, but
/// only once every flagged row is decided: accepted, edited or left out (on a terminal the command asks row by
/// row; in a script `--accept N` / `--leave-out N` decide, and an undecided flagged row refuses the save).
struct LabelScanCommand: Command {
    static let name = "scan"
    static let abstract = "Read a Supplement Facts photo and print the proposed ingredients as JSON (nothing is saved)."
    static let usage =
        "LABEL.jpg [--json] [--confirm --name NAME --form FORM [--brand TEXT] [--accept N]... [--leave-out N]... [--use-database N]... [--keep-read N]...]"
    static let discussion = """
        Reads the label with Tesseract on this machine and proposes each row: its number, name, catalogue match,
        amount, unit, %DV, form, blend membership, the word boxes it was read from, and flags with their reasons.
        Lines that are not ingredients (directions, warnings, an address, text below the panel) are left out and
        listed; lines seen but not read, and a panel that runs off the photo, are reported in "warnings".
        "layout" says how the panel was read (columns side by side, where the amounts were, dot leaders), and
        "linesNotRead" lists each line seen and not read with why: unreadable, barelyLegible, notAnIngredient, or
        notSupported (a food's nutrition panel of any country, or another language: declined, no rows). A panel in
        a large photo is cut from it at full resolution. The photo is used in memory only and is not kept. JSON is
        the only output format (--json is accepted for clarity).
        """

    static let json = Option("--json", help: "Print the proposal as JSON (the default).")
    static let confirm = Option(
        "--confirm",
        help: """
            Save the proposal as a product. Needs --name and --form. A flagged row is saved only once
            you decide it: on a terminal, scan asks for each flagged row (accept, edit, leave out);
            otherwise give --accept N or --leave-out N for each, or nothing is saved.
            """)
    static let accept = Option(
        "--accept", "N", help: "Save flagged row N as read, after checking it against the label (repeat per row; \"2,5\" works).")
    static let leaveOut = Option("--leave-out", "N", help: "Do not save row N (repeat per row).")
    static let nameOption = Option("--name", "NAME", help: "The product's name.")
    static let form = RegimenCommands.formOption
    static let brand = Option("--brand", "TEXT", help: "The brand, if any.")
    static let useDatabase = Option(
        "--use-database", "N",
        help: "Where the photo's barcode is in the label database and row N differs from it: save its amount and %DV.")
    static let keepRead = Option("--keep-read", "N", help: "Where row N differs from the label database: save it as read.")
    static let options: [Option] = [json, confirm, accept, leaveOut, nameOption, form, brand, useDatabase, keepRead]

    let path: String
    let confirmation: (name: String, form: ProductForm, brand: String)?
    let accepted: Set<Int>
    let leftOut: Set<Int>
    let fromDatabase: Set<Int>
    let asRead: Set<Int>

    init(arguments: Arguments) throws {
        fromDatabase = try RegimenCommands.rowNumbers(arguments.values(Self.useDatabase), option: Self.useDatabase.name)
        asRead = try RegimenCommands.rowNumbers(arguments.values(Self.keepRead), option: Self.keepRead.name)
        if let both = fromDatabase.intersection(asRead).min() {
            throw UsageError("Row \(both) is given to both --use-database and --keep-read; choose one.")
        }
        path = arguments.filePath(try arguments.positionals(exactly: ["LABEL.jpg"])[0])
        accepted = try RegimenCommands.rowNumbers(arguments.values(Self.accept), option: Self.accept.name)
        leftOut = try RegimenCommands.rowNumbers(arguments.values(Self.leaveOut), option: Self.leaveOut.name)
        if let both = accepted.intersection(leftOut).min() {
            throw UsageError("Row \(both) is given to both --accept and --leave-out; choose one.")
        }
        if arguments.has(Self.confirm) {
            guard let name = arguments.value(Self.nameOption), !name.isEmpty else { throw UsageError("--confirm needs --name.") }
            guard let form = try arguments.value(Self.form, as: ProductForm.self) else {
                throw UsageError("--confirm needs --form.")
            }
            confirmation = (name, form, arguments.value(Self.brand) ?? "")
        } else {
            guard arguments.value(Self.nameOption) == nil, arguments.value(Self.form) == nil, arguments.value(Self.brand) == nil,
                accepted.isEmpty, leftOut.isEmpty, fromDatabase.isEmpty, asRead.isEmpty
            else {
                throw UsageError("--name, --form, --brand, --accept, --leave-out, --use-database and --keep-read go with --confirm.")
            }
            confirmation = nil
        }
    }

    func run(in context: CommandContext) throws {
        // A scan sent to a running `cairn serve` runs in the server's process, which goes on serving pages: it keeps
        // its own libvips threads and heap settings (`startForOnePhoto` is for a process that reads one photo).
        let scanner = context.served == nil ? LabelScanService.startForOnePhoto() : LabelScanService.startDefault()
        let data = try about(path) { try InputFile.read(path) }
        var proposal = try scanner.propose(imageData: data)
        // The photo's barcode, when the label database knows it: each row that differs is shown beside it.
        let folder =
            try context.served?.vault.directory ?? VaultFolder.directory(dataDirectory: context.dataDirectory, environment: context.environment)
        let match = LabelDatabaseService.comparison(of: proposal, photo: data, inVaultFolder: folder)
        if let match, match.comparison.disagrees { Self.report(match.label, match.comparison, proposal: proposal, console: context.console) }
        guard let confirmation else {
            try context.console.printJSON(proposal)
            return
        }
        if let match, match.comparison.disagrees {
            proposal = try choose(match.comparison, in: proposal, scanner: scanner, console: context.console)
        }
        guard proposal.status == .proposed else { throw LabelSaveError.nothingToSave }
        if let unknown = accepted.union(leftOut).first(where: { $0 > proposal.rows.count }) {
            throw UsageError("There is no row \(unknown): the label gave \(proposal.rows.count) rows.")
        }
        let review = ScanReview(
            proposal: proposal, accepted: accepted, leftOut: leftOut, scanner: scanner,
            console: context.console)
        let kept = try review.decide()
        let product = try scanner.product(
            fromReviewed: kept.map(\.row), servingSize: proposal.servingSize,
            name: confirmation.name, brand: confirmation.brand, form: confirmation.form)
        let decisions = RowDecisions(
            accepted: Set(kept.enumerated().filter { $0.element.accepted }.map { $0.offset + 1 }),
            readFlags: Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($0.offset + 1, $0.element.row.flags) }))
        let saved = try context.openApplication().regimen.addProduct(product, decisions: decisions)
        try context.console.printJSON(
            ConfirmedScan(
                proposal: proposal, savedProductID: saved.product.id.rawValue,
                acceptedRows: kept.filter(\.accepted).map(\.number), editedRows: kept.filter(\.edited).map(\.number),
                leftOutRows: review.leftOutNumbers(kept)))
    }
}

extension LabelScanCommand {
    /// Says, on stderr, where the photo and the label database's label for its barcode differ.
    static func report(_ label: LabelRecord, _ comparison: LabelComparison, proposal: LabelProposal, console: Console) {
        console.error(
            "The barcode in this photo is in the label database: label \(label.id), \(label.name)\(label.brand.isEmpty ? "" : " (\(label.brand))").")
        for pair in comparison.pairs where pair.differs {
            let row = proposal.rows[pair.readIndex]
            console.error(
                "  Row \(row.number) \(ScanReview.quoted(row.nameOnLabel)): the photo \(describe(row.amount, row.dailyValuePercent)); the label database \(describe(pair.database.amount, pair.database.dailyValuePercent))."
            )
        }
        for row in comparison.onlyInDatabase {
            console.error(
                "  Only in the label database: \(ScanReview.quoted(row.name)) \(describe(row.amount, row.dailyValuePercent)) (cairn regimen labels show \(label.id))."
            )
        }
    }

    static func describe(_ amount: Amount?, _ percent: Decimal?) -> String {
        (amount.map { "\($0)" } ?? "no amount") + (percent.map { ", \($0)% DV" } ?? "")
    }

    /// The proposal with the person's choice for each row that differs from the label database: `--use-database N`,
    /// `--keep-read N`, else asked on a terminal. Throws `ScanRowsDiffer` for a row nobody chose for.
    func choose(_ comparison: LabelComparison, in proposal: LabelProposal, scanner: LabelScanService, console: Console) throws -> LabelProposal {
        var rows = proposal.rows
        var undecided: [Int] = []
        for pair in comparison.pairs where pair.differs {
            let number = rows[pair.readIndex].number
            var useDatabase = fromDatabase.contains(number)
            if !useDatabase && !asRead.contains(number) {
                guard console.canAsk else {
                    undecided.append(number)
                    continue
                }
                let answer = console.ask("Row \(number): keep what the photo says, or the label database's? [p/d]")?.trimmingCharacters(
                    in: .whitespaces
                ).lowercased()
                guard let answer, ["p", "d", "photo", "database"].contains(answer) else {
                    undecided.append(number)
                    continue
                }
                useDatabase = answer.hasPrefix("d")
            }
            guard useDatabase else { continue }
            let read = rows[pair.readIndex]
            rows[pair.readIndex] = scanner.revalidate(
                EditedLabelRow(
                    nameOnLabel: read.nameOnLabel, form: read.form, amount: pair.database.amount,
                    dailyValuePercent: pair.database.dailyValuePercent, isBlend: read.isBlend, blendName: read.blendName), number: number)
        }
        guard undecided.isEmpty else { throw ScanRowsDiffer(rows: undecided) }
        return proposal.replacingRows(rows)
    }
}

/// Why `scan --confirm` saved nothing: rows that differ from the label database and nobody chose for.
struct ScanRowsDiffer: CairnError {
    let rows: [Int]

    var userMessage: String {
        let numbers = FlaggedRowsUndecided.join(rows.map(String.init))
        return
            "The photo and the label database differ on \(rows.count == 1 ? "row" : "rows") \(numbers). Give --use-database N or --keep-read N for each (or run scan on a terminal to choose). Nothing was saved."
    }
}

/// The person's decisions on a scan's flagged rows: from `--accept` / `--leave-out`, else asked on a terminal.
struct ScanReview {
    /// A row to save, with the decision that lets it through.
    struct Kept {
        let number: Int
        var row: LabelProposalRow
        var accepted: Bool
        var edited: Bool
    }

    let proposal: LabelProposal
    let accepted: Set<Int>
    let leftOut: Set<Int>
    let scanner: LabelScanService
    let console: Console

    /// The rows to save. Throws `ScanRowsUndecided` while a flagged row is undecided and nobody can be asked.
    func decide() throws -> [Kept] {
        var kept: [Kept] = []
        var undecided: [LabelProposalRow] = []
        if !proposal.notIngredients.isEmpty {
            console.error("Left out, not ingredients: " + proposal.notIngredients.map(ScanReview.quoted).joined(separator: "; "))
        }
        for row in proposal.rows where !leftOut.contains(row.number) {
            if !row.needsDecision || accepted.contains(row.number) {
                kept.append(Kept(number: row.number, row: row, accepted: row.needsDecision, edited: false))
                continue
            }
            guard console.canAsk else {
                undecided.append(row)
                continue
            }
            if let decided = ask(about: row) { kept.append(decided) }
        }
        guard undecided.isEmpty else { throw ScanRowsUndecided(rows: undecided) }
        return kept
    }

    func leftOutNumbers(_ kept: [Kept]) -> [Int] {
        let keptNumbers = Set(kept.map(\.number))
        return proposal.rows.map(\.number).filter { !keptNumbers.contains($0) }
    }

    /// Asks about one flagged row until it is accepted, edited into a row without flags (or accepted), or left out.
    /// Nil when left out; a row whose question got no answer (input ended) stops the save.
    private func ask(about read: LabelProposalRow) -> Kept? {
        var row = read
        var edited = false
        while true {
            console.error("")
            console.error("Row \(read.number): \(ScanReview.describe(row))")
            for flag in row.flags { console.error("  \(flag.title): \(flag.reason)") }
            guard
                let answer = console.ask("Accept this row as it is, edit it, or leave it out? [a/e/l]")?
                    .trimmingCharacters(in: .whitespaces).lowercased()
            else {
                console.error("No answer: nothing was saved.")
                return Kept(number: read.number, row: row, accepted: false, edited: edited)
            }
            switch answer {
            case "a", "accept": return Kept(number: read.number, row: row, accepted: true, edited: edited)
            case "l", "leave", "leave out", "o": return nil
            case "e", "edit":
                row = edit(row)
                edited = true
                if !row.needsDecision {
                    console.error("Row \(read.number) is now: \(ScanReview.describe(row))")
                    return Kept(number: read.number, row: row, accepted: false, edited: true)
                }
            default: console.error("Answer a (accept), e (edit) or l (leave out).")
            }
        }
    }

    /// The row with the fields the person retyped (an empty answer keeps a field; "-" clears it), checked again.
    private func edit(_ row: LabelProposalRow) -> LabelProposalRow {
        func field(_ label: String, _ current: String) -> String {
            let answer = console.ask("\(label) [\(current)]:")?.trimmingCharacters(in: .whitespaces) ?? ""
            return answer.isEmpty ? current : (answer == "-" ? "" : answer)
        }
        let name = field("Name", row.nameOnLabel)
        let form = field("Form (as ...)", row.form ?? "")
        var amount = row.amount
        while true {
            let text = field("Amount per serving (e.g. 25 mcg)", row.amount?.description ?? "")
            if text.isEmpty {
                amount = nil
                break
            }
            if let parsed = try? LabelUnitParser.amount(text) {
                amount = parsed
                break
            }
            console.error("That is not an amount Cairn can read; write a number and a unit, such as 25 mcg.")
        }
        let dv = field("%DV", row.dailyValuePercent.map { "\($0)" } ?? "").replacingOccurrences(of: "%", with: "")
        return scanner.revalidate(
            EditedLabelRow(
                nameOnLabel: name.isEmpty ? row.nameOnLabel : name, form: form.isEmpty ? nil : form, amount: amount,
                dailyValuePercent: try? LabelUnitParser.number(dv), isBlend: row.isBlend, blendName: row.blendName,
                wordBoxes: row.wordBoxes), number: row.number)
    }

    /// Label text in quotes. (Every line the console writes has its control characters escaped, `Console.escaped`.)
    static func quoted(_ text: String) -> String { "\"" + text + "\"" }

    static func describe(_ row: LabelProposalRow) -> String {
        var text = quoted(row.nameOnLabel)
        if let form = row.form { text += " (as \(form))" }
        text += row.amount.map { " \($0)" } ?? " (no amount)"
        if let dv = row.dailyValuePercent { text += ", \(dv)% DV" }
        if let blend = row.blendName { text += ", in \(quoted(blend))" }
        return text
    }
}

/// Why `scan --confirm` saved nothing: flagged rows nobody decided on (no terminal to ask, no `--accept N` or
/// `--leave-out N` for them).
struct ScanRowsUndecided: CairnError {
    let rows: [LabelProposalRow]

    var userMessage: String {
        let list = rows.map { "  row \($0.number): \($0.flags.map(\.title).joined(separator: ", "))" }
        let numbers = FlaggedRowsUndecided.join(rows.map { "\($0.number)" })
        return """
            \(rows.count == 1 ? "Row \(numbers) is" : "Rows \(numbers) are") flagged and not decided (numbers as in the proposal's "number"):
            \(list.joined(separator: "\n"))
            Check each against the label, then give --accept N (save it as read) or --leave-out N for each, or run scan on a terminal to decide row by row. Nothing was saved.
            """
    }
}

/// What `scan --confirm` prints: the proposal, the new product's id and what was decided per row.
private struct ConfirmedScan: Encodable {
    let proposal: LabelProposal
    let savedProductID: String
    let acceptedRows: [Int]
    let editedRows: [Int]
    let leftOutRows: [Int]
}
