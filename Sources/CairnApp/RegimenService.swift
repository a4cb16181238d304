import CairnCore
import Foundation
import Regimen
import Storage

/// The Regimen journal: products (label revisions), schedules (effective-dated revisions), Today, the intake
/// ledger, exposure and supply. The only way Regimen data changes; every multi-table write is one transaction.
///
/// Decisions:
/// - Editing a product appends a label revision; ledger records reference the revision in force when the dose
///   was logged, so exposure of past days uses the label of that time.
/// - Times follow the person: a slot is a wall-clock time in the zone the Clock reports now, "today" is the
///   local day of now in that zone, and a dose is identified by (revision, day, slot) (see `DoseOccurrence`).
/// - A check-in is an INSERT guarded by a partial UNIQUE index on (revision, day, slot); a second check-in
///   of the same dose (from any process) hits the constraint inside the same transaction and reports the
///   record already there.
public final class RegimenService: @unchecked Sendable {
    let database: Database
    let clock: any Clock

    /// A service over a migrated database.
    public init(database: Database, clock: any Clock) {
        self.database = database
        self.clock = clock
    }

    /// The current local day in the person's current zone.
    public func today() -> LocalDay { LocalDay(clock.now(), in: clock.timeZone) }

    /// "Taken at...": the instant the person typed (see `TakenTime`) for the dose `doseID` (nil: an extra or
    /// as-needed dose, or a correction of one), read against the Clock's now and zone. The CLI's `--at` and the
    /// page's "Taken at" field both come here.
    public func takenTime(_ text: String, forDoseOn doseDay: LocalDay?) throws -> Date {
        try TakenTime.parse(text, doseDay: doseDay, now: clock.now(), zone: clock.timeZone)
    }

    /// "Taken at" for the scheduled dose `doseID`: its own day is the person's day the dose is listed on (for a
    /// schedule with a fixed zone, where its due instant falls on the person's clock). An id that names no dose
    /// reads the text against today; the check-in then refuses the id.
    public func takenTime(_ text: String, forDose doseID: String) throws -> Date {
        let day = try DoseOccurrence(doseID: doseID).map { occurrence in try database.read { db in try listedDay(of: occurrence, db) } }
        return try takenTime(text, forDoseOn: day ?? today())
    }

    /// "Taken at" for a correction of `entry`: the dose's listed day for a scheduled record, else any time up to now.
    public func takenTime(_ text: String, correcting entry: LedgerEntry) throws -> Date {
        let day = try entry.occurrence.map { occurrence in try database.read { db in try listedDay(of: occurrence, db) } }
        return try takenTime(text, forDoseOn: day)
    }

    // MARK: products

    /// Saves a new product (its first revision and its ingredient rows, in one transaction). Throws
    /// `FlaggedRowsUndecided` while a flagged row is not accepted in `decisions` (`LabelGate`: the same checks
    /// as a scanned row, on every path), and `RegimenError` when a catalogue row is unknown or an amount is
    /// implausible for its ingredient.
    @discardableResult
    public func addProduct(_ product: Product, decisions: RowDecisions = RowDecisions()) throws -> StoredProduct {
        let catalogue = try Catalogue.bundled()
        try catalogue.checkPlausibility(of: product)
        try LabelGate(catalogue: catalogue).check(product, decisions: decisions)
        let now = clock.now()
        return try database.write { db in
            try db.execute("INSERT INTO regimen_products (id, created_at) VALUES (?, ?)", product.id.rawValue,
                           Timestamp.string(from: now))
            return try insertRevision(product, number: 1, at: now, db)
        }
    }

    /// Saves a new label revision of product `id`; earlier revisions and the records that use them stay as
    /// they were. `product.id` is ignored (the revision belongs to `id`). Rows unchanged from the current
    /// revision keep the decision made when it was saved; a changed or new flagged row must be accepted in
    /// `decisions` (else `FlaggedRowsUndecided`).
    @discardableResult
    public func editProduct(_ id: ProductID, to product: Product, decisions: RowDecisions = RowDecisions()) throws -> StoredProduct {
        let revised = try Product(id: id, name: product.name, brand: product.brand, form: product.form,
                                  servingSize: product.servingSize, ingredients: product.ingredients)
        let catalogue = try Catalogue.bundled()
        guard let current = try self.product(id) else { throw ScheduleError.productNotFound }
        try catalogue.checkPlausibility(of: revised)
        try LabelGate(catalogue: catalogue).check(revised, decisions: decisions, earlier: current.product)
        let now = clock.now()
        return try database.write { db in
            guard let last: Int = try db.scalar("SELECT max(number) FROM regimen_product_revisions WHERE product_id = ?",
                                                id.rawValue) else { throw ScheduleError.productNotFound }
            return try insertRevision(revised, number: last + 1, at: now, db)
        }
    }

    /// Saves a new product from what the person typed (`ProductInput`: one parser for every door). Throws
    /// `FieldProblems<ProductField>` with every refusal of the fields, an implausible amount among them (beside
    /// the ingredients), and `FlaggedRowsUndecided` like `addProduct(_:decisions:)`.
    @discardableResult
    public func addProduct(_ input: ProductInput, decisions: RowDecisions = RowDecisions()) throws -> StoredProduct {
        let catalogue = try Catalogue.bundled()
        let product = try input.product(catalogue: catalogue)
        try Self.plausibility(of: product, catalogue)
        return try addProduct(product, decisions: decisions)
    }

    /// What an edit did: saved a new revision, or found nothing changed and saved nothing.
    public enum ProductEditOutcome: Sendable {
        case saved(StoredProduct)
        case unchanged(StoredProduct)

        /// The product as it now stands.
        public var product: StoredProduct {
            switch self { case .saved(let p), .unchanged(let p): p }
        }
    }

    /// Changes product `id` as the person typed it: fields not given keep their value, and each typed row keeps
    /// what typing it left out of the current row of that name (`ProductIngredient.keeping`), so both doors merge
    /// alike. A change that leaves the product as it is saves no revision (`.unchanged`). Throws like
    /// `addProduct(_:decisions:)` with an input, and `ScheduleError.productNotFound`.
    public func editProduct(_ id: ProductID, _ input: ProductInput, decisions: RowDecisions = RowDecisions()) throws -> ProductEditOutcome {
        let catalogue = try Catalogue.bundled()
        guard let current = try product(id) else { throw ScheduleError.productNotFound }
        let revised = try input.product(revising: current.product, catalogue: catalogue)
        if revised == current.product { return .unchanged(current) }
        try Self.plausibility(of: revised, catalogue)
        return .saved(try editProduct(id, to: revised, decisions: decisions))
    }

