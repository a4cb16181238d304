import Foundation

/// An exact running total that never merges amounts that cannot be converted: one row per
/// incompatible unit (e.g. "25 mcg" and "2000 IU" of an unknown ingredient stay two rows).
///
/// Each added amount is first expressed in its context's canonical unit when an exact conversion exists
/// (vitamin D IU to mcg, vitamin A IU to mcg RAE with a known form, ...). Mass rows merge and are
/// expressed in the largest mass unit seen (1 mg + 500 mcg = 1.5 mg); this makes the result independent
/// of the order of additions.
public struct AmountSum: Hashable, Sendable {
    /// The totals, one per incompatible unit, ordered by `DoseUnit` declaration order.
    public private(set) var rows: [Amount] = []

    /// An empty total.
    public init() {}

    /// A total of `amounts`, each with its conversion context. Throws `RegimenError.absurdAmount` when a
    /// row would exceed the bounds of `Amount`.
    public init(_ amounts: [(Amount, ConversionContext)]) throws {
        for (amount, context) in amounts { try add(amount, context: context) }
    }

    /// True when nothing has been added.
    public var isEmpty: Bool { rows.isEmpty }

    /// Adds `amount` and returns the dimension of the row it was added to. Throws
    /// `RegimenError.absurdAmount` when the row would exceed the bounds of `Amount`.
    @discardableResult
    public mutating func add(_ amount: Amount, context: ConversionContext = .unspecified) throws -> DoseDimension {
        var amount = amount
        if let canonical = context.canonicalUnit, let converted = try? amount.converted(to: canonical, context: context) {
            amount = converted
        }
        guard let index = rows.firstIndex(where: { $0.unit.isDirectlyCompatible(with: amount.unit) }) else {
            rows.append(amount)
            rows.sort { $0.unit.declarationIndex < $1.unit.declarationIndex }
            return amount.unit.dimension
        }
        let existing = rows[index]
        let target = larger(existing.unit, amount.unit)
        let total = try existing.converted(to: target).value + amount.converted(to: target).value
        rows[index] = try Amount(total, target)
        return target.dimension
    }

    /// The row in `unit`'s dimension, if any.
    public func row(compatibleWith unit: DoseUnit) -> Amount? {
        rows.first { $0.unit.isDirectlyCompatible(with: unit) }
    }

    private func larger(_ a: DoseUnit, _ b: DoseUnit) -> DoseUnit {
        guard let ma = a.microgramsPerUnit, let mb = b.microgramsPerUnit else { return a }
        return ma >= mb ? a : b
    }
}
