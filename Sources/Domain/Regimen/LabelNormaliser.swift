import Foundation

/// A parsed label row matched to the catalogue, with the flags that say what to check.
public struct NormalisedLabelRow: Hashable, Sendable {
    /// The row as printed.
    public let parsed: ParsedLabelRow
    /// The catalogue entry (and form) the row names, if any.
    public let match: CatalogueMatch?
    /// The amount in the catalogue's label unit, only when the conversion is exact (e.g. 1,000 IU of
    /// vitamin D = 25 mcg); nil otherwise.
    public let amountInCatalogueUnit: Amount?
    /// What to check, each with its reason.
    public let flags: [LabelFlag]
}

/// Matches parsed label rows to the catalogue (names, synonyms, forms, fuzzy matching for OCR errors)
/// and flags what cannot be trusted. Pure: no I/O.
public struct LabelNormaliser: Sendable {
    /// The catalogue matched against.
    public let catalogue: Catalogue
    /// Lines whose lowest word confidence is below this (0...1) are flagged `lowConfidence`.
    public let confidenceThreshold: Double
    /// The minimum similarity for a fuzzy catalogue match.
    public let minimumMatchScore: Double

    /// Without an upper limit, an amount above this multiple of the Daily Value is flagged
    /// `farOutsideCommonRange` (the largest common products reach about 2,100 times, e.g. 5,000 mcg of B12).
    public static let commonRangeMultipleOfDailyValue: Decimal = 2_500

    /// A normaliser over `catalogue`.
    public init(catalogue: Catalogue, confidenceThreshold: Double = 0.7, minimumMatchScore: Double = 0.8) {
        self.catalogue = catalogue
        self.confidenceThreshold = confidenceThreshold
        self.minimumMatchScore = minimumMatchScore
    }

    /// Matches and flags every row. `confidence(for:)` gives a row's lowest word confidence (0...1),
    /// nil when unknown (typed text).
    public func normalise(_ label: ParsedLabel, confidence: (ParsedLabelRow) -> Double? = { _ in nil }) -> [NormalisedLabelRow] {
        label.rows.map { normalise($0, confidence: confidence($0)) }
    }

    /// Matches and flags one row.
    public func normalise(_ row: ParsedLabelRow, confidence: Double? = nil) -> NormalisedLabelRow {
        normalise(row, confidence: confidence, match: self.match(row))
    }

    /// Words a blend's own name carries ("Proprietary Blend", "Energy Complex", "Enzyme Matrix").
    static let blendWords = ["blend", "complex", "matrix", "formula", "proprietary", "mix"]

    /// True when `name` holds one of `blendWords` as a word.
    static func containsBlendWord(_ name: String) -> Bool {
        CatalogueText.normalised(name).split(separator: " ").contains { blendWords.contains(String($0)) }
    }

    /// Whether `name` reads as a blend's name: it holds a blend word, and shows none of OCR's misreadings of one
    /// (a name misread, to check like any other): a stub of one or two letters in front (the front of "Proprietary
    /// Blend" lost leaves "a Blend"), a word that only resembles a blend word ("Biend"), or a lone mark or digit
    /// after it (the %DV column's "*" read as "7").
    static func namesABlend(_ name: String) -> Bool {
        let words = CatalogueText.normalised(name).split(separator: " ").map(String.init)
        guard let first = words.first, first.count >= 3 || blendWords.contains(first),
            let last = words.last, last.count >= 2, !last.allSatisfy(\.isNumber)
        else { return false }
        let misspelt = words.contains { word in
            !blendWords.contains(word) && blendWords.contains { CatalogueText.similarity(word, $0) >= 0.6 }
        }
        return !misspelt && words.contains { blendWords.contains($0) }
    }

