import Foundation

/// Parses a decimal literal written in code (POSIX, "." as the decimal point). For constants only.
func decimal(_ literal: String) -> Decimal {
    Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX"))!
}

/// A non-negative, exact amount with a typed unit, e.g. 25 mcg or 2 billion CFU.
///
/// The value is a `Decimal` (never a binary floating point number), so 0.1 mg stays 0.1 mg. Construction
/// rejects negative, not-a-number and absurd values (see `Amount.limit(for:)`).
public struct Amount: Hashable, Sendable, CustomStringConvertible {
    /// The exact number.
    public let value: Decimal
    /// The unit the number is in.
    public let unit: DoseUnit

    /// An amount; throws `RegimenError.negativeAmount`, `.notANumber` or `.absurdAmount`.
    public init(_ value: Decimal, _ unit: DoseUnit) throws {
        if value.isNaN { throw RegimenError.notANumber }
        if value < 0 { throw RegimenError.negativeAmount }
        if value > Amount.largestValue[unit]! {
            throw RegimenError.absurdAmount(limit: Amount.limit(for: unit.dimension).description)
        }
        self.value = value
        self.unit = unit
    }

    /// An amount from a POSIX decimal literal ("1.5"); for code and tests. Throws like `init(_:_:)`,
    /// and `RegimenError.unreadableNumber` when the text is not a plain decimal number.
    public init(_ literal: String, _ unit: DoseUnit) throws {
        guard literal.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
            let value = Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw RegimenError.unreadableNumber
        }
        try self.init(value, unit)
    }

    /// The largest amount accepted for one dimension, with its unit, for one serving.
    ///
    /// Decided bounds (any single label amount above these is a misread or a typo, never a product):
    /// mass and mass-based equivalents (RAE, DFE, NE, alpha-tocopherol): 1 kg; IU: 10 million;
    /// CFU: 10 trillion (10^13); volume: 1 L; count: 1000.
    public static func limit(for dimension: DoseDimension) -> (value: Decimal, description: String) {
        switch dimension {
        case .mass, .retinolActivityEquivalents, .dietaryFolateEquivalents: Limits.micrograms  // in mcg
        case .niacinEquivalents, .alphaTocopherol: Limits.milligrams  // in mg
        case .internationalUnits: Limits.internationalUnits
        case .colonyFormingUnits: Limits.colonyFormingUnits
        case .volume: Limits.volume
        case .count: Limits.count
        }
    }

    /// The bounds, built once (a Decimal from a literal is not free, and every amount is checked).
    private enum Limits {
        static let micrograms: (value: Decimal, description: String) = (1_000_000_000, "1 kg")
        static let milligrams: (value: Decimal, description: String) = (1_000_000, "1 kg")
        static let internationalUnits: (value: Decimal, description: String) = (10_000_000, "10 million IU")
        static let colonyFormingUnits: (value: Decimal, description: String) = (10_000_000_000_000, "10 trillion CFU")
        static let volume: (value: Decimal, description: String) = (1_000, "1 L")
        static let count: (value: Decimal, description: String) = (1_000, "1000")
    }

    /// The largest value accepted in each unit: the dimension's limit expressed in that unit (exact, as the
    /// mass factors are powers of ten), so a check is one comparison rather than a multiplication.
    private static let largestValue: [DoseUnit: Decimal] = Dictionary(
        uniqueKeysWithValues: DoseUnit.allCases.map { unit in
            let limit = Amount.limit(for: unit.dimension).value
            return (unit, unit.microgramsPerUnit.map { limit / $0 } ?? limit)
        })

    /// True when the amount is exactly zero.
    public var isZero: Bool { value == 0 }

    /// "1.5 mg", "2 IU": the value in POSIX notation and the label symbol.
    public var description: String { "\(value) \(unit.symbol)" }

    /// This amount in `target`, when an exact, known factor links them for the ingredient in `context`.
    ///
    /// Mass units always convert (g, mg, mcg, ng). IU convert only for: vitamin D (1 IU = 0.025 mcg, and
    /// back, 1 mcg = 40 IU); vitamin A with a known form (retinol 1 IU = 0.3 mcg RAE, supplemental
    /// beta-carotene 1 IU = 0.15 mcg RAE); vitamin E with a known form (natural 1 IU = 0.67 mg,
    /// synthetic 1 IU = 0.45 mg alpha-tocopherol). Folic acid: 1 mcg = 1.7 mcg DFE. Equivalents are
    /// never converted back (the reverse factors are not exact). Anything else throws
    /// `RegimenError.conversionRefused` with the reason.
    public func converted(to target: DoseUnit, context: ConversionContext = .unspecified) throws -> Amount {
        if target == unit { return self }
        if let from = unit.microgramsPerUnit, let to = target.microgramsPerUnit {
            return try Amount(value * from / to, target)
        }
        let micrograms = unit.microgramsPerUnit.map { value * $0 }
        switch (unit, target.dimension, context) {
        case (.iu, .mass, .vitaminD):
            return try Amount(value * ConversionFactor.vitaminDMicrogramsPerIU, .mcg).converted(to: target)
        case (_, .internationalUnits, .vitaminD) where micrograms != nil:
            return try Amount(micrograms! / ConversionFactor.vitaminDMicrogramsPerIU, .iu)
        case (.iu, .retinolActivityEquivalents, .vitaminA(let form)):
            switch form {
            case .retinol: return try Amount(value * ConversionFactor.retinolRAEPerIU, .mcgRAE)
            case .betaCarotene: return try Amount(value * ConversionFactor.supplementalBetaCaroteneRAEPerIU, .mcgRAE)
            case nil: throw RegimenError.conversionRefused(.vitaminAFormUnknown)
            }
        case (.iu, .alphaTocopherol, .vitaminE(let form)):
            switch form {
            case .natural: return try Amount(value * ConversionFactor.naturalVitaminEMilligramsPerIU, .mgAlphaTocopherol)
            case .synthetic: return try Amount(value * ConversionFactor.syntheticVitaminEMilligramsPerIU, .mgAlphaTocopherol)
            case nil: throw RegimenError.conversionRefused(.vitaminEFormUnknown)
            }
        case (_, .dietaryFolateEquivalents, .folicAcid) where micrograms != nil:
            return try Amount(micrograms! * ConversionFactor.folicAcidDFEPerMicrogram, .mcgDFE)
        default:
            throw RegimenError.conversionRefused(refusal(to: target, context: context))
        }
    }

    /// The most specific reason a conversion to `target` is refused.
    private func refusal(to target: DoseUnit, context: ConversionContext) -> ConversionRefusal {
        let from = unit.dimension
        let to = target.dimension
        switch from {
        case .retinolActivityEquivalents, .dietaryFolateEquivalents, .alphaTocopherol, .niacinEquivalents:
            if to == .internationalUnits || to == .mass { return .equivalentsDoNotConvertBack(from) }
        default: break
        }
        if from == .internationalUnits || to == .internationalUnits {
            switch context {
            case .vitaminA(nil): return .vitaminAFormUnknown
            case .vitaminE(nil): return .vitaminEFormUnknown
            case .unspecified: return .internationalUnitsNeedAnIngredient
            default: return .differentDimensions(from: from, to: to)
            }
        }
        if to == .dietaryFolateEquivalents && from == .mass { return .dietaryFolateEquivalentsNeedFolicAcid }
        return .differentDimensions(from: from, to: to)
    }

    /// The amount multiplied by a non-negative factor (e.g. servings taken). Throws like `init`.
    public func scaled(by factor: Decimal) throws -> Amount { try Amount(value * factor, unit) }
}

