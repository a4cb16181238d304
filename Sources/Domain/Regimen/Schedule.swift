import CairnCore
import Foundation

/// Tag for schedules.
public enum ScheduleTag {}
/// The identifier of a schedule (stable across its revisions).
public typealias ScheduleID = Identifier<ScheduleTag>
/// Tag for schedule revisions.
public enum ScheduleRevisionTag {}
/// The identifier of one revision of a schedule.
public typealias ScheduleRevisionID = Identifier<ScheduleRevisionTag>
/// Tag for product revisions.
public enum ProductRevisionTag {}
/// The identifier of one revision of a product (what its label said from a given moment on).
public typealias ProductRevisionID = Identifier<ProductRevisionTag>

/// On which days a schedule has doses.
public enum Recurrence: Hashable, Sendable {
    /// Every day.
    case daily
    /// On the given weekdays only.
    case weekdays(Set<Weekday>)
    /// Every `n` days counted from the start date (1 = daily, 2 = every other day).
    case everyNDays(Int)
    /// No scheduled doses: each dose is logged when taken.
    case asNeeded

    /// Whether `day` has doses, for a schedule starting on `start`.
    public func includes(_ day: LocalDay, start: LocalDay) -> Bool {
        switch self {
        case .daily: return true
        case .weekdays(let days): return days.contains(day.weekday)
        case .everyNDays(let n): return n > 0 && ((start.days(to: day) % n) + n) % n == 0
        case .asNeeded: return false
        }
    }

    /// The average share of days with doses (1 for daily, 3/7 for three weekdays, 1/n, 0 as needed).
    public var shareOfDays: Decimal {
        switch self {
        case .daily: 1
        case .weekdays(let days): Decimal(days.count) / 7
        case .everyNDays(let n): n > 0 ? 1 / Decimal(n) : 0
        case .asNeeded: 0
        }
    }

    /// The kinds of recurrence a person chooses from, named as the command line and the web form name them.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case daily
        /// Every N days from the start.
        case every
        /// On some weekdays.
        case weekdays
        /// No set times.
        case asNeeded = "as-needed"
    }

    /// The recurrence of `kind` (a `Kind` raw value): `interval` is read for `every` (a whole number of days,
    /// 1 to 366), `weekdays` for `weekdays` (see `Weekday.set(parsing:)`); the other text is ignored. Throws
    /// `ScheduleError.unknownRecurrence`, `.intervalOutOfRange`, `.unreadableWeekday` or `.noWeekdays`.
    public init(kind: String, interval: String, weekdays: String) throws {
        switch Kind(rawValue: kind.trimmingCharacters(in: .whitespaces).lowercased()) {
        case .daily: self = .daily
        case .asNeeded: self = .asNeeded
        case .every:
            let text = interval.trimmingCharacters(in: .whitespaces)
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text),
                (1...SchedulePlan.maximumIntervalDays).contains(n)
            else { throw ScheduleError.intervalOutOfRange }
            self = .everyNDays(n)
        case .weekdays: self = .weekdays(try Weekday.set(parsing: weekdays))
        case nil: throw ScheduleError.unknownRecurrence
        }
    }

    /// The recurrence written in one word, as the command line takes it: "daily", "as-needed", "every:N", or
    /// weekdays such as "mon,wed,fri". Throws like `init(kind:interval:weekdays:)`.
    public init(parsing text: String) throws {
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        if key.hasPrefix("every:") {
            try self.init(kind: Kind.every.rawValue, interval: String(key.dropFirst("every:".count)), weekdays: "")
        } else if Kind(rawValue: key) == .daily || Kind(rawValue: key) == .asNeeded {
            try self.init(kind: key, interval: "", weekdays: "")
        } else if !key.isEmpty, key.split(whereSeparator: { $0 == "," || $0.isWhitespace }).allSatisfy({ Weekday(parsing: String($0)) != nil }) {
            try self.init(kind: Kind.weekdays.rawValue, interval: "", weekdays: key)
        } else {
            throw ScheduleError.unknownRecurrence
        }
    }

    /// Which kind this is.
    public var kind: Kind {
        switch self {
        case .daily: .daily
        case .everyNDays: .every
        case .weekdays: .weekdays
        case .asNeeded: .asNeeded
        }
    }

    /// "daily", "mon,wed,fri", "every 2 days", "as needed".
    public var summary: String {
        switch self {
        case .daily: "daily"
        case .weekdays(let days): days.sorted().map(\.abbreviation).joined(separator: ",")
        case .everyNDays(let n): n == 1 ? "daily" : "every \(n) days"
        case .asNeeded: "as needed"
        }
    }
}

