import CairnCore
import Foundation
import Regimen

/// A product as saved: its newest label revision (or the one asked for).
public struct StoredProduct: Hashable, Sendable {
    /// The product and its label rows, as of this revision.
    public let product: Product
    /// This revision.
    public let revisionID: ProductRevisionID
    /// 1 for the first revision, then 2, 3, ...
    public let revisionNumber: Int
    /// When this revision was saved.
    public let recordedAt: Date
    /// Label rows whose name the catalogue does not know (flagged for the person to check).
    public var unknownIngredients: [String] { product.ingredients.filter { $0.catalogueID == nil }.map(\.nameOnLabel) }
}

/// A schedule as it stands: its newest revision and the product's name.
public struct ScheduleSummary: Hashable, Sendable {
    /// The schedule.
    public let scheduleID: ScheduleID
    /// The newest revision (it may take effect on a later day).
    public let latest: ScheduleRevision
    /// The revision in force today, if the schedule has started.
    public let inForceToday: ScheduleRevision?
    /// The product's current name.
    public let productName: String
}

/// One scheduled dose on the Today view.
public struct TodayDose: Hashable, Sendable {
    /// The dose (revision, day, slot).
    public let occurrence: DoseOccurrence
    /// The schedule.
    public let scheduleID: ScheduleID
    /// The product.
    public let productID: ProductID
    /// The product's current name.
    public let productName: String
    /// Servings per dose.
    public let servings: Decimal
    /// When the dose is due (see `WallClock` for DST, `DoseTiming` for a schedule with a fixed zone).
    public let dueAt: Date
    /// The person's local day the dose is listed on (the occurrence's own day unless the schedule has a fixed zone).
    public let day: LocalDay
    /// The due time on the person's clock (the slot itself unless the schedule has a fixed zone).
    public let time: TimeSlot
    /// Whose clock the schedule's times are on.
    public let zone: ScheduleZone
    /// Not logged, taken or skipped.
    public let state: DoseState
    /// The current record, when logged.
    public let record: LedgerEntry?

    /// A dose listed where `timing` puts it.
    public init(
        occurrence: DoseOccurrence, scheduleID: ScheduleID, productID: ProductID, productName: String, servings: Decimal,
        timing: DoseTiming, zone: ScheduleZone, state: DoseState, record: LedgerEntry?, amount: String? = nil
    ) {
        self.amount = amount ?? (servings == 1 ? "1 serving" : "\(servings) servings")
        self.occurrence = occurrence
        self.scheduleID = scheduleID
        self.productID = productID
        self.productName = productName
        self.servings = servings
        self.dueAt = timing.dueAt
        self.day = timing.day
        self.time = timing.time
        self.zone = zone
        self.state = state
        self.record = record
    }

    /// What is taken, in the product's units: "2 capsules", "1 serving (5 g)" (`Product.amountText`).
    public let amount: String

    /// The id the take and skip actions name.
    public var doseID: String { occurrence.doseID }

    /// For a schedule with a fixed zone whose clock differs from the person's, its own time: "08:00 America/New_York".
    public var scheduleTimeText: String? {
        guard let name = zone.identifier, time != occurrence.slot || day != occurrence.day else { return nil }
        return "\(occurrence.slot) \(name)"
    }

    /// The due time as the person reads it: "08:00", or with the schedule's own beside it, "14:00 (08:00 America/New_York)".
    public var timeText: String { scheduleTimeText.map { "\(time) (\($0))" } ?? time.description }
}

/// The Today view: every dose of the current local day, the batch due now, and the next doses.
public struct TodayView: Hashable, Sendable {
    /// The instant the view was made.
    public let now: Date
    /// The person's current zone (from the Clock); it decides "today".
    public let timeZone: TimeZone
    /// The current local day.
    public let day: LocalDay
    /// Every scheduled dose of `day`, by slot then product name.
    public let doses: [TodayDose]
    /// The doses due together now: the not-logged doses of the latest slot already due, else of the earliest
    /// slot still to come. Empty when everything of today is logged.
    public let currentBatch: [TodayDose]
    /// The not-logged doses after the current batch: the rest of today, else the first slot of tomorrow.
    public let next: [TodayDose]
    /// As-needed schedules in force today, which can be logged at any time.
    public let asNeeded: [ScheduleSummary]
    /// The as-needed and extra doses logged on `day` (current records, not undone), earliest first.
    public let unscheduledLogged: [LedgerEntry]

