import CairnCore
import Foundation
import Regimen
import Storage

/// The Regimen journal's SQL: products and their label revisions, schedules and their revisions, the intake
/// ledger (with the runs of intake imports) and the supply changes, each row mapped to its record type. A store
/// holds no rule: `RegimenService` decides what may be written and owns the transaction, and the store works on
/// the connection it is handed inside it.
struct RegimenStore {
    let db: Connection

    init(_ db: Connection) { self.db = db }

    // MARK: products

    /// Every product's id.
    func productIDs() throws -> [ProductID] {
        try db.query("SELECT id FROM regimen_products").map { ProductID(try $0.get("id", as: String.self)) }
    }

    /// The ids in `table` (its `id` column) that start with `prefix`.
    func ids(in table: String, startingWith prefix: String) throws -> [String] {
        precondition(["regimen_products", "regimen_schedules", "regimen_intake"].contains(table), "a table with an id column")
        return try db.query("SELECT id FROM \(table) WHERE substr(id, 1, ?) = ? LIMIT 2", prefix.count, prefix).map {
            try $0.get("id", as: String.self)
        }
    }

    /// The products archived now (the newest archive row of each says so).
    func archivedProductIDs() throws -> Set<ProductID> {
        Set(
            try db.query(
                """
                SELECT a.product_id FROM regimen_product_archive a
                WHERE a.seq = (SELECT max(seq) FROM regimen_product_archive b WHERE b.product_id = a.product_id) AND a.archived = 1
                """
            ).map { ProductID(try $0.get(at: 0)) })
    }

    /// When `id` was archived, nil while it is not.
    func archivedAt(_ id: ProductID) throws -> Date? {
        guard
            let row = try db.queryFirst(
                "SELECT archived, recorded_at FROM regimen_product_archive WHERE product_id = ? ORDER BY seq DESC LIMIT 1", id.rawValue),
            try row.get("archived", as: Int.self) == 1
        else { return nil }
        return try row.get("recorded_at", as: Date.self)
    }

    /// Records that `id` was archived (`archived`) or restored.
    func insertArchive(_ id: ProductID, archived: Bool, at now: Date) throws {
        try db.execute(
            "INSERT INTO regimen_product_archive (product_id, archived, recorded_at) VALUES (?, ?, ?)", id.rawValue, archived ? 1 : 0, now)
    }

    /// Saves a product's identity (its revisions carry everything else).
    func insertProduct(_ id: ProductID, at now: Date) throws {
        try db.execute("INSERT INTO regimen_products (id, created_at) VALUES (?, ?)", id.rawValue, now)
    }

    /// The number of a product's newest revision; nil for an unknown product.
    func lastRevisionNumber(of id: ProductID) throws -> Int? {
        try db.scalar("SELECT max(number) FROM regimen_product_revisions WHERE product_id = ?", id.rawValue)
    }