/// Whether a schedule revision produces doses.
public enum ScheduleState: String, Hashable, Codable, Sendable, CaseIterable {
    /// Doses are due.
    case active
    /// No doses until a later revision resumes it.
    case paused
    /// Ended for good: no doses, and no later revisions.
    case stopped
}

/// Whose wall clock a schedule's times are read on.
///
/// Most schedules follow the person: 08:00 is 08:00 of the machine's current zone, wherever they are. A schedule
/// may instead name a zone (a dose timed to another place's clock, or one that must stay a fixed number of hours
/// apart across a trip): then 08:00 is 08:00 in that zone, and on the person's own clock it moves when they travel.
public enum ScheduleZone: Hashable, Sendable {
    /// The machine's current zone (the default).
    case followsYou
    /// One named zone, whatever zone the machine is in.
    case fixed(TimeZone)

    /// The words that choose `followsYou` ("local", or nothing); anything else is read as a zone name.
    public static let followsYouWords: Set<String> = ["", "local"]

    /// Parses a zone as the person types it: nothing or "local" for `followsYou`, else an IANA zone name such as
    /// America/New_York or UTC (letter case ignored). Throws `ScheduleError.unknownTimeZone` for a name the
    /// system's zone database does not have.
    public init(parsing text: String) throws {
        let key = text.trimmingCharacters(in: .whitespaces)
        if Self.followsYouWords.contains(key.lowercased()) {
            self = .followsYou
            return
        }
        let lowered = key.lowercased()
        guard let name = (TimeZone.knownTimeZoneIdentifiers + ["UTC"]).first(where: { $0.lowercased() == lowered }),
            let zone = TimeZone(identifier: name)
        else { throw ScheduleError.unknownTimeZone }
        self = .fixed(zone)
    }

    /// The stored and shown name: the zone's identifier, nil when the schedule follows the person.
    public var identifier: String? {
        if case .fixed(let zone) = self { return zone.identifier }
        return nil
    }

    /// The zone whose wall clock the times are read on, for a person now in `personZone`.
    public func resolved(_ personZone: TimeZone) -> TimeZone {
        if case .fixed(let zone) = self { return zone }
        return personZone
    }
}

/// What a schedule asks for: the product, servings per dose, times of day, days, start and optional end, and
/// whose clock the times are on. Validated on construction, so an invalid plan never reaches storage.
public struct SchedulePlan: Hashable, Sendable {
    /// The largest number of servings one dose may have.
    public static let maximumServings: Decimal = 100
    /// The largest interval of `everyNDays`.
    public static let maximumIntervalDays = 366

    /// The product taken.
    public let productID: ProductID
    /// Servings per dose (e.g. 1, 2 or 0.5).
    public let servings: Decimal
    /// The wall-clock times of the doses on a dose day, sorted; empty only for `asNeeded`.
    public let times: [TimeSlot]
    /// Which days have doses.
    public let recurrence: Recurrence
    /// The first day.
    public let startDay: LocalDay
    /// The last day, if any (inclusive).
    public let endDay: LocalDay?
    /// Whose wall clock `times`, `startDay` and `endDay` are read on.
    public let zone: ScheduleZone

