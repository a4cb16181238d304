import CairnCore
import Foundation

/// One label of the label database (the public NIH Dietary Supplement Label Database, DSLD, imported on this
/// computer): text only, as the label prints it. Never confused with the ingredient catalogue: a label record is
/// what one product's label says; the catalogue is Cairn's own list of ingredients that rows are matched to.
public struct LabelRecord: Hashable, Sendable {
    /// DSLD's label id.
    public let id: Int
    /// The product's name as on the label.
    public let name: String
    /// The brand.
    public let brand: String
    /// The barcodes the label carries, as GTIN-14.
    public let barcodes: [GTIN]
    /// The serving size as printed ("2 Capsule(s)"), empty when the label gives none.
    public let servingText: String
    /// The serving size as an amount, when it reads as one (a count, a mass or a volume).
    public let servingSize: Amount?
    /// The product's form as DSLD names it ("Capsule", "Softgel", "Powder").
    public let formText: String
    /// The Supplement Facts rows, in label order (a blend's members follow it).
    public let rows: [LabelRecordRow]
    /// The date of the label (when DSLD recorded it), "YYYY-MM-DD", empty when unknown.
    public let labelDate: String
    /// False for a product DSLD lists as off the market.
    public let onMarket: Bool

    /// A record.
    public init(
        id: Int, name: String, brand: String, barcodes: [GTIN], servingText: String, servingSize: Amount?,
        formText: String, rows: [LabelRecordRow], labelDate: String, onMarket: Bool
    ) {
        self.id = id
        self.name = name
        self.brand = brand
        self.barcodes = barcodes
        self.servingText = servingText
        self.servingSize = servingSize
        self.formText = formText
        self.rows = rows
        self.labelDate = labelDate
        self.onMarket = onMarket
    }

    /// The product form the label's form names, if one fits ("Softgel Capsule": softgel; "Tablet or Pill": tablet).
    public var suggestedForm: ProductForm? {
        let text = formText.lowercased()
        let order: [(String, ProductForm)] = [
            ("softgel", .softgel), ("chewable", .chewable), ("gummy", .gummy), ("jelly", .gummy), ("lozenge", .lozenge),
            ("capsule", .capsule), ("tablet", .tablet), ("pill", .tablet), ("powder", .powder), ("drop", .drops),
            ("spray", .spray), ("liquid", .liquid), ("packet", .packet), ("bar", .other),
        ]
        return order.first { text.contains($0.0) }?.1
    }
}

/// One Supplement Facts row of a label record.
public struct LabelRecordRow: Hashable, Sendable {
    /// The ingredient as the label names it.
    public let name: String
    /// The form printed beside it ("as cholecalciferol"), if any.
    public let form: String?
    /// The amount per serving; nil when the label gives none (a proprietary blend's member).
    public let amount: Amount?
    /// The %DV, when printed.
    public let dailyValuePercent: Decimal?
    /// True for a blend (a row with members).
    public let isBlend: Bool
    /// For a blend member: the blend's name.
    public let blendName: String?

    /// A row.
    public init(name: String, form: String?, amount: Amount?, dailyValuePercent: Decimal?, isBlend: Bool, blendName: String?) {
        self.name = name
        self.form = form
        self.amount = amount
        self.dailyValuePercent = dailyValuePercent
        self.isBlend = isBlend
        self.blendName = blendName
    }
}

/// Why a label database could not be built, searched or used.
public enum LabelDatabaseError: CairnError, Equatable {
    /// A barcode number that is not 8, 12, 13 or 14 digits.
    case unreadableBarcode
    /// A label record that is not in DSLD's format.
    case notALabel
    /// The file holds no label at all.
    case noLabels
    /// There is no label database on this computer yet.
    case notImported
    /// No label has this id.
    case unknownLabel
    /// The label database file is damaged or not one Cairn wrote.
    case damaged

