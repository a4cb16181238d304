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
    /// Dates outside `ImportDates` (before 1900-01-01, after tomorrow in `personZone`) and wall-clock times a
    /// daylight-saving change skipped in the line's zone are bad lines, never moved.
    static func forEachRow(
        _ data: Data, products: [ProductID: [StoredProduct]], now: Date, personZone: TimeZone,
        accept: (Row) throws -> Void
    ) throws -> [LineProblem] {
        var header: CSV.Record?
        var byName: [String: [ProductID]] = [:]
        for (id, revisions) in products {
            byName[revisions.last!.product.name.trimmingCharacters(in: .whitespaces).lowercased(), default: []].append(id)
        }
        var problems: [LineProblem] = []
        // Per file, not per line: the zone of each zone name, the product of each reference, the servings of
        // each (amount, unit, serving size).
        var zones: [String: TimeZone] = [:]
        var references: [String: Result<[StoredProduct], LineProblemReasonBox>] = [:]
        var servingsOf: [ServingsKey: Result<Decimal, LineProblemReasonBox>] = [:]
        var at: [Int?] = []
        // Once per file: the days an import accepts (`ImportDates`; "tomorrow" asks the calendar).
        let acceptedDays = ImportDates.earliest...ImportDates.latest(now: now, zone: personZone)
        try CSV.forEachRecord(in: data) { record in
            guard let header else {
                let found = try CSVColumns(header: record.fields, columns: columns)
                at = columns.map { found[$0.name] }
                header = record
                return
            }
            func fail(_ reason: LineProblemReason) { problems.append(LineProblem(line: record.line, reason: reason)) }
            guard record.fields.count == header.fields.count else {
                fail(.wrongFieldCount(expected: header.fields.count, found: record.fields.count))
                return
            }
            // Columns by their place in `columns`: date, time, time zone, product, amount, unit, status.
            func field(_ column: Int) -> String { at[column].map { trimmed(record.fields[$0]) } ?? "" }
            guard let day = LocalDay(parsing: field(0)) else {
                fail(.badDate)
                return
            }
            guard acceptedDays.contains(day) else {
                fail(.dateOutOfRange)
                return
            }
            guard let (slot, seconds) = time(field(1)) else {
                fail(.badTime)
                return
            }
            let zoneName = field(2)
            let zone: TimeZone
            if let known = zones[zoneName] {
                zone = known
            } else {
                guard knownZones.contains(zoneName), let found = TimeZone(identifier: zoneName) else {
                    fail(.badTimeZone)
                    return
                }
                zones[zoneName] = found
                zone = found
            }
            guard let instant = WallClock.existingInstant(of: day, at: slot, in: zone) else {
                fail(.timeDoesNotExist)
                return
            }
            let takenAt = instant.addingTimeInterval(Double(seconds))
            guard takenAt <= now else {
                fail(.timeInFuture)
                return
            }
            guard let status = IntakeStatus(rawValue: field(6).lowercased()), status.isLoggable else {
                fail(.badStatus)
                return
            }
            let reference = field(3)
            let resolved =
                references[reference]
                ?? {
                    let candidates = products[ProductID(reference)].map { [$0] } ?? (byName[reference.lowercased()] ?? []).map { products[$0]! }
                    let result: Result<[StoredProduct], LineProblemReasonBox> =
                        candidates.isEmpty
                        ? .failure(.init(.unknownProduct))
                        : candidates.count > 1 ? .failure(.init(.ambiguousProduct)) : .success(candidates[0])
                    references[reference] = result
                    return result
                }()
            let revisions: [StoredProduct]
            switch resolved {
            case .success(let found): revisions = found
            case .failure(let box):
                fail(box.reason)
                return
            }
            let inForce = revisions.last { $0.recordedAt <= takenAt } ?? revisions[0]
            let servings: Decimal
            let servingsKey = ServingsKey(amount: field(4), unit: field(5), serving: inForce.product.servingSize)
            let counted =
                servingsOf[servingsKey]
                ?? {
                    let result = self.servings(amount: servingsKey.amount, unit: servingsKey.unit, serving: servingsKey.serving)
                    servingsOf[servingsKey] = result
                    return result
                }()
            switch counted {
            case .success(let value): servings = value
            case .failure(let box):
                fail(box.reason)
                return
            }
            if problems.isEmpty {
                try accept(Row(line: record.line, product: inForce, takenAt: takenAt, timeZone: zone, status: status, servings: servings))
            }
        }
        guard header != nil else { throw CSVError.empty }
        return problems
    }

    /// What the servings of a line depend on.
    struct ServingsKey: Hashable {
        let amount: String
        let unit: String
        let serving: Amount
    }

    /// `text` without the spaces and tabs around it (most fields have none: then `text` itself, no copy).
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        if !isBlank(first) && !isBlank(last) && first < 0x80 && last < 0x80 { return text }
        return text.trimmingCharacters(in: .whitespaces)
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
        var numberText = amount
        var unitText = unit
        if unitText.isEmpty, let split = amount.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }), split != amount.startIndex {
            numberText = String(amount[..<split]).trimmingCharacters(in: .whitespaces)
            unitText = String(amount[split...]).trimmingCharacters(in: .whitespaces)
        }
        if numberText.isEmpty && unitText.isEmpty { return .success(1) }
        guard let number = PlainDecimal(numberText)?.value, number > 0 else {
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

/// A good line of an intake history: what finds the record an earlier import saved for it, and the record it
/// saves otherwise.
private struct ImportedLine: Sendable {
    let line: Int
    let productID: ProductID
    let status: IntakeStatus
    let servings: Decimal
    /// The instant as stored.
    let takenAt: String
    /// The line's number among the file's lines of its product and instant, from 1.
    let ordinal: Int
    let record: StoredIntakeValues
}

/// A `LineProblemReason` as a `Result` failure.
struct LineProblemReasonBox: Error {
    let reason: LineProblemReason
    init(_ reason: LineProblemReason) { self.reason = reason }
}

extension RegimenService {
    /// Imports an intake history CSV (see `IntakeHistoryCSV`) through the ledger's rules, in batches
    /// (`BatchedImport`: other commands and pages read and write between them):
    ///
    /// - Records are appended as unscheduled ("extra") records with their own instant and zone; the other
    ///   app's schedule is not known, and Cairn's schedules and Today are not touched.
    /// - Idempotent: a line is identified by (product, instant, n), n counting the lines of that product and
    ///   instant in the file. Importing the same file again adds nothing; a newer export adds only its new
    ///   lines; a line whose status or servings differ from what an earlier import saved appends a correction
    ///   that supersedes it (both stay in the history).
    /// - All-or-nothing: a file with any bad line saves nothing and lists every bad line
    ///   (`ImportLinesError.badLines`); a file that is not CSV or has the wrong columns throws `CSVError`. The
    ///   import's records belong to its run, which the ledger reads only once it is finished; a failed run is
    ///   removed, and one cut off by a crash is removed the next time a process that may write opens the vault.
    /// - Past doses do not count down the supply on hand (the count set in Cairn is the count now).
    /// - Memory stays flat in the size of the file: lines are read and saved a few hundred at a time (read and
    ///   checked on a second thread while this one saves; `Handoff`). With
    ///   `keepingLines` false the report holds only what happened to each line, not the saved records (for a
    ///   caller that prints only the summary).
    /// `sourceName` is the file's name ("history.csv"), kept with each record so the ledger reads "imported from
    /// history.csv".
    @discardableResult
    public func importIntakeHistory(_ data: Data, sourceName: String = "", keepingLines: Bool = true) throws -> IntakeImportReport {
        let source = String(sourceName.split(separator: "/").last ?? "").filter { !$0.isNewline }
        let now = clock.now()
        let zone = clock.timeZone
        let products: [ProductID: [StoredProduct]] = try database.read { db in
            let store = RegimenStore(db)
            var products: [ProductID: [StoredProduct]] = [:]
            for id in try store.productIDs() { products[id] = try store.productRevisions(of: id) }
            return products
        }
        // The import's records get identifiers in increasing order (`Identifier.ordered`), so its inserts append
        // to the id indexes instead of touching a random page each: every batch then rewrites few pages. Each
        // line gets one (a line that adds nothing leaves a gap).
        let seed = UInt64.random(in: 0..<(1 << 61))
        var lines: [IntakeImportReport.Line] = []
        var results: [ImportLineResult] = []
        return try Self.intakeImport(database).run(
            begin: { db in
                [try RegimenStore(db).beginImportRun(at: now)]
            },
            body: { marker, batch in
                let run = marker[0]
                // Reading and checking the file, and working out each record's stored values, run on a thread of their
                // own while this one writes (`Handoff`).
                let problems = try Handoff.run(
                    produce: { emit in
                        // A line's number among the lines of its product and instant (compact: a million lines stay a few MB).
                        struct Moment: Hashable {
                            let product: Int
                            let seconds: Int64
                        }
                        var productIndex: [ProductID: Int] = [:]
                        var ordinals: [Moment: Int32] = [:]
                        var made = 0
                        return try IntakeHistoryCSV.forEachRow(data, products: products, now: now, personZone: zone) { row in
                            let productID = row.product.product.id
                            let moment = Moment(
                                product: productIndex[productID]
                                    ?? {
                                        productIndex[productID] = productIndex.count
                                        return productIndex.count - 1
                                    }(), seconds: Int64(row.takenAt.timeIntervalSince1970.rounded(.down)))
                            ordinals[moment, default: 0] += 1
                            made += 1
                            let record = NewIntakeRecord(
                                id: .ordered(start: now, seed: seed, index: made), kind: .extra, status: row.status,
                                productID: productID, productRevisionID: row.product.revisionID,
                                servings: row.servings, takenAt: row.takenAt, timeZone: row.timeZone,
                                recordedAt: now, importedFrom: source, importRun: run)
                            try emit(
                                ImportedLine(
                                    line: row.line, productID: productID, status: row.status, servings: row.servings,
                                    takenAt: Timestamp.string(from: row.takenAt), ordinal: Int(ordinals[moment]!),
                                    record: record.storedValues))
                        }
                    },
                    consume: { line in
                        try batch.write { db in
                            let store = RegimenStore(db)
                            let result: ImportLineResult
                            let record: IntakeRecordID
                            if let original = try store.importedRecord(product: line.productID, takenAt: line.takenAt, ordinal: line.ordinal) {
                                var headID = original
                                while let next = try store.successor(of: headID) { headID = next }
                                let head = try store.entry(headID, includingUnfinishedImports: true)!
                                if head.status == line.status && head.servings == line.servings {
                                    (result, record) = (.unchanged, head.id)
                                } else {
                                    try store.insert(line.record, supersedes: head.id)
                                    (result, record) = (.replaced, line.record.id)
                                }
                            } else {
                                try store.insert(line.record, supersedes: nil)
                                (result, record) = (.added, line.record.id)
                            }
                            results.append(result)
                            if keepingLines {
                                lines.append(
                                    IntakeImportReport.Line(
                                        line: line.line, entry: try store.entry(record, includingUnfinishedImports: true)!,
                                        result: result))
                            }
                        }
                    })
                guard problems.isEmpty else { throw ImportLinesError.badLines(problems) }
            },
            finish: { marker, _, db in
                try RegimenStore(db).finishImportRun(marker[0], at: clock.now())
                if results.contains(where: { $0 != .unchanged }) { try InsightInputs.ledgerChanged(db, at: now) }
                return IntakeImportReport(lineResults: results, lines: lines)
            })
    }

    /// How an intake import writes: in batches under one `regimen_intake_import_runs` row (the marker holds its
    /// id). A rollback removes an unfinished run's records and the run (and key rows older builds wrote for it).
    static func intakeImport(_ database: Database) -> BatchedImport {
        BatchedImport(database: database, kind: "intake") { marker, db in
            try RegimenStore(db).removeUnfinishedImportRun(marker[0])
        }
    }

    /// Removes every intake import cut off by a crash (see `BatchedImport`); returns how many.
    @discardableResult
    static func removeInterruptedIntakeImports(_ database: Database) throws -> Int {
        try intakeImport(database).removeInterrupted(fieldCount: 1)
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
