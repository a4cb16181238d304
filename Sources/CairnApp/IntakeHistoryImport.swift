import CairnCore
import Foundation
import Outcomes
import Regimen
import Storage

/// The intake history CSV: past doses, for people arriving from another app's export.
///
/// Columns (header required, matched ignoring case, spaces, hyphens and underscores; any order):
/// `date` (YYYY-MM-DD), `time` (HH:MM or HH:MM:SS, wall-clock time in the zone), `time zone` (an IANA name such
/// as Europe/Berlin, or UTC), `product` (a product's exact name ignoring case, or its id), `amount`, an
/// optional `unit`, and `status` (taken or skipped).
///
/// Amount and unit become servings of the product's label revision in force at that moment (the first
/// revision for moments before the product was added):
/// - no unit, or "serving(s)": the amount is the number of servings;
/// - a count word (capsules, tablets, softgels, drops, ...): units, divided by the units per serving (2
///   capsules of a product whose serving is 2 capsules = 1 serving);
/// - a mass or volume (g, mg, mL, ...): converted exactly to the serving's unit and divided by the serving
///   (10 g of a powder whose serving is 5 g = 2 servings); a unit of another kind than the serving's is refused;
/// - an empty amount and unit mean one serving.
/// The amount can also carry its unit ("2 capsules") when there is no unit column. Servings must be above
/// zero and at most 100.
enum IntakeHistoryCSV {
    static let columns: [(name: String, keys: Set<String>, required: Bool)] = [
        ("date", ["date", "day", "localdate"], true),
        ("time", ["time", "localtime", "timeofday"], true),
        ("time zone", ["timezone", "zone", "tz", "ianatimezone"], true),
        ("product", ["product", "productname", "productid"], true),
        ("amount", ["amount", "dose", "quantity"], true),
        ("unit", ["unit", "units", "amountunit"], false),
        ("status", ["status", "state"], true),
    ]

    /// One readable line.
    struct Row {
        let line: Int
        let product: StoredProduct
        let takenAt: Date
        let timeZone: TimeZone
        let status: IntakeStatus
        let servings: Decimal
    }

