import Foundation

/// What a dose unit measures. Amounts of different dimensions are never added together.
public enum DoseDimension: String, Hashable, Codable, Sendable, CaseIterable {
    /// Plain mass: g, mg, mcg, ng (exactly interconvertible).
    case mass
    /// International Units: biological activity, different for every ingredient.
    case internationalUnits
    /// Retinol activity equivalents (vitamin A).
    case retinolActivityEquivalents
    /// Dietary folate equivalents (folate).
    case dietaryFolateEquivalents
    /// Niacin equivalents (niacin).
    case niacinEquivalents
    /// Alpha-tocopherol (vitamin E).
    case alphaTocopherol
    /// Colony-forming units (probiotics).
    case colonyFormingUnits
    /// Volume in millilitres.
    case volume
    /// A count of things (capsules, drops, servings).
    case count
}

/// A unit a supplement label uses for an amount. Every unit has a dimension; only units of the same
/// dimension (or a conversion the ingredient makes exact, see `Amount.converted(to:context:)`) are combined.
public enum DoseUnit: String, Hashable, Codable, Sendable, CaseIterable {
    /// Gram.
    case g
    /// Milligram.
    case mg
    /// Microgram (labels write mcg, µg or ug).
    case mcg
    /// Nanogram.
    case ng
    /// International Unit.
    case iu
    /// Microgram of retinol activity equivalents (vitamin A).
    case mcgRAE
    /// Microgram of dietary folate equivalents (folate).
    case mcgDFE
    /// Milligram of niacin equivalents (niacin).
    case mgNE
    /// Milligram of alpha-tocopherol (vitamin E).
    case mgAlphaTocopherol
    /// Colony-forming units (probiotics).
    case cfu
    /// Millilitre.
    case mL
    /// A count (capsules, tablets, drops).
    case count

    /// The position of this unit in declaration order (`allCases` order), without building `allCases`.
    var declarationIndex: Int { DoseUnit.declarationOrder[self]! }
    private static let declarationOrder: [DoseUnit: Int] =
        Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($0.element, $0.offset) })

    /// What this unit measures.
    public var dimension: DoseDimension {
        switch self {
        case .g, .mg, .mcg, .ng: .mass
        case .iu: .internationalUnits
        case .mcgRAE: .retinolActivityEquivalents
        case .mcgDFE: .dietaryFolateEquivalents
        case .mgNE: .niacinEquivalents
        case .mgAlphaTocopherol: .alphaTocopherol
        case .cfu: .colonyFormingUnits
        case .mL: .volume
        case .count: .count
        }
    }

    /// The unit's size in micrograms, for mass units only (exact powers of ten).
    var microgramsPerUnit: Decimal? {
        switch self {
        case .g: MassFactor.gram
        case .mg: MassFactor.milligram
        case .mcg: MassFactor.microgram
        case .ng: MassFactor.nanogram
        default: nil
        }
    }

    /// The symbol as a Supplement Facts label writes it ("mcg", "IU", "mg NE", ...).
    public var symbol: String {
        switch self {
        case .g: "g"
        case .mg: "mg"
        case .mcg: "mcg"
        case .ng: "ng"
        case .iu: "IU"
        case .mcgRAE: "mcg RAE"
        case .mcgDFE: "mcg DFE"
        case .mgNE: "mg NE"
        case .mgAlphaTocopherol: "mg alpha-tocopherol"
        case .cfu: "CFU"
        case .mL: "mL"
        case .count: "count"
        }
    }

    /// True when amounts in `self` and `other` can be added without knowing the ingredient
    /// (same unit, or two mass units).
    public func isDirectlyCompatible(with other: DoseUnit) -> Bool {
        self == other || (dimension == .mass && other.dimension == .mass)
    }
}

/// The mass factors in micrograms, built once.
private enum MassFactor {
    static let gram: Decimal = 1_000_000
    static let milligram: Decimal = 1_000
    static let microgram: Decimal = 1
    static let nanogram = Decimal(string: "0.001", locale: Locale(identifier: "en_US_POSIX"))!
}