    public var userMessage: String {
        switch self {
        case .unreadableBarcode: return "A barcode number has 8, 12, 13 or 14 digits (spaces and hyphens are fine)."
        case .notALabel: return "This file does not hold labels in the format of the NIH Dietary Supplement Label Database (DSLD)."
        case .noLabels: return "This file holds no labels. Choose DSLD's bulk JSON download (a zip, or the JSON file in it)."
        case .notImported:
            return
                "There is no label database on this computer yet. Download DSLD's bulk JSON file, then import it in Settings or with cairn regimen labels import FILE."
        case .unknownLabel: return "The label database has no label with this number."
        case .damaged: return "The label database file cannot be read. Import DSLD's file again to rebuild it."
        }
    }

    public var errorKind: ErrorKind {
        switch self {
        case .notImported, .unknownLabel: return .notFound
        case .damaged: return .failure
        default: return .refusedInput
        }
    }
}

/// Reads one label record in the JSON format of the NIH Dietary Supplement Label Database (DSLD, API v9 and its
/// bulk download): `id`, `fullName`, `brandName`, `upcSku`, `servingSizes`, `physicalState`, `ingredientRows`
/// (each with `quantity[]` and its `dailyValueTargetGroup[]`, `forms[]`, and `nestedRows` for a blend's members),
/// `entryDate`/`events`, `offMarket`. A search hit's `_source` wrapper is read through. Fields it does not use are
/// skipped (`JSONDecoder`, into `DSLDJSON`'s few fields, each read as the type DSLD writes it first, so that the
/// common case throws nothing); a number may be written as text and text as a number; a row's unit DSLD marks as
/// not given ("NP") gives no amount. `DSLDLabelReader` reads a file's records with the units it has seen kept.
public enum DSLDLabel {
    /// The record in `json` (one label object's bytes). Throws `LabelDatabaseError.notALabel` for anything else.
    public static func record(json: UnsafeRawBufferPointer) throws -> LabelRecord {
        var reader = DSLDLabelReader()
        return try reader.record(json: json)
    }
}

/// Reads a file's DSLD label records one after another: as `DSLDLabel.record(json:)`, with each unit's text read
/// once (a bulk file writes the same few dozen units millions of times).
public struct DSLDLabelReader {
    private var units: [String: LabelUnitParser.ParsedUnit?] = [:]
    private let decoder = JSONDecoder()

    /// A reader.
    public init() {}

