import CairnCore
import Foundation

/// Tag for supplement and medication products.
public enum ProductTag {}
/// The identifier of a product.
public typealias ProductID = Identifier<ProductTag>

/// The physical form of a product.
public enum ProductForm: String, Hashable, Codable, Sendable, CaseIterable {
    /// A hard or vegetarian capsule.
    case capsule
    /// A soft gelatin capsule.
    case softgel
    /// A tablet or caplet.
    case tablet
    /// A chewable tablet.
    case chewable
    /// A lozenge dissolved in the mouth.
    case lozenge
    /// A gummy.
    case gummy
    /// A powder measured by scoop or gram.
    case powder
    /// A liquid measured by volume.
    case liquid
    /// Drops.
    case drops
    /// A spray.
    case spray
    /// A single-serving packet or sachet.
    case packet
    /// Any other form.
    case other

    /// True for forms taken as discrete units (one capsule, one tablet, ...), where one unit can only
    /// physically hold so much.
    public var isDiscreteUnit: Bool {
        switch self {
        case .capsule, .softgel, .tablet, .chewable, .lozenge, .gummy: true
        default: false
        }
    }

    /// The largest mass of one ingredient one discrete unit can hold: 5 g (a large tablet or gummy weighs
    /// 2-5 g in total). Nil for forms that are not discrete units.
    public var maximumIngredientMassPerUnit: Amount? {
        isDiscreteUnit ? try? Amount(5, .g) : nil
    }
}

/// One row of a product's Supplement Facts: the label's name, and where known the catalogue entry,
/// the amount per serving, the %DV and the form ("as magnesium glycinate").
public struct ProductIngredient: Hashable, Sendable, Codable {
    /// The catalogue entry id, or nil for an ingredient the catalogue does not know.
    public let catalogueID: String?
    /// The name as written on the label.
    public let nameOnLabel: String
    /// The amount per serving; nil when the label gives none (e.g. a proprietary blend member).
    public let amount: Amount?
    /// The percent of Daily Value printed on the label, if any.
    public let dailyValuePercent: Decimal?
    /// The form as written on the label, if any.
    public let form: String?

    /// A row; throws `RegimenError.emptyIngredientName` or `.negativeDailyValuePercent`.
    public init(
        catalogueID: String?, nameOnLabel: String, amount: Amount?, dailyValuePercent: Decimal? = nil,
        form: String? = nil
    ) throws {
        guard !nameOnLabel.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RegimenError.emptyIngredientName
        }
        // Only the check stored names pass: a row read back from the vault is never refused. New rows are checked
        // by `Product.checkNames()` (`TextInput.name`) where they are saved.
        try TextInput.storedName(nameOnLabel, field: "ingredient name")
        if let form { try TextInput.storedName(form, field: "ingredient form") }
        if let p = dailyValuePercent, p.isNaN || p < 0 { throw RegimenError.negativeDailyValuePercent }
        self.catalogueID = catalogueID
        self.nameOnLabel = nameOnLabel
        self.amount = amount
        self.dailyValuePercent = dailyValuePercent
        self.form = form
    }

    private enum CodingKeys: String, CodingKey { case catalogueID, nameOnLabel, amount, dailyValuePercent, form }

    /// Decodes and validates; the %DV is an exact decimal string.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let percent = try c.decodeIfPresent(String.self, forKey: .dailyValuePercent)
        let parsed = try percent.map { text -> Decimal in
            guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw RegimenError.unreadableNumber }
            return d
        }
        try self.init(
            catalogueID: c.decodeIfPresent(String.self, forKey: .catalogueID),
            nameOnLabel: c.decode(String.self, forKey: .nameOnLabel),
            amount: c.decodeIfPresent(Amount.self, forKey: .amount),
            dailyValuePercent: parsed, form: c.decodeIfPresent(String.self, forKey: .form))
    }

    /// Encodes the %DV as an exact decimal string.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(catalogueID, forKey: .catalogueID)
        try c.encode(nameOnLabel, forKey: .nameOnLabel)
        try c.encodeIfPresent(amount, forKey: .amount)
        try c.encodeIfPresent(dailyValuePercent.map { "\($0)" }, forKey: .dailyValuePercent)
        try c.encodeIfPresent(form, forKey: .form)
    }
}

/// A supplement or medication product as its label describes it.
public struct Product: Hashable, Sendable, Codable, Identifiable {
    /// The product's identifier.
    public let id: ProductID
    /// The product name.
    public let name: String
    /// The brand; may be empty.
    public let brand: String
    /// The physical form.
    public let form: ProductForm
    /// One serving: a count of units (2 capsules), a mass (5 g of powder) or a volume (1 mL).
    public let servingSize: Amount
    /// The rows of the Supplement Facts, per serving.
    public let ingredients: [ProductIngredient]