    /// Saves a label revision with its ingredient rows, in the order of the label.
    func insertRevision(_ product: Product, number: Int, at now: Date) throws -> StoredProduct {
        let revisionID = ProductRevisionID.random()
        try db.execute(
            """
            INSERT INTO regimen_product_revisions (id, product_id, number, name, brand, form, serving_value, serving_unit, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, revisionID.rawValue, product.id.rawValue, number, product.name, product.brand, product.form.rawValue,
            product.servingSize.value, product.servingSize.unit.rawValue, now)
        for (position, row) in product.ingredients.enumerated() {
            try db.execute(
                """
                INSERT INTO regimen_product_ingredients (revision_id, position, catalogue_id, name_on_label, amount_value,
                    amount_unit, daily_value_percent, form) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, revisionID.rawValue, position, row.catalogueID, row.nameOnLabel, row.amount?.value,
                row.amount?.unit.rawValue, row.dailyValuePercent, row.form)
        }
        return StoredProduct(product: product, revisionID: revisionID, revisionNumber: number, recordedAt: now)
    }

    /// The product at its newest revision, or nil.
    func latestProduct(_ id: ProductID) throws -> StoredProduct? {
        try db.queryFirst(
            "SELECT * FROM regimen_product_revisions WHERE product_id = ? ORDER BY number DESC LIMIT 1",
            id.rawValue
        ).map(storedProduct(revisionRow:))
    }

    /// One label revision, or nil.
    func productRevision(_ id: ProductRevisionID) throws -> StoredProduct? {
        try db.queryFirst("SELECT * FROM regimen_product_revisions WHERE id = ?", id.rawValue).map(storedProduct(revisionRow:))
    }

    /// Every revision of a product, oldest first; empty for an unknown product.
    func productRevisions(of id: ProductID) throws -> [StoredProduct] {
        try db.query("SELECT * FROM regimen_product_revisions WHERE product_id = ? ORDER BY number", id.rawValue)
            .map(storedProduct(revisionRow:))
    }

    private func storedProduct(revisionRow row: Row) throws -> StoredProduct {
        let revisionID: String = try row.get("id")
        let ingredients = try db.query(
            "SELECT * FROM regimen_product_ingredients WHERE revision_id = ? ORDER BY position",
            revisionID
        ).map(ProductIngredient.init(row:))
        let product = try Product(
            id: ProductID(try row.get("product_id")), name: row.get("name"), brand: row.get("brand"),
            form: row.stored("form"),
            servingSize: Amount(row.get("serving_value", as: Decimal.self), row.stored("serving_unit", as: DoseUnit.self)),
            ingredients: ingredients)
        return StoredProduct(
            product: product, revisionID: ProductRevisionID(revisionID), revisionNumber: try row.get("number"),
            recordedAt: try row.get("recorded_at"))
    }

    // MARK: schedules

    /// Saves a schedule's identity and the product it doses (its revisions carry the plan).
    func insertSchedule(_ id: ScheduleID, productID: ProductID, at now: Date) throws {
        try db.execute(
            "INSERT INTO regimen_schedules (id, product_id, created_at) VALUES (?, ?, ?)", id.rawValue,
            productID.rawValue, now)
    }

    /// Saves a schedule revision. Throws `DatabaseError` with `constraintKind == .unique` when the schedule has a
    /// revision in force from the same day.
    func insert(_ revision: ScheduleRevision) throws {
        let plan = revision.plan
        var kind = "daily"
        var weekdays = 0
        var interval = 1
        switch plan.recurrence {
        case .daily: break
        case .weekdays(let days):
            kind = "weekdays"
            weekdays = days.reduce(0) { $0 | (1 << ($1.rawValue - 1)) }
        case .everyNDays(let n):
            kind = "every"
            interval = n
        case .asNeeded: kind = "as-needed"
        }
        try db.execute(
            """
            INSERT INTO regimen_schedule_revisions (id, schedule_id, number, effective_from, state, servings, times, recurrence,
                weekdays, interval_days, start_day, end_day, recorded_at, time_zone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, revision.id.rawValue, revision.scheduleID.rawValue, revision.number, revision.effectiveFrom,
            revision.state.rawValue, plan.servings, plan.times.map(\.description).joined(separator: ","), kind, weekdays,
            interval, plan.startDay, plan.endDay, revision.recordedAt, plan.zone.identifier)
    }

    /// Every revision of a schedule; nil for an unknown schedule.
    func history(of id: ScheduleID) throws -> ScheduleHistory? {
        let revisions = try db.query("\(Self.revisionSelect) WHERE r.schedule_id = ?", id.rawValue).map(ScheduleRevision.init(row:))
        return revisions.isEmpty ? nil : ScheduleHistory(revisions: revisions)
    }

    /// The history of the schedule `revision` belongs to; nil when no schedule has that revision.
    func history(ofRevision revision: ScheduleRevisionID) throws -> ScheduleHistory? {
        guard
            let schedule: String = try db.scalar(
                "SELECT schedule_id FROM regimen_schedule_revisions WHERE id = ?",
                revision.rawValue)
        else { return nil }
        return try history(of: ScheduleID(schedule))
    }

    /// Every schedule's history, by schedule id.
    func allHistories() throws -> [ScheduleHistory] {
        let revisions = try db.query(Self.revisionSelect).map(ScheduleRevision.init(row:))
        return Dictionary(grouping: revisions, by: \.scheduleID).values.map { ScheduleHistory(revisions: $0) }
            .sorted { $0.revisions[0].scheduleID.rawValue < $1.revisions[0].scheduleID.rawValue }
    }

    /// The latest dose day any record of the schedule names; nil when none is logged.
    func lastLoggedDoseDay(of id: ScheduleID) throws -> LocalDay? {
        try db.scalar(
            """
            SELECT max(i.occurrence_day) FROM regimen_intake i JOIN regimen_schedule_revisions r ON r.id = i.schedule_revision_id
            WHERE r.schedule_id = ?
            """, id.rawValue)
    }

    private static let revisionSelect = """
        SELECT r.*, s.product_id FROM regimen_schedule_revisions r JOIN regimen_schedules s ON s.id = r.schedule_id
        """

    // MARK: ledger

    /// Appends a ledger record. Throws `DatabaseError` with `constraintKind == .unique` when the dose already has a
    /// first record, or `supersedes` is already superseded.
    func insert(_ record: NewIntakeRecord) throws {
        try insert(record.storedValues, supersedes: record.supersedes)
    }

    /// Appends a ledger record whose values were worked out before (`NewIntakeRecord.storedValues`).
    func insert(_ values: StoredIntakeValues, supersedes: IntakeRecordID?) throws {
        try db.execute(
            """
            INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, imported_from, import_run,
                supersedes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, values: supersedes.map { values.superseding($0) } ?? values.values)
    }

    /// One record; `includingUnfinishedImports` for the import that writes it.
    func entry(_ id: IntakeRecordID, includingUnfinishedImports: Bool = false) throws -> LedgerEntry? {
        try db.queryFirst(includingUnfinishedImports ? Self.entryByIDIncludingUnfinished : Self.entryByID, id.rawValue)
            .map(LedgerEntry.init(row:))
    }

    /// The current record (head of its correction chain) of each scheduled dose on `days`.
    func currentRecords(onDays days: [LocalDay]) throws -> [DoseOccurrence: LedgerEntry] {
        var result: [DoseOccurrence: LedgerEntry] = [:]
        for day in days {
            for row in try db.query("\(Self.entrySelect) WHERE i.occurrence_day = ? AND s.id IS NULL", day) {
                let entry = try LedgerEntry(row: row)
                if let occurrence = entry.occurrence { result[occurrence] = entry }
            }
        }
        return result
    }

    /// The current record of one scheduled dose, or nil when it is not logged.
    func currentRecord(for occurrence: DoseOccurrence) throws -> LedgerEntry? {
        try db.queryFirst(
            """
            \(Self.entrySelect) WHERE i.schedule_revision_id = ? AND i.occurrence_day = ? AND i.occurrence_slot = ? AND s.id IS NULL
            """, occurrence.revisionID.rawValue, occurrence.day, occurrence.slot.description
        ).map(LedgerEntry.init(row:))
    }

    /// The extra and as-needed records of a local day still in force and not undone, oldest first.
    func unscheduledEntries(on day: LocalDay) throws -> [LedgerEntry] {
        try db.query(
            """
            \(Self.entrySelect) WHERE i.local_day = ? AND i.kind <> 'scheduled' AND s.id IS NULL AND i.status <> 'undone'
            ORDER BY i.taken_at, i.rowid
            """, day
        ).map(LedgerEntry.init(row:))
    }

    /// At most `limit` records newest first (by instant) from `offset`, corrected ones included; optionally of one
    /// product and within a day range.
    func entries(productID: ProductID?, from: LocalDay?, to: LocalDay?, limit: Int, offset: Int) throws -> [LedgerEntry] {
        var conditions: [String] = [Self.isRead("i")]
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let productID {
            conditions.append("i.product_id = ?")
            arguments.append(productID.rawValue)
        }
        if let from {
            conditions.append("i.local_day >= ?")
            arguments.append(from)
        }
        if let to {
            conditions.append("i.local_day <= ?")
            arguments.append(to)
        }
        arguments.append(limit)
        arguments.append(offset)
        // The page's rowids come from the index alone; only those rows are joined and decoded.
        return try db.query(
            """
            \(Self.entrySelect) WHERE i.rowid IN (
                SELECT i.rowid FROM regimen_intake i WHERE \(conditions.joined(separator: " AND "))
                ORDER BY i.taken_at DESC, i.rowid DESC LIMIT ? OFFSET ?)
            ORDER BY i.taken_at DESC, i.rowid DESC
            """, arguments: arguments
        ).map(LedgerEntry.init(row:))
    }

    /// Every record, oldest first, corrected ones included.
    func allEntries() throws -> [LedgerEntry] {
        try db.query("\(Self.entrySelect) ORDER BY i.taken_at, i.rowid").map(LedgerEntry.init(row:))
    }

    /// A current taken record as exposure reads it: the stored text of its revision, servings, instant and zone
    /// (parsed by the caller once per distinct value).
    struct TakenDose {
        let productRevisionID: String
        let servings: String
        let takenAt: String
        let timeZone: String
    }

    /// The current taken records of the local days in `days`, by day.
    func takenDoses(in days: ClosedRange<LocalDay>) throws -> [TakenDose] {
        func text(_ row: Row, _ index: Int) throws -> String {
            guard case .text(let value) = row.values[index] else { throw DatabaseError.misuse("expected text in column \(index)") }
            return value
        }
        return try db.query(
            """
            SELECT i.product_revision_id, i.servings, i.taken_at, i.time_zone FROM regimen_intake i
            WHERE i.local_day >= ? AND i.local_day <= ? AND i.status = 'taken' AND \(Self.isRead("i"))
              AND NOT EXISTS (SELECT 1 FROM regimen_intake s WHERE s.supersedes = i.id AND \(Self.isRead("s")))
            ORDER BY i.local_day
            """, days.lowerBound, days.upperBound
        ).map { row in
            TakenDose(
                productRevisionID: try text(row, 0), servings: try text(row, 1), takenAt: try text(row, 2),
                timeZone: try text(row, 3))
        }
    }

    // MARK: intake imports

    /// Starts an import run; returns its id.
    func beginImportRun(at now: Date) throws -> Int64 {
        try db.execute("INSERT INTO regimen_intake_import_runs (started_at) VALUES (?)", now)
        return db.lastInsertRowID
    }

    /// Marks an import run finished: from now on the ledger reads its records.
    func finishImportRun(_ run: Int64, at now: Date) throws {
        try db.execute("UPDATE regimen_intake_import_runs SET finished_at = ? WHERE id = ?", now, run)
    }

    /// Removes an unfinished run with its records (a finished run is left as it is). Imports before December 2026
    /// also kept each record's line key in `regimen_intake_imports`; an unfinished run of such a build loses those
    /// rows too.
    func removeUnfinishedImportRun(_ run: Int64) throws {
        let unfinished = "SELECT id FROM regimen_intake_import_runs WHERE id = ? AND finished_at IS NULL"
        try db.execute(
            """
            DELETE FROM regimen_intake_imports WHERE intake_id IN (SELECT id FROM regimen_intake WHERE import_run IN (\(unfinished)))
            """, run)
        try db.execute("DELETE FROM regimen_intake WHERE import_run IN (\(unfinished))", run)
        try db.execute("DELETE FROM regimen_intake_import_runs WHERE id = ? AND finished_at IS NULL", run)
    }

    /// The record an import first saved for a line, or nil for a line never imported. A line is known by its
    /// product, its instant and `ordinal`, its number among the file's lines of that product and instant (from 1):
    /// the record is the `ordinal`-th imported original (an imported record that supersedes none) of that product
    /// at that instant, in the order they were saved. The records themselves are the key: nothing else is written
    /// per line (until December 2026 a separate key row was, which held the same pairing).
    func importedRecord(product: ProductID, takenAt: String, ordinal: Int) throws -> IntakeRecordID? {
        try db.scalar(
            """
            SELECT id FROM regimen_intake INDEXED BY regimen_intake_by_product_time
            WHERE product_id = ? AND taken_at = ? AND imported_from IS NOT NULL AND supersedes IS NULL
            ORDER BY rowid LIMIT 1 OFFSET ?
            """, product.rawValue, takenAt, ordinal - 1, as: String.self
        ).map(IntakeRecordID.init)
    }

    /// The record that supersedes `id` (whatever run it belongs to), or nil.
    func successor(of id: IntakeRecordID) throws -> IntakeRecordID? {
        try db.scalar("SELECT id FROM regimen_intake WHERE supersedes = ?", id.rawValue, as: String.self).map(IntakeRecordID.init)
    }

    // MARK: supply

    /// Whether a count on hand was ever set for the product.
    func isTracked(_ productID: ProductID) throws -> Bool {
        try db.scalar(
            "SELECT EXISTS (SELECT 1 FROM regimen_supply_changes WHERE product_id = ? AND kind = 'set')",
            productID.rawValue, as: Int.self) == 1
    }

    /// Every product with a count on hand set.
    func trackedProductIDs() throws -> [ProductID] {
        try db.query("SELECT DISTINCT product_id FROM regimen_supply_changes WHERE kind = 'set'").map { ProductID(try $0.get(at: 0)) }
    }

    /// Records a count on hand.
    func insertSupplyCount(_ productID: ProductID, count: Decimal, at now: Date) throws {
        try db.execute(
            "INSERT INTO regimen_supply_changes (product_id, kind, count, recorded_at) VALUES (?, 'set', ?, ?)",
            productID.rawValue, count, now)
    }

    /// Records the change a ledger record makes to the count on hand.
    func insertSupplyChange(_ productID: ProductID, delta: Decimal, intake: IntakeRecordID, at now: Date) throws {
        try db.execute(
            "INSERT INTO regimen_supply_changes (product_id, kind, delta, intake_id, recorded_at) VALUES (?, 'intake', ?, ?, ?)",
            productID.rawValue, delta, intake.rawValue, now)
    }

    /// The count last set for a product and the changes recorded since; nil when no count was ever set.
    func supplySinceLastCount(_ productID: ProductID) throws -> (count: Decimal, changes: [Decimal])? {
        guard
            let set = try db.queryFirst(
                """
                SELECT id, count FROM regimen_supply_changes WHERE product_id = ? AND kind = 'set' ORDER BY id DESC LIMIT 1
                """, productID.rawValue)
        else { return nil }
        let changes = try db.query(
            "SELECT delta FROM regimen_supply_changes WHERE product_id = ? AND id > ? AND kind = 'intake'",
            productID.rawValue, try set.get("id", as: Int64.self)
        ).map { try $0.get(at: 0, as: Decimal.self) }
        return (try set.get("count"), changes)
    }

    // MARK: reading the ledger

    /// Whether the intake record `alias` is read: records of an intake import run that has not finished are
    /// not (see `importIntakeHistory`).
    static func isRead(_ alias: String) -> String {
        "(\(alias).import_run IS NULL OR \(alias).import_run NOT IN (SELECT id FROM regimen_intake_import_runs WHERE finished_at IS NULL))"
    }

    private static let entrySelect = entrySelect(includingUnfinishedImports: false)

    private static func entrySelect(includingUnfinishedImports all: Bool) -> String {
        """
        SELECT i.*, p.name AS product_name, s.id AS superseded_by FROM regimen_intake i
        JOIN regimen_product_revisions p ON p.id = i.product_revision_id\(all ? "" : " AND " + isRead("i"))
        LEFT JOIN regimen_intake s ON s.supersedes = i.id\(all ? "" : " AND " + isRead("s"))
        """
    }

    private static let entryByID = "\(entrySelect) WHERE i.id = ?"
    private static let entryByIDIncludingUnfinished = "\(entrySelect(includingUnfinishedImports: true)) WHERE i.id = ?"
}

