import Foundation

/// One label row typed by hand, as the command line and the product form take it:
/// `NAME [(as FORM)] [= AMOUNT [, N% DV]]`, e.g. "Magnesium (as magnesium glycinate) = 200 mg, 48% DV" or
/// "Ashwagandha root" (a row without an amount). One parser for every door that takes typed rows.
public enum TypedIngredient {
    /// The row `line` describes, matched exactly against `catalogue` (by "NAME (as FORM)", else NAME). Throws
    /// `RegimenError.emptyIngredientName` and the amount errors of `LabelUnitParser.amount`.
    public static func parse(_ line: String, catalogue: Catalogue?) throws -> ProductIngredient {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let (name, form) = LabelParser.splitForm(parts[0].trimmingCharacters(in: .whitespaces))
        var amountText = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        var percent: Decimal?
        if let r = amountText.range(of: #"[,;]\s*<?([0-9][0-9.,]*)\s*%\s*(DV|Daily Value)?\s*$"#, options: [.regularExpression, .caseInsensitive]) {
            let dvText = amountText[r].trimmingCharacters(in: CharacterSet(charactersIn: ",; <")).prefix { $0 != "%" }
            percent = try LabelUnitParser.number(dvText.trimmingCharacters(in: .whitespaces))
            amountText = String(amountText[..<r.lowerBound]).trimmingCharacters(in: .whitespaces)
        }
        let amount = amountText.isEmpty ? nil : try LabelUnitParser.amount(amountText)
        let match = catalogue.flatMap { c in (form.flatMap { c.lookup("\(name) (as \($0))") }) ?? c.lookup(name) }
        return try ProductIngredient(
            catalogueID: match?.ingredient.id, nameOnLabel: name, amount: amount,
            dailyValuePercent: percent, form: form ?? match?.form?.name)
    }

    /// The line that reads back as `row` (its catalogue entry aside).
    public static func line(_ row: ProductIngredient) -> String {
        // A form the name already says ("Vitamin D3", "Magnesium glycinate") is not written twice.
        let form = row.form.flatMap { CatalogueText.normalised($0) == CatalogueText.normalised(row.nameOnLabel) ? nil : $0 }
        var text = row.nameOnLabel + (form.map { " (as \($0))" } ?? "")
        if let amount = row.amount {
            text += " = \(amount)"
            if let dv = row.dailyValuePercent { text += ", \(dv)% DV" }
        }
        return text
    }
}