    /// Zone names Foundation knows, plus UTC and GMT; abbreviations such as "EST" are refused.
    static let knownZones: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers).union(["UTC", "GMT"])

    /// Reads the file one record at a time and calls `accept` with each good line, in file order; returns every
    /// bad line. Once a line is bad, `accept` is no longer called (the import will save nothing), but every
    /// later line is still checked so all problems are listed. Memory stays flat in the number of lines.
    static func forEachRow(_ data: Data, products: [ProductID: [StoredProduct]], now: Date,
                           accept: (Row) throws -> Void) throws -> [LineProblem] {
        var header: CSV.Record?
        var positions: CSVColumns?
        var byName: [String: [ProductID]] = [:]
        for (id, revisions) in products {
            byName[revisions.last!.product.name.trimmingCharacters(in: .whitespaces).lowercased(), default: []].append(id)
        }
        var problems: [LineProblem] = []
        var zones: [String: TimeZone] = [:]
        try CSV.forEachRecord(in: data) { record in
            guard let header, let positions else {
                positions = try CSVColumns(header: record.fields, columns: columns)
                header = record
                return
            }
            func fail(_ reason: LineProblemReason) { problems.append(LineProblem(line: record.line, reason: reason)) }
            guard record.fields.count == header.fields.count else {
                fail(.wrongFieldCount(expected: header.fields.count, found: record.fields.count)); return
            }
            let field = { (name: String) -> String in
                positions[name].map { record.fields[$0].trimmingCharacters(in: .whitespaces) } ?? ""
            }
            guard let day = LocalDay(parsing: field("date")) else { fail(.badDate); return }
            guard let (slot, seconds) = time(field("time")) else { fail(.badTime); return }
            let zoneName = field("time zone")
            guard knownZones.contains(zoneName), let zone = zones[zoneName] ?? TimeZone(identifier: zoneName) else { fail(.badTimeZone); return }
            zones[zoneName] = zone
            let takenAt = WallClock.instant(of: day, at: slot, in: zone).addingTimeInterval(Double(seconds))
            guard takenAt <= now else { fail(.timeInFuture); return }
            guard let status = IntakeStatus(rawValue: field("status").lowercased()), status.isLoggable else { fail(.badStatus); return }
            let reference = field("product")
            let candidates = products[ProductID(reference)].map { [$0] } ?? (byName[reference.lowercased()] ?? []).map { products[$0]! }
            guard let revisions = candidates.first else { fail(.unknownProduct); return }
            guard candidates.count == 1 else { fail(.ambiguousProduct); return }
            let inForce = revisions.last { $0.recordedAt <= takenAt } ?? revisions[0]
            let servings: Decimal
            switch self.servings(amount: field("amount"), unit: field("unit"), serving: inForce.product.servingSize) {
            case .success(let value): servings = value
            case .failure(let box): fail(box.reason); return
            }
            if problems.isEmpty {
                try accept(Row(line: record.line, product: inForce, takenAt: takenAt, timeZone: zone, status: status, servings: servings))
            }
        }
        guard header != nil else { throw CSVError.empty }
        return problems
    }

    /// "08:05" or "08:05:30": the slot and extra seconds.
    static func time(_ text: String) -> (TimeSlot, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let slot = TimeSlot(parsing: "\(parts[0]):\(parts[1])") else { return nil }
        guard parts.count == 3 else { return (slot, 0) }
        guard parts[2].count == 2, parts[2].allSatisfy({ $0.isASCII && $0.isNumber }), let s = Int(parts[2]), s < 60 else { return nil }
        return (slot, s)
    }

    /// Servings for an amount and unit under the rule above.
    static func servings(amount: String, unit: String, serving: Amount) -> Result<Decimal, LineProblemReasonBox> {
        var numberText = amount, unitText = unit
        if unitText.isEmpty, let split = amount.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }), split != amount.startIndex {
            numberText = String(amount[..<split]).trimmingCharacters(in: .whitespaces)
            unitText = String(amount[split...]).trimmingCharacters(in: .whitespaces)
        }
        if numberText.isEmpty && unitText.isEmpty { return .success(1) }
        guard numberText.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), numberText.contains(where: \.isNumber),
              let number = Decimal(string: numberText, locale: Locale(identifier: "en_US_POSIX")), number > 0 else {
            return .failure(.init(.impossibleAmount))
        }
        var result: Decimal
        let key = unitText.lowercased()
        if key.isEmpty || key == "serving" || key == "servings" {
            result = number
        } else {
            guard let parsed = try? LabelUnitParser.unit(unitText) else { return .failure(.init(.unknownUnit)) }
            guard parsed.unit.dimension == serving.unit.dimension, serving.value > 0 else {
                return .failure(.init(.unitDoesNotMatchServing))
            }
            guard let given = try? Amount(number * parsed.multiplier, parsed.unit) else { return .failure(.init(.impossibleAmount)) }
            guard let converted = try? given.converted(to: serving.unit) else { return .failure(.init(.unitDoesNotMatchServing)) }
            result = converted.value / serving.value
        }
        guard result > 0, result <= SchedulePlan.maximumServings else { return .failure(.init(.impossibleAmount)) }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &result, 6, .plain)
        return .success(rounded)
    }
}

/// A `LineProblemReason` as a `Result` failure.
struct LineProblemReasonBox: Error {
    let reason: LineProblemReason
    init(_ reason: LineProblemReason) { self.reason = reason }
}