    /// A view (normally made by `RegimenService.todayView()`).
    public init(
        now: Date, timeZone: TimeZone, day: LocalDay, doses: [TodayDose], currentBatch: [TodayDose], next: [TodayDose],
        asNeeded: [ScheduleSummary], unscheduledLogged: [LedgerEntry] = []
    ) {
        self.now = now
        self.timeZone = timeZone
        self.day = day
        self.doses = doses
        self.currentBatch = currentBatch
        self.next = next
        self.asNeeded = asNeeded
        self.unscheduledLogged = unscheduledLogged
    }

    /// The not-logged doses of `day` before the current batch's slot (due earlier, still open).
    public var earlierOpen: [TodayDose] {
        guard let slot = currentBatch.first?.time else { return [] }
        return doses.filter { $0.state == .notLogged && $0.time < slot }
    }

    /// The not-logged doses of `day` after the current batch's slot.
    public var laterToday: [TodayDose] {
        guard let slot = currentBatch.first?.time else { return [] }
        return doses.filter { $0.state == .notLogged && $0.time > slot }
    }

    /// The logged doses of `day` (taken or skipped), by slot.
    public var loggedToday: [TodayDose] { doses.filter { $0.state != .notLogged } }

    /// The first doses of tomorrow, when nothing of today is left to log.
    public var tomorrow: [TodayDose] { next.filter { $0.day != day } }

    /// The dose the person most likely logs next: the first open dose of the current batch, else of the earlier
    /// open ones, else of the rest of today. Nil when everything of today is logged.
    public var nextToLog: TodayDose? { currentBatch.first ?? earlierOpen.first ?? laterToday.first }

    /// Whether the current batch's time has come; when false the batch is the next one coming up today.
    public var isBatchDue: Bool { currentBatch.first.map { $0.dueAt <= now } ?? false }

    /// How long after its time a batch reads "Due now"; later it reads "Due at 08:00, not logged yet" (an 08:00 dose
    /// at 14:30 is not due now, and the person should see that it was due hours ago).
    public static let dueNowWindow: TimeInterval = 60 * 60

    /// The heading for the current batch: "Due now (08:00)" within `dueNowWindow` of its time, "Due at 08:00, not
    /// logged yet" after it, "Coming up at 21:00" before it.
    public var batchHeading: String {
        guard let first = currentBatch.first else { return "Due now" }
        guard isBatchDue else { return "Coming up at \(first.time)" }
        return now.timeIntervalSince(first.dueAt) <= Self.dueNowWindow ? "Due now (\(first.time))" : "Due at \(first.time), not logged yet"
    }
}

/// A ledger query: newest first, optionally filtered by local day range and product.
public struct LedgerQuery: Hashable, Sendable {
    /// The first local day (inclusive), if any.
    public var from: LocalDay?
    /// The last local day (inclusive), if any.
    public var to: LocalDay?
    /// Only this product, if set.
    public var productID: ProductID?
    /// Rows per page, 1...1000.
    public var limit: Int
    /// Rows to skip, 0 or more.
    public var offset: Int

    /// A query.
    public init(from: LocalDay? = nil, to: LocalDay? = nil, productID: ProductID? = nil, limit: Int = 50, offset: Int = 0) {
        self.from = from
        self.to = to
        self.productID = productID
        self.limit = limit
        self.offset = offset
    }
}

/// One page of the ledger.
public struct LedgerPage: Hashable, Sendable {
    /// The records, newest first (corrected records included, marked by `supersededBy`).
    public let entries: [LedgerEntry]
    /// The offset of the next page, nil on the last page.
    public let nextOffset: Int?
}

/// One dose to log in a batch check-in.
public struct CheckInRequest: Hashable, Sendable {
    /// The dose (see `DoseOccurrence.doseID`).
    public let doseID: String
    /// Taken or skipped.
    public let status: IntakeStatus
    /// When; nil for now (or for `typedAt`).
    public let at: Date?
    /// "Taken at" as the person typed it (`TakenTime`), read against the dose's own day inside the check-in, so
    /// the dose id is parsed and its schedule read once.
    public let typedAt: String?
    /// The person confirmed taking it more than an hour before its time (`EarlyDoseQuestion`).
    public let confirmedEarly: Bool

