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
/// skipped; a row's unit DSLD marks as not given ("NP") gives no amount.
public enum DSLDLabel {
    /// The record in `json` (one label object's bytes). Throws `LabelDatabaseError.notALabel` for anything else.
    public static func record(json: UnsafeRawBufferPointer) throws -> LabelRecord {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(
                with: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: json.baseAddress!), count: json.count, deallocator: .none))
        } catch { throw LabelDatabaseError.notALabel }
        guard var label = object as? [String: Any] else { throw LabelDatabaseError.notALabel }
        if let source = label["_source"] as? [String: Any] { label = source }
        return try record(label)
    }

    /// The record of a decoded label object.
    public static func record(_ label: [String: Any]) throws -> LabelRecord {
        guard let id = integer(label["id"]) ?? integer(label["dsldId"]), id > 0 else { throw LabelDatabaseError.notALabel }
        let name = text(label["fullName"]) ?? text(label["productName"]) ?? ""
        guard !name.isEmpty else { throw LabelDatabaseError.notALabel }
        let brand = text(label["brandName"]) ?? ""
        let barcodes = GTIN.all(in: text(label["upcSku"]) ?? "")
        var servingText = ""
        var servingSize: Amount?
        if let sizes = label["servingSizes"] as? [[String: Any]], let first = sizes.first {
            let quantity = decimal(first["minQuantity"]) ?? decimal(first["quantity"])
            let unit = text(first["unit"]) ?? ""
            if let quantity {
                servingText = "\(quantity) \(unit)".trimmingCharacters(in: .whitespaces)
                if let parsed = try? LabelUnitParser.unit(unit), [.count, .mass, .volume].contains(parsed.unit.dimension), quantity > 0 {
                    servingSize = try? Amount(quantity * parsed.multiplier, parsed.unit)
                }
            }
        }
        let formText: String
        if let state = label["physicalState"] as? [String: Any] {
            formText = text(state["langualCodeDescription"]) ?? ""
        } else {
            formText = text(label["physicalState"]) ?? ""
        }
        var rows: [LabelRecordRow] = []
        for row in label["ingredientRows"] as? [[String: Any]] ?? [] { append(row, blend: nil, to: &rows) }
        var labelDate = text(label["entryDate"]) ?? ""
        if labelDate.isEmpty, let events = label["events"] as? [[String: Any]] {
            labelDate = events.compactMap { text($0["date"]) }.min() ?? ""
        }
        labelDate = String(labelDate.prefix(10))
        let offMarket = integer(label["offMarket"]) ?? 0
        return LabelRecord(
            id: id, name: clean(name), brand: clean(brand), barcodes: barcodes, servingText: clean(servingText),
            servingSize: servingSize, formText: clean(formText), rows: rows, labelDate: labelDate, onMarket: offMarket == 0)
    }

    /// Appends a row and, for a blend, its members.
    private static func append(_ row: [String: Any], blend: String?, to rows: inout [LabelRecordRow]) {
        guard let name = text(row["name"]).map(clean), !name.isEmpty else { return }
        let members = row["nestedRows"] as? [[String: Any]] ?? []
        let quantities = row["quantity"] as? [[String: Any]] ?? []
        // The first serving's column (DSLD's `servingSizeOrder` 1) when a label prints several.
        let quantity = quantities.first { integer($0["servingSizeOrder"]) ?? 1 == 1 } ?? quantities.first
        var amount: Amount?
        var percent: Decimal?
        if let quantity {
            let unit = text(quantity["unit"]) ?? ""
            if let value = decimal(quantity["quantity"]), value > 0, unit.uppercased() != "NP",
                let parsed = try? LabelUnitParser.unit(unit)
            {
                amount = try? Amount(value * parsed.multiplier, parsed.unit)
            }
            if let groups = quantity["dailyValueTargetGroup"] as? [[String: Any]],
                let value = groups.lazy.compactMap({ decimal($0["percent"]) }).first,
                value >= 0
            {
                percent = value
            }
        }
        let forms = (row["forms"] as? [[String: Any]] ?? []).compactMap { text($0["name"]).map(clean) }.filter { !$0.isEmpty }
        rows.append(
            LabelRecordRow(
                name: name, form: forms.isEmpty ? nil : forms.joined(separator: ", "), amount: amount,
                dailyValuePercent: percent, isBlend: !members.isEmpty, blendName: blend))
        for member in members { append(member, blend: name, to: &rows) }
    }

    private static func text(_ value: Any?) -> String? {
        switch value {
        case let s as String: return s
        case let n as NSNumber: return n.stringValue
        default: return nil
        }
    }

    private static func integer(_ value: Any?) -> Int? {
        switch value {
        case let n as NSNumber: return n.intValue
        case let s as String: return Int(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    private static func decimal(_ value: Any?) -> Decimal? {
        switch value {
        case let n as NSNumber:
            let d = n.doubleValue
            guard d.isFinite else { return nil }
            return Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX"))
        case let s as String: return try? LabelUnitParser.number(s)
        default: return nil
        }
    }

    /// Text as a name is kept: control and zero-width characters as spaces, runs of white space as one space, at most 200
    /// characters (DSLD's names are plain, but the file comes from outside).
    static func clean(_ text: String) -> String {
        let spaced = text.unicodeScalars.map { scalar -> Character in
            CharacterSet.controlCharacters.contains(scalar) || scalar == "\u{200B}" || scalar == "\u{FEFF}" ? " " : Character(scalar)
        }
        let joined = String(spaced).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return String(joined.prefix(200))
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