    /// The record in `json` (one label object's bytes). Throws `LabelDatabaseError.notALabel` for anything else.
    public mutating func record(json: UnsafeRawBufferPointer) throws -> LabelRecord {
        guard let base = json.baseAddress, json.count > 0 else { throw LabelDatabaseError.notALabel }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: json.count, deallocator: .none)
        let decoded: DSLDJSON.Label
        do {
            let wrapper = try decoder.decode(DSLDJSON.Wrapper.self, from: data)
            guard let label = wrapper.source ?? wrapper.label else { throw LabelDatabaseError.notALabel }
            decoded = label
        } catch { throw LabelDatabaseError.notALabel }
        return try record(decoded)
    }

    /// The unit written in `text`, read once per text.
    private mutating func unit(_ text: String) -> LabelUnitParser.ParsedUnit? {
        if let known = units[text] { return known }
        let parsed = try? LabelUnitParser.unit(text)
        if units.count < 10_000 { units[text] = parsed }
        return parsed
    }

    mutating func record(_ label: DSLDJSON.Label) throws -> LabelRecord {
        guard let id = label.id?.integer ?? label.dsldId?.integer, id > 0 else { throw LabelDatabaseError.notALabel }
        let name = label.fullName?.text ?? label.productName?.text ?? ""
        guard !name.isEmpty else { throw LabelDatabaseError.notALabel }
        var servingText = ""
        var servingSize: Amount?
        if let first = label.servingSizes?.first, let quantity = (first.minQuantity ?? first.quantity)?.decimal {
            let unit = first.unit?.text ?? ""
            servingText = "\(quantity) \(unit)".trimmingCharacters(in: .whitespaces)
            if let parsed = self.unit(unit), [.count, .mass, .volume].contains(parsed.unit.dimension), quantity > 0 {
                servingSize = try? Amount(quantity * parsed.multiplier, parsed.unit)
            }
        }
        var rows: [LabelRecordRow] = []
        for row in label.ingredientRows ?? [] { append(row, blend: nil, to: &rows) }
        var labelDate = label.entryDate?.text ?? ""
        if labelDate.isEmpty { labelDate = (label.events ?? []).compactMap { $0.date?.text }.min() ?? "" }
        labelDate = String(labelDate.prefix(10))
        return LabelRecord(
            id: id, name: DSLDLabel.clean(name), brand: DSLDLabel.clean(label.brandName?.text ?? ""),
            barcodes: GTIN.all(in: label.upcSku?.text ?? ""), servingText: DSLDLabel.clean(servingText), servingSize: servingSize,
            formText: DSLDLabel.clean(label.physicalState?.text ?? ""), rows: rows, labelDate: labelDate,
            onMarket: (label.offMarket?.integer ?? 0) == 0)
    }

    /// Appends a row and, for a blend, its members.
    private mutating func append(_ row: DSLDJSON.Row, blend: String?, to rows: inout [LabelRecordRow]) {
        guard let name = row.name?.text.map(DSLDLabel.clean), !name.isEmpty else { return }
        let quantities = row.quantity ?? []
        // The first serving's column (DSLD's `servingSizeOrder` 1) when a label prints several.
        let quantity = quantities.first { ($0.servingSizeOrder?.integer ?? 1) == 1 } ?? quantities.first
        var amount: Amount?
        var percent: Decimal?
        if let quantity {
            let unit = quantity.unit?.text ?? ""
            if let value = quantity.quantity?.decimal, value > 0, unit != "NP", unit != "np", let parsed = self.unit(unit) {
                amount = try? Amount(value * parsed.multiplier, parsed.unit)
            }
            if let value = (quantity.dailyValueTargetGroup ?? []).lazy.compactMap({ $0.percent?.decimal }).first, value >= 0 {
                percent = value
            }
        }
        let forms = (row.forms ?? []).compactMap { $0.name?.text.map(DSLDLabel.clean) }.filter { !$0.isEmpty }
        let members = row.nestedRows ?? []
        rows.append(
            LabelRecordRow(
                name: name, form: forms.isEmpty ? nil : forms.joined(separator: ", "), amount: amount,
                dailyValuePercent: percent, isBlend: !members.isEmpty, blendName: blend))
        for member in members { append(member, blend: name, to: &rows) }
    }
}

extension DSLDLabel {
    /// Text as a name is kept: control and zero-width characters as spaces, runs of white space as one space, at
    /// most 200 characters (DSLD's names are plain, but the file comes from outside).
    static func clean(_ text: String) -> String {
        // The common case, plain printable ASCII with single spaces, is kept as it is.
        if text.utf8.count <= 200, text.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7F || $0 == 0x20 }), !text.contains("  "), text.first != " ",
            text.last != " "
        {
            return text
        }
        let spaced = text.unicodeScalars.map { scalar -> Character in
            CharacterSet.controlCharacters.contains(scalar) || scalar == "\u{200B}" || scalar == "\u{FEFF}" ? " " : Character(scalar)
        }
        let joined = String(spaced).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return String(joined.prefix(200))
    }
}

/// The few fields of DSLD's label JSON the label database keeps, decoded leniently: every field optional, numbers
/// and text accepted either way.
enum DSLDJSON {
    struct Wrapper: Decodable {
        let source: Label?
        let label: Label?