    /// A request; give `at` or `typedAt`, not both (neither: now).
    public init(doseID: String, status: IntakeStatus, at: Date? = nil, typedAt: String? = nil, confirmedEarly: Bool = false) {
        precondition(at == nil || typedAt == nil, "a check-in has one time")
        self.doseID = doseID
        self.status = status
        self.at = at
        self.typedAt = typedAt
        self.confirmedEarly = confirmedEarly
    }
}

/// The outcome of a check-in: the record in force, and whether it was already there.
public struct CheckInResult: Hashable, Sendable {
    /// The record for this dose (the new one, or the one logged before).
    public let entry: LedgerEntry
    /// True when the dose had been logged before (by this or another process); nothing was written.
    public let alreadyLogged: Bool
    /// True when a dose of an earlier day was logged without a time, so at its scheduled time.
    public let atScheduledTime: Bool

    /// A result.
    public init(entry: LedgerEntry, alreadyLogged: Bool, atScheduledTime: Bool = false) {
        self.entry = entry
        self.alreadyLogged = alreadyLogged
        self.atScheduledTime = atScheduledTime
    }
}

/// The outcome of an undo: the undo record, the record it undid, and whether it was undone before.
public struct UndoResult: Hashable, Sendable {
    /// The `undone` record in force.
    public let entry: LedgerEntry
    /// The record that was undone.
    public let undid: LedgerEntry
    /// True when the record had been undone before; nothing was written.
    public let alreadyUndone: Bool
}

/// A product's count on hand.
public struct SupplyStatus: Hashable, Sendable {
    /// The product.
    public let productID: ProductID
    /// The product's current name.
    public let productName: String
    /// What is counted: "units" (capsules, tablets, ...) when a serving is a count, else "servings".
    public let countsUnits: Bool
    /// The count on hand now (may go below zero when more was logged than was on hand).
    public let onHand: Decimal
    /// Average use per day from the schedules in force today; nil when none.
    public let dailyUse: Decimal?
    /// The day the count reaches zero at `dailyUse`; nil without a daily use.
    public let runsOutAround: LocalDay?
    /// What the count counts, for the count on hand: "capsules", "1 capsule", "servings".
    public let noun: String

    /// The count in words, on every door: "25 capsules on hand; at about 2 a day, they last until around 19 Dec 2026."
    public var summary: String {
        guard onHand >= 0 else { return "More was logged than was on hand (\(onHand) \(noun)): count what is left and set it again." }
        var line = "\(onHand) \(noun) on hand"
        if let use = dailyUse, let day = runsOutAround {
            var rounded = Decimal()
            var value = use
            NSDecimalRound(&rounded, &value, 2, .plain)
            line += "; at about \(rounded) a day, they last until around \(DateText.day(day))"
        }
        return line + "."
    }

    /// Whole days from `today` until it runs out (0: today); nil without a daily use.
    public func daysLeft(from today: LocalDay) -> Int? { runsOutAround.map { today.days(to: $0) } }
}

/// The export formats of the ledger.
public enum LedgerExportFormat: String, Sendable, CaseIterable {
    /// Comma-separated values with a header row.
    case csv
    /// A JSON array of records.
    case json
}

/// How the scheduled doses of some days went, counted once for every page that says it (Today's last seven days,
/// the ledger's week): taken, skipped, and not logged. A skipped dose never counts as taken.
public struct DoseTally: Hashable, Sendable {
    public let taken: Int
    public let skipped: Int
    public let notLogged: Int

    /// The tally of `doses` due by `now` (a dose still to come is not counted).
    public init(_ doses: [TodayDose], dueBy now: Date) {
        let due = doses.filter { $0.dueAt <= now }
        taken = due.filter { $0.state == .taken }.count
        skipped = due.filter { $0.state == .skipped }.count
        notLogged = due.filter { $0.state == .notLogged }.count
    }

    /// Every dose counted.
    public var total: Int { taken + skipped + notLogged }

    /// "4 of 5 taken, 1 skipped" / "3 of 4 taken, 1 not logged" / "No doses were due".
    public var sentence: String {
        guard total > 0 else { return "No doses were due" }
        var text = "\(taken) of \(total) taken"
        if skipped > 0 { text += ", \(skipped) skipped" }
        if notLogged > 0 { text += ", \(notLogged) not logged" }
        return text
    }
}