extension Amount: Codable {
    private enum CodingKeys: String, CodingKey { case value, unit }

    /// Decodes `{"value": "1.5", "unit": "mg"}`; the value is a string so it stays exact.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(try c.decode(String.self, forKey: .value), try c.decode(DoseUnit.self, forKey: .unit))
    }

    /// Encodes the value as an exact decimal string.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("\(value)", forKey: .value)
        try c.encode(unit, forKey: .unit)
    }
}

/// The ingredient (and form, where it matters) an amount belongs to, which decides which conversions
/// are exact.
public enum ConversionContext: Hashable, Sendable {
    /// No ingredient known: only mass units convert.
    case unspecified
    /// Vitamin D (D2 or D3): 1 IU = 0.025 mcg.
    case vitaminD
    /// Vitamin A; `nil` form means unknown, which refuses IU conversion.
    case vitaminA(form: VitaminAForm?)
    /// Vitamin E; `nil` form means unknown, which refuses IU conversion.
    case vitaminE(form: VitaminEForm?)
    /// Folic acid (the synthetic form of folate): 1 mcg = 1.7 mcg DFE.
    case folicAcid

    /// The unit amounts of this ingredient are summed in when a conversion allows it
    /// (mcg for vitamin D, mcg RAE, mg alpha-tocopherol, mcg DFE); nil for `.unspecified`.
    public var canonicalUnit: DoseUnit? {
        switch self {
        case .unspecified: nil
        case .vitaminD: .mcg
        case .vitaminA: .mcgRAE
        case .vitaminE: .mgAlphaTocopherol
        case .folicAcid: .mcgDFE
        }
    }
}