extension RegimenService {
    /// Imports an intake history CSV (see `IntakeHistoryCSV`) through the ledger's rules, in one transaction:
    ///
    /// - Records are appended as unscheduled ("extra") records with their own instant and zone; the other
    ///   app's schedule is not known, and Cairn's schedules and Today are not touched.
    /// - Idempotent: a line is identified by (product, instant, n), n counting the lines of that product and
    ///   instant in the file. Importing the same file again adds nothing; a newer export adds only its new
    ///   lines; a line whose status or servings differ from what an earlier import saved appends a correction
    ///   that supersedes it (both stay in the history).
    /// - All-or-nothing: a file with any bad line saves nothing and lists every bad line
    ///   (`ImportLinesError.badLines`); a file that is not CSV or has the wrong columns throws `CSVError`.
    /// - Past doses do not count down the supply on hand (the count set in Cairn is the count now).
    /// - Memory stays flat in the size of the file: lines are read and saved one at a time (inside the one
    ///   transaction). With `keepingLines` false the report holds only what happened to each line, not the
    ///   saved records (for a caller that prints only the summary).
    /// `sourceName` is the file's name ("history.csv"), kept with each record so the ledger reads "imported from
    /// history.csv".
    @discardableResult
    public func importIntakeHistory(_ data: Data, sourceName: String = "", keepingLines: Bool = true) throws -> IntakeImportReport {
        let source = String(sourceName.split(separator: "/").last ?? "").filter { !$0.isNewline }
        let now = clock.now()
        return try database.write { db in
            var products: [ProductID: [StoredProduct]] = [:]
            for id in try db.query("SELECT id FROM regimen_products").map({ ProductID(try $0.get("id", as: String.self)) }) {
                products[id] = try db.query("SELECT * FROM regimen_product_revisions WHERE product_id = ? ORDER BY number",
                                            id.rawValue).map { try productRevision(from: $0, db) }
            }
            // The n of a line's key, per product and instant (a compact key: a million lines stay a few MB).
            struct Moment: Hashable { let product: Int; let seconds: Int64 }
            var productIndex: [ProductID: Int] = [:]
            var ordinals: [Moment: Int32] = [:]
            var lines: [IntakeImportReport.Line] = []
            var results: [ImportLineResult] = []
            let problems = try IntakeHistoryCSV.forEachRow(data, products: products, now: now) { row in
                let productID = row.product.product.id
                let moment = Moment(product: productIndex[productID] ?? {
                    productIndex[productID] = productIndex.count
                    return productIndex.count - 1
                }(), seconds: Int64(row.takenAt.timeIntervalSince1970.rounded(.down)))
                ordinals[moment, default: 0] += 1
                let key = "\(productID.rawValue)|\(Timestamp.string(from: row.takenAt))|\(ordinals[moment]!)"
                let result: ImportLineResult
                let record: IntakeRecordID
                if let original: String = try db.scalar("SELECT intake_id FROM regimen_intake_imports WHERE import_key = ?", key) {
                    var headID = original
                    while let next: String = try db.scalar("SELECT id FROM regimen_intake WHERE supersedes = ?", headID) { headID = next }
                    let head = try entry(IntakeRecordID(headID), db)!
                    if head.status == row.status && head.servings == row.servings {
                        (result, record) = (.unchanged, head.id)
                    } else {
                        (result, record) = (.replaced, try insertImported(row, supersedes: head.id, source: source, at: now, db))
                    }
                } else {
                    let id = try insertImported(row, supersedes: nil, source: source, at: now, db)
                    try db.execute("INSERT INTO regimen_intake_imports (intake_id, import_key) VALUES (?, ?)", id.rawValue, key)
                    (result, record) = (.added, id)
                }
                results.append(result)
                if keepingLines { lines.append(IntakeImportReport.Line(line: row.line, entry: try entry(record, db)!, result: result)) }
            }
            guard problems.isEmpty else { throw ImportLinesError.badLines(problems) }
            if lines.contains(where: { $0.result != .unchanged }) { try InsightInputs.ledgerChanged(db, at: now) }
            return IntakeImportReport(lineResults: results, lines: lines)
        }
    }

    private func insertImported(_ row: IntakeHistoryCSV.Row, supersedes: IntakeRecordID?, source: String, at now: Date,
                                _ db: Connection) throws -> IntakeRecordID {
        let id = IntakeRecordID.random()
        try db.execute("""
            INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes, imported_from)
            VALUES (?, 'extra', ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, ?, ?, ?)
            """, id.rawValue, row.status.rawValue, row.product.product.id.rawValue, row.product.revisionID.rawValue,
            "\(row.servings)", Timestamp.string(from: row.takenAt), row.timeZone.identifier,
            LocalDay(row.takenAt, in: row.timeZone).description, Timestamp.string(from: now), supersedes?.rawValue, source)
        return id
    }
}

/// What an intake history import did, line by line.
public struct IntakeImportReport: LineImportReport, Hashable, Sendable {
    /// One line of the file.
    public struct Line: Hashable, Sendable {
        /// The file line.
        public let line: Int
        /// The record now in force for this line (new, or the one saved before).
        public let entry: LedgerEntry
        /// What happened.
        public let result: ImportLineResult
    }

    /// What happened to each data line, in file order.
    public let lineResults: [ImportLineResult]
    /// Every data line with its record, in file order; empty when the import was asked not to keep them.
    public let lines: [Line]
}