    /// A plan. Throws `ScheduleError` for servings of zero or above `maximumServings`, no times (unless as
    /// needed), the same time twice, no weekdays, an interval outside 1...366, or an end before the start.
    public init(
        productID: ProductID, servings: Decimal = 1, times: [TimeSlot], recurrence: Recurrence,
        startDay: LocalDay, endDay: LocalDay? = nil, zone: ScheduleZone = .followsYou
    ) throws {
        guard !servings.isNaN, servings > 0 else { throw ScheduleError.servingsNotPositive }
        guard servings <= Self.maximumServings else { throw ScheduleError.tooManyServings }
        switch recurrence {
        case .asNeeded:
            guard times.isEmpty else { throw ScheduleError.asNeededHasNoTimes }
        case .weekdays(let days):
            guard !days.isEmpty else { throw ScheduleError.noWeekdays }
            guard !times.isEmpty else { throw ScheduleError.noTimes }
        case .everyNDays(let n):
            guard (1...Self.maximumIntervalDays).contains(n) else { throw ScheduleError.intervalOutOfRange }
            guard !times.isEmpty else { throw ScheduleError.noTimes }
        case .daily:
            guard !times.isEmpty else { throw ScheduleError.noTimes }
        }
        guard Set(times).count == times.count else { throw ScheduleError.repeatedTime }
        if let endDay, endDay < startDay { throw ScheduleError.endsBeforeStart }
        self.productID = productID
        self.servings = servings
        self.times = times.sorted()
        self.recurrence = recurrence
        self.startDay = startDay
        self.endDay = endDay
        self.zone = zone
    }
}

/// One effective-dated revision of a schedule: the plan and state in force from `effectiveFrom` until the
/// next revision's `effectiveFrom`. Revisions are never edited; a change is a new revision.
public struct ScheduleRevision: Hashable, Sendable {
    /// This revision.
    public let id: ScheduleRevisionID
    /// The schedule it belongs to.
    public let scheduleID: ScheduleID
    /// 1 for the first revision, then 2, 3, ...
    public let number: Int
    /// The first day this revision is in force.
    public let effectiveFrom: LocalDay
    /// Active, paused or stopped.
    public let state: ScheduleState
    /// The plan.
    public let plan: SchedulePlan
    /// When the revision was saved.
    public let recordedAt: Date

    /// A revision (normally read from storage).
    public init(
        id: ScheduleRevisionID, scheduleID: ScheduleID, number: Int, effectiveFrom: LocalDay,
        state: ScheduleState, plan: SchedulePlan, recordedAt: Date
    ) {
        self.id = id
        self.scheduleID = scheduleID
        self.number = number
        self.effectiveFrom = effectiveFrom
        self.state = state
        self.plan = plan
        self.recordedAt = recordedAt
    }

    /// The doses this revision has on `day` (which must be a day it is in force): none unless active, within
    /// start...end and a dose day of the recurrence.
    public func occurrences(on day: LocalDay) -> [DoseOccurrence] {
        guard state == .active, day >= plan.startDay, plan.endDay.map({ day <= $0 }) ?? true,
            plan.recurrence.includes(day, start: plan.startDay)
        else { return [] }
        return plan.times.map { DoseOccurrence(revisionID: id, day: day, slot: $0) }
    }

    /// When one of this revision's doses is due, and where it falls on the clock of a person now in `personZone`.
    public func timing(of occurrence: DoseOccurrence, personZone: TimeZone) -> DoseTiming {
        let dueAt = WallClock.instant(of: occurrence.day, at: occurrence.slot, in: plan.zone.resolved(personZone))
        guard case .fixed = plan.zone else { return DoseTiming(dueAt: dueAt, day: occurrence.day, time: occurrence.slot) }
        return DoseTiming(dueAt: dueAt, day: LocalDay(dueAt, in: personZone), time: TimeSlot(dueAt, in: personZone))
    }
}

/// When a scheduled dose is due: the instant, and the person's day and wall-clock time it falls on. For a
/// schedule that follows the person these are the occurrence's own day and slot; for one with a fixed zone they
/// are where that zone's time lands on the person's clock (08:00 in New York is 14:00 in Paris).
public struct DoseTiming: Hashable, Sendable {
    /// The instant the dose is due.
    public let dueAt: Date
    /// The person's local day the dose is listed on.
    public let day: LocalDay
    /// The wall-clock time of `dueAt` on the person's clock.
    public let time: TimeSlot

    /// A timing.
    public init(dueAt: Date, day: LocalDay, time: TimeSlot) {
        self.dueAt = dueAt
        self.day = day
        self.time = time
    }

    /// How long before its time a dose may be logged as taken without being asked first: an hour.
    public static let earlyWindow: TimeInterval = 3600

