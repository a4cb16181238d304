import Foundation

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
        self.init(localSeconds: instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant)))
    }

    /// The bucket of a local wall-clock time given as seconds since 1970-01-01 00:00 local.
    init(localSeconds local: Double) {
        let secondOfDay = local - (local / 86_400).rounded(.down) * 86_400
        switch Int(secondOfDay / 3_600) {
        case 5..<12: self = .morning
        case 12..<17: self = .afternoon
        case 17..<22: self = .evening
        default: self = .night
        }
    }

    /// The bucket holding a strict majority (more than half) of `buckets`; nil on a tie or plurality.
    public static func dominant<S: Sequence>(in buckets: S) -> TimeOfDayBucket? where S.Element == TimeOfDayBucket {
        var counts = (morning: 0, afternoon: 0, evening: 0, night: 0)
        var total = 0
        for b in buckets {
            total += 1
            switch b {
            case .morning: counts.morning += 1
            case .afternoon: counts.afternoon += 1
            case .evening: counts.evening += 1
            case .night: counts.night += 1
            }
        }
        let all: [(TimeOfDayBucket, Int)] = [
            (.morning, counts.morning), (.afternoon, counts.afternoon), (.evening, counts.evening),
            (.night, counts.night),
        ]
        return all.first { 2 * $0.1 > total }?.0
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
    /// A ledger record that undoes the record it supersedes: the dose is back to not logged.
    case undone

    /// Whether a check-in, a correction or an import may write this status (taken or skipped).
    public var isLoggable: Bool { self == .taken || self == .skipped }
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
        row.catalogueID ?? labelKeyPrefix + CatalogueText.normalised(row.nameOnLabel)
    }

    /// The name a grouping key stands for: the catalogue's name of its entry, else the (normalised) label name it
    /// holds; a catalogue id `catalogue` does not know is shown as it is.
    public static func name(ofKey key: String, catalogue: Catalogue?) -> String {
        key.hasPrefix(labelKeyPrefix) ? String(key.dropFirst(labelKeyPrefix.count)) : catalogue?.ingredient(id: key)?.name ?? key
    }

    private static let labelKeyPrefix = "label:"
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
    public init(
        productID: ProductID, status: IntakeStatus = .taken, servings: Decimal = 1, doses: [IngredientDose],
        instant: Date, timeZone: TimeZone
    ) {
        self.productID = productID
        self.status = status
        self.servings = servings
        self.doses = doses
        self.instant = instant
        self.timeZone = timeZone
    }

    /// A taken record of `servings` servings of `product`: each row with an amount becomes a dose scaled by
    /// the servings, with the conversion context of its catalogue form when `catalogue` knows it.
    public init(
        taking servings: Decimal, of product: Product, catalogue: Catalogue?, instant: Date,
        timeZone: TimeZone
    ) throws {
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
        // Work per record is kept to integer indexes: products and ingredient keys are numbered on first
        // sight, each local day gets one accumulator, and same-unit amounts of an ingredient on a day are first
        // added as plain decimals (exact); each such group goes into the day's AmountSum once at the end.
        // Servings are kept as runs of one value (compared by representation, which is cheap) and multiplied once.
        struct ProductTotals {
            var servings: [(value: Int, count: Int)] = []
            var count = 0
            var buckets = BucketCounts()
        }
        var servingsValues: [Decimal] = []
        // A group counts how often each dose source (a dose of one shared doses array) occurred, and multiplies
        // once at the end: Foundation's Decimal addition allocates, and one year has thousands of doses.
        struct GroupTotal {
            let unit: DoseUnit
            let context: ConversionContext
            var sources: [(source: Int, count: Int)]
            var products: [Int]
        }
        struct DayTotals {
            var products: [ProductTotals?] = []
            var ingredients: [[GroupTotal]] = []
        }
        var productIndex: [ProductID: Int] = [:]
        var productIDs: [ProductID] = []
        var keyIndex: [String: Int] = [:]
        var keys: [String] = []
        var dayIndex: [Int: Int] = [:]
        var dayNumbers: [Int] = []
        var totals: [DayTotals] = []
        var bucketsPerProduct: [BucketCounts] = []
        let range = days.lowerBound.dayNumber...days.upperBound.dayNumber
        var lastDoses: [IngredientDose]? = nil
        var lastDoseKeys: [Int] = []
        var lastSourceBase = 0
        var sourceValues: [Decimal] = []
        var lastDay = Int.min
        var lastSlot = 0
        var offsets = ZoneOffsetCache()

        for record in records where record.status == .taken {
            // One zone lookup per record serves both its local day and its time-of-day bucket.
            let local = record.instant.timeIntervalSince1970 + offsets.offset(of: record.timeZone, at: record.instant)
            let day = Int((local / 86_400).rounded(.down))
            guard range.contains(day) else { continue }
            let bucket = TimeOfDayBucket(localSeconds: local)
            if day != lastDay {
                if let known = dayIndex[day] {
                    lastSlot = known
                } else {
                    lastSlot = totals.count
                    dayIndex[day] = lastSlot
                    dayNumbers.append(day)
                    totals.append(DayTotals())
                }
                lastDay = day
            }
            let d = lastSlot
            let product: Int
            if let known = productIndex[record.productID] {
                product = known
            } else {
                product = productIDs.count
                productIndex[record.productID] = product
                productIDs.append(record.productID)
                bucketsPerProduct.append(BucketCounts())
            }
            while totals[d].products.count <= product { totals[d].products.append(nil) }
            if totals[d].products[product] == nil { totals[d].products[product] = ProductTotals() }
            if let last = totals[d].products[product]!.servings.last, sameRepresentation(servingsValues[last.value], record.servings) {
                totals[d].products[product]!.servings[totals[d].products[product]!.servings.count - 1].count += 1
            } else {
                let index =
                    servingsValues.firstIndex { sameRepresentation($0, record.servings) }
                    ?? {
                        servingsValues.append(record.servings)
                        return servingsValues.count - 1
                    }()
                totals[d].products[product]!.servings.append((index, 1))
            }
            totals[d].products[product]!.count += 1
            totals[d].products[product]!.buckets.add(bucket)
            bucketsPerProduct[product].add(bucket)
            if !sameStorage(lastDoses, record.doses) {
                lastDoses = record.doses
                lastSourceBase = sourceValues.count
                sourceValues.append(contentsOf: record.doses.map(\.amount.value))
                lastDoseKeys = record.doses.map { dose in
                    if let known = keyIndex[dose.ingredientKey] { return known }
                    keyIndex[dose.ingredientKey] = keys.count
                    keys.append(dose.ingredientKey)
                    return keys.count - 1
                }
            }
            for (offset, (dose, key)) in zip(record.doses, lastDoseKeys).enumerated() {
                let source = lastSourceBase + offset
                while totals[d].ingredients.count <= key { totals[d].ingredients.append([]) }
                if let g = totals[d].ingredients[key].firstIndex(where: { $0.unit == dose.amount.unit && $0.context == dose.context }) {
                    if let s = totals[d].ingredients[key][g].sources.firstIndex(where: { $0.source == source }) {
                        totals[d].ingredients[key][g].sources[s].count += 1
                    } else {
                        totals[d].ingredients[key][g].sources.append((source, 1))
                    }
                    if !totals[d].ingredients[key][g].products.contains(product) { totals[d].ingredients[key][g].products.append(product) }
                } else {
                    totals[d].ingredients[key].append(
                        GroupTotal(
                            unit: dose.amount.unit, context: dose.context,
                            sources: [(source, 1)], products: [product]))
                }
            }
        }

        // Output in order: days ascending, then product ids, then ingredient keys and unit order.
        let productOrder = productIDs.indices.sorted { productIDs[$0].rawValue < productIDs[$1].rawValue }
        let keyOrder = keys.indices.sorted { keys[$0] < keys[$1] }
        var products: [ProductDayExposure] = []
        var ingredients: [IngredientDayExposure] = []
        // Days with the same doses give the same sums: each distinct combination is computed once.
        struct IngredientSignature: Hashable {
            struct Part: Hashable {
                let unit: DoseUnit
                let context: ConversionContext
                let sources: [Int]
            }
            let parts: [Part]
        }
        var ingredientMemo: [IngredientSignature: ([Amount], [DoseDimension])] = [:]
        var servingsMemo: [[Int]: Decimal] = [:]
        for d in dayNumbers.indices.sorted(by: { dayNumbers[$0] < dayNumbers[$1] }) {
            let day = LocalDay(dayNumber: dayNumbers[d])
            for p in productOrder where p < totals[d].products.count {
                guard let t = totals[d].products[p] else { continue }
                let signature = t.servings.flatMap { [$0.value, $0.count] }
                let servings: Decimal
                if let known = servingsMemo[signature] {
                    servings = known
                } else {
                    var total: Decimal = 0
                    for run in t.servings { total += run.count == 1 ? servingsValues[run.value] : servingsValues[run.value] * Decimal(run.count) }
                    servingsMemo[signature] = total
                    servings = total
                }
                products.append(
                    ProductDayExposure(
                        day: day, productID: productIDs[p], servings: servings, intakeCount: t.count,
                        dominantBucket: t.buckets.dominant))
            }
            for k in keyOrder where k < totals[d].ingredients.count && !totals[d].ingredients[k].isEmpty {
                let groups = totals[d].ingredients[k]
                let signature = IngredientSignature(
                    parts: groups.map {
                        IngredientSignature.Part(unit: $0.unit, context: $0.context, sources: $0.sources.flatMap { [$0.source, $0.count] })
                    })
                if ingredientMemo[signature] == nil {
                    var sum = AmountSum()
                    var dimensions: [DoseDimension] = []
                    for group in groups {
                        var total: Decimal = 0
                        for (source, count) in group.sources {
                            total += count == 1 ? sourceValues[source] : sourceValues[source] * Decimal(count)
                        }
                        dimensions.append(try sum.add(Amount(total, group.unit), context: group.context))
                    }
                    ingredientMemo[signature] = (sum.rows, dimensions)
                }
                let (rows, dimensions) = ingredientMemo[signature]!
                var contributors: [DoseDimension: Set<Int>] = [:]
                for (group, dimension) in zip(groups, dimensions) { contributors[dimension, default: []].formUnion(group.products) }
                for row in rows {
                    let ids = (contributors[row.unit.dimension] ?? []).map { productIDs[$0] }.sorted { $0.rawValue < $1.rawValue }
                    ingredients.append(IngredientDayExposure(day: day, ingredientKey: keys[k], amount: row, productIDs: ids))
                }
            }
        }
        var dominant: [ProductID: TimeOfDayBucket] = [:]
        for (index, buckets) in bucketsPerProduct.enumerated() {
            if let bucket = buckets.dominant { dominant[productIDs[index]] = bucket }
        }
        return ExposureReport(products: products, ingredients: ingredients, dominantBuckets: dominant)
    }

    /// True when two decimals have the same bytes (then they are equal; equal values may differ in bytes,
    /// which only costs a separate run).
    private func sameRepresentation(_ a: Decimal, _ b: Decimal) -> Bool {
        withUnsafeBytes(of: a) { pa in withUnsafeBytes(of: b) { pb in pa.elementsEqual(pb) } }
    }

    /// True when both arrays share one buffer (records built from one product share their doses), so their
    /// ingredient keys need not be looked up again; a false answer only costs a lookup.
    private func sameStorage(_ a: [IngredientDose]?, _ b: [IngredientDose]) -> Bool {
        guard let a, a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in pa.baseAddress == pb.baseAddress } }
    }
}

