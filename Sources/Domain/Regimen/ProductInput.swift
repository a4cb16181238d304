import CairnCore
import Foundation

extension ProductForm {
    /// The form a person chose or typed ("capsule", "Softgel"). Throws `RegimenError.noProductForm` for an empty
    /// text and `.unknownProductForm` for a word that is no form.
    public init(parsing text: String) throws {
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !key.isEmpty else { throw RegimenError.noProductForm }
        guard let form = ProductForm(rawValue: key) else { throw RegimenError.unknownProductForm }
        self = form
    }
}

extension Amount {
    /// One serving as typed: a plain number is a count of units ("2" capsules), anything else an amount ("5 g",
    /// "10 mL"). Throws `RegimenError.unreadableServing` for an empty or unreadable text, `.invalidServingSize`
    /// for zero or a unit that is not a count, mass or volume, and the unit and range errors of
    /// `LabelUnitParser.amount`.
    public init(serving text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let amount: Amount
        if let count = PlainDecimal(trimmed) {
            amount = try Amount(count.value, .count)
        } else {
            do { amount = try LabelUnitParser.amount(trimmed) } catch RegimenError.unreadableNumber {
                throw RegimenError.unreadableServing
            }
        }
        guard !amount.isZero, [.count, .mass, .volume].contains(amount.unit.dimension) else { throw RegimenError.invalidServingSize }
        self = amount
    }

    /// One serving as a form shows it, reading back through `init(serving:)`: a count as a plain number ("2"),
    /// else the amount ("5 g").
    public var servingText: String { unit == .count ? "\(value)" : description }
}

/// The parts of a product a person types or chooses, to put each refusal beside its own field.
public enum ProductField: Hashable, Sendable, CaseIterable {
    case name, brand, form, serving, ingredients
}

/// A product as a person typed it, field by field, on the web form or the command line. A field left nil is not
/// given: a new product takes its default (no brand, a serving of 1, no rows), a revision keeps the current value.
/// One parser for every door: each field is read by its domain type's parser, and every refusal is kept with its
/// field (`FieldProblems<ProductField>`), so an empty form shows every problem at once.
public struct ProductInput: Hashable, Sendable {
    public var name: String?
    public var brand: String?
    public var form: String?
    public var serving: String?
    /// One label row a line (`TypedIngredient`); empty lines are not rows. Given, they replace every row.
    public var ingredients: [String]?

    public init(name: String? = nil, brand: String? = nil, form: String? = nil, serving: String? = nil, ingredients: [String]? = nil) {
        self.name = name
        self.brand = brand
        self.form = form
        self.serving = serving
        self.ingredients = ingredients
    }

    /// True when no field is given.
    public var isEmpty: Bool { name == nil && brand == nil && form == nil && serving == nil && ingredients == nil }

    /// The ingredient lines that are rows (not empty), trimmed, in order: row N is the Nth of these.
    public var rowLines: [String]? {
        ingredients?.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The product these fields describe: a new one, or with `current` its next revision (same id). Rows are
    /// matched against `catalogue`; in a revision each typed row keeps what typing it left out of the current row
    /// of the same name (`ProductIngredient.keeping(_:)`). Throws `FieldProblems<ProductField>` with every refusal.
    public func product(revising current: Product? = nil, catalogue: Catalogue?) throws -> Product {
        var problems = FieldProblems<ProductField>.Collector()
        let name = problems.field(.name) { () throws -> String in
            let text = (self.name ?? current?.name ?? "").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw RegimenError.emptyProductName }
            return try TextInput.name(text, field: "product name")
        }
        let brand = problems.field(.brand) {
            try TextInput.name((self.brand ?? current?.brand ?? "").trimmingCharacters(in: .whitespaces), field: "brand")
        }
        let form = problems.field(.form) { () throws -> ProductForm in
            if let text = self.form { return try ProductForm(parsing: text) }
            guard let form = current?.form else { throw RegimenError.noProductForm }
            return form
        }
        let serving = problems.field(.serving) { () throws -> Amount in
            if let text = self.serving { return try Amount(serving: text) }
            return try current?.servingSize ?? Amount(1, .count)
        }
        var rows: [ProductIngredient] = current?.ingredients ?? []
        if let lines = rowLines {
            rows = []
            for (index, line) in lines.enumerated() {
                guard
                    let typed = problems.field(
                        .ingredients, row: index + 1,
                        { () throws -> ProductIngredient in
                            let typed = try TypedIngredient.parse(line, catalogue: catalogue)
                            try TextInput.name(typed.nameOnLabel, field: "ingredient name")
                            if let form = typed.form { try TextInput.name(form, field: "ingredient form") }
                            return typed
                        })
                else {
                    continue
                }
                rows.append(typed.keeping(current?.ingredients ?? []))
            }
        }
        try problems.check()
        do {
            return try Product(id: current?.id ?? .random(), name: name!, brand: brand!, form: form!, servingSize: serving!, ingredients: rows)
        } catch let error as RegimenError {
            problems.add(error == .emptyProductName ? .name : error == .invalidServingSize ? .serving : .ingredients, error)
            try problems.check()
            throw error
        }
    }
}

extension ProductIngredient {
    /// This typed row with what typing left out taken from the row of `earlier` with the same name (case and
    /// spacing aside): its catalogue entry when the name matches none, its form when none is written, and its %DV
    /// while the amount is unchanged (a %DV belongs to its amount). A row naming no earlier row is itself.
    public func keeping(_ earlier: [ProductIngredient]) -> ProductIngredient {
        let key = CatalogueText.normalised(nameOnLabel)
        guard let before = earlier.first(where: { CatalogueText.normalised($0.nameOnLabel) == key }) else { return self }
        return
            (try? ProductIngredient(
                catalogueID: catalogueID ?? before.catalogueID, nameOnLabel: nameOnLabel, amount: amount,
                dailyValuePercent: dailyValuePercent ?? (amount == before.amount ? before.dailyValuePercent : nil),
                form: form ?? before.form)) ?? self
    }
}