    /// Whether taking the dose at `takenAt` is more than an hour before its time (every door asks once then).
    public func isEarly(takenAt: Date) -> Bool { takenAt < dueAt.addingTimeInterval(-Self.earlyWindow) }

    /// The schedule days whose doses may fall on the person's `day`: that day alone when the schedule follows the
    /// person; for a fixed zone two days either side (zones are at most 26 hours apart).
    public static func scheduleDays(listedOn day: LocalDay, zone: ScheduleZone) -> [LocalDay] {
        guard case .fixed = zone else { return [day] }
        return (-2...2).map { day.adding(days: $0) }
    }
}

/// The revisions of one schedule, oldest first, and which one is in force on a day.
public struct ScheduleHistory: Hashable, Sendable {
    /// Every revision, by `effectiveFrom` ascending.
    public let revisions: [ScheduleRevision]

    /// A history; `revisions` are sorted by `effectiveFrom`.
    public init(revisions: [ScheduleRevision]) {
        self.revisions = revisions.sorted { $0.effectiveFrom < $1.effectiveFrom }
    }

    /// The revision in force on `day`: the latest whose `effectiveFrom` is on or before it.
    public func revision(on day: LocalDay) -> ScheduleRevision? {
        revisions.last { $0.effectiveFrom <= day }
    }

    /// The newest revision.
    public var latest: ScheduleRevision? { revisions.last }

    /// The doses of `day`, from the revision in force that day.
    public func occurrences(on day: LocalDay) -> [DoseOccurrence] {
        revision(on: day)?.occurrences(on: day) ?? []
    }
}

/// One scheduled dose: a slot on a local day of one schedule revision.
///
/// Identity rule: an occurrence is (revision, local day, wall-clock slot), never an instant; the day and slot
/// are on the schedule's clock (`ScheduleZone`). By default times follow the person ("08:00 wherever I am"):
/// "today" is the local day of now in the person's current zone (from the Clock), and a slot is due at that
/// wall-clock time in that zone (see `WallClock` for DST). Flying east or west changes which local day is
/// "today", but each (day, slot) exists once, so a trip or a DST change never makes a second occurrence of a
/// slot and never removes one. A schedule with a fixed zone has its (day, slot) in that zone; `DoseTiming` says
/// on which of the person's days it is listed.
public struct DoseOccurrence: Hashable, Sendable, Comparable {
    /// The schedule revision in force that day.
    public let revisionID: ScheduleRevisionID
    /// The local day.
    public let day: LocalDay
    /// The wall-clock time.
    public let slot: TimeSlot

    /// An occurrence.
    public init(revisionID: ScheduleRevisionID, day: LocalDay, slot: TimeSlot) {
        self.revisionID = revisionID
        self.day = day
        self.slot = slot
    }

    /// The text the CLI and web use to name this dose: "<revision id>_<yyyy-mm-dd>_<hhmm>".
    public var doseID: String {
        "\(revisionID.rawValue)_\(day)_" + String(format: "%02d%02d", slot.hour, slot.minute)
    }

    /// Parses a `doseID`; nil when the text is not in that shape.
    public init?(doseID text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[2].count == 4,
            let day = LocalDay(parsing: String(parts[1])), let slot = TimeSlot(parsing: String(parts[2]))
        else { return nil }
        self.init(revisionID: ScheduleRevisionID(String(parts[0])), day: day, slot: slot)
    }

    /// By day, then slot, then revision id.
    public static func < (a: DoseOccurrence, b: DoseOccurrence) -> Bool {
        (a.day, a.slot, a.revisionID.rawValue) < (b.day, b.slot, b.revisionID.rawValue)
    }
}

/// The parts of a schedule a person types or chooses, to put each refusal beside its own field.
public enum ScheduleField: Hashable, Sendable, CaseIterable {
    case product, servings, recurrence, times, interval, weekdays, start, end, zone
    /// The day a change of an existing schedule takes effect.
    case from
}