    /// The catalogue's plausibility refusal as a problem of the ingredients field.
    private static func plausibility(of product: Product, _ catalogue: Catalogue) throws {
        do { try catalogue.checkPlausibility(of: product) } catch let error as RegimenError {
            throw FieldProblems<ProductField>([.init(.ingredients, error)])
        }
    }

    /// Every product at its newest revision, by name.
    public func products() throws -> [StoredProduct] {
        try database.read { db in
            let ids = try db.query("SELECT id FROM regimen_products").map { ProductID(try $0.get("id", as: String.self)) }
            return try ids.compactMap { try latestProduct($0, db) }
                .sorted { ($0.product.name.lowercased(), $0.product.id.rawValue) < ($1.product.name.lowercased(), $1.product.id.rawValue) }
        }
    }

    /// The product at its newest revision, or nil.
    public func product(_ id: ProductID) throws -> StoredProduct? {
        try database.read { try latestProduct(id, $0) }
    }

    /// Every revision of a product, oldest first; empty for an unknown product.
    public func productHistory(_ id: ProductID) throws -> [StoredProduct] {
        try database.read { db in
            try db.query("SELECT * FROM regimen_product_revisions WHERE product_id = ? ORDER BY number", id.rawValue)
                .map { try productRevision(from: $0, db) }
        }
    }

    /// The product whose id is `reference`, else the one whose current name is `reference` (ignoring case).
    /// Throws `ScheduleError.productNotFound` or `.productNameAmbiguous`.
    public func findProduct(_ reference: String) throws -> StoredProduct {
        if let byID = try product(ProductID(reference)) { return byID }
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        let matches = try products().filter { $0.product.name.lowercased() == key }
        guard let first = matches.first else { throw ScheduleError.productNotFound }
        guard matches.count == 1 else { throw ScheduleError.productNameAmbiguous }
        return first
    }

    // MARK: schedules

    /// Saves a new schedule whose first revision is in force from the plan's start day.
    @discardableResult
    public func addSchedule(_ plan: SchedulePlan) throws -> ScheduleRevision {
        let now = clock.now()
        let scheduleID = ScheduleID.random()
        return try database.write { db in
            try InsightInputs.ledgerChanged(db, at: now)
            guard try latestProduct(plan.productID, db) != nil else { throw ScheduleError.productNotFound }
            try db.execute("INSERT INTO regimen_schedules (id, product_id, created_at) VALUES (?, ?, ?)",
                           scheduleID.rawValue, plan.productID.rawValue, Timestamp.string(from: now))
            let revision = ScheduleRevision(id: .random(), scheduleID: scheduleID, number: 1, effectiveFrom: plan.startDay,
                                            state: .active, plan: plan, recordedAt: now)
            try insert(revision, db)
            return revision
        }
    }

    /// Saves a new revision with `plan`, in force from `effectiveFrom` (default: today). Days before keep the
    /// revision that was in force. Throws `ScheduleError.overlappingRevision` when `effectiveFrom` is not after
    /// the newest revision's day, `.revisionBeforeLoggedDoses` when a dose on or after it is already logged,
    /// `.scheduleStopped` for a stopped schedule.
    @discardableResult
    public func editSchedule(_ id: ScheduleID, plan: SchedulePlan, effectiveFrom: LocalDay? = nil) throws -> ScheduleRevision {
        try appendRevision(id, effectiveFrom: effectiveFrom ?? today()) { _ in (.active, plan) }
    }

    /// Pauses the schedule from `day` (default today): a revision with no doses.
    @discardableResult
    public func pauseSchedule(_ id: ScheduleID, from day: LocalDay? = nil) throws -> ScheduleRevision {
        try appendRevision(id, effectiveFrom: day ?? today()) { latest in
            guard latest.state == .active else { throw ScheduleError.alreadyInThatState }
            return (.paused, latest.plan)
        }
    }

    /// Resumes a paused schedule from `day` (default today).
    @discardableResult
    public func resumeSchedule(_ id: ScheduleID, from day: LocalDay? = nil) throws -> ScheduleRevision {
        try appendRevision(id, effectiveFrom: day ?? today()) { latest in
            guard latest.state == .paused else { throw ScheduleError.alreadyInThatState }
            return (.active, latest.plan)
        }
    }

    /// Stops the schedule from `day` (default today); a stopped schedule takes no further revisions.
    @discardableResult
    public func stopSchedule(_ id: ScheduleID, from day: LocalDay? = nil) throws -> ScheduleRevision {
        try appendRevision(id, effectiveFrom: day ?? today()) { latest in (.stopped, latest.plan) }
    }

    /// Every schedule with its newest revision, by product name then start day.
    public func schedules() throws -> [ScheduleSummary] {
        let day = today()
        return try database.read { db in
            try allHistories(db).map { history in
                let latest = history.latest!
                let name = try latestProduct(latest.plan.productID, db)?.product.name ?? ""
                return ScheduleSummary(scheduleID: latest.scheduleID, latest: latest, inForceToday: history.revision(on: day),
                                       productName: name)
            }.sorted { ($0.productName.lowercased(), $0.latest.plan.startDay.description, $0.scheduleID.rawValue)
                < ($1.productName.lowercased(), $1.latest.plan.startDay.description, $1.scheduleID.rawValue) }
        }
    }

    /// Every revision of a schedule, oldest first. Throws `ScheduleError.scheduleNotFound`.
    public func scheduleHistory(_ id: ScheduleID) throws -> ScheduleHistory {
        try database.read { db in try history(of: id, db) }
    }

    // MARK: today

    /// The scheduled doses of any local `day` (a past day shows what is still not logged), due times in the
    /// person's current zone.
    public func doses(on day: LocalDay) throws -> [TodayDose] {
        try database.read { db in try scheduledDoses(on: [day], zone: clock.timeZone, db).doses }
    }

    /// The scheduled doses of every local day in `days`, each with its state, read in one transaction (reports).
    public func doses(in days: ClosedRange<LocalDay>) throws -> [TodayDose] {
        let list = (days.lowerBound.dayNumber...days.upperBound.dayNumber).map(LocalDay.init(dayNumber:))
        return try database.read { db in try scheduledDoses(on: list, zone: clock.timeZone, db).doses }
    }