    /// Flags one row already matched to `match` (nil: the catalogue does not know it).
    public func normalise(_ row: ParsedLabelRow, confidence: Double?, match: CatalogueMatch?) -> NormalisedLabelRow {
        var flags: [LabelFlag] = []
        if let confidence, confidence < confidenceThreshold {
            flags.append(
                LabelFlag(
                    .lowConfidence,
                    "Some words on this row were read with low confidence (\(Int((confidence * 100).rounded()))%). Compare the row with the label."))
        }
        if let match, match.kind == .fuzzy {
            flags.append(
                LabelFlag(
                    .uncertainMatch,
                    "The name was matched to \(match.ingredient.name) by similarity (\(Int((match.score * 100).rounded()))%), not exactly. Check the name."
                ))
        }
        // A blend's own name is not an ingredient, so it is not flagged as unknown, but only when it reads as one:
        // a row taken for a blend because rows under it are indented ("Acid Redux 373 mg" above a misread line)
        // may be a misread ingredient, and must be checked like any other.
        if match == nil && !(row.isBlend && Self.namesABlend(row.nameOnLabel)) {
            flags.append(
                LabelFlag(.unknownIngredient, "This name is not in Cairn's ingredient catalogue. Check the spelling, or keep it as written."))
        }
        if row.amount == nil {
            if row.unreadableAmountText != nil {
                flags.append(LabelFlag(.unreadableAmount, "An amount is printed on this row but its number or unit could not be read."))
            } else if row.blendName != nil {
                flags.append(
                    LabelFlag(.undisclosedBlendAmount, "The label gives no amount for this blend member; only the blend's total is disclosed."))
            } else if row.isBlend {
                flags.append(LabelFlag(.missingAmount, "No total weight was read for this blend."))
            } else {
                flags.append(LabelFlag(.missingAmount, "No amount was read for this row."))
            }
        }
        var converted: Amount?
        if let match, let amount = row.amount {
            let ingredient = match.ingredient
            let context = match.conversionContext
            if let unit = ingredient.labelUnit {
                converted = try? amount.converted(to: unit, context: context)
                if !LabelNormaliser.unit(amount.unit, fits: ingredient, labelUnit: unit) {
                    flags.append(
                        LabelFlag(
                            .unitAnomaly,
                            "\(ingredient.name) is usually given in \(unit.symbol); \(amount.unit.symbol) does not fit it. Check the unit."))
                } else if LabelNormaliser.readsAsFolateEquivalents(amount, labelUnit: unit) {
                    flags.append(
                        LabelFlag(
                            .unitAnomaly,
                            "\(ingredient.name) is given in mcg DFE on current labels, and this amount reads like one (1.7 times a round amount of folic acid), not like plain mcg. Check whether the label says mcg DFE, and change the unit if it does."
                        ))
                }
            }
            flags += quantityFlags(amount, ingredient: ingredient, form: match.form, context: context)
            if let percent = row.dailyValuePercent, percent > 0,
                let expected = LabelNormaliser.inconsistency(of: percent, amount: amount, ingredient: ingredient, context: context)
            {
                flags.append(
                    LabelFlag(
                        .dailyValueInconsistent,
                        "The printed %DV does not fit the amount: \(ingredient.name) at this amount is about \(expected)% of the Daily Value. Check the amount and the %DV."
                    ))
            }
        }
        return NormalisedLabelRow(parsed: row, match: match, amountInCatalogueUnit: converted, flags: flags)
    }

    /// The catalogue entry for a row: the name with its form, else the name alone.
    public func match(_ row: ParsedLabelRow) -> CatalogueMatch? {
        let name = row.nameOnLabel
        guard name.contains(where: { $0.isLetter }) else { return nil }
        if let form = row.form {
            if let m = catalogue.match("\(name) (as \(form))", minimumScore: minimumMatchScore) { return m }
        }
        return catalogue.match(name, minimumScore: minimumMatchScore)
    }

    // MARK: checks

    private func quantityFlags(
        _ amount: Amount, ingredient: CatalogueIngredient, form: IngredientForm?,
        context: ConversionContext
    ) -> [LabelFlag] {
        var flags: [LabelFlag] = []
        if let product = try? Product(
            name: "label", form: .other, servingSize: try Amount(1, .count),
            ingredients: [
                try ProductIngredient(
                    catalogueID: ingredient.id, nameOnLabel: ingredient.name,
                    amount: amount, form: form?.name)
            ])
        {
            do { try catalogue.checkPlausibility(of: product) } catch let error as RegimenError {
                flags.append(LabelFlag(.impossibleQuantity, error.userMessage))
                return flags
            } catch {}
        }
        if let limit = ingredient.upperLimit, let value = try? amount.converted(to: limit.amount.unit, context: context),
            value.value > limit.amount.value
        {
            let note = limit.note.map { ", \($0)" } ?? ""
            flags.append(
                LabelFlag(.aboveUpperLimit, "This is above the tolerable upper intake level for \(ingredient.name) (\(limit.amount)\(note))."))
        } else if ingredient.upperLimit == nil, let dv = ingredient.dailyValue,
            let value = try? amount.converted(to: dv.amount.unit, context: context),
            value.value > dv.amount.value * LabelNormaliser.commonRangeMultipleOfDailyValue
        {
            flags.append(
                LabelFlag(
                    .farOutsideCommonRange,
                    "This is more than 2,500 times the Daily Value of \(ingredient.name) (\(dv.amount)), far outside the range products usually carry."
                ))
        }
        return flags
    }

    /// True when labels give this ingredient in `unit`: the catalogue's unit dimension, IU for vitamins
    /// A, D and E, plain mass for ingredients measured in equivalents, equivalents for mass-unit ones; never a
    /// mass unit a million times larger or smaller than the label unit (grams of vitamin A, nanograms of ginger:
    /// OCR's misreading of "mcg" or "mg", since no label gives either).
    static func unit(_ unit: DoseUnit, fits ingredient: CatalogueIngredient, labelUnit: DoseUnit) -> Bool {
        if let size = micrograms(unit), let labelSize = micrograms(labelUnit),
            size >= labelSize * 1_000_000 || size * 1_000_000 <= labelSize
        {
            return false
        }
        if unit.dimension == labelUnit.dimension { return true }
        switch (unit.dimension, labelUnit.dimension) {
        case (.internationalUnits, _):
            switch ingredient.conversion {
            case .vitaminA, .vitaminD, .vitaminE: return true
            default: return false
            }
        case (.mass, .retinolActivityEquivalents), (.mass, .dietaryFolateEquivalents), (.mass, .niacinEquivalents),
            (.mass, .alphaTocopherol):
            return true
        case (.retinolActivityEquivalents, .mass), (.dietaryFolateEquivalents, .mass), (.niacinEquivalents, .mass),
            (.alphaTocopherol, .mass):
            return true
        default:
            return false
        }
    }