/// The form of vitamin A, which decides its IU factor.
public enum VitaminAForm: String, Hashable, Codable, Sendable, CaseIterable {
    /// Preformed vitamin A (retinol, retinyl palmitate, retinyl acetate): 1 IU = 0.3 mcg RAE.
    case retinol
    /// Beta-carotene from dietary supplements: 1 IU = 0.15 mcg RAE.
    case betaCarotene
}

/// The form of vitamin E, which decides its IU factor.
public enum VitaminEForm: String, Hashable, Codable, Sendable, CaseIterable {
    /// d-alpha-tocopherol (RRR), from natural sources: 1 IU = 0.67 mg alpha-tocopherol.
    case natural
    /// dl-alpha-tocopherol (all-rac), synthetic: 1 IU = 0.45 mg alpha-tocopherol.
    case synthetic
}

/// The published, exact factors Cairn uses. Source: NIH Office of Dietary Supplements fact sheets
/// (Vitamin D, Vitamin A and Carotenoids, Vitamin E, Folate), which restate the FDA labelling rule.
public enum ConversionFactor {
    /// Vitamin D: 1 IU = 0.025 mcg (ODS Vitamin D fact sheet).
    public static let vitaminDMicrogramsPerIU = decimal("0.025")
    /// Vitamin A as retinol: 1 IU = 0.3 mcg RAE (ODS Vitamin A fact sheet).
    public static let retinolRAEPerIU = decimal("0.3")
    /// Vitamin A as supplemental beta-carotene: 1 IU = 0.15 mcg RAE (ODS Vitamin A fact sheet).
    public static let supplementalBetaCaroteneRAEPerIU = decimal("0.15")
    /// Vitamin E, natural d-alpha-tocopherol: 1 IU = 0.67 mg alpha-tocopherol (ODS Vitamin E fact sheet).
    public static let naturalVitaminEMilligramsPerIU = decimal("0.67")
    /// Vitamin E, synthetic dl-alpha-tocopherol: 1 IU = 0.45 mg alpha-tocopherol (ODS Vitamin E fact sheet).
    public static let syntheticVitaminEMilligramsPerIU = decimal("0.45")
    /// Folic acid: 1 mcg = 1.7 mcg DFE (FDA labelling factor, ODS Folate fact sheet).
    public static let folicAcidDFEPerMicrogram = decimal("1.7")
}
