import CairnCore
import Foundation

/// Tag for intake ledger records.
public enum IntakeRecordTag {}
/// The identifier of one ledger record.
public typealias IntakeRecordID = Identifier<IntakeRecordTag>

/// Why a dose was logged: scheduled doses are kept apart from unscheduled ones.
public enum IntakeKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// A dose of a schedule with set times, keyed on (revision, day, slot).
    case scheduled
    /// A dose of an as-needed schedule.
    case asNeeded = "as-needed"
    /// A dose of a product outside any schedule.
    case extra
}

/// One record of the intake ledger. Records are never changed: a correction is a new record that
/// `supersedes` an earlier one, and both stay in the history.
public struct LedgerEntry: Hashable, Sendable {
    /// This record.
    public let id: IntakeRecordID
    /// Scheduled, as needed or extra.
    public let kind: IntakeKind
    /// Taken or skipped (a dose not yet logged has no record).
    public let status: IntakeStatus
    /// The product.
    public let productID: ProductID
    /// The product's label revision in force when the dose was logged.
    public let productRevisionID: ProductRevisionID
    /// The product's name in that revision.
    public let productName: String
    /// The schedule revision (scheduled and as-needed doses).
    public let scheduleRevisionID: ScheduleRevisionID?
    /// The scheduled dose (scheduled doses only).
    public let occurrence: DoseOccurrence?
    /// Servings taken or skipped.
    public let servings: Decimal
    /// When it was taken or skipped, as an instant.
    public let takenAt: Date
    /// The person's IANA time zone at that moment.
    public let timeZone: TimeZone
    /// The local day of `takenAt` in `timeZone`.
    public let localDay: LocalDay
    /// When the record was saved.
    public let recordedAt: Date
    /// The record this one corrects, if any.
    public let supersedes: IntakeRecordID?
    /// The record that corrects this one, if any (then this one no longer counts).
    public let supersededBy: IntakeRecordID?
    /// The name of the file an imported record came from ("history.csv"; empty when not known); nil for a
    /// dose logged in Cairn.
    public let importedFrom: String?

    /// A record (normally read from storage).
    public init(
        id: IntakeRecordID, kind: IntakeKind, status: IntakeStatus, productID: ProductID,
        productRevisionID: ProductRevisionID, productName: String, scheduleRevisionID: ScheduleRevisionID?,
        occurrence: DoseOccurrence?, servings: Decimal, takenAt: Date, timeZone: TimeZone, localDay: LocalDay,
        recordedAt: Date, supersedes: IntakeRecordID?, supersededBy: IntakeRecordID?, importedFrom: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.status = status
        self.productID = productID
        self.productRevisionID = productRevisionID
        self.productName = productName
        self.scheduleRevisionID = scheduleRevisionID
        self.occurrence = occurrence
        self.servings = servings
        self.takenAt = takenAt
        self.timeZone = timeZone
        self.localDay = localDay
        self.recordedAt = recordedAt
        self.supersedes = supersedes
        self.supersededBy = supersededBy
        self.importedFrom = importedFrom
    }

    /// True when no later record corrects this one.
    public var isCurrent: Bool { supersededBy == nil }
    /// True when this record counts towards exposure and supply: taken and not corrected.
    public var countsAsIntake: Bool { status == .taken && isCurrent }
    /// True when this record undoes the one it supersedes (the dose is back to not logged).
    public var isUndo: Bool { status == .undone }
}

extension LedgerEntry: Encodable {
    private enum CodingKeys: String, CodingKey {
        case id, kind, status, productID, productRevisionID, productName, scheduleRevisionID, doseID, scheduledDay,
            scheduledTime, servings, takenAt, timeZone, localDay, recordedAt, supersedes, supersededBy, importedFrom
    }

    /// JSON with exact decimal strings, UTC instants and the IANA zone name.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(status, forKey: .status)
        try c.encode(productID, forKey: .productID)
        try c.encode(productRevisionID, forKey: .productRevisionID)
        try c.encode(productName, forKey: .productName)
        try c.encodeIfPresent(scheduleRevisionID, forKey: .scheduleRevisionID)
        try c.encodeIfPresent(occurrence?.doseID, forKey: .doseID)
        try c.encodeIfPresent(occurrence?.day.description, forKey: .scheduledDay)
        try c.encodeIfPresent(occurrence?.slot.description, forKey: .scheduledTime)
        try c.encode("\(servings)", forKey: .servings)
        try c.encode(DateText.utc(takenAt), forKey: .takenAt)
        try c.encode(timeZone.identifier, forKey: .timeZone)
        try c.encode(localDay.description, forKey: .localDay)
        try c.encode(DateText.utc(recordedAt), forKey: .recordedAt)
        try c.encodeIfPresent(supersedes, forKey: .supersedes)
        try c.encodeIfPresent(supersededBy, forKey: .supersededBy)
        try c.encodeIfPresent(importedFrom, forKey: .importedFrom)
    }

    /// The CSV header of `csvRow`.
    public static let csvHeader =
        "id,kind,status,product_id,product_revision_id,product_name,schedule_revision_id,dose_id,scheduled_day,scheduled_time,servings,taken_at,time_zone,local_day,recorded_at,supersedes,superseded_by"

    /// One CSV line (RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled).
    /// A field that starts with =, +, - or @ is prefixed with ' so a spreadsheet does not run it as a formula.
    public var csvRow: String {
        let fields: [String] = [
            id.rawValue, kind.rawValue, status.rawValue, productID.rawValue, productRevisionID.rawValue, productName,
            scheduleRevisionID?.rawValue ?? "", occurrence?.doseID ?? "", occurrence?.day.description ?? "",
            occurrence?.slot.description ?? "", "\(servings)", DateText.utc(takenAt), timeZone.identifier,
            localDay.description, DateText.utc(recordedAt), supersedes?.rawValue ?? "", supersededBy?.rawValue ?? "",
        ]
        return fields.map(CSV.field).joined(separator: ",")
    }
}

/// The state of one scheduled dose: three different states, two of them records.
public enum DoseState: String, Hashable, Codable, Sendable {
    /// No record yet.
    case notLogged = "not-logged"
    /// The current record says taken.
    case taken
    /// The current record says skipped (never counts as intake).
    case skipped
}
