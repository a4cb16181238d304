import CairnCore
import Foundation

/// One flagged row of a product, numbered as the person sees it (1 = the first row).
public struct FlaggedRow: Hashable, Sendable {
    /// The row's number, from 1.
    public let number: Int
    /// What to check, each with its reason.
    public let flags: [LabelFlag]

    /// A flagged row.
    public init(number: Int, flags: [LabelFlag]) {
        self.number = number
        self.flags = flags
    }
}

/// What the person decided about a product's flagged rows before saving it.
public struct RowDecisions: Hashable, Sendable {
    /// Numbers (from 1) of the rows the person accepted as they are, after seeing their flags.
    public var accepted: Set<Int>
    /// Flags raised while reading the rows from a photo (keyed by row number) that the saved row cannot show
    /// again (low confidence, a fuzzy match, an unreadable amount). The gate adds them to its own.
    public var readFlags: [Int: [LabelFlag]]

    /// Every row of `product` accepted: for rows the person typed and confirmed as a whole elsewhere (an import of
    /// their own records, sample data), never for rows read from a photo.
    public static func acceptingEveryRow(of product: Product) -> RowDecisions {
        RowDecisions(accepted: Set(product.ingredients.indices.map { $0 + 1 }))
    }

    /// Decisions; by default nothing is accepted.
    public init(accepted: Set<Int> = [], readFlags: [Int: [LabelFlag]] = [:]) {
        self.accepted = accepted
        self.readFlags = readFlags
    }
}

/// Why a product was not saved: some rows are flagged and the person has not accepted them.
public struct FlaggedRowsUndecided: CairnError, Hashable {
    /// The undecided rows, in order.
    public let rows: [FlaggedRow]

    /// The refusal for `rows`.
    public init(rows: [FlaggedRow]) { self.rows = rows }

    /// Names the rows by number and says what is wrong with each (never what was typed or read).
    public var userMessage: String {
        // At most the first 20 rows, then how many more (`ProblemList`).
        let list = ProblemList.joined(rows, separator: "; ") { "row \($0.number) (\($0.flags.map(\.title).joined(separator: ", ")))" }
        let numbers =
            rows.count == 1
            ? "Row \(rows[0].number) is"
            : "Rows \(rows.count > ProblemList.shown ? ProblemList.joined(rows, separator: ", ") { "\($0.number)" } : Self.join(rows.map { "\($0.number)" })) are"
        return
            "\(numbers) flagged and not accepted yet: \(list). Check each against the label, then accept it, change it or leave it out. Nothing was saved."
    }

    /// "2", "2 and 5", "2, 5 and 7".
    public static func join(_ parts: [String]) -> String {
        parts.count <= 1 ? parts.joined() : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
    }
}

/// The one rule that decides which rows of a product need the person's decision before saving, on every path
/// that makes or changes a product (a label scan on the command line or the web, a product added or edited by
/// hand). A row is flagged by the same checks as a scanned row (`LabelNormaliser`: catalogue match, unit, the
/// plausible range, the upper limit, the %DV, a missing amount) plus whatever reading raised; a flagged row is
/// saved only when the person accepted it, or when it is unchanged from the revision being edited (it passed
/// this gate when that revision was saved).
public struct LabelGate: Sendable {
    /// The checks, and the catalogue they use.
    public let normaliser: LabelNormaliser

    /// A gate over `catalogue`.
    public init(catalogue: Catalogue) { normaliser = LabelNormaliser(catalogue: catalogue) }

    /// The flags a row of a product carries: its catalogue entry (the one it names, else an exact match of its
    /// name, else none: "unknown ingredient") and the amount checks.
    public func flags(of row: ProductIngredient) -> [LabelFlag] {
        let parsed = ParsedLabelRow(
            nameOnLabel: row.nameOnLabel, form: row.form, amount: row.amount,
            dailyValuePercent: row.dailyValuePercent)
        let match: CatalogueMatch?
        if let id = row.catalogueID, let ingredient = normaliser.catalogue.ingredient(id: id) {
            match = CatalogueMatch(
                ingredient: ingredient, form: row.form.flatMap { ingredient.form(named: $0) }, kind: .name,
                score: 1, matchedText: ingredient.name)
        } else {
            let text = row.form.map { "\(row.nameOnLabel) (as \($0))" } ?? row.nameOnLabel
            match = normaliser.catalogue.lookup(text) ?? normaliser.catalogue.lookup(row.nameOnLabel)
        }
        return normaliser.normalise(parsed, confidence: nil, match: match).flags
    }

    /// The flagged rows of `product` the person has not decided on: flagged (by the gate or by reading), not
    /// accepted, and not unchanged from a row of `earlier`.
    public func undecided(in product: Product, decisions: RowDecisions = RowDecisions(), earlier: Product? = nil) -> [FlaggedRow] {
        product.ingredients.enumerated().compactMap { index, row in
            let number = index + 1
            if decisions.accepted.contains(number) { return nil }
            if earlier?.ingredients.contains(row) == true, decisions.readFlags[number] == nil { return nil }
            var flags = decisions.readFlags[number] ?? []
            // Reading found the row a blend member printed without an amount: its missing amount is the label's.
            let blendMember = flags.contains { $0.kind == .undisclosedBlendAmount }
            for flag in self.flags(of: row)
            where !flags.contains(where: { $0.kind == flag.kind })
                && !(blendMember && flag.kind == .missingAmount)
            { flags.append(flag) }
            flags = flags.filter(\.kind.needsDecision)
            return flags.isEmpty ? nil : FlaggedRow(number: number, flags: flags)
        }
    }

    /// Throws `FlaggedRowsUndecided` unless every flagged row of `product` is decided (see `undecided`).
    public func check(_ product: Product, decisions: RowDecisions = RowDecisions(), earlier: Product? = nil) throws {
        let rows = undecided(in: product, decisions: decisions, earlier: earlier)
        if !rows.isEmpty { throw FlaggedRowsUndecided(rows: rows) }
    }
}