extension ScheduleError {
    /// The field a refusal of a plan or of its parsers is about, nil for refusals about something else.
    public var field: ScheduleField? {
        switch self {
        case .servingsNotPositive, .tooManyServings, .unreadableServings: .servings
        case .noTimes, .asNeededHasNoTimes, .repeatedTime, .unreadableTime: .times
        case .noWeekdays, .unreadableWeekday: .weekdays
        case .intervalOutOfRange: .interval
        case .unknownRecurrence: .recurrence
        case .endsBeforeStart: .end
        case .unknownTimeZone: .zone
        case .productNotFound, .noProductChosen, .productArchived: .product
        case .overlappingRevision, .revisionBeforeLoggedDoses: .from
        default: nil
        }
    }
}

/// Why a schedule, a check-in or a correction was refused. Messages never repeat what was typed.
public enum ScheduleError: CairnError, Hashable, Sendable {
    /// Servings of zero or less.
    case servingsNotPositive
    /// More servings per dose than `SchedulePlan.maximumServings`.
    case tooManyServings
    /// A scheduled plan without times.
    case noTimes
    /// An as-needed plan with times.
    case asNeededHasNoTimes
    /// The same time listed twice.
    case repeatedTime
    /// A weekday plan with no weekdays.
    case noWeekdays
    /// An every-N-days interval outside 1...366.
    case intervalOutOfRange
    /// An end date before the start date.
    case endsBeforeStart
    /// A new revision starting on or before the latest revision's day.
    case overlappingRevision
    /// A new revision starting on or before a day that already has logged doses.
    case revisionBeforeLoggedDoses
    /// A change to a stopped schedule.
    case scheduleStopped
    /// Pausing a paused schedule or resuming an active one.
    case alreadyInThatState
    /// A time of day that is not HH:MM.
    case unreadableTime
    /// A weekday name that is not known.
    case unreadableWeekday
    /// A recurrence that is none of daily, every N days, some weekdays or as needed.
    case unknownRecurrence
    /// Servings per dose that are not a number.
    case unreadableServings
    /// A dose id that names no scheduled dose.
    case doseNotFound
    /// A check-in for a dose on a day after today.
    case doseNotDueYet
    /// A schedule id that names no schedule.
    case scheduleNotFound
    /// A product reference that names no product.
    case productNotFound
    /// No product chosen for a schedule.
    case noProductChosen
    /// Archiving a product while a schedule of it is active or paused.
    case productStillScheduled
    /// A new schedule for an archived product.
    case productArchived
    /// An id prefix that fits more than one record, schedule, product or dose.
    case idAmbiguous
    /// A product name shared by several products: use the id.
    case productNameAmbiguous
    /// A ledger record id that names no record.
    case recordNotFound
    /// A correction of a record that a later record already corrected.
    case recordAlreadyCorrected
    /// An as-needed dose logged against a schedule that is not as needed.
    case notAnAsNeededSchedule
    /// A status other than taken or skipped written to the ledger.
    case statusNotLoggable
    /// A revision naming another product than its schedule.
    case productCannotChange
    /// A supply count below zero or above one million.
    case supplyOutOfRange
    /// A page size outside 1...1000 or a negative offset.
    case pageOutOfRange
    /// A range whose end is before its start.
    case rangeEndsBeforeStart
    /// A "taken at" time that is not HH:MM, a day and a time, or an ISO 8601 time.
    case unreadableTakenTime
    /// The time taken was written with a UTC offset beyond ±14:00 (`InstantInput`).
    case takenTimeOffsetOutOfRange
    /// A "taken at" time later than now.
    case takenInFuture
    /// A "taken at" time on another day than the dose's own day or today.
    case takenOutsideDoseDay
    /// A time zone name the system's zone database does not have.
    case unknownTimeZone

    /// The "not found" kinds (answered 404 on the web).
    public var errorKind: ErrorKind {
        [.doseNotFound, .scheduleNotFound, .productNotFound, .recordNotFound].contains(self) ? .notFound : .refusedInput
    }

