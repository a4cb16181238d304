import Foundation

/// The kind of a catalogue entry.
public enum IngredientCategory: String, Hashable, Codable, Sendable, CaseIterable {
    /// A vitamin.
    case vitamin
    /// A mineral.
    case mineral
    /// A botanical (herb, mushroom, alga, fruit extract).
    case botanical
    /// An amino acid or amino acid derivative.
    case aminoAcid
    /// A fatty acid or an oil valued for its fatty acids.
    case fattyAcid
    /// A probiotic microorganism.
    case probiotic
    /// Any other supplement ingredient (CoQ10, melatonin, choline, fibre, ...).
    case other
    /// A class of medications (names and common members only; no doses).
    case medicationClass

    /// True for every category except `medicationClass`.
    public var isSupplementIngredient: Bool { self != .medicationClass }
}

/// A published reference document the catalogue cites.
public struct CatalogueSource: Hashable, Codable, Sendable, Identifiable {
    /// Short stable id, e.g. "ods-vitamin-d".
    public let id: String
    /// Who published it ("NIH ODS", "FDA", ...).
    public let publisher: String
    /// The document's title.
    public let title: String
    /// Where it is published (cited only; Cairn never fetches it).
    public let url: String
}

/// A reference amount (Daily Value or upper limit) with what it applies to.
public struct ReferenceAmount: Hashable, Sendable {
    /// The amount.
    public let amount: Amount
    /// What the figure applies to ("from supplements only", "adults 19-50 years", ...).
    public let note: String?
    /// The form the figure applies to, when it applies to one form only (e.g. "Folic acid").
    public let form: String?
}

/// A named form of an ingredient, e.g. "Magnesium glycinate" or "Vitamin D3" (cholecalciferol).
public struct IngredientForm: Hashable, Sendable {
    /// The form's name.
    public let name: String
    /// Other names of the form.
    public let synonyms: [String]
    /// The conversion context this form fixes (e.g. retinol for vitamin A), if any.
    public let conversion: ConversionContext?
}

/// One catalogue entry: a supplement ingredient or a medication class.
public struct CatalogueIngredient: Hashable, Sendable, Identifiable {
    /// Stable id, e.g. "vitamin-d".
    public let id: String
    /// Display name.
    public let name: String
    /// The kind of entry.
    public let category: IngredientCategory
    /// Other names.
    public let synonyms: [String]
    /// Known forms.
    public let forms: [IngredientForm]
    /// The unit labels use for this ingredient; nil for medication classes.
    public let labelUnit: DoseUnit?
    /// The FDA Daily Value for adults and children 4 years and older, where one exists.
    public let dailyValue: ReferenceAmount?
    /// The tolerable upper intake level for adults, where one exists.
    public let upperLimit: ReferenceAmount?
    /// For medication classes: common members (generic names).
    public let members: [String]
    /// Ids of the `CatalogueSource`s this entry is written from.
    public let sourceIDs: [String]
    /// A short factual note (e.g. "No tolerable upper intake level has been set.").
    public let note: String?
    /// The ingredient-level conversion context (the form may refine it).
    public let conversion: ConversionContext

    /// The conversion context for an amount of this ingredient in `form` (or the ingredient's own when
    /// the form is unknown or fixes nothing).
    public func conversionContext(form: IngredientForm?) -> ConversionContext {
        form?.conversion ?? conversion
    }

    /// The form named `name` (exact name or synonym after normalisation).
    public func form(named name: String) -> IngredientForm? {
        let key = CatalogueText.normalised(name)
        return forms.first { f in ([f.name] + f.synonyms).contains { CatalogueText.normalised($0) == key } }
    }
}

/// How a text was matched to a catalogue entry.
public enum CatalogueMatchKind: String, Hashable, Sendable {
    /// The entry's name.
    case name
    /// One of the entry's synonyms.
    case synonym
    /// One of the entry's forms (name or synonym).
    case form
    /// A member of a medication class.
    case member
    /// A similar, not identical, text (OCR errors, typos): check before use.
    case fuzzy
}

/// A catalogue entry found for a label text.
public struct CatalogueMatch: Hashable, Sendable {
    /// The entry.
    public let ingredient: CatalogueIngredient
    /// The form, when the text names one unambiguously.
    public let form: IngredientForm?
    /// How it was matched.
    public let kind: CatalogueMatchKind
    /// Similarity in 0...1 (1 for exact matches).
    public let score: Double
    /// The catalogue text that matched.
    public let matchedText: String

    /// The conversion context for amounts of this match.
    public var conversionContext: ConversionContext { ingredient.conversionContext(form: form) }
}