        private enum Keys: String, CodingKey { case source = "_source" }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            source = try container.decodeIfPresent(Label.self, forKey: .source)
            label = source == nil ? try Label(from: decoder) : nil
        }
    }

    struct Label: Decodable {
        let id: Scalar?
        let dsldId: Scalar?
        let fullName: Text?
        let productName: Text?
        let brandName: Text?
        let upcSku: Text?
        let servingSizes: [Serving]?
        let physicalState: PhysicalState?
        let ingredientRows: [Row]?
        let entryDate: Text?
        let events: [Event]?
        let offMarket: Scalar?
    }

    struct Serving: Decodable {
        let minQuantity: Scalar?
        let quantity: Scalar?
        let unit: Text?
    }

    /// `{"langualCodeDescription": "Capsule"}`, or the text itself.
    struct PhysicalState: Decodable {
        let text: String?

        private enum Keys: String, CodingKey { case langualCodeDescription }

        init(from decoder: Decoder) throws {
            if let container = try? decoder.container(keyedBy: Keys.self) {
                text = try container.decodeIfPresent(Text.self, forKey: .langualCodeDescription)?.text
            } else {
                text = try Text(from: decoder).text
            }
        }
    }

    struct Row: Decodable {
        let name: Text?
        let quantity: [Quantity]?
        let forms: [Form]?
        let nestedRows: [Row]?
    }

    struct Quantity: Decodable {
        let quantity: Scalar?
        let unit: Text?
        let servingSizeOrder: Scalar?
        let dailyValueTargetGroup: [DailyValue]?
    }

    /// A field DSLD writes as text (a number is accepted too).
    struct Text: Decodable {
        let value: Scalar

        init(from decoder: Decoder) throws { value = Scalar.read(try decoder.singleValueContainer(), textFirst: true) }

        var text: String? { value.text }
        var integer: Int? { value.integer }
        var decimal: Decimal? { value.decimal }
    }

    struct DailyValue: Decodable { let percent: Scalar? }
    struct Form: Decodable { let name: Text? }
    struct Event: Decodable { let date: Text? }

    /// A JSON string, number, boolean or null, read as text or a number as needed. A field DSLD writes as text
    /// is tried as text first (`Text`), one it writes as a number as a number first, so a failed try (a thrown
    /// error) is left for unusual records. With units parsed once per file, the import's CPU fell from 38.5 s to
    /// 27.1 s for 215,000 records (`cairn-bench label-database`).
    enum Scalar: Decodable {
        case text(String)
        case number(Double)
        case none

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            self = Self.read(container, textFirst: false)
        }

        static func read(_ container: SingleValueDecodingContainer, textFirst: Bool) -> Scalar {
            if container.decodeNil() { return .none }
            if textFirst, let text = try? container.decode(String.self) { return .text(text) }
            if let number = try? container.decode(Double.self) { return .number(number) }
            if !textFirst, let text = try? container.decode(String.self) { return .text(text) }
            if let flag = try? container.decode(Bool.self) { return .number(flag ? 1 : 0) }
            return .none
        }

        var text: String? {
            switch self {
            case .text(let s): return s
            case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .none: return nil
            }
        }

        var integer: Int? {
            switch self {
            case .number(let n): return n.isFinite && n == n.rounded() && abs(n) < 1e15 ? Int(n) : nil
            case .text(let s): return Int(s.trimmingCharacters(in: .whitespaces))
            case .none: return nil
            }
        }

        var decimal: Decimal? {
            switch self {
            case .number(let n): return n.isFinite ? Decimal(string: String(n), locale: Locale(identifier: "en_US_POSIX")) : nil
            case .text(let s): return try? LabelUnitParser.number(s)
            case .none: return nil
            }
        }
    }
}

/// A label found in the label database: enough to choose it from a list.
public struct LabelSummary: Hashable, Sendable, Encodable {
    /// DSLD's label id.
    public let id: Int
    /// The product's name.
    public let name: String
    /// The brand.
    public let brand: String
    /// The serving size as printed.
    public let servingText: String
    /// The form as DSLD names it.
    public let formText: String
    /// The date of the label, "YYYY-MM-DD" (empty when unknown).
    public let labelDate: String
    /// False for a product DSLD lists as off the market.
    public let onMarket: Bool

    /// A summary.
    public init(id: Int, name: String, brand: String, servingText: String, formText: String, labelDate: String, onMarket: Bool) {
        self.id = id
        self.name = name
        self.brand = brand
        self.servingText = servingText
        self.formText = formText
        self.labelDate = labelDate
        self.onMarket = onMarket
    }
}