/// A ledger record about to be appended: every column of `regimen_intake` (its local day follows from the
/// instant and zone).
struct NewIntakeRecord {
    var id: IntakeRecordID
    var kind: IntakeKind
    var status: IntakeStatus
    var productID: ProductID
    var productRevisionID: ProductRevisionID
    var scheduleRevisionID: ScheduleRevisionID?
    var occurrence: DoseOccurrence?
    var servings: Decimal
    var takenAt: Date
    var timeZone: TimeZone
    var recordedAt: Date
    var supersedes: IntakeRecordID?
    var importedFrom: String?
    var importRun: Int64?

    /// Every value as stored, `supersedes` NULL. An import works them out on its reading thread (`Handoff`) and
    /// decides `supersedes` when it writes.
    var storedValues: StoredIntakeValues {
        let columns: [(any DatabaseValueConvertible)?] = [
            id.rawValue, kind.rawValue, status.rawValue, productID.rawValue, productRevisionID.rawValue, scheduleRevisionID?.rawValue,
            occurrence?.day, occurrence?.slot.description, servings, takenAt, timeZone.identifier, LocalDay(takenAt, in: timeZone),
            recordedAt, importedFrom, importRun,
        ]
        return StoredIntakeValues(id: id, values: columns.map { $0?.databaseValue ?? .null } + [.null])
    }
}