    /// A product. Throws `RegimenError.emptyProductName`, `.invalidServingSize` (zero, or not a count,
    /// mass or volume) or `.amountDoesNotFitForm` (one discrete unit said to hold more than 5 g of one
    /// ingredient, e.g. "5 kg per capsule" was already refused by `Amount`; "6 g per capsule" is refused here).
    public init(
        id: ProductID = .random(), name: String, brand: String = "", form: ProductForm,
        servingSize: Amount, ingredients: [ProductIngredient]
    ) throws {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw RegimenError.emptyProductName }
        // Only the check stored names pass (see `ProductIngredient.init`); `checkNames()` is the rule for new names.
        try TextInput.storedName(name, field: "product name")
        try TextInput.storedName(brand, field: "brand")
        guard !servingSize.isZero, [.count, .mass, .volume].contains(servingSize.unit.dimension) else {
            throw RegimenError.invalidServingSize
        }
        if let limit = form.maximumIngredientMassPerUnit, servingSize.unit == .count {
            let limitMicrograms = limit.value * 1_000_000
            for row in ingredients {
                guard let amount = row.amount, let micrograms = Product.massEquivalentMicrograms(amount) else { continue }
                if micrograms / servingSize.value > limitMicrograms {
                    throw RegimenError.amountDoesNotFitForm(form: form.rawValue, limit: limit.description)
                }
            }
        }
        self.id = id
        self.name = name
        self.brand = brand
        self.form = form
        self.servingSize = servingSize
        self.ingredients = ingredients
    }

    /// The amount in micrograms for mass units and mass-based equivalents (RAE, DFE: mcg; NE,
    /// alpha-tocopherol: mg); nil otherwise.
    static func massEquivalentMicrograms(_ amount: Amount) -> Decimal? {
        switch amount.unit {
        case .mcgRAE, .mcgDFE: amount.value
        case .mgNE, .mgAlphaTocopherol: amount.value * 1000
        default: amount.unit.microgramsPerUnit.map { amount.value * $0 }
        }
    }

    private enum CodingKeys: String, CodingKey { case id, name, brand, form, servingSize, ingredients }

    /// The rule for names as they are saved (`TextInput.name`: no control or format character, at most 120
    /// characters) applied to the product's name, its brand and each row's name and form. Every path that saves a
    /// product calls it (`RegimenService.addProduct`, `.editProduct`); reading a stored product does not, so a
    /// name saved by an earlier version is still read. Throws `FieldProblems<ProductField>` with every refusal,
    /// each row's by its number (from 1).
    public func checkNames() throws {
        var problems = FieldProblems<ProductField>.Collector()
        problems.field(.name) { try TextInput.name(name, field: "product name") }
        problems.field(.brand) { try TextInput.name(brand, field: "brand") }
        for (index, row) in ingredients.enumerated() {
            problems.field(.ingredients, row: index + 1) {
                try TextInput.name(row.nameOnLabel, field: "ingredient name")
                if let form = row.form { try TextInput.name(form, field: "ingredient form") }
            }
        }
        try problems.check()
    }

    /// Decodes and validates like `init`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            id: c.decode(ProductID.self, forKey: .id), name: c.decode(String.self, forKey: .name),
            brand: c.decode(String.self, forKey: .brand), form: c.decode(ProductForm.self, forKey: .form),
            servingSize: c.decode(Amount.self, forKey: .servingSize),
            ingredients: c.decode([ProductIngredient].self, forKey: .ingredients))
    }

    /// Encodes all fields.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(brand, forKey: .brand)
        try c.encode(form, forKey: .form)
        try c.encode(servingSize, forKey: .servingSize)
        try c.encode(ingredients, forKey: .ingredients)
    }
}

extension Catalogue {
    /// How far beyond the Daily Value an amount may go before it is refused as implausible: 10,000 times
    /// (the largest real products reach about 2,100 times, e.g. 5,000 mcg of vitamin B12). Without a
    /// Daily Value, 1,000 times the upper limit.
    public static let implausibleMultipleOfDailyValue: Decimal = 10_000
    /// See `implausibleMultipleOfDailyValue`.
    public static let implausibleMultipleOfUpperLimit: Decimal = 1_000

    /// Checks every row of `product` against this catalogue. Throws
    /// `RegimenError.unknownCatalogueIngredient` for a catalogue id that does not exist and
    /// `.implausibleForIngredient` for an amount far beyond any product sold. Rows without a catalogue
    /// id or an amount, and amounts in a unit that cannot be converted to the reference unit, pass.
    public func checkPlausibility(of product: Product) throws {
        for row in product.ingredients {
            guard let id = row.catalogueID else { continue }
            guard let ingredient = ingredient(id: id) else { throw RegimenError.unknownCatalogueIngredient }
            guard let amount = row.amount else { continue }
            let context = ingredient.conversionContext(form: row.form.flatMap { ingredient.form(named: $0) })
            let references: [(ReferenceAmount?, Decimal, String)] = [
                (ingredient.dailyValue, Catalogue.implausibleMultipleOfDailyValue, "10,000 times the Daily Value"),
                (
                    ingredient.dailyValue == nil ? ingredient.upperLimit : nil, Catalogue.implausibleMultipleOfUpperLimit,
                    "1,000 times the upper limit"
                ),
            ]
            for (reference, multiple, words) in references {
                guard let reference,
                    let converted = try? amount.converted(to: reference.amount.unit, context: context)
                else { continue }
                if converted.value > reference.amount.value * multiple {
                    throw RegimenError.implausibleForIngredient(ingredient: ingredient.name, limit: words)
                }
            }
        }
    }
}