    /// The Today view for the Clock's current instant and zone.
    public func todayView() throws -> TodayView {
        let now = clock.now()
        let zone = clock.timeZone
        let day = LocalDay(now, in: zone)
        let tomorrow = day.adding(days: 1)
        return try database.read { db in
            let (doses, asNeeded) = try scheduledDoses(on: [day, tomorrow], zone: zone, db)
            let todays = doses.filter { $0.day == day }
            let pending = doses.filter { $0.state == .notLogged }
            let pendingToday = pending.filter { $0.day == day }
            let batchSlot = pendingToday.last(where: { $0.dueAt <= now })?.time ?? pendingToday.first?.time
            let batch = batchSlot.map { slot in pendingToday.filter { $0.time == slot } } ?? []
            var next = pendingToday.filter { batchSlot != nil && $0.time > batchSlot! }
            if next.isEmpty {
                let tomorrows = pending.filter { $0.day == tomorrow }
                next = tomorrows.filter { $0.time == tomorrows.first?.time }
            }
            let unscheduled = try db.query("""
                \(Self.entrySelect) WHERE i.local_day = ? AND i.kind <> 'scheduled' AND s.id IS NULL AND i.status <> 'undone'
                ORDER BY i.taken_at, i.rowid
                """, day.description).map(Self.entry(from:))
            return TodayView(now: now, timeZone: zone, day: day, doses: todays, currentBatch: batch, next: next, asNeeded: asNeeded,
                             unscheduledLogged: unscheduled)
        }
    }

    /// The scheduled doses listed on the person's local `days` (for a schedule with a fixed zone, the doses whose
    /// due instant falls on those days of the person's clock), and the as-needed schedules in force on the first.
    private func scheduledDoses(on days: [LocalDay], zone: TimeZone, _ db: Connection) throws -> (doses: [TodayDose], asNeeded: [ScheduleSummary]) {
        let day = days[0]
        let listed = Set(days)
        let histories = try allHistories(db)
        var names: [ProductID: String] = [:]
        func name(_ id: ProductID) throws -> String {
            if let known = names[id] { return known }
            let found = try latestProduct(id, db)?.product.name ?? ""
            names[id] = found
            return found
        }
        func scheduleDays(_ history: ScheduleHistory) -> [LocalDay] {
            guard let fixed = history.revisions.first(where: { $0.plan.zone != .followsYou })?.plan.zone else { return days }
            return Array(Set(days.flatMap { DoseTiming.scheduleDays(listedOn: $0, zone: fixed) })).sorted()
        }
        let candidates = histories.map(scheduleDays)
        let heads = try currentRecords(onDays: Array(Set(candidates.joined())).sorted(), db)
        var doses: [TodayDose] = []
        var asNeeded: [ScheduleSummary] = []
        for (history, scheduleDays) in zip(histories, candidates) {
            if let revision = history.revision(on: day), revision.state == .active, revision.plan.recurrence == .asNeeded,
               revision.plan.endDay.map({ day <= $0 }) ?? true, day >= revision.plan.startDay {
                asNeeded.append(ScheduleSummary(scheduleID: history.latest!.scheduleID, latest: history.latest!,
                                                inForceToday: revision, productName: try name(revision.plan.productID)))
            }
            for d in scheduleDays {
                guard let revision = history.revision(on: d) else { continue }
                for occurrence in revision.occurrences(on: d) {
                    let timing = revision.timing(of: occurrence, personZone: zone)
                    guard listed.contains(timing.day) else { continue }
                    let record = heads[occurrence].flatMap { $0.isUndo ? nil : $0 }
                    let state: DoseState = record.map { $0.status == .taken ? .taken : .skipped } ?? .notLogged
                    doses.append(TodayDose(occurrence: occurrence, scheduleID: revision.scheduleID,
                                           productID: revision.plan.productID, productName: try name(revision.plan.productID),
                                           servings: revision.plan.servings, timing: timing, zone: revision.plan.zone,
                                           state: state, record: record))
                }
            }
        }
        doses.sort { ($0.day, $0.dueAt, $0.productName.lowercased(), $0.occurrence.revisionID.rawValue)
            < ($1.day, $1.dueAt, $1.productName.lowercased(), $1.occurrence.revisionID.rawValue) }
        asNeeded.sort { $0.productName.lowercased() < $1.productName.lowercased() }
        return (doses, asNeeded)
    }

    // MARK: ledger writes

    /// Logs a scheduled dose as taken or skipped at `at` in the person's current zone, with its supply change,
    /// in one transaction. Without `at`, a dose of today is logged now and a dose of an earlier day at its
    /// scheduled time (so it counts on the day it was due; `CheckInResult.atScheduledTime` says so). `at` obeys
    /// `TakenTime.check` (not in the future; on the dose's day or today). Idempotent: a dose already logged (by
    /// any process, any door) is returned with `alreadyLogged` and nothing is written; a dose whose record was
    /// undone is logged again as a record that supersedes the undo. Throws `ScheduleError.doseNotFound` for an id
    /// that names no scheduled dose, `.doseNotDueYet` for a later day, `.statusNotLoggable` for `.missed`.
    @discardableResult
    public func checkIn(_ doseID: String, status: IntakeStatus, at: Date? = nil) throws -> CheckInResult {
        try checkIn([CheckInRequest(doseID: doseID, status: status, at: at)])[0]
    }