    /// Plain English; never contains user content.
    public var userMessage: String {
        switch self {
        case .servingsNotPositive: "A dose needs more than zero servings."
        case .tooManyServings: "A dose can have at most 100 servings. Check the number."
        case .noTimes: "A schedule needs at least one time of day (for example 08:00), unless it is as needed."
        case .asNeededHasNoTimes: "An as-needed schedule has no times of day."
        case .repeatedTime: "The same time of day is listed twice."
        case .noWeekdays: "Choose at least one weekday."
        case .intervalOutOfRange: "Every N days takes a whole number of days, from 1 to 366."
        case .endsBeforeStart: "The schedule ends before it starts. Check the start and end dates."
        case .overlappingRevision: "A change must start after the day the previous change started, so revisions do not overlap."
        case .revisionBeforeLoggedDoses: "A change cannot start on or before a day that already has logged doses. Choose a later day."
        case .scheduleStopped: "This schedule is stopped and cannot be changed. Add a new schedule instead."
        case .alreadyInThatState: "The schedule is already in that state on that day."
        case .unreadableTime: "A time of day must be written as HH:MM, for example 08:00."
        case .unreadableWeekday: "Weekdays are written mon, tue, wed, thu, fri, sat, sun."
        case .unknownRecurrence: "Choose how often: daily, every N days (every:N), some weekdays (such as mon,wed,fri) or as needed (as-needed)."
        case .unreadableServings: "Servings must be a number, like 1 or 0.5."
        case .doseNotFound: "There is no scheduled dose with that id. Run 'cairn regimen today' to see today's doses."
        case .doseNotDueYet: "That dose is on a later day and cannot be logged yet."
        case .scheduleNotFound: "There is no schedule with that id."
        case .productNotFound: "There is no product with that id or name."
        case .noProductChosen: "Choose a product."
        case .productNameAmbiguous: "Several products have that name. Use the product id instead."
        case .idAmbiguous: "That start of an id fits more than one. Give more of it."
        case .productStillScheduled:
            "A schedule of this product is active or paused. Stop it first (its history stays), then archive the product."
        case .productArchived: "This product is archived. Restore it first to give it a new schedule."
        case .recordNotFound: "There is no log entry with that id."
        case .recordAlreadyCorrected: "That log entry was already corrected. Correct the newest entry instead."
        case .notAnAsNeededSchedule: "That schedule has set times. Log an extra dose of the product instead."
        case .statusNotLoggable: "A dose is logged as taken or skipped."
        case .productCannotChange: "A schedule keeps its product. Stop this schedule and add one for the other product."
        case .supplyOutOfRange: "A count on hand must be from 0 to 1,000,000."
        case .pageOutOfRange: "A page holds 1 to 1000 entries, from an offset of 0 or more."
        case .rangeEndsBeforeStart: "The end date is before the start date."
        case .unreadableTakenTime: "Write the time it was taken as HH:MM, for example 08:05 (or a date and a time: 2026-03-10 08:05)."
        case .takenTimeOffsetOutOfRange:
            "The time taken has a UTC offset beyond ±14:00, which no place uses. Write an offset from -14:00 to +14:00 (for example 2026-03-10T09:05+01:00), or leave it out to use your own time zone."
        case .takenInFuture: "That time is later than now. Give the time the dose was really taken."
        case .takenOutsideDoseDay: "A dose is logged at a time on its own day or today. Check the date."
        case .unknownTimeZone:
            "That is not a time zone Cairn knows. Write a zone name such as Europe/Paris or America/New_York, or local to follow this computer's zone."
        }
    }
}

/// A dose logged as taken more than an hour before its time, not yet confirmed: every door asks once (a confirmation
/// step on a page, a question at a terminal, `--yes` without one). Nothing was written.
public struct EarlyDoseQuestion: CairnError, Hashable, Sendable {
    /// The product's name, for the question.
    public let productName: String
    /// The dose's time on the person's clock.
    public let dueTime: TimeSlot
    /// The dose asked about.
    public let doseID: String

    public init(productName: String, dueTime: TimeSlot, doseID: String) {
        self.productName = productName
        self.dueTime = dueTime
        self.doseID = doseID
    }

    public var errorKind: ErrorKind { .refusedInput }

    /// The question, with the product named (the person's own product, shown back to them).
    public var question: String { "\(productName) is due at \(dueTime), more than an hour later. Log it as taken anyway?" }

    public var userMessage: String { "This dose is due more than an hour later, so it was not logged without a confirmation." }
}
