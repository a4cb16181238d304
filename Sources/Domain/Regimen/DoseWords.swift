import Foundation

extension ProductForm {
    /// The noun of one unit of this form, singular and plural, for forms counted in units ("capsule",
    /// "capsules"); nil for forms measured otherwise (a powder, a liquid, any other form), which are counted in
    /// servings.
    public var unitNoun: (singular: String, plural: String)? {
        switch self {
        case .capsule: ("capsule", "capsules")
        case .softgel: ("softgel", "softgels")
        case .tablet: ("tablet", "tablets")
        case .chewable: ("chewable tablet", "chewable tablets")
        case .lozenge: ("lozenge", "lozenges")
        case .gummy: ("gummy", "gummies")
        case .drops: ("drop", "drops")
        case .spray: ("spray", "sprays")
        case .packet: ("packet", "packets")
        case .powder, .liquid, .other: nil
        }
    }
}

extension Product {
    /// What a supply count of this product counts: its units when a serving is a number of them, else servings.
    public var countsUnits: Bool { servingSize.unit == .count }

    /// The noun of `count` of what a supply count counts: "capsules", "1 capsule", "servings" (for a serving that
    /// is a count of a form without a unit noun: "units").
    public func countNoun(_ count: Decimal) -> String {
        let one = count == 1
        guard countsUnits else { return one ? "serving" : "servings" }
        guard let noun = form.unitNoun else { return one ? "unit" : "units" }
        return one ? noun.singular : noun.plural
    }

    /// What `servings` servings of this product are, as a person takes them: "2 capsules" when a serving is a
    /// number of units, else "1 serving (5 g)" or "2 servings (10 mL)".
    public func amountText(servings: Decimal) -> String {
        if countsUnits {
            let units = servings * servingSize.value
            return "\(units) \(countNoun(units))"
        }
        let total = (try? Amount(servings * servingSize.value, servingSize.unit))?.description ?? servingSize.description
        return "\(servings) \(servings == 1 ? "serving" : "servings") (\(total))"
    }
}