/// How many intakes fell in each time-of-day bucket.
struct BucketCounts {
    private var counts = (0, 0, 0, 0)
    private var total = 0

    /// Counts one intake.
    mutating func add(_ bucket: TimeOfDayBucket) {
        total += 1
        switch bucket {
        case .morning: counts.0 += 1
        case .afternoon: counts.1 += 1
        case .evening: counts.2 += 1
        case .night: counts.3 += 1
        }
    }

    /// The bucket with a strict majority, else nil (as `TimeOfDayBucket.dominant(in:)`).
    var dominant: TimeOfDayBucket? {
        let all: [(TimeOfDayBucket, Int)] = [(.morning, counts.0), (.afternoon, counts.1), (.evening, counts.2), (.night, counts.3)]
        return all.first { 2 * $0.1 > total }?.0
    }
}

/// A zone's UTC offset, looked up once per stretch between two of its transitions (each lookup takes a lock
/// in the ICU time zone, and a year has thousands of records). Exact: an offset found at an instant is reused
/// only from that instant until the zone's next transition, as the time zone database reports it.
struct ZoneOffsetCache {
    private struct Stretch {
        let zone: TimeZone
        let from: Date
        let until: Date
        let offset: Double
    }
    private var last: Stretch?

    /// The offset of `zone` at `instant`, in seconds.
    mutating func offset(of zone: TimeZone, at instant: Date) -> Double {
        if let s = last, s.from <= instant, instant < s.until, s.zone == zone { return s.offset }
        let offset = Double(zone.secondsFromGMT(for: instant))
        let until = zone.nextDaylightSavingTimeTransition(after: instant) ?? .distantFuture
        last = Stretch(zone: zone, from: instant, until: until, offset: offset)
        return offset
    }
}