/// A new record's values as stored, in the column order of `RegimenStore.insert(_:supersedes:)`; the last,
/// `supersedes`, NULL (most records supersede none: those are bound as they are, without a copy).
struct StoredIntakeValues: Sendable {
    let id: IntakeRecordID
    fileprivate let values: [DatabaseValue]

    /// The values with `supersedes` set.
    fileprivate func superseding(_ id: IntakeRecordID) -> [DatabaseValue] {
        var values = values
        values[values.count - 1] = id.rawValue.databaseValue
        return values
    }
}

// MARK: rows to records

extension ProductIngredient {
    /// A `regimen_product_ingredients` row.
    init(row: Row) throws {
        let unit: String? = try row.optional("amount_unit")
        let amount = try row.optional("amount_value", as: Decimal.self).map { try Amount($0, Row.storedValue(unit ?? "", as: DoseUnit.self)) }
        try self.init(
            catalogueID: row.optional("catalogue_id"), nameOnLabel: row.get("name_on_label"), amount: amount,
            dailyValuePercent: row.optional("daily_value_percent"), form: row.optional("form"))
    }
}

extension ScheduleRevision {
    /// A `regimen_schedule_revisions` row joined with its schedule's `product_id`.
    init(row: Row) throws {
        let recurrence: Recurrence
        switch try row.get("recurrence", as: String.self) {
        case "daily": recurrence = .daily
        case "weekdays":
            let mask: Int = try row.get("weekdays")
            recurrence = .weekdays(Set(Weekday.allCases.filter { mask & (1 << ($0.rawValue - 1)) != 0 }))
        case "every": recurrence = .everyNDays(try row.get("interval_days"))
        default: recurrence = .asNeeded
        }
        let times = try row.get("times", as: String.self).split(separator: ",").map { text -> TimeSlot in
            guard let slot = TimeSlot(parsing: String(text)) else { throw DatabaseError.misuse("unreadable stored time") }
            return slot
        }
        let plan = try SchedulePlan(
            productID: ProductID(row.get("product_id")), servings: row.get("servings"),
            times: times, recurrence: recurrence, startDay: row.get("start_day"),
            endDay: row.optional("end_day"), zone: Self.zone(row.optional("time_zone")))
        self.init(
            id: ScheduleRevisionID(try row.get("id")), scheduleID: ScheduleID(try row.get("schedule_id")),
            number: try row.get("number"), effectiveFrom: try row.get("effective_from"), state: try row.stored("state"),
            plan: plan, recordedAt: try row.get("recorded_at"))
    }

