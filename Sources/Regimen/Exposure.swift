import Foundation

/// A calendar day as the person lived it: year, month and day in the time zone a record was made in.
public struct LocalDay: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1-12.
    public let month: Int
    /// The day of the month, 1-31.
    public let day: Int

    /// A day; nil when the date does not exist (e.g. February 30).
    public init?(year: Int, month: Int, day: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let comps = DateComponents(year: year, month: month, day: day)
        guard comps.isValidDate(in: calendar) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The local day of `instant` in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let c = LocalDay.calendar(timeZone).dateComponents([.year, .month, .day], from: instant)
        year = c.year!
        month = c.month!
        day = c.day!
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// Chronological order.
    public static func < (a: LocalDay, b: LocalDay) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// "2026-03-01".
    public var description: String {
        "\(year)-" + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
    }
}

/// A part of the local day, used to describe when a product is usually taken.
public enum TimeOfDayBucket: String, Hashable, Codable, Sendable, CaseIterable {
    /// 05:00 to 11:59.
    case morning
    /// 12:00 to 16:59.
    case afternoon
    /// 17:00 to 21:59.
    case evening
    /// 22:00 to 04:59.
    case night

    /// The bucket of `instant` in `timeZone` (the zone the record was made in).
    public init(_ instant: Date, in timeZone: TimeZone) {
        switch LocalDay.calendar(timeZone).component(.hour, from: instant) {
        case 5..<12: self = .morning
        case 12..<17: self = .afternoon
        case 17..<22: self = .evening
        default: self = .night
        }
    }

    /// The bucket holding a strict majority (more than half) of `buckets`; nil on a tie or plurality.
    public static func dominant<S: Sequence>(in buckets: S) -> TimeOfDayBucket? where S.Element == TimeOfDayBucket {
        var counts: [TimeOfDayBucket: Int] = [:]
        var total = 0
        for b in buckets { counts[b, default: 0] += 1; total += 1 }
        return counts.first { 2 * $0.value > total }?.key
    }
}

/// What happened to a scheduled dose.
public enum IntakeStatus: String, Hashable, Codable, Sendable, CaseIterable {
    /// Taken: the only status that counts towards exposure.
    case taken
    /// Deliberately skipped.
    case skipped
    /// Not logged as taken.
    case missed
}

/// The amount of one ingredient taken in one intake.
public struct IngredientDose: Hashable, Sendable {
    /// Groups amounts of the same ingredient: a catalogue id, or `"label:" + normalised label name` for an
    /// ingredient the catalogue does not know (see `IngredientDose.key(for:)`).
    public let ingredientKey: String
    /// The amount taken (already multiplied by the servings taken).
    public let amount: Amount
    /// Which exact conversions apply to this amount.
    public let context: ConversionContext

    /// A dose.
    public init(ingredientKey: String, amount: Amount, context: ConversionContext = .unspecified) {
        self.ingredientKey = ingredientKey
        self.amount = amount
        self.context = context
    }

    /// The grouping key of a product row: its catalogue id, else "label:" and its normalised label name.
    public static func key(for row: ProductIngredient) -> String {
        row.catalogueID ?? "label:" + CatalogueText.normalised(row.nameOnLabel)
    }
}

/// One logged intake of a product, as plain values.
public struct IntakeRecord: Hashable, Sendable {
    /// The product.
    public let productID: ProductID
    /// Taken, skipped or missed.
    public let status: IntakeStatus
    /// Servings taken (e.g. 1, or 0.5).
    public let servings: Decimal
    /// The ingredient amounts taken in this intake.
    public let doses: [IngredientDose]
    /// When, in UTC.
    public let instant: Date
    /// The IANA time zone the intake was recorded in; decides its local day and time-of-day bucket.
    public let timeZone: TimeZone

    /// A record.
    public init(productID: ProductID, status: IntakeStatus = .taken, servings: Decimal = 1, doses: [IngredientDose],
                instant: Date, timeZone: TimeZone) {
        self.productID = productID
        self.status = status
        self.servings = servings
        self.doses = doses
        self.instant = instant
        self.timeZone = timeZone
    }

    /// A taken record of `servings` servings of `product`: each row with an amount becomes a dose scaled by
    /// the servings, with the conversion context of its catalogue form when `catalogue` knows it.
    public init(taking servings: Decimal, of product: Product, catalogue: Catalogue?, instant: Date,
                timeZone: TimeZone) throws {
        let doses = try product.ingredients.compactMap { row -> IngredientDose? in
            guard let amount = row.amount else { return nil }
            let ingredient = row.catalogueID.flatMap { catalogue?.ingredient(id: $0) }
            let context = ingredient?.conversionContext(form: row.form.flatMap { ingredient?.form(named: $0) }) ?? .unspecified
            return IngredientDose(ingredientKey: IngredientDose.key(for: row), amount: try amount.scaled(by: servings), context: context)
        }
        self.init(productID: product.id, status: .taken, servings: servings, doses: doses, instant: instant, timeZone: timeZone)
    }
}

