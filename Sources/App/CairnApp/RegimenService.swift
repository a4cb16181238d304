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

    /// What a logged dose was, in its label's units at the time ("2 softgels", "1 serving (5 g)").
    public func amountText(of entry: LedgerEntry) throws -> String {
        let product = try database.read { try RegimenStore($0).productRevision(entry.productRevisionID) }
        return product?.product.amountText(servings: entry.servings) ?? (entry.servings == 1 ? "1 serving" : "\(entry.servings) servings")
    }

    /// The instant now, on the service's clock.
    public func now() -> Date { clock.now() }

    /// How the scheduled doses of the last seven days (today up to now included) went.
    public func lastSevenDays() throws -> DoseTally {
        let day = today()
        return DoseTally(try doses(in: day.adding(days: -6)...day), dueBy: now())
    }

    /// "Taken at...": the instant the person typed (see `TakenTime`) for the dose `doseID` (nil: an extra or
    /// as-needed dose, or a correction of one), read against the Clock's now and zone. The CLI's `--at` and the
    /// page's "Taken at" field both come here (for a scheduled dose, through `CheckInRequest.typedAt`).
    public func takenTime(_ text: String, forDoseOn doseDay: LocalDay?) throws -> Date {
        try TakenTime.parse(text, doseDay: doseDay, now: clock.now(), zone: clock.timeZone)
    }

    /// "Taken at" for a correction of `entry`: the dose's listed day for a scheduled record, else any time up to now.
    public func takenTime(_ text: String, correcting entry: LedgerEntry) throws -> Date {
        let day = try entry.occurrence.map { occurrence in try database.read { db in try listedDay(of: occurrence, RegimenStore(db)) } }
        return try takenTime(text, forDoseOn: day)
    }

    // MARK: products

    /// Saves a new product (its first revision and its ingredient rows, in one transaction). Throws
    /// `FlaggedRowsUndecided` while a flagged row is not accepted in `decisions` (`LabelGate`: the same checks
    /// as a scanned row, on every path), and `RegimenError` when a catalogue row is unknown or an amount is
    /// implausible for its ingredient, `FieldProblems<ProductField>` for a name `TextInput.name` refuses
    /// (`Product.checkNames()`).
    @discardableResult
    public func addProduct(_ product: Product, decisions: RowDecisions = RowDecisions()) throws -> StoredProduct {
        try product.checkNames()
        let catalogue = try Catalogue.bundled()
        try catalogue.checkPlausibility(of: product)
        try LabelGate(catalogue: catalogue).check(product, decisions: decisions)
        let now = clock.now()
        return try database.write { db in
            let store = RegimenStore(db)
            try store.insertProduct(product.id, at: now)
            return try store.insertRevision(product, number: 1, at: now)
        }
    }

    /// Saves a new label revision of product `id`; earlier revisions and the records that use them stay as
    /// they were. `product.id` is ignored (the revision belongs to `id`). Rows unchanged from the current
    /// revision keep the decision made when it was saved; a changed or new flagged row must be accepted in
    /// `decisions` (else `FlaggedRowsUndecided`).
    @discardableResult
    public func editProduct(_ id: ProductID, to product: Product, decisions: RowDecisions = RowDecisions()) throws -> StoredProduct {
        let revised = try Product(
            id: id, name: product.name, brand: product.brand, form: product.form,
            servingSize: product.servingSize, ingredients: product.ingredients)
        try revised.checkNames()
        let catalogue = try Catalogue.bundled()
        guard let current = try self.product(id) else { throw ScheduleError.productNotFound }
        try catalogue.checkPlausibility(of: revised)
        try LabelGate(catalogue: catalogue).check(revised, decisions: decisions, earlier: current.product)
        let now = clock.now()
        return try database.write { db in
            let store = RegimenStore(db)
            guard let last = try store.lastRevisionNumber(of: id) else { throw ScheduleError.productNotFound }
            return try store.insertRevision(revised, number: last + 1, at: now)
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
            switch self {
            case .saved(let p), .unchanged(let p): p
            }
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

    /// Every product at its newest revision, by name: those on the person's lists, or with `includingArchived`
    /// the archived ones too (for history: the ledger, reports, exposure).
    public func products(includingArchived: Bool = false) throws -> [StoredProduct] {
        try database.read { db in
            let store = RegimenStore(db)
            let archived = includingArchived ? [] : try store.archivedProductIDs()
            return try store.productIDs().filter { !archived.contains($0) }.compactMap { try store.latestProduct($0) }
                .sorted { ($0.product.name.lowercased(), $0.product.id.rawValue) < ($1.product.name.lowercased(), $1.product.id.rawValue) }
        }
    }

    /// The archived products at their newest revision, by name.
    public func archivedProducts() throws -> [StoredProduct] {
        try database.read { db in
            let store = RegimenStore(db)
            return try store.archivedProductIDs().compactMap { try store.latestProduct($0) }
                .sorted { ($0.product.name.lowercased(), $0.product.id.rawValue) < ($1.product.name.lowercased(), $1.product.id.rawValue) }
        }
    }

    /// When the product was archived; nil while it is on the lists.
    public func archivedAt(_ id: ProductID) throws -> Date? {
        try database.read { try RegimenStore($0).archivedAt(id) }
    }

    /// Takes a product off the lists (Products, the schedule form, the refill warning); its versions, logged
    /// doses and stopped schedules stay, and it can be restored. Refuses while a schedule of it is active or
    /// paused (`ScheduleError.productStillScheduled`: stop them first). Archiving an archived product changes nothing.
    public func archiveProduct(_ id: ProductID) throws {
        let now = clock.now()
        try database.write { db in
            let store = RegimenStore(db)
            guard try store.latestProduct(id) != nil else { throw ScheduleError.productNotFound }
            guard try store.archivedAt(id) == nil else { return }
            let open = try store.allHistories().filter { $0.latest?.plan.productID == id && $0.latest?.state != .stopped }
            guard open.isEmpty else { throw ScheduleError.productStillScheduled }
            try store.insertArchive(id, archived: true, at: now)
        }
    }

    /// Puts an archived product back on the lists. Restoring a product that is not archived changes nothing.
    public func restoreProduct(_ id: ProductID) throws {
        let now = clock.now()
        try database.write { db in
            let store = RegimenStore(db)
            guard try store.latestProduct(id) != nil else { throw ScheduleError.productNotFound }
            guard try store.archivedAt(id) != nil else { return }
            try store.insertArchive(id, archived: false, at: now)
        }
    }

    /// The product at its newest revision, or nil.
    public func product(_ id: ProductID) throws -> StoredProduct? {
        try database.read { try RegimenStore($0).latestProduct(id) }
    }

    /// Every revision of a product, oldest first; empty for an unknown product.
    public func productHistory(_ id: ProductID) throws -> [StoredProduct] {
        try database.read { try RegimenStore($0).productRevisions(of: id) }
    }

    /// The product whose id is `reference`, else the one whose current name is `reference` (ignoring case), else
    /// the one whose id starts with it. Throws `ScheduleError.productNotFound`, `.productNameAmbiguous` or `.idAmbiguous`.
    public func findProduct(_ reference: String) throws -> StoredProduct {
        if let byID = try product(ProductID(reference)) { return byID }
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        let matches = try products(includingArchived: true).filter { $0.product.name.lowercased() == key }
        guard matches.count <= 1 else { throw ScheduleError.productNameAmbiguous }
        if let first = matches.first { return first }
        guard let byPrefix = try product(ProductID(try uniqueID(in: "regimen_products", reference, notFound: .productNotFound))) else {
            throw ScheduleError.productNotFound
        }
        return byPrefix
    }

    /// The schedule whose id is `reference` or starts with it (at least 4 characters). Throws
    /// `ScheduleError.scheduleNotFound` or `.idAmbiguous`.
    public func findScheduleID(_ reference: String) throws -> ScheduleID {
        ScheduleID(try uniqueID(in: "regimen_schedules", reference, notFound: .scheduleNotFound))
    }

    /// The log entry whose id is `reference` or starts with it (at least 4 characters). Throws
    /// `ScheduleError.recordNotFound` or `.idAmbiguous`.
    public func findRecordID(_ reference: String) throws -> IntakeRecordID {
        IntakeRecordID(try uniqueID(in: "regimen_intake", reference, notFound: .recordNotFound))
    }

    /// The id of the dose `reference` names: a whole dose id, any start of one (at least 4 characters), or one whose
    /// schedule part is shortened (`e760dd42_2026-12-08_0800`), among the doses of the last week, today and tomorrow.
    /// Throws `ScheduleError.doseNotFound` or `.idAmbiguous`.
    public func findDoseID(_ reference: String) throws -> String {
        let text = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard text.count >= 4 else { throw ScheduleError.doseNotFound }
        let day = today()
        let listed = try doses(in: day.adding(days: -7)...day.adding(days: 1)).map(\.doseID)
        if listed.contains(text) { return text }
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        let matches = listed.filter { id in
            if id.hasPrefix(text) { return true }
            let own = id.split(separator: "_", omittingEmptySubsequences: false)
            return parts.count == 3 && own.count == 3 && own[0].hasPrefix(parts[0]) && own[1] == parts[1] && own[2] == parts[2]
        }
        guard matches.count <= 1 else { throw ScheduleError.idAmbiguous }
        // A dose outside that window is still found by its whole id (the check-in reads it).
        return matches.first ?? text
    }

    /// The one id in `table` that is `reference` or starts with it.
    private func uniqueID(in table: String, _ reference: String, notFound: ScheduleError) throws -> String {
        let text = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard text.count >= 4 else { throw notFound }
        let ids = try database.read { try RegimenStore($0).ids(in: table, startingWith: text) }
        if ids.contains(text) { return text }
        guard ids.count <= 1 else { throw ScheduleError.idAmbiguous }
        guard let id = ids.first else { throw notFound }
        return id
    }

    // MARK: schedules

    /// Saves a new schedule whose first revision is in force from the plan's start day.
    @discardableResult
    public func addSchedule(_ plan: SchedulePlan) throws -> ScheduleRevision {
        let now = clock.now()
        let scheduleID = ScheduleID.random()
        return try database.write { db in
            let store = RegimenStore(db)
            try InsightInputs.ledgerChanged(db, at: now)
            guard try store.latestProduct(plan.productID) != nil else { throw ScheduleError.productNotFound }
            guard try store.archivedAt(plan.productID) == nil else { throw ScheduleError.productArchived }
            try store.insertSchedule(scheduleID, productID: plan.productID, at: now)
            let revision = ScheduleRevision(
                id: .random(), scheduleID: scheduleID, number: 1, effectiveFrom: plan.startDay,
                state: .active, plan: plan, recordedAt: now)
            try store.insert(revision)
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
            let store = RegimenStore(db)
            return try store.allHistories().map { history in
                let latest = history.latest!
                let name = try store.latestProduct(latest.plan.productID)?.product.name ?? ""
                return ScheduleSummary(
                    scheduleID: latest.scheduleID, latest: latest, inForceToday: history.revision(on: day),
                    productName: name)
            }.sorted {
                ($0.productName.lowercased(), $0.latest.plan.startDay.description, $0.scheduleID.rawValue)
                    < ($1.productName.lowercased(), $1.latest.plan.startDay.description, $1.scheduleID.rawValue)
            }
        }
    }

    /// Every revision of a schedule, oldest first. Throws `ScheduleError.scheduleNotFound`.
    public func scheduleHistory(_ id: ScheduleID) throws -> ScheduleHistory {
        try database.read { db in try history(of: id, RegimenStore(db)) }
    }

    // MARK: today

    /// The scheduled doses of any local `day` (a past day shows what is still not logged), due times in the
    /// person's current zone.
    public func doses(on day: LocalDay) throws -> [TodayDose] {
        try database.read { db in try scheduledDoses(on: [day], zone: clock.timeZone, RegimenStore(db)).doses }
    }

    /// The scheduled doses of every local day in `days`, each with its state, read in one transaction (reports).
    public func doses(in days: ClosedRange<LocalDay>) throws -> [TodayDose] {
        let list = (days.lowerBound.dayNumber...days.upperBound.dayNumber).map(LocalDay.init(dayNumber:))
        return try database.read { db in try scheduledDoses(on: list, zone: clock.timeZone, RegimenStore(db)).doses }
    }

    /// The Today view for the Clock's current instant and zone.
    public func todayView() throws -> TodayView {
        let now = clock.now()
        let zone = clock.timeZone
        let day = LocalDay(now, in: zone)
        let tomorrow = day.adding(days: 1)
        return try database.read { db in
            let store = RegimenStore(db)
            let (doses, asNeeded) = try scheduledDoses(on: [day, tomorrow], zone: zone, store)
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
            let unscheduled = try store.unscheduledEntries(on: day)
            return TodayView(
                now: now, timeZone: zone, day: day, doses: todays, currentBatch: batch, next: next, asNeeded: asNeeded,
                unscheduledLogged: unscheduled)
        }
    }

    /// The scheduled doses listed on the person's local `days` (for a schedule with a fixed zone, the doses whose
    /// due instant falls on those days of the person's clock), and the as-needed schedules in force on the first.
    private func scheduledDoses(on days: [LocalDay], zone: TimeZone, _ store: RegimenStore) throws -> (
        doses: [TodayDose], asNeeded: [ScheduleSummary]
    ) {
        let day = days[0]
        let listed = Set(days)
        let histories = try store.allHistories()
        var products: [ProductID: Product?] = [:]
        func product(_ id: ProductID) throws -> Product? {
            if let known = products[id] { return known }
            let found = try store.latestProduct(id)?.product
            products[id] = found
            return found
        }
        func name(_ id: ProductID) throws -> String { try product(id)?.name ?? "" }
        func scheduleDays(_ history: ScheduleHistory) -> [LocalDay] {
            guard let fixed = history.revisions.first(where: { $0.plan.zone != .followsYou })?.plan.zone else { return days }
            return Array(Set(days.flatMap { DoseTiming.scheduleDays(listedOn: $0, zone: fixed) })).sorted()
        }
        let candidates = histories.map(scheduleDays)
        let heads = try store.currentRecords(onDays: Array(Set(candidates.joined())).sorted())
        var doses: [TodayDose] = []
        var asNeeded: [ScheduleSummary] = []
        for (history, scheduleDays) in zip(histories, candidates) {
            if let revision = history.revision(on: day), revision.state == .active, revision.plan.recurrence == .asNeeded,
                revision.plan.endDay.map({ day <= $0 }) ?? true, day >= revision.plan.startDay
            {
                asNeeded.append(
                    ScheduleSummary(
                        scheduleID: history.latest!.scheduleID, latest: history.latest!,
                        inForceToday: revision, productName: try name(revision.plan.productID)))
            }
            for d in scheduleDays {
                guard let revision = history.revision(on: d) else { continue }
                for occurrence in revision.occurrences(on: d) {
                    let timing = revision.timing(of: occurrence, personZone: zone)
                    guard listed.contains(timing.day) else { continue }
                    let record = heads[occurrence].flatMap { $0.isUndo ? nil : $0 }
                    let state: DoseState = record.map { $0.status == .taken ? .taken : .skipped } ?? .notLogged
                    doses.append(
                        TodayDose(
                            occurrence: occurrence, scheduleID: revision.scheduleID,
                            productID: revision.plan.productID, productName: try name(revision.plan.productID),
                            servings: revision.plan.servings, timing: timing, zone: revision.plan.zone,
                            state: state, record: record,
                            amount: try product(revision.plan.productID)?.amountText(servings: revision.plan.servings)))
                }
            }
        }
        doses.sort {
            ($0.day, $0.dueAt, $0.productName.lowercased(), $0.occurrence.revisionID.rawValue)
                < ($1.day, $1.dueAt, $1.productName.lowercased(), $1.occurrence.revisionID.rawValue)
        }
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
    public func checkIn(_ doseID: String, status: IntakeStatus, at: Date? = nil, confirmedEarly: Bool = false) throws -> CheckInResult {
        try checkIn([CheckInRequest(doseID: doseID, status: status, at: at, confirmedEarly: confirmedEarly)])[0]
    }

    /// Logs a scheduled dose with "taken at" as the person typed it (`TakenTime`, read against the dose's own
    /// day); nil is now. Throws like `checkIn(_:status:at:)` and `TakenTime.parse`.
    @discardableResult
    public func checkIn(_ doseID: String, status: IntakeStatus, typedAt: String?, confirmedEarly: Bool = false) throws -> CheckInResult {
        try checkIn([CheckInRequest(doseID: doseID, status: status, typedAt: typedAt, confirmedEarly: confirmedEarly)])[0]
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
            let store = RegimenStore(db)
            try InsightInputs.ledgerChanged(db, at: now)
            var histories: [ScheduleRevisionID: ScheduleHistory] = [:]
            var products: [ProductID: StoredProduct] = [:]
            var tracked: [ProductID: Bool] = [:]
            return try parsed.map { occurrence, request in
                if histories[occurrence.revisionID] == nil {
                    guard let found = try store.history(ofRevision: occurrence.revisionID) else { throw ScheduleError.doseNotFound }
                    histories[occurrence.revisionID] = found
                }
                guard let revision = histories[occurrence.revisionID]!.revision(on: occurrence.day), revision.id == occurrence.revisionID,
                    revision.occurrences(on: occurrence.day).contains(occurrence)
                else { throw ScheduleError.doseNotFound }
                let timing = revision.timing(of: occurrence, personZone: zone)
                guard timing.day <= today else { throw ScheduleError.doseNotDueYet }
                var at = request.at
                if let at { try TakenTime.check(at, doseDay: timing.day, now: now, zone: zone) }
                if let typed = request.typedAt { at = try TakenTime.parse(typed, doseDay: timing.day, now: now, zone: zone) }
                let productID = revision.plan.productID
                if products[productID] == nil { products[productID] = try store.latestProduct(productID) }
                guard let product = products[productID] else { throw ScheduleError.productNotFound }
                let atScheduledTime = at == nil && timing.day < today
                let takenAt = at ?? (atScheduledTime ? timing.dueAt : now)
                // More than an hour early asks first, unless it is logged already (then nothing changes anyway).
                if request.status == .taken, !request.confirmedEarly, timing.isEarly(takenAt: takenAt) {
                    if let existing = try store.currentRecord(for: occurrence), !existing.isUndo {
                        return CheckInResult(entry: existing, alreadyLogged: true)
                    }
                    throw EarlyDoseQuestion(productName: product.product.name, dueTime: timing.time, doseID: request.doseID)
                }
                let id = IntakeRecordID.random()
                func insert(supersedes: IntakeRecordID?) throws {
                    try store.insert(
                        NewIntakeRecord(
                            id: id, kind: .scheduled, status: request.status, productID: productID,
                            productRevisionID: product.revisionID, scheduleRevisionID: revision.id,
                            occurrence: occurrence, servings: revision.plan.servings, takenAt: takenAt,
                            timeZone: zone, recordedAt: now, supersedes: supersedes))
                }
                do {
                    try insert(supersedes: nil)
                } catch let error as DatabaseError where error.constraintKind == .unique {
                    // Logged already (perhaps by another process a moment ago): report the record in force, unless
                    // that record is an undo: then this check-in supersedes it (the UNIQUE supersedes keeps it once).
                    guard let existing = try store.currentRecord(for: occurrence) else { throw error }
                    guard existing.isUndo else { return CheckInResult(entry: existing, alreadyLogged: true) }
                    do {
                        try insert(supersedes: existing.id)
                    } catch let again as DatabaseError where again.constraintKind == .unique {
                        guard let head = try store.currentRecord(for: occurrence) else { throw again }
                        return CheckInResult(entry: head, alreadyLogged: true)
                    }
                }
                if request.status == .taken {
                    if tracked[productID] == nil { tracked[productID] = try store.isTracked(productID) }
                    if tracked[productID]! {
                        try recordSupplyChange(product: product, servings: revision.plan.servings, sign: -1, intake: id, at: now, store)
                    }
                }
                return CheckInResult(entry: try store.entry(id)!, alreadyLogged: false, atScheduledTime: atScheduledTime)
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
            let store = RegimenStore(db)
            guard let old = try store.entry(recordID) else { throw ScheduleError.recordNotFound }
            if let by = old.supersededBy {
                guard let later = try store.entry(by), later.isUndo else { throw ScheduleError.recordAlreadyCorrected }
                return UndoResult(entry: later, undid: old, alreadyUndone: true)
            }
            guard !old.isUndo else { return UndoResult(entry: old, undid: old, alreadyUndone: true) }
            try InsightInputs.ledgerChanged(db, at: now)
            let id = try appendCorrection(of: old, status: .undone, takenAt: old.takenAt, zone: old.timeZone, at: now, store)
            return UndoResult(entry: try store.entry(id)!, undid: old, alreadyUndone: false)
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
            revision.plan.recurrence == .asNeeded
        else { throw ScheduleError.notAnAsNeededSchedule }
        return try logUnscheduled(
            kind: .asNeeded, productID: revision.plan.productID, scheduleRevision: revision.id,
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
            let store = RegimenStore(db)
            try InsightInputs.ledgerChanged(db, at: now)
            guard let old = try store.entry(recordID) else { throw ScheduleError.recordNotFound }
            guard old.isCurrent else { throw ScheduleError.recordAlreadyCorrected }
            if let at { try TakenTime.check(at, doseDay: try old.occurrence.map { try listedDay(of: $0, store) }, now: now, zone: clock.timeZone) }
            let id = try appendCorrection(
                of: old, status: status, takenAt: at ?? old.takenAt,
                zone: at == nil ? old.timeZone : clock.timeZone, at: now, store)
            return try store.entry(id)!
        }
    }

    /// The person's day a scheduled dose is listed on (see `DoseTiming`); its own day when no revision has its id.
    private func listedDay(of occurrence: DoseOccurrence, _ store: RegimenStore) throws -> LocalDay {
        guard let revision = try store.history(ofRevision: occurrence.revisionID)?.revisions.first(where: { $0.id == occurrence.revisionID })
        else { return occurrence.day }
        return revision.timing(of: occurrence, personZone: clock.timeZone).day
    }

    /// Appends the record that supersedes `old` (a correction or an undo) with its supply change.
    private func appendCorrection(
        of old: LedgerEntry, status: IntakeStatus, takenAt: Date, zone: TimeZone, at now: Date,
        _ store: RegimenStore
    ) throws -> IntakeRecordID {
        let id = IntakeRecordID.random()
        do {
            try store.insert(
                NewIntakeRecord(
                    id: id, kind: old.kind, status: status, productID: old.productID,
                    productRevisionID: old.productRevisionID, scheduleRevisionID: old.scheduleRevisionID,
                    occurrence: old.occurrence, servings: old.servings, takenAt: takenAt, timeZone: zone,
                    recordedAt: now, supersedes: old.id, importedFrom: old.importedFrom))
        } catch let error as DatabaseError where error.constraintKind == .unique {
            throw ScheduleError.recordAlreadyCorrected
        }
        let change = (status == .taken ? 1 : 0) - (old.status == .taken ? 1 : 0)
        if change != 0, let product = try store.productRevision(old.productRevisionID) {
            try recordSupplyChange(product: product, servings: old.servings, sign: -change, intake: id, at: now, store)
        }
        return id
    }

    // MARK: ledger reads

    /// One page of the ledger, newest first (by instant), corrected records included.
    public func ledger(_ query: LedgerQuery = LedgerQuery()) throws -> LedgerPage {
        guard (1...1000).contains(query.limit), query.offset >= 0 else { throw ScheduleError.pageOutOfRange }
        if let from = query.from, let to = query.to, to < from { throw ScheduleError.rangeEndsBeforeStart }
        let rows = try database.read { db in
            try RegimenStore(db).entries(
                productID: query.productID, from: query.from, to: query.to, limit: query.limit + 1,
                offset: query.offset)
        }
        let more = rows.count > query.limit
        return LedgerPage(entries: Array(rows.prefix(query.limit)), nextOffset: more ? query.offset + query.limit : nil)
    }

    /// One record, or nil.
    public func record(_ id: IntakeRecordID) throws -> LedgerEntry? {
        try database.read { try RegimenStore($0).entry(id) }
    }

    /// The whole ledger, oldest first, as CSV (header row, RFC 4180) or a JSON array.
    public func exportLedger(as format: LedgerExportFormat) throws -> String {
        let entries = try database.read { try RegimenStore($0).allEntries() }
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
        let store = RegimenStore(db)
        return (try store.allEntries(), try store.allHistories())
    }

    // MARK: exposure

    /// Per product and per ingredient per local day within `days`, from current taken records only.
    public func exposure(in days: ClosedRange<LocalDay>) throws -> ExposureReport {
        let catalogue = try? Catalogue.bundled()
        let records: [IntakeRecord] = try database.read { db in
            let store = RegimenStore(db)
            // Rows of one product revision and serving count share one doses array (read once, scaled once).
            var perServing: [String: [IngredientDose]] = [:]
            var zones: [String: TimeZone] = [:]
            var prepared: [String: (ProductID, Decimal, [IngredientDose])] = [:]
            var productOf: [String: ProductID] = [:]
            return try store.takenDoses(in: days).map { dose in
                let revisionID = dose.productRevisionID
                let key = revisionID + "|" + dose.servings
                if prepared[key] == nil {
                    if perServing[revisionID] == nil {
                        guard let stored = try store.productRevision(ProductRevisionID(revisionID)) else { throw ScheduleError.productNotFound }
                        perServing[revisionID] = try IntakeRecord(
                            taking: 1, of: stored.product, catalogue: catalogue,
                            instant: Date(), timeZone: .current
                        ).doses
                        productOf[revisionID] = stored.product.id
                    }
                    guard let servings = Decimal.fromDatabaseValue(.text(dose.servings)) else {
                        throw DatabaseError.misuse("unreadable stored decimal")
                    }
                    let doses =
                        servings == 1
                        ? perServing[revisionID]!
                        : try perServing[revisionID]!.map {
                            IngredientDose(ingredientKey: $0.ingredientKey, amount: try $0.amount.scaled(by: servings), context: $0.context)
                        }
                    prepared[key] = (productOf[revisionID]!, servings, doses)
                }
                let (productID, servings, doses) = prepared[key]!
                if zones[dose.timeZone] == nil { zones[dose.timeZone] = TimeZone(identifier: dose.timeZone) ?? TimeZone(identifier: "UTC")! }
                guard let instant = Timestamp.date(from: dose.takenAt) else { throw DatabaseError.misuse("unreadable stored instant") }
                return IntakeRecord(
                    productID: productID, status: .taken, servings: servings, doses: doses,
                    instant: instant, timeZone: zones[dose.timeZone]!)
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
            let store = RegimenStore(db)
            guard try store.latestProduct(productID) != nil else { throw ScheduleError.productNotFound }
            try store.insertSupplyCount(productID, count: count, at: now)
        }
    }

    /// The count on hand and the "runs out around" estimate; nil when no count was ever set.
    public func supply(_ productID: ProductID) throws -> SupplyStatus? {
        let day = today()
        return try database.read { db in try supplyStatus(productID, day: day, RegimenStore(db)) }
    }

    /// The supply of every product with a count set, by name.
    public func supplies() throws -> [SupplyStatus] {
        let day = today()
        return try database.read { db in
            let store = RegimenStore(db)
            let archived = try store.archivedProductIDs()
            return try store.trackedProductIDs().filter { !archived.contains($0) }.compactMap { try supplyStatus($0, day: day, store) }
                .sorted { $0.productName.lowercased() < $1.productName.lowercased() }
        }
    }

    // MARK: internals: schedules

    private func appendRevision(
        _ id: ScheduleID, effectiveFrom: LocalDay,
        _ make: (ScheduleRevision) throws -> (ScheduleState, SchedulePlan)
    ) throws -> ScheduleRevision {
        let now = clock.now()
        return try database.write { db in
            let store = RegimenStore(db)
            try InsightInputs.ledgerChanged(db, at: now)
            let history = try history(of: id, store)
            let latest = history.latest!
            guard latest.state != .stopped else { throw ScheduleError.scheduleStopped }
            let (state, plan) = try make(latest)
            guard plan.productID == latest.plan.productID else { throw ScheduleError.productCannotChange }
            guard effectiveFrom > latest.effectiveFrom else { throw ScheduleError.overlappingRevision }
            if let lastLogged = try store.lastLoggedDoseDay(of: id), effectiveFrom <= lastLogged { throw ScheduleError.revisionBeforeLoggedDoses }
            let revision = ScheduleRevision(
                id: .random(), scheduleID: id, number: latest.number + 1, effectiveFrom: effectiveFrom,
                state: state, plan: plan, recordedAt: now)
            do {
                try store.insert(revision)
            } catch let error as DatabaseError where error.constraintKind == .unique {
                throw ScheduleError.overlappingRevision
            }
            return revision
        }
    }

    private func history(of id: ScheduleID, _ store: RegimenStore) throws -> ScheduleHistory {
        guard let history = try store.history(of: id) else { throw ScheduleError.scheduleNotFound }
        return history
    }

    // MARK: internals: ledger

    private func logUnscheduled(
        kind: IntakeKind, productID: ProductID, scheduleRevision: ScheduleRevisionID?,
        servings: Decimal, at: Date?
    ) throws -> LedgerEntry {
        let now = clock.now()
        let zone = clock.timeZone
        let takenAt = at ?? now
        if let at { try TakenTime.check(at, doseDay: nil, now: now, zone: zone) }
        return try database.write { db in
            let store = RegimenStore(db)
            try InsightInputs.ledgerChanged(db, at: now)
            guard let product = try store.latestProduct(productID) else { throw ScheduleError.productNotFound }
            let id = IntakeRecordID.random()
            try store.insert(
                NewIntakeRecord(
                    id: id, kind: kind, status: .taken, productID: productID,
                    productRevisionID: product.revisionID, scheduleRevisionID: scheduleRevision,
                    servings: servings, takenAt: takenAt, timeZone: zone, recordedAt: now))
            try recordSupplyChange(product: product, servings: servings, sign: -1, intake: id, at: now, store)
            return try store.entry(id)!
        }
    }

    private func checkServings(_ servings: Decimal) throws {
        guard !servings.isNaN, servings > 0 else { throw ScheduleError.servingsNotPositive }
        guard servings <= SchedulePlan.maximumServings else { throw ScheduleError.tooManyServings }
    }

    /// Adds a supply change for a tracked product (one with a count set); untracked products get none.
    private func recordSupplyChange(
        product: StoredProduct, servings: Decimal, sign: Int, intake: IntakeRecordID,
        at now: Date, _ store: RegimenStore
    ) throws {
        guard try store.isTracked(product.product.id) else { return }
        let units = Self.units(servings: servings, of: product.product) * Decimal(sign)
        try store.insertSupplyChange(product.product.id, delta: units, intake: intake, at: now)
    }

    private static func units(servings: Decimal, of product: Product) -> Decimal {
        product.countsUnits ? servings * product.servingSize.value : servings
    }

    private func supplyStatus(_ productID: ProductID, day: LocalDay, _ store: RegimenStore) throws -> SupplyStatus? {
        guard let supply = try store.supplySinceLastCount(productID), let product = try store.latestProduct(productID) else { return nil }
        let onHand = supply.changes.reduce(supply.count, +)
        var daily: Decimal = 0
        for history in try store.allHistories() {
            guard let revision = history.revision(on: day), revision.plan.productID == productID, revision.state == .active,
                revision.plan.endDay.map({ day <= $0 }) ?? true
            else { continue }
            daily +=
                Self.units(servings: revision.plan.servings, of: product.product) * Decimal(revision.plan.times.count)
                * revision.plan.recurrence.shareOfDays
        }
        var runsOut: LocalDay?
        if daily > 0 {
            let days = max(0, NSDecimalNumber(decimal: onHand / daily).doubleValue.rounded(.down))
            runsOut = day.adding(days: Int(min(days, 100_000)))
        }
        return SupplyStatus(
            productID: productID, productName: product.product.name, countsUnits: product.product.servingSize.unit == .count,
            onHand: onHand, dailyUse: daily > 0 ? daily : nil, runsOutAround: runsOut, noun: product.product.countNoun(onHand))
    }
}