    /// True for an amount in plain mcg of an ingredient labelled in mcg DFE (folate) that reads as mcg DFE whose
    /// "DFE" was lost: not a round amount, but 1.7 times one (the folic acid factor; labels also print 5/3 of it:
    /// "667 mcg DFE" for 400 mcg of folic acid). Folate and folic acid in plain mcg come in round amounts (400,
    /// 800, 1,000 mcg: older labels, folic acid rows), so those are not flagged; a round DFE figure (850 mcg DFE
    /// for 500 mcg) cannot be told from them and is not flagged either. A careful reader reads "Folate 667 mcg"
    /// the same way: no one sells 667 mcg of folic acid.
    static func readsAsFolateEquivalents(_ amount: Amount, labelUnit: DoseUnit) -> Bool {
        guard labelUnit == .mcgDFE, amount.unit == .mcg else { return false }
        let value = NSDecimalNumber(decimal: amount.value).doubleValue
        guard value > 0, value.truncatingRemainder(dividingBy: 50) != 0 else { return false }
        let factor = NSDecimalNumber(decimal: ConversionFactor.folicAcidDFEPerMicrogram).doubleValue
        return [value / factor, value * 3 / 5].contains { base in
            let round = (base / 25).rounded() * 25
            return round > 0 && abs(base - round) <= 1
        }
    }

    /// Micrograms in one `unit` of mass, counting an equivalent (mcg RAE, mcg DFE, mg NE, mg alpha-tocopherol) as
    /// the mass it is named in; nil for IU, CFU, volume and counts.
    private static func micrograms(_ unit: DoseUnit) -> Decimal? {
        switch unit {
        case .g: 1_000_000
        case .mg, .mgNE, .mgAlphaTocopherol: 1_000
        case .mcg, .mcgRAE, .mcgDFE: 1
        case .ng: decimal("0.001")
        case .iu, .cfu, .mL, .count: nil
        }
    }

    /// The percent the amount is of the Daily Value (rounded), when the printed percent fits neither the
    /// current Daily Value nor the one in force before 2016 (many labels still print it); nil when it fits
    /// or no exact conversion allows a check.
    static func inconsistency(
        of printed: Decimal, amount: Amount, ingredient: CatalogueIngredient,
        context: ConversionContext
    ) -> Int? {
        var references: [Amount] = []
        if let dv = ingredient.dailyValue?.amount { references.append(dv) }
        if let old = previousDailyValues[ingredient.id] { references.append(old) }
        var firstExpected: Double?
        for reference in references {
            guard let value = try? amount.converted(to: reference.unit, context: context), reference.value > 0 else { continue }
            let expected = NSDecimalNumber(decimal: value.value / reference.value * 100).doubleValue
            let p = NSDecimalNumber(decimal: printed).doubleValue
            if abs(p - expected) <= max(2, expected * 0.1) { return nil }
            if firstExpected == nil { firstExpected = expected }
        }
        return firstExpected.map { Int($0.rounded()) }
    }

    /// The Daily Values labels used before the 2016 FDA rule (21 CFR 101.9(c)(8)(iv) as it stood then).
    static let previousDailyValues: [String: Amount] = {
        func a(_ v: Decimal, _ u: DoseUnit) -> Amount { try! Amount(v, u) }
        return [
            "vitamin-a": a(5000, .iu), "vitamin-c": a(60, .mg), "vitamin-d": a(400, .iu), "vitamin-e": a(30, .iu),
            "vitamin-k": a(80, .mcg), "thiamin": a(decimal("1.5"), .mg), "riboflavin": a(decimal("1.7"), .mg),
            "niacin": a(20, .mg), "vitamin-b6": a(2, .mg), "folate": a(400, .mcg), "vitamin-b12": a(6, .mcg),
            "biotin": a(300, .mcg), "pantothenic-acid": a(10, .mg), "calcium": a(1000, .mg), "iron": a(18, .mg),
            "phosphorus": a(1000, .mg), "iodine": a(150, .mcg), "magnesium": a(400, .mg), "zinc": a(15, .mg),
            "selenium": a(70, .mcg), "copper": a(2, .mg), "manganese": a(2, .mg), "chromium": a(120, .mcg),
            "molybdenum": a(75, .mcg), "chloride": a(3400, .mg), "potassium": a(3500, .mg), "sodium": a(2400, .mg),
        ]
    }()
}