/// Per product and day: servings taken and the usual time of day.
public struct ProductDayExposure: Hashable, Sendable {
    /// The local day.
    public let day: LocalDay
    /// The product.
    public let productID: ProductID
    /// Total servings taken that day.
    public let servings: Decimal
    /// Number of taken records that day.
    public let intakeCount: Int
    /// The time-of-day bucket of a strict majority of that day's intakes, else nil.
    public let dominantBucket: TimeOfDayBucket?
}

/// Per ingredient and day: one row per unit that cannot be converted into another.
public struct IngredientDayExposure: Hashable, Sendable {
    /// The local day.
    public let day: LocalDay
    /// The ingredient key (see `IngredientDose.ingredientKey`).
    public let ingredientKey: String
    /// The total in one unit.
    public let amount: Amount
    /// The products that contributed, sorted by id.
    public let productIDs: [ProductID]
}

/// Exposure over a range of local days.
public struct ExposureReport: Hashable, Sendable {
    /// Per product and day, ordered by day then product id.
    public let products: [ProductDayExposure]
    /// Per ingredient, day and incompatible unit, ordered by day, ingredient key, unit.
    public let ingredients: [IngredientDayExposure]
    /// Per product over the whole range: the bucket of a strict majority of its taken intakes. Products
    /// without one are absent.
    public let dominantBuckets: [ProductID: TimeOfDayBucket]
}

/// Sums what was taken, per product and per ingredient per local day.
///
/// Rules: only `.taken` records count; a record belongs to the local day of its instant in its own time
/// zone, and records whose day is outside the requested range are ignored; same-day amounts of one
/// ingredient sum when compatible (same dimension, or an exact conversion of their context), and
/// incompatible units stay in separate rows; a dominant time-of-day bucket is reported only on a strict
/// majority.
public struct ExposureCalculator: Sendable {
    /// A calculator.
    public init() {}

    /// The exposure of `records` within `days` (inclusive). Throws `RegimenError.absurdAmount` when a day's
    /// total exceeds the bounds of `Amount`.
    public func exposure(of records: [IntakeRecord], in days: ClosedRange<LocalDay>) throws -> ExposureReport {
        struct ProductKey: Hashable { let day: LocalDay; let product: ProductID }
        struct IngredientKey: Hashable { let day: LocalDay; let key: String }
        var productServings: [ProductKey: (Decimal, Int, [TimeOfDayBucket])] = [:]
        var ingredientSums: [IngredientKey: (AmountSum, [DoseDimension: Set<ProductID>])] = [:]
        var bucketsPerProduct: [ProductID: [TimeOfDayBucket]] = [:]

        for record in records where record.status == .taken {
            let day = LocalDay(record.instant, in: record.timeZone)
            guard days.contains(day) else { continue }
            let bucket = TimeOfDayBucket(record.instant, in: record.timeZone)
            let pk = ProductKey(day: day, product: record.productID)
            var p = productServings[pk] ?? (0, 0, [])
            p.0 += record.servings
            p.1 += 1
            p.2.append(bucket)
            productServings[pk] = p
            bucketsPerProduct[record.productID, default: []].append(bucket)
            for dose in record.doses {
                let ik = IngredientKey(day: day, key: dose.ingredientKey)
                var entry = ingredientSums[ik] ?? (AmountSum(), [:])
                let dimension = try entry.0.add(dose.amount, context: dose.context)
                entry.1[dimension, default: []].insert(record.productID)
                ingredientSums[ik] = entry
            }
        }

        let products = productServings.map { key, value in
            ProductDayExposure(day: key.day, productID: key.product, servings: value.0, intakeCount: value.1,
                               dominantBucket: TimeOfDayBucket.dominant(in: value.2))
        }.sorted { ($0.day, $0.productID.rawValue) < ($1.day, $1.productID.rawValue) }

        let unitOrder = { (u: DoseUnit) in DoseUnit.allCases.firstIndex(of: u)! }
        let ingredients = ingredientSums.flatMap { key, value in
            value.0.rows.map { row in
                IngredientDayExposure(day: key.day, ingredientKey: key.key, amount: row,
                                      productIDs: (value.1[row.unit.dimension] ?? []).sorted { $0.rawValue < $1.rawValue })
            }
        }.sorted { a, b in
            if a.day != b.day { return a.day < b.day }
            if a.ingredientKey != b.ingredientKey { return a.ingredientKey < b.ingredientKey }
            return unitOrder(a.amount.unit) < unitOrder(b.amount.unit)
        }
        let dominant = bucketsPerProduct.compactMapValues { TimeOfDayBucket.dominant(in: $0) }
        return ExposureReport(products: products, ingredients: ingredients, dominantBuckets: dominant)
    }
}