    /// Logs several scheduled doses in ONE transaction (e.g. "take all" for the current batch, or an import):
    /// all are written or none. Each behaves like `checkIn(_:status:at:)`; results are in request order.
    @discardableResult
    public func checkIn(_ requests: [CheckInRequest]) throws -> [CheckInResult] {
        let now = clock.now()
        let zone = clock.timeZone
        let today = LocalDay(now, in: zone)
        var parsed: [(DoseOccurrence, CheckInRequest)] = []
        for request in requests {
            guard request.status.isLoggable else { throw ScheduleError.statusNotLoggable }
            guard let occurrence = DoseOccurrence(doseID: request.doseID) else { throw ScheduleError.doseNotFound }
            // The exact rule (the person's day the dose is listed on) needs the revision's zone, read below; a day
            // beyond any zone's reach is refused before the database is touched.
            guard occurrence.day <= today.adding(days: 2) else { throw ScheduleError.doseNotDueYet }
            parsed.append((occurrence, request))
        }
        return try database.write { db in
            try InsightInputs.ledgerChanged(db, at: now)
            var histories: [ScheduleRevisionID: ScheduleHistory] = [:]
            var products: [ProductID: StoredProduct] = [:]
            var tracked: [ProductID: Bool] = [:]
            return try parsed.map { occurrence, request in
                if histories[occurrence.revisionID] == nil {
                    guard let found = try history(ofRevision: occurrence.revisionID, db) else { throw ScheduleError.doseNotFound }
                    histories[occurrence.revisionID] = found
                }
                guard let revision = histories[occurrence.revisionID]!.revision(on: occurrence.day), revision.id == occurrence.revisionID,
                      revision.occurrences(on: occurrence.day).contains(occurrence) else { throw ScheduleError.doseNotFound }
                let timing = revision.timing(of: occurrence, personZone: zone)
                guard timing.day <= today else { throw ScheduleError.doseNotDueYet }
                if let at = request.at { try TakenTime.check(at, doseDay: timing.day, now: now, zone: zone) }
                let productID = revision.plan.productID
                if products[productID] == nil { products[productID] = try latestProduct(productID, db) }
                guard let product = products[productID] else { throw ScheduleError.productNotFound }
                let atScheduledTime = request.at == nil && timing.day < today
                let takenAt = request.at ?? (atScheduledTime ? timing.dueAt : now)
                let id = IntakeRecordID.random()
                func insert(supersedes: IntakeRecordID?) throws {
                    try db.execute("""
                        INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                            occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes)
                        VALUES (?, 'scheduled', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, id.rawValue, request.status.rawValue, productID.rawValue, product.revisionID.rawValue,
                        revision.id.rawValue, occurrence.day.description, occurrence.slot.description, "\(revision.plan.servings)",
                        Timestamp.string(from: takenAt), zone.identifier, LocalDay(takenAt, in: zone).description,
                        Timestamp.string(from: now), supersedes?.rawValue)
                }
                do {
                    try insert(supersedes: nil)
                } catch let error as DatabaseError where error.constraintKind == .unique {
                    // Logged already (perhaps by another process a moment ago): report the record in force, unless
                    // that record is an undo: then this check-in supersedes it (the UNIQUE supersedes keeps it once).
                    guard let existing = try currentRecords(for: occurrence, db) else { throw error }
                    guard existing.isUndo else { return CheckInResult(entry: existing, alreadyLogged: true) }
                    do {
                        try insert(supersedes: existing.id)
                    } catch let again as DatabaseError where again.constraintKind == .unique {
                        guard let head = try currentRecords(for: occurrence, db) else { throw again }
                        return CheckInResult(entry: head, alreadyLogged: true)
                    }
                }
                if request.status == .taken {
                    if tracked[productID] == nil { tracked[productID] = try isTracked(productID, db) }
                    if tracked[productID]! {
                        try recordSupplyChange(product: product, servings: revision.plan.servings, sign: -1, intake: id, at: now, db)
                    }
                }
                return CheckInResult(entry: try entry(id, db)!, alreadyLogged: false, atScheduledTime: atScheduledTime)
            }
        }
    }

    /// Undoes a record: appends an `undone` record that supersedes it (with the matching supply change), so the
    /// dose is back to not logged and the ledger keeps both. Idempotent: undoing a record that an undo already
    /// supersedes returns that undo with `alreadyUndone`. Throws `ScheduleError.recordNotFound`, and
    /// `.recordAlreadyCorrected` for a record a correction replaced (undo the newest record instead).
    @discardableResult
    public func undo(_ recordID: IntakeRecordID) throws -> UndoResult {
        let now = clock.now()
        return try database.write { db in
            guard let old = try entry(recordID, db) else { throw ScheduleError.recordNotFound }
            if let by = old.supersededBy {
                guard let later = try entry(by, db), later.isUndo else { throw ScheduleError.recordAlreadyCorrected }
                return UndoResult(entry: later, undid: old, alreadyUndone: true)
            }
            guard !old.isUndo else { return UndoResult(entry: old, undid: old, alreadyUndone: true) }
            try InsightInputs.ledgerChanged(db, at: now)
            let id = try appendCorrection(of: old, status: .undone, takenAt: old.takenAt, zone: old.timeZone, at: now, db)
            return UndoResult(entry: try entry(id, db)!, undid: old, alreadyUndone: false)
        }
    }

    /// Logs an unscheduled dose of `productID` (taken, `servings`, at `at` or now), with its supply change.
    @discardableResult
    public func logExtra(_ productID: ProductID, servings: Decimal = 1, at: Date? = nil) throws -> LedgerEntry {
        try checkServings(servings)
        return try logUnscheduled(kind: .extra, productID: productID, scheduleRevision: nil, servings: servings, at: at)
    }

    /// Logs a dose of an as-needed schedule (taken, the plan's servings, at `at` or now). Throws
    /// `ScheduleError.notAnAsNeededSchedule` for a schedule with set times.
    @discardableResult
    public func logAsNeeded(_ scheduleID: ScheduleID, at: Date? = nil) throws -> LedgerEntry {
        let history = try scheduleHistory(scheduleID)
        guard let revision = history.revision(on: today()), revision.state == .active,
              revision.plan.recurrence == .asNeeded else { throw ScheduleError.notAnAsNeededSchedule }
        return try logUnscheduled(kind: .asNeeded, productID: revision.plan.productID, scheduleRevision: revision.id,
                                  servings: revision.plan.servings, at: at)
    }

    /// Appends a record that supersedes `recordID` with a new status and/or time (`at`; default: the original
    /// instant and zone), with the matching supply change, in one transaction. Both records stay in the
    /// history. Throws `ScheduleError.recordNotFound` or `.recordAlreadyCorrected`.
    @discardableResult
    public func correct(_ recordID: IntakeRecordID, status: IntakeStatus, at: Date? = nil) throws -> LedgerEntry {
        guard status.isLoggable else { throw ScheduleError.statusNotLoggable }
        let now = clock.now()
        return try database.write { db in
            try InsightInputs.ledgerChanged(db, at: now)
            guard let old = try entry(recordID, db) else { throw ScheduleError.recordNotFound }
            guard old.isCurrent else { throw ScheduleError.recordAlreadyCorrected }
            if let at { try TakenTime.check(at, doseDay: try old.occurrence.map { try listedDay(of: $0, db) }, now: now, zone: clock.timeZone) }
            let id = try appendCorrection(of: old, status: status, takenAt: at ?? old.takenAt,
                                          zone: at == nil ? old.timeZone : clock.timeZone, at: now, db)
            return try entry(id, db)!
        }
    }

    /// The person's day a scheduled dose is listed on (see `DoseTiming`); its own day when no revision has its id.
    private func listedDay(of occurrence: DoseOccurrence, _ db: Connection) throws -> LocalDay {
        guard let revision = try history(ofRevision: occurrence.revisionID, db)?.revisions.first(where: { $0.id == occurrence.revisionID })
        else { return occurrence.day }
        return revision.timing(of: occurrence, personZone: clock.timeZone).day
    }

    /// Appends the record that supersedes `old` (a correction or an undo) with its supply change.
    private func appendCorrection(of old: LedgerEntry, status: IntakeStatus, takenAt: Date, zone: TimeZone, at now: Date,
                                  _ db: Connection) throws -> IntakeRecordID {
        let id = IntakeRecordID.random()
        do {
            try db.execute("""
                INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                    occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes, imported_from)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id.rawValue, old.kind.rawValue, status.rawValue, old.productID.rawValue, old.productRevisionID.rawValue,
                old.scheduleRevisionID?.rawValue, old.occurrence?.day.description, old.occurrence?.slot.description,
                "\(old.servings)", Timestamp.string(from: takenAt), zone.identifier,
                LocalDay(takenAt, in: zone).description, Timestamp.string(from: now), old.id.rawValue, old.importedFrom)
        } catch let error as DatabaseError where error.constraintKind == .unique {
            throw ScheduleError.recordAlreadyCorrected
        }
        let change = (status == .taken ? 1 : 0) - (old.status == .taken ? 1 : 0)
        if change != 0, let product = try productRevision(old.productRevisionID, db) {
            try recordSupplyChange(product: product, servings: old.servings, sign: -change, intake: id, at: now, db)
        }
        return id
    }

    // MARK: ledger reads

    /// One page of the ledger, newest first (by instant), corrected records included.
    public func ledger(_ query: LedgerQuery = LedgerQuery()) throws -> LedgerPage {
        guard (1...1000).contains(query.limit), query.offset >= 0 else { throw ScheduleError.pageOutOfRange }
        if let from = query.from, let to = query.to, to < from { throw ScheduleError.rangeEndsBeforeStart }
        var conditions: [String] = [Self.isRead("i")]
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let productID = query.productID { conditions.append("i.product_id = ?"); arguments.append(productID.rawValue) }
        if let from = query.from { conditions.append("i.local_day >= ?"); arguments.append(from.description) }
        if let to = query.to { conditions.append("i.local_day <= ?"); arguments.append(to.description) }
        let filter = "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(query.limit + 1)
        arguments.append(query.offset)
        // The page's rowids come from the index alone; only those rows are joined and decoded.
        let rows = try database.read { db in
            try db.query("""
                \(Self.entrySelect) WHERE i.rowid IN (
                    SELECT i.rowid FROM regimen_intake i \(filter) ORDER BY i.taken_at DESC, i.rowid DESC LIMIT ? OFFSET ?)
                ORDER BY i.taken_at DESC, i.rowid DESC
                """, arguments: arguments).map(Self.entry(from:))
        }
        let more = rows.count > query.limit
        return LedgerPage(entries: Array(rows.prefix(query.limit)), nextOffset: more ? query.offset + query.limit : nil)
    }

    /// One record, or nil.
    public func record(_ id: IntakeRecordID) throws -> LedgerEntry? {
        try database.read { try entry(id, $0) }
    }

    /// The whole ledger, oldest first, as CSV (header row, RFC 4180) or a JSON array.
    public func exportLedger(as format: LedgerExportFormat) throws -> String {
        let entries = try database.read { db in
            try db.query("\(Self.entrySelect) ORDER BY i.taken_at, i.rowid").map(Self.entry(from:))
        }
        switch format {
        case .csv:
            return ([LedgerEntry.csvHeader] + entries.map(\.csvRow)).joined(separator: "\r\n") + "\r\n"
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(entries), as: UTF8.self)
        }
    }