    /// The stored zone of a revision: NULL follows the person; a name the zone database no longer has is an error
    /// (never a silent switch to the person's zone, which would move every dose).
    private static func zone(_ name: String?) throws -> ScheduleZone {
        guard let name else { return .followsYou }
        guard let zone = TimeZone(identifier: name) else { throw DatabaseError.misuse("stored time zone \(name) is unknown to this system") }
        return .fixed(zone)
    }
}

extension LedgerEntry {
    /// A `regimen_intake` row with its revision's `product_name` and the `superseded_by` id of the record that
    /// supersedes it (NULL for a current record).
    init(row: Row) throws {
        let revision: String? = try row.optional("schedule_revision_id")
        var occurrence: DoseOccurrence?
        if let revision, let day: LocalDay = try row.optional("occurrence_day"), let slotText: String = try row.optional("occurrence_slot") {
            guard let slot = TimeSlot(parsing: slotText) else { throw DatabaseError.misuse("unreadable stored time") }
            occurrence = DoseOccurrence(revisionID: ScheduleRevisionID(revision), day: day, slot: slot)
        }
        let zoneName: String = try row.get("time_zone")
        self.init(
            id: IntakeRecordID(try row.get("id")), kind: try row.stored("kind"), status: try row.stored("status"),
            productID: ProductID(try row.get("product_id")),
            productRevisionID: ProductRevisionID(try row.get("product_revision_id")),
            productName: try row.get("product_name"), scheduleRevisionID: revision.map(ScheduleRevisionID.init),
            occurrence: occurrence, servings: try row.get("servings"), takenAt: try row.get("taken_at"),
            timeZone: TimeZone(identifier: zoneName) ?? TimeZone(identifier: "UTC")!,
            localDay: try row.get("local_day"), recordedAt: try row.get("recorded_at"),
            supersedes: try row.optional("supersedes", as: String.self).map(IntakeRecordID.init),
            supersededBy: try row.optional("superseded_by", as: String.self).map(IntakeRecordID.init),
            importedFrom: try row.optional("imported_from"))
    }
}
