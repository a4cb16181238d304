import CairnCore
import Foundation

/// The health record types Cairn reads, from Apple Health's export and Health Connect's. Every other `Record` type
/// in an Apple export (and every other record table in a Health Connect export) is skipped and counted.
public enum HealthRecordKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `HKQuantityTypeIdentifierRestingHeartRate`, in count/min.
    case restingHeartRate = "resting_heart_rate"
    /// `HKQuantityTypeIdentifierHeartRateVariabilitySDNN`, in ms. SDNN only: never mixed with RMSSD.
    case heartRateVariabilitySDNN = "hrv_sdnn"
    /// `HKQuantityTypeIdentifierStepCount`, a count over an interval.
    case stepCount = "step_count"
    /// `HKQuantityTypeIdentifierBodyMass`, in kg, g, lb or st.
    case bodyMass = "body_mass"
    /// `HKCategoryTypeIdentifierSleepAnalysis`, a category value (see `HealthSleepValue`) over an interval.
    case sleepAnalysis = "sleep_analysis"
    /// A heart rate sample in count/min. Read from Health Connect's heart rate series only: an Apple export's
    /// `HKQuantityTypeIdentifierHeartRate` stays skipped, as before (see `typeIdentifier`).
    case heartRate = "heart_rate"
    /// `HKQuantityTypeIdentifierBloodPressureSystolic`, in mmHg.
    case bloodPressureSystolic = "blood_pressure_systolic"
    /// `HKQuantityTypeIdentifierBloodPressureDiastolic`, in mmHg.
    case bloodPressureDiastolic = "blood_pressure_diastolic"

    /// The HealthKit type identifier as an Apple export writes it in `Record type="..."`, or nil for a kind Cairn
    /// reads only from Health Connect (heart rate: a watch writes one every few minutes, and the Apple import has
    /// always skipped them).
    public var typeIdentifier: String? {
        switch self {
        case .restingHeartRate: return "HKQuantityTypeIdentifierRestingHeartRate"
        case .heartRateVariabilitySDNN: return "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        case .stepCount: return "HKQuantityTypeIdentifierStepCount"
        case .bodyMass: return "HKQuantityTypeIdentifierBodyMass"
        case .sleepAnalysis: return "HKCategoryTypeIdentifierSleepAnalysis"
        case .heartRate: return nil
        case .bloodPressureSystolic: return "HKQuantityTypeIdentifierBloodPressureSystolic"
        case .bloodPressureDiastolic: return "HKQuantityTypeIdentifierBloodPressureDiastolic"
        }
    }

    /// The kind whose HealthKit identifier is `identifier`, or nil for a type Cairn does not read.
    public init?(typeIdentifier identifier: String) {
        guard let kind = Self.allCases.first(where: { $0.typeIdentifier == identifier }) else { return nil }
        self = kind
    }
}

/// The values of `HKCategoryTypeIdentifierSleepAnalysis`, with HealthKit's raw numbers. The export writes them
/// either as the number or as the identifier (`HKCategoryValueSleepAnalysisAsleepCore`); both are read.
/// `inBed` overlaps the sleep stages: time in bed is not time asleep.
public enum HealthSleepValue: Int, Sendable, Hashable, CaseIterable, Codable {
    /// In bed, asleep or not (`HKCategoryValueSleepAnalysisInBed`).
    case inBed = 0
    /// Asleep, no stage known (`HKCategoryValueSleepAnalysisAsleepUnspecified`, formerly `Asleep`).
    case asleepUnspecified = 1
    /// Awake during a sleep period (`HKCategoryValueSleepAnalysisAwake`).
    case awake = 2
    /// Core (light) sleep (`HKCategoryValueSleepAnalysisAsleepCore`).
    case asleepCore = 3
    /// Deep sleep (`HKCategoryValueSleepAnalysisAsleepDeep`).
    case asleepDeep = 4
    /// REM sleep (`HKCategoryValueSleepAnalysisAsleepREM`).
    case asleepREM = 5

    /// Whether the value is one of the asleep stages.
    public var isAsleep: Bool {
        switch self {
        case .asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM: return true
        case .inBed, .awake: return false
        }
    }

    /// The value for the text of a `value` attribute: the raw number ("3") or the identifier
    /// ("HKCategoryValueSleepAnalysisAsleepCore"; the pre-2022 name "...Asleep" means unspecified); nil otherwise.
    public init?(exportText text: String) {
        if let number = Int(text), let value = HealthSleepValue(rawValue: number) {
            self = value
            return
        }
        let prefix = "HKCategoryValueSleepAnalysis"
        guard text.hasPrefix(prefix) else { return nil }
        switch text.dropFirst(prefix.count) {
        case "InBed": self = .inBed
        case "AsleepUnspecified", "Asleep": self = .asleepUnspecified
        case "Awake": self = .awake
        case "AsleepCore": self = .asleepCore
        case "AsleepDeep": self = .asleepDeep
        case "AsleepREM": self = .asleepREM
        default: return nil
        }
    }
}