    /// Every ledger record (oldest first, corrected ones included) and every schedule's history, read on `db`:
    /// the inputs of insights, read inside the caller's transaction.
    func intakeHistory(_ db: Connection) throws -> (entries: [LedgerEntry], schedules: [ScheduleHistory]) {
        (try db.query("\(Self.entrySelect) ORDER BY i.taken_at, i.rowid").map(Self.entry(from:)), try allHistories(db))
    }

    // MARK: exposure

    /// Per product and per ingredient per local day within `days`, from current taken records only.
    public func exposure(in days: ClosedRange<LocalDay>) throws -> ExposureReport {
        let catalogue = try? Catalogue.bundled()
        let records: [IntakeRecord] = try database.read { db in
            var perServing: [String: [IngredientDose]] = [:]
            let rows = try db.query("""
                SELECT i.product_revision_id, i.servings, i.taken_at, i.time_zone FROM regimen_intake i
                WHERE i.local_day >= ? AND i.local_day <= ? AND i.status = 'taken' AND \(Self.isRead("i"))
                  AND NOT EXISTS (SELECT 1 FROM regimen_intake s WHERE s.supersedes = i.id AND \(Self.isRead("s")))
                ORDER BY i.local_day
                """, days.lowerBound.description, days.upperBound.description)
            // Rows of one product revision and serving count share one doses array (read once, scaled once).
            var zones: [String: TimeZone] = [:]
            var prepared: [String: (ProductID, Decimal, [IngredientDose])] = [:]
            var productOf: [String: ProductID] = [:]
            func text(_ row: Row, _ index: Int) throws -> String {
                guard case .text(let value) = row.values[index] else { throw DatabaseError.misuse("expected text in column \(index)") }
                return value
            }
            return try rows.map { row in
                let revisionID = try text(row, 0)
                let servingsText = try text(row, 1)
                let key = revisionID + "|" + servingsText
                if prepared[key] == nil {
                    if perServing[revisionID] == nil {
                        guard let stored = try productRevision(ProductRevisionID(revisionID), db) else { throw ScheduleError.productNotFound }
                        perServing[revisionID] = try IntakeRecord(taking: 1, of: stored.product, catalogue: catalogue,
                                                                  instant: Date(), timeZone: .current).doses
                        productOf[revisionID] = stored.product.id
                    }
                    let servings = try Self.decimal(servingsText)
                    let doses = servings == 1 ? perServing[revisionID]! : try perServing[revisionID]!.map {
                        IngredientDose(ingredientKey: $0.ingredientKey, amount: try $0.amount.scaled(by: servings), context: $0.context)
                    }
                    prepared[key] = (productOf[revisionID]!, servings, doses)
                }
                let (productID, servings, doses) = prepared[key]!
                let zoneName = try text(row, 3)
                if zones[zoneName] == nil { zones[zoneName] = TimeZone(identifier: zoneName) ?? TimeZone(identifier: "UTC")! }
                return IntakeRecord(productID: productID, status: .taken, servings: servings, doses: doses,
                                    instant: try Self.instant(text(row, 2)), timeZone: zones[zoneName]!)
            }
        }
        return try ExposureCalculator().exposure(of: records, in: days)
    }

