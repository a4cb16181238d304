import CairnCore

/// Why an amount cannot be expressed in another unit. Each case explains the reason in plain words.
public enum ConversionRefusal: Hashable, Sendable {
    /// IU measure activity, which differs per ingredient, and no ingredient was given.
    case internationalUnitsNeedAnIngredient
    /// Vitamin A IU without knowing whether the form is retinol or beta-carotene.
    case vitaminAFormUnknown
    /// Vitamin E IU without knowing whether the form is natural or synthetic.
    case vitaminEFormUnknown
    /// Only folic acid has a fixed factor to mcg DFE.
    case dietaryFolateEquivalentsNeedFolicAcid
    /// The reverse of a one-way conversion (equivalents back to IU or mass) is not exact.
    case equivalentsDoNotConvertBack(DoseDimension)
    /// The two units measure different things and no known exact factor links them for this ingredient.
    case differentDimensions(from: DoseDimension, to: DoseDimension)

    /// The plain-English reason.
    public var reason: String {
        switch self {
        case .internationalUnitsNeedAnIngredient:
            "IU measure biological activity, which is different for every ingredient. Cairn converts IU only for vitamin D, and for vitamins A and E when their form is known."
        case .vitaminAFormUnknown:
            "IU of vitamin A can only be converted when the form (retinol or beta-carotene) is known."
        case .vitaminEFormUnknown:
            "IU of vitamin E can only be converted when the form (natural d-alpha-tocopherol or synthetic dl-alpha-tocopherol) is known."
        case .dietaryFolateEquivalentsNeedFolicAcid:
            "Only folic acid has a fixed factor to mcg DFE (1 mcg folic acid = 1.7 mcg DFE). Other folate forms are kept in their own unit."
        case .equivalentsDoNotConvertBack(let dimension):
            "Amounts in \(dimension.plainName) are not converted back, because the reverse factor is not exact."
        case .differentDimensions(let from, let to):
            "Amounts in \(from.plainName) and \(to.plainName) measure different things and cannot be converted for this ingredient."
        }
    }
}

extension DoseDimension {
    /// A short plain name for messages.
    public var plainName: String {
        switch self {
        case .mass: "mass units (g, mg, mcg)"
        case .internationalUnits: "IU"
        case .retinolActivityEquivalents: "mcg RAE"
        case .dietaryFolateEquivalents: "mcg DFE"
        case .niacinEquivalents: "mg NE"
        case .alphaTocopherol: "mg alpha-tocopherol"
        case .colonyFormingUnits: "CFU"
        case .volume: "mL"
        case .count: "counts"
        }
    }
}

/// Errors of the Regimen domain. Messages never repeat what the person typed or what OCR read.
public enum RegimenError: CairnError, Hashable, Sendable {
    /// An amount below zero.
    case negativeAmount
    /// An amount that is not a number.
    case notANumber
    /// An amount larger than anything a single serving can hold; `limit` is the bound that was exceeded.
    case absurdAmount(limit: String)
    /// A unit text Cairn does not know.
    case unknownUnit
    /// A text that does not start with a readable number.
    case unreadableNumber
    /// A conversion that is not exact or not known.
    case conversionRefused(ConversionRefusal)
    /// A product without a name.
    case emptyProductName
    /// A serving size of zero or in a unit that is not a count, mass or volume.
    case invalidServingSize
    /// A percent of Daily Value below zero.
    case negativeDailyValuePercent
    /// An ingredient row without a name.
    case emptyIngredientName
    /// One unit (capsule, tablet, ...) said to hold more than physically fits in it.
    case amountDoesNotFitForm(form: String, limit: String)
    /// An amount far beyond any product sold for this catalogue ingredient.
    case implausibleForIngredient(ingredient: String, limit: String)
    /// A product row names a catalogue id the catalogue does not have.
    case unknownCatalogueIngredient
    /// The bundled catalogue is missing or cannot be read.
    case catalogueUnreadable(String)
    /// No product form chosen.
    case noProductForm
    /// A product form Cairn does not know.
    case unknownProductForm
    /// A serving that is neither a number of units nor an amount.
    case unreadableServing

    /// The plain-English message; it never contains user content.
    public var userMessage: String {
        switch self {
        case .negativeAmount: "An amount cannot be negative."
        case .notANumber: "The amount is not a number."
        case .absurdAmount(let limit): "This amount is more than any single serving can hold (the limit is \(limit)). Check the number and the unit."
        case .unknownUnit: "The unit is not one Cairn knows. Known units: g, mg, mcg, ng, IU, mcg RAE, mcg DFE, mg NE, mg alpha-tocopherol, CFU, mL."
        case .unreadableNumber: "The amount does not start with a number Cairn can read."
        case .conversionRefused(let refusal): refusal.reason
        case .emptyProductName: "A product needs a name."
        case .invalidServingSize: "A serving size must be more than zero and be a count, a mass or a volume."
        case .negativeDailyValuePercent: "A percent of Daily Value cannot be negative."
        case .emptyIngredientName: "Each ingredient row needs the name written on the label."
        case .amountDoesNotFitForm(let form, let limit):
            "One \(form) cannot hold this much of one ingredient (the limit is \(limit)). Check the number and the unit."
        case .implausibleForIngredient(let ingredient, let limit):
            "This amount of \(ingredient) is far beyond any product sold (the limit is \(limit)). Check the number and the unit."
        case .unknownCatalogueIngredient: "An ingredient row refers to a catalogue entry that does not exist."
        case .catalogueUnreadable(let why): "The bundled ingredient catalogue cannot be read: \(why)."
        case .noProductForm: "Choose the product's form."
        case .unknownProductForm: "A product's form is one of: \(ProductForm.allCases.map(\.rawValue).joined(separator: ", "))."
        case .unreadableServing: "Write one serving as a number of units, such as 2, or an amount such as 5 g."
        }
    }
}