/// An instant as the export writes it: UTC seconds plus the `±HHMM` offset it was written with.
public struct HealthTimestamp: Hashable, Sendable, Comparable, Codable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let utcSeconds: Int64
    /// The offset from UTC the export wrote, in seconds (e.g. +0200 is 7200).
    public let offsetSeconds: Int32

    /// A timestamp; the offset must be within ±14 hours (`InstantInput.largestOffset`, the widest any place uses).
    public init?(utcSeconds: Int64, offsetSeconds: Int32) {
        guard abs(Int(offsetSeconds)) <= InstantInput.largestOffset else { return nil }
        self.utcSeconds = utcSeconds
        self.offsetSeconds = offsetSeconds
    }

    /// Parses the export's date format, `2024-01-01 01:01:36 +0200`; nil for anything else.
    public init?(exportText text: String) {
        var copy = text
        guard let parsed = copy.withUTF8({ HealthTimestamp(bytes: $0) }) else { return nil }
        self = parsed
    }

    /// Parses `YYYY-MM-DD HH:MM:SS ±HHMM` from raw UTF-8 bytes without allocating.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 25, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x20, bytes[20] == 0x2B || bytes[20] == 0x2D
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                let digit = Int(bytes[i]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            let offsetHours = number(21, 2), let offsetMinutes = number(23, 2),
            hour < 24, minute < 60, second < 61, offsetMinutes < 60,
            let date = LocalDay(year: year, month: month, day: day)?.dayNumber
        else { return nil }
        let offset = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[20] == 0x2D ? -1 : 1)
        let local = Int64(date) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.init(utcSeconds: local - Int64(offset), offsetSeconds: Int32(offset))
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(utcSeconds)) }

    /// Orders by instant; equal instants with different offsets order by offset.
    public static func < (a: HealthTimestamp, b: HealthTimestamp) -> Bool {
        (a.utcSeconds, a.offsetSeconds) < (b.utcSeconds, b.offsetSeconds)
    }
}

/// One record read from an export, of a kind Cairn keeps. Values are as exported (body mass keeps its unit);
/// conversion happens when daily values are computed.
public struct HealthRecord: Hashable, Sendable {
    /// What the record measures.
    public let kind: HealthRecordKind
    /// The app or device that wrote it, e.g. "Alexandre's Apple Watch".
    public let sourceName: String
    /// The version of that source, or "" when the export gives none.
    public let sourceVersion: String
    /// The `device` description, or "" when the export gives none.
    public let device: String
    /// The unit as exported (`count/min`, `ms`, `count`, `kg`, `lb`, ...), or "" for a category record.
    public let unit: String
    /// The numeric value; for sleep, the `HealthSleepValue` raw number.
    public let value: Double
    /// When the record was written, if the export says.
    public let creationDate: HealthTimestamp?
    /// Start of the measured interval.
    public let startDate: HealthTimestamp
    /// End of the measured interval (equal to the start for a point sample).
    public let endDate: HealthTimestamp
    /// The IANA zone from the record's `HKTimeZone` metadata entry, if any.
    public let timeZoneIdentifier: String?
    /// The record's own identifier when its export has one (Health Connect: the record's 16-byte uuid, followed
    /// for one sample of a series by what tells it from its siblings); nil for an Apple export.
    public let recordID: [UInt8]?

    /// A record; nil when the end precedes the start.
    public init?(
        kind: HealthRecordKind, sourceName: String, sourceVersion: String = "", device: String = "",
        unit: String, value: Double, creationDate: HealthTimestamp?, startDate: HealthTimestamp,
        endDate: HealthTimestamp, timeZoneIdentifier: String? = nil, recordID: [UInt8]? = nil
    ) {
        guard endDate.utcSeconds >= startDate.utcSeconds, value.isFinite else { return nil }
        self.kind = kind
        self.sourceName = sourceName
        self.sourceVersion = sourceVersion
        self.device = device
        self.unit = unit
        self.value = value
        self.creationDate = creationDate
        self.startDate = startDate
        self.endDate = endDate
        self.timeZoneIdentifier = timeZoneIdentifier
        self.recordID = recordID
    }

    /// The sleep value of a sleep record; nil for other kinds.
    public var sleepValue: HealthSleepValue? {
        kind == .sleepAnalysis ? HealthSleepValue(rawValue: Int(value)) : nil
    }

    /// The bytes that identify the record. A record with a `recordID` (Health Connect) is its kind and that id:
    /// re-importing a later export adds only records whose ids are new. Apple exports carry no record UUID, so
    /// such a record is the tuple of its fields: kind, source name, source version, device, unit, value,
    /// creation, start and end (instant and offset) and time zone. Two records with equal tuples are the same
    /// record (re-imports add only new tuples). Fields are length-prefixed, so no choice of text can make two
    /// different tuples collide, nor a tuple collide with an id (whose kind is followed by a marker no tuple has).
    public var identityBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + sourceName.utf8.count + sourceVersion.utf8.count + device.utf8.count)
        func text(_ s: String?) {
            guard let s else { return append(UInt32.max) }
            append(UInt32(s.utf8.count))
            bytes.append(contentsOf: s.utf8)
        }
        func append<T: FixedWidthInteger>(_ n: T) {
            withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func stamp(_ t: HealthTimestamp?) {
            guard let t else { return bytes.append(0) }
            bytes.append(1)
            append(t.utcSeconds)
            append(t.offsetSeconds)
        }
        text(kind.rawValue)
        if let recordID {
            append(UInt32.max - 1)
            append(UInt32(recordID.count))
            bytes.append(contentsOf: recordID)
            return bytes
        }
        text(sourceName)
        text(sourceVersion)
        text(device)
        text(unit)
        append(value.bitPattern)
        stamp(creationDate)
        stamp(startDate)
        stamp(endDate)
        text(timeZoneIdentifier)
        return bytes
    }
}