    // MARK: supply

    /// Sets the count on hand of a product (units when a serving is a count, else servings). From then on,
    /// taken doses count it down.
    public func setSupply(_ productID: ProductID, count: Decimal) throws {
        guard !count.isNaN, count >= 0, count <= 1_000_000 else { throw ScheduleError.supplyOutOfRange }
        let now = clock.now()
        try database.write { db in
            guard try latestProduct(productID, db) != nil else { throw ScheduleError.productNotFound }
            try db.execute("INSERT INTO regimen_supply_changes (product_id, kind, count, recorded_at) VALUES (?, 'set', ?, ?)",
                           productID.rawValue, "\(count)", Timestamp.string(from: now))
        }
    }

    /// The count on hand and the "runs out around" estimate; nil when no count was ever set.
    public func supply(_ productID: ProductID) throws -> SupplyStatus? {
        let day = today()
        return try database.read { db in try supplyStatus(productID, day: day, db) }
    }

    /// The supply of every product with a count set, by name.
    public func supplies() throws -> [SupplyStatus] {
        let day = today()
        return try database.read { db in
            try db.query("SELECT DISTINCT product_id FROM regimen_supply_changes WHERE kind = 'set'")
                .compactMap { try supplyStatus(ProductID($0.get(at: 0)), day: day, db) }
                .sorted { $0.productName.lowercased() < $1.productName.lowercased() }
        }
    }

    // MARK: internals: products

