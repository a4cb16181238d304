import Foundation

/// Why a proposed label row should be checked before saving. Each flag sits beside its row with its reason.
public struct LabelFlag: Hashable, Sendable, Codable {
    /// The kind of doubt.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The words of the row were read with low confidence.
        case lowConfidence
        /// No catalogue entry matches the name.
        case unknownIngredient
        /// The name matched a catalogue entry only by similarity (possible misread).
        case uncertainMatch
        /// The unit does not fit the ingredient (e.g. IU of zinc).
        case unitAnomaly
        /// The amount cannot be right for this ingredient (e.g. grams of vitamin D).
        case impossibleQuantity
        /// The amount is above the tolerable upper intake level.
        case aboveUpperLimit
        /// The amount is far outside the range products usually carry.
        case farOutsideCommonRange
        /// The printed %DV does not fit the amount.
        case dailyValueInconsistent
        /// A blend member without its own amount (only the blend total is disclosed).
        case undisclosedBlendAmount
        /// No amount was printed or read for a row that is not a blend member.
        case missingAmount
        /// An amount was printed but could not be read.
        case unreadableAmount
        /// The words of the row were not on one straight line in the photo (a curved or creased label): its amount
        /// may belong to the row above or below.
        case wordsOffLine
        /// The photo shows a mark on the baseline between the digits of the amount that was not read: a decimal
        /// point may have been lost ("2.5" read as "25").
        case markInNumber
    }

    /// The kind of doubt.
    public let kind: Kind
    /// The flag's short name, shown before its reason ("Unknown ingredient").
    public var title: String { kind.title }
    /// The plain-English reason (never repeats what OCR read).
    public let reason: String

    /// A flag.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The flag of a row whose words, as read, were not on one line.
    public static let wordsOffLine = LabelFlag(
        .wordsOffLine,
        "The words of this row were not on one straight line in the photo (a curved or creased label): the amount may belong to the row above or below. Compare the row with the label."
    )

    /// The flag of a row whose amount, in the photo, has a mark on the line between its digits that was not read.
    public static let markInNumber = LabelFlag(
        .markInNumber,
        "The photo shows a small mark on the line between the digits of this amount that was not read: it may be a decimal point (2.5 read as 25). Compare the amount with the label."
    )

    /// The flags only the photo can raise, each with its fixed reason: a row that is unchanged since it was read
    /// keeps them (they cannot be found again from its text).
    public static func fromPhoto(_ kind: Kind) -> LabelFlag? {
        switch kind {
        case .wordsOffLine: wordsOffLine
        case .markInNumber: markInNumber
        default: nil
        }
    }
}

extension LabelFlag.Kind {
    /// True when a row with this flag is saved only once the person accepts it (`LabelGate`). Only
    /// `undisclosedBlendAmount` is a note: it describes the label (a blend member printed without an amount), not
    /// a doubt about what was read or typed, and a member the catalogue does not know is flagged `unknownIngredient`.
    public var needsDecision: Bool { self != .undisclosedBlendAmount }

    /// A short name for the kind of doubt, shown beside a row with the flag's reason.
    public var title: String {
        switch self {
        case .lowConfidence: "Hard to read"
        case .unknownIngredient: "Unknown ingredient"
        case .uncertainMatch: "Uncertain match"
        case .unitAnomaly: "Unusual unit"
        case .impossibleQuantity: "Impossible amount"
        case .aboveUpperLimit: "Above the upper limit"
        case .farOutsideCommonRange: "Far outside the usual range"
        case .dailyValueInconsistent: "%DV does not fit"
        case .undisclosedBlendAmount: "Amount not disclosed"
        case .missingAmount: "No amount"
        case .unreadableAmount: "Amount unreadable"
        case .wordsOffLine: "Words out of line"
        case .markInNumber: "Decimal point?"
        }
    }
}