    private func insertRevision(_ product: Product, number: Int, at now: Date, _ db: Connection) throws -> StoredProduct {
        let revisionID = ProductRevisionID.random()
        try db.execute("""
            INSERT INTO regimen_product_revisions (id, product_id, number, name, brand, form, serving_value, serving_unit, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, revisionID.rawValue, product.id.rawValue, number, product.name, product.brand, product.form.rawValue,
            "\(product.servingSize.value)", product.servingSize.unit.rawValue, Timestamp.string(from: now))
        for (position, row) in product.ingredients.enumerated() {
            try db.execute("""
                INSERT INTO regimen_product_ingredients (revision_id, position, catalogue_id, name_on_label, amount_value,
                    amount_unit, daily_value_percent, form) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, revisionID.rawValue, position, row.catalogueID, row.nameOnLabel, row.amount.map { "\($0.value)" },
                row.amount?.unit.rawValue, row.dailyValuePercent.map { "\($0)" }, row.form)
        }
        return StoredProduct(product: product, revisionID: revisionID, revisionNumber: number, recordedAt: now)
    }

    func latestProduct(_ id: ProductID, _ db: Connection) throws -> StoredProduct? {
        try db.queryFirst("SELECT * FROM regimen_product_revisions WHERE product_id = ? ORDER BY number DESC LIMIT 1",
                          id.rawValue).map { try productRevision(from: $0, db) }
    }

    private func productRevision(_ id: ProductRevisionID, _ db: Connection) throws -> StoredProduct? {
        try db.queryFirst("SELECT * FROM regimen_product_revisions WHERE id = ?", id.rawValue).map { try productRevision(from: $0, db) }
    }

    func productRevision(from row: Row, _ db: Connection) throws -> StoredProduct {
        let revisionID: String = try row.get("id")
        let ingredients = try db.query("SELECT * FROM regimen_product_ingredients WHERE revision_id = ? ORDER BY position",
                                       revisionID).map { r in
            let value: String? = try r.optional("amount_value")
            let unit: String? = try r.optional("amount_unit")
            let amount = try value.map { try Amount(Self.decimal($0), Self.unit(unit ?? "")) }
            return try ProductIngredient(catalogueID: r.optional("catalogue_id"), nameOnLabel: r.get("name_on_label"),
                                         amount: amount, dailyValuePercent: r.optional("daily_value_percent", as: String.self).map(Self.decimal),
                                         form: r.optional("form"))
        }
        guard let form = ProductForm(rawValue: try row.get("form")) else { throw DatabaseError.misuse("unknown product form") }
        let product = try Product(id: ProductID(try row.get("product_id")), name: row.get("name"), brand: row.get("brand"),
                                  form: form, servingSize: Amount(Self.decimal(row.get("serving_value")), Self.unit(row.get("serving_unit"))),
                                  ingredients: ingredients)
        return StoredProduct(product: product, revisionID: ProductRevisionID(revisionID), revisionNumber: try row.get("number"),
                             recordedAt: try Self.instant(row.get("recorded_at")))
    }

    // MARK: internals: schedules

    private func appendRevision(_ id: ScheduleID, effectiveFrom: LocalDay,
                                _ make: (ScheduleRevision) throws -> (ScheduleState, SchedulePlan)) throws -> ScheduleRevision {
        let now = clock.now()
        return try database.write { db in
            try InsightInputs.ledgerChanged(db, at: now)
            let history = try history(of: id, db)
            let latest = history.latest!
            guard latest.state != .stopped else { throw ScheduleError.scheduleStopped }
            let (state, plan) = try make(latest)
            guard plan.productID == latest.plan.productID else { throw ScheduleError.productCannotChange }
            guard effectiveFrom > latest.effectiveFrom else { throw ScheduleError.overlappingRevision }
            let lastLogged: String? = try db.scalar("""
                SELECT max(i.occurrence_day) FROM regimen_intake i JOIN regimen_schedule_revisions r ON r.id = i.schedule_revision_id
                WHERE r.schedule_id = ?
                """, id.rawValue)
            if let lastLogged, effectiveFrom.description <= lastLogged { throw ScheduleError.revisionBeforeLoggedDoses }
            let revision = ScheduleRevision(id: .random(), scheduleID: id, number: latest.number + 1, effectiveFrom: effectiveFrom,
                                            state: state, plan: plan, recordedAt: now)
            do {
                try insert(revision, db)
            } catch let error as DatabaseError where error.constraintKind == .unique {
                throw ScheduleError.overlappingRevision
            }
            return revision
        }
    }

    private func insert(_ revision: ScheduleRevision, _ db: Connection) throws {
        let plan = revision.plan
        var kind = "daily", weekdays = 0, interval = 1
        switch plan.recurrence {
        case .daily: break
        case .weekdays(let days): kind = "weekdays"; weekdays = days.reduce(0) { $0 | (1 << ($1.rawValue - 1)) }
        case .everyNDays(let n): kind = "every"; interval = n
        case .asNeeded: kind = "as-needed"
        }
        try db.execute("""
            INSERT INTO regimen_schedule_revisions (id, schedule_id, number, effective_from, state, servings, times, recurrence,
                weekdays, interval_days, start_day, end_day, recorded_at, time_zone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, revision.id.rawValue, revision.scheduleID.rawValue, revision.number, revision.effectiveFrom.description,
            revision.state.rawValue, "\(plan.servings)", plan.times.map(\.description).joined(separator: ","), kind, weekdays,
            interval, plan.startDay.description, plan.endDay?.description, Timestamp.string(from: revision.recordedAt),
            plan.zone.identifier)
    }

    private func history(of id: ScheduleID, _ db: Connection) throws -> ScheduleHistory {
        let revisions = try db.query("""
            SELECT r.*, s.product_id FROM regimen_schedule_revisions r JOIN regimen_schedules s ON s.id = r.schedule_id
            WHERE r.schedule_id = ?
            """, id.rawValue).map(Self.scheduleRevision(from:))
        guard !revisions.isEmpty else { throw ScheduleError.scheduleNotFound }
        return ScheduleHistory(revisions: revisions)
    }

    /// The history of the schedule `revision` belongs to; nil when no schedule has that revision.
    private func history(ofRevision revision: ScheduleRevisionID, _ db: Connection) throws -> ScheduleHistory? {
        guard let schedule: String = try db.scalar("SELECT schedule_id FROM regimen_schedule_revisions WHERE id = ?",
                                                   revision.rawValue) else { return nil }
        return try history(of: ScheduleID(schedule), db)
    }

    private func allHistories(_ db: Connection) throws -> [ScheduleHistory] {
        let revisions = try db.query("""
            SELECT r.*, s.product_id FROM regimen_schedule_revisions r JOIN regimen_schedules s ON s.id = r.schedule_id
            """).map(Self.scheduleRevision(from:))
        return Dictionary(grouping: revisions, by: \.scheduleID).values.map { ScheduleHistory(revisions: $0) }
            .sorted { $0.revisions[0].scheduleID.rawValue < $1.revisions[0].scheduleID.rawValue }
    }

    private static func scheduleRevision(from row: Row) throws -> ScheduleRevision {
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
        let plan = try SchedulePlan(productID: ProductID(row.get("product_id")), servings: decimal(row.get("servings")),
                                    times: times, recurrence: recurrence, startDay: day(row.get("start_day")),
                                    endDay: row.optional("end_day", as: String.self).map(day),
                                    zone: try zone(row.optional("time_zone", as: String.self)))
        guard let state = ScheduleState(rawValue: try row.get("state")) else { throw DatabaseError.misuse("unknown schedule state") }
        return ScheduleRevision(id: ScheduleRevisionID(try row.get("id")), scheduleID: ScheduleID(try row.get("schedule_id")),
                                number: try row.get("number"), effectiveFrom: try day(row.get("effective_from")), state: state,
                                plan: plan, recordedAt: try instant(row.get("recorded_at")))
    }

    /// The stored zone of a revision: NULL follows the person; a name the zone database no longer has is an error
    /// (never a silent switch to the person's zone, which would move every dose).
    private static func zone(_ name: String?) throws -> ScheduleZone {
        guard let name else { return .followsYou }
        guard let zone = TimeZone(identifier: name) else { throw DatabaseError.misuse("stored time zone \(name) is unknown to this system") }
        return .fixed(zone)
    }

    // MARK: internals: ledger

    private func logUnscheduled(kind: IntakeKind, productID: ProductID, scheduleRevision: ScheduleRevisionID?,
                                servings: Decimal, at: Date?) throws -> LedgerEntry {
        let now = clock.now()
        let zone = clock.timeZone
        let takenAt = at ?? now
        if let at { try TakenTime.check(at, doseDay: nil, now: now, zone: zone) }
        return try database.write { db in
            try InsightInputs.ledgerChanged(db, at: now)
            guard let product = try latestProduct(productID, db) else { throw ScheduleError.productNotFound }
            let id = IntakeRecordID.random()
            try db.execute("""
                INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                    occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes)
                VALUES (?, ?, 'taken', ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, NULL)
                """, id.rawValue, kind.rawValue, productID.rawValue, product.revisionID.rawValue, scheduleRevision?.rawValue,
                "\(servings)", Timestamp.string(from: takenAt), zone.identifier, LocalDay(takenAt, in: zone).description,
                Timestamp.string(from: now))
            try recordSupplyChange(product: product, servings: servings, sign: -1, intake: id, at: now, db)
            return try entry(id, db)!
        }
    }

    private func checkServings(_ servings: Decimal) throws {
        guard !servings.isNaN, servings > 0 else { throw ScheduleError.servingsNotPositive }
        guard servings <= SchedulePlan.maximumServings else { throw ScheduleError.tooManyServings }
    }

    private func isTracked(_ productID: ProductID, _ db: Connection) throws -> Bool {
        try db.scalar("SELECT EXISTS (SELECT 1 FROM regimen_supply_changes WHERE product_id = ? AND kind = 'set')",
                      productID.rawValue, as: Int.self) == 1
    }

    /// Adds a supply change for a tracked product (one with a count set); untracked products get none.
    private func recordSupplyChange(product: StoredProduct, servings: Decimal, sign: Int, intake: IntakeRecordID,
                                    at now: Date, _ db: Connection) throws {
        guard try isTracked(product.product.id, db) else { return }
        let units = Self.units(servings: servings, of: product.product) * Decimal(sign)
        try db.execute("INSERT INTO regimen_supply_changes (product_id, kind, delta, intake_id, recorded_at) VALUES (?, 'intake', ?, ?, ?)",
                       product.product.id.rawValue, "\(units)", intake.rawValue, Timestamp.string(from: now))
    }

    private static func units(servings: Decimal, of product: Product) -> Decimal {
        product.servingSize.unit == .count ? servings * product.servingSize.value : servings
    }

    private func supplyStatus(_ productID: ProductID, day: LocalDay, _ db: Connection) throws -> SupplyStatus? {
        guard let set = try db.queryFirst("""
            SELECT id, count FROM regimen_supply_changes WHERE product_id = ? AND kind = 'set' ORDER BY id DESC LIMIT 1
            """, productID.rawValue) else { return nil }
        guard let product = try latestProduct(productID, db) else { return nil }
        var onHand = try Self.decimal(set.get("count"))
        for row in try db.query("SELECT delta FROM regimen_supply_changes WHERE product_id = ? AND id > ? AND kind = 'intake'",
                                productID.rawValue, try set.get("id", as: Int64.self)) {
            onHand += try Self.decimal(row.get(at: 0))
        }
        var daily: Decimal = 0
        for history in try allHistories(db) {
            guard let revision = history.revision(on: day), revision.plan.productID == productID, revision.state == .active,
                  revision.plan.endDay.map({ day <= $0 }) ?? true else { continue }
            daily += Self.units(servings: revision.plan.servings, of: product.product) * Decimal(revision.plan.times.count)
                * revision.plan.recurrence.shareOfDays
        }
        var runsOut: LocalDay?
        if daily > 0 {
            let days = max(0, NSDecimalNumber(decimal: onHand / daily).doubleValue.rounded(.down))
            runsOut = day.adding(days: Int(min(days, 100_000)))
        }
        return SupplyStatus(productID: productID, productName: product.product.name, countsUnits: product.product.servingSize.unit == .count,
                            onHand: onHand, dailyUse: daily > 0 ? daily : nil, runsOutAround: runsOut)
    }

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

    /// One record; `includingUnfinishedImports` for the import that writes it.
    func entry(_ id: IntakeRecordID, _ db: Connection, includingUnfinishedImports: Bool = false) throws -> LedgerEntry? {
        try db.queryFirst(includingUnfinishedImports ? Self.entryByIDIncludingUnfinished : Self.entryByID, id.rawValue).map(Self.entry(from:))
    }

    /// The current record (head of its correction chain) of each scheduled dose on `days`.
    private func currentRecords(onDays days: [LocalDay], _ db: Connection) throws -> [DoseOccurrence: LedgerEntry] {
        var result: [DoseOccurrence: LedgerEntry] = [:]
        for day in days {
            for row in try db.query("\(Self.entrySelect) WHERE i.occurrence_day = ? AND s.id IS NULL", day.description) {
                let entry = try Self.entry(from: row)
                if let occurrence = entry.occurrence { result[occurrence] = entry }
            }
        }
        return result
    }

    private func currentRecords(for occurrence: DoseOccurrence, _ db: Connection) throws -> LedgerEntry? {
        try db.queryFirst("""
            \(Self.entrySelect) WHERE i.schedule_revision_id = ? AND i.occurrence_day = ? AND i.occurrence_slot = ? AND s.id IS NULL
            """, occurrence.revisionID.rawValue, occurrence.day.description, occurrence.slot.description).map(Self.entry(from:))
    }

    private static func entry(from row: Row) throws -> LedgerEntry {
        guard let kind = IntakeKind(rawValue: try row.get("kind")), let status = IntakeStatus(rawValue: try row.get("status")) else {
            throw DatabaseError.misuse("unknown intake kind or status")
        }
        let revision: String? = try row.optional("schedule_revision_id")
        var occurrence: DoseOccurrence?
        if let revision, let dayText: String = try row.optional("occurrence_day"), let slotText: String = try row.optional("occurrence_slot") {
            guard let slot = TimeSlot(parsing: slotText) else { throw DatabaseError.misuse("unreadable stored time") }
            occurrence = DoseOccurrence(revisionID: ScheduleRevisionID(revision), day: try day(dayText), slot: slot)
        }
        let zoneName: String = try row.get("time_zone")
        return LedgerEntry(id: IntakeRecordID(try row.get("id")), kind: kind, status: status,
                           productID: ProductID(try row.get("product_id")),
                           productRevisionID: ProductRevisionID(try row.get("product_revision_id")),
                           productName: try row.get("product_name"), scheduleRevisionID: revision.map(ScheduleRevisionID.init),
                           occurrence: occurrence, servings: try decimal(row.get("servings")),
                           takenAt: try instant(row.get("taken_at")),
                           timeZone: TimeZone(identifier: zoneName) ?? TimeZone(identifier: "UTC")!,
                           localDay: try day(row.get("local_day")), recordedAt: try instant(row.get("recorded_at")),
                           supersedes: try row.optional("supersedes", as: String.self).map(IntakeRecordID.init),
                           supersededBy: try row.optional("superseded_by", as: String.self).map(IntakeRecordID.init),
                           importedFrom: try row.optional("imported_from"))
    }

    // MARK: internals: stored values

    private static let posix = Locale(identifier: "en_US_POSIX")

    static func decimal(_ text: String) throws -> Decimal {
        guard let value = Decimal(string: text, locale: posix) else { throw DatabaseError.misuse("unreadable stored decimal") }
        return value
    }

    private static func unit(_ text: String) throws -> DoseUnit {
        guard let unit = DoseUnit(rawValue: text) else { throw DatabaseError.misuse("unknown stored unit") }
        return unit
    }

    private static func day(_ text: String) throws -> LocalDay {
        guard let day = LocalDay(parsing: text) else { throw DatabaseError.misuse("unreadable stored day") }
        return day
    }

    /// Reads a stored instant (`Timestamp.date(from:)`, integer arithmetic for the stored format).
    static func instant(_ text: String) throws -> Date {
        guard let date = Timestamp.date(from: text) else { throw DatabaseError.misuse("unreadable stored instant") }
        return date
    }
}
