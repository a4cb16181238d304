import CairnCore

/// Why a record of a kept type was left out. Each is counted per kind in `HealthReadSummary.warnings`; the
/// rest of the export is still read.
public enum HealthRecordProblem: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// A required attribute (source name, start or end date, value) is missing.
    case missingField = "missing-field"
    /// A date is not in the export's `YYYY-MM-DD HH:MM:SS ±HHMM` form, or does not exist.
    case unreadableDate = "unreadable-date"
    /// The value is not a number (or, for sleep, not a known sleep value).
    case unreadableValue = "unreadable-value"
    /// The record ends before it starts.
    case endBeforeStart = "end-before-start"
    /// The unit is not one Cairn reads for that type (e.g. a heart rate not in count/min).
    case unexpectedUnit = "unexpected-unit"
    /// A step count below zero.
    case negativeStepCount = "negative-step-count"
    /// A step count no body can walk (1e308 steps in an hour): more than `HealthRecordLimits.stepsPerSecond` per
    /// second of the record's length (plus `stepsSlack`), or, for a record without length, more than
    /// `HealthRecordLimits.stepsPerRecord`.
    case impossibleStepCount = "impossible-step-count"
    /// A heart rate or resting heart rate of zero or less, or above 300 count/min.
    case impossibleHeartRate = "impossible-heart-rate"
    /// A heart rate variability (SDNN) of zero or less, or above 1000 ms.
    case impossibleHeartRateVariability = "impossible-hrv"
    /// A body mass of zero or less, or above 650 kg.
    case impossibleBodyMass = "impossible-body-mass"
    /// A blood pressure (systolic or diastolic) of zero or less, or above `HealthRecordLimits.bloodPressure` mmHg.
    case impossibleBloodPressure = "impossible-blood-pressure"
    /// A sleep record longer than 48 hours.
    case impossibleSleepLength = "impossible-sleep-length"
    /// A start, end or creation date before 1900-01-01 or after tomorrow in the person's zone (`ImportDates`): a
    /// device whose clock was wrong, or a damaged export (year 1, year 9999).
    case dateOutOfRange = "date-out-of-range"

    /// A plain description of the records counted under this kind, for a summary line.
    public var summary: String {
        switch self {
        case .missingField: return "records missing a source, date or value"
        case .unreadableDate: return "records with a date Cairn cannot read"
        case .unreadableValue: return "records with a value Cairn cannot read"
        case .endBeforeStart: return "records that end before they start"
        case .unexpectedUnit: return "records in a unit Cairn does not read for that type"
        case .negativeStepCount: return "step counts below zero"
        case .impossibleStepCount: return "step counts faster than anyone walks (over 10 steps a second, or 100,000 at one instant)"
        case .impossibleHeartRate: return "heart rates of zero or less, or above 300"
        case .impossibleHeartRateVariability: return "heart rate variability values of zero or less, or above 1000 ms"
        case .impossibleBodyMass: return "body mass values of zero or less, or above 650 kg"
        case .impossibleBloodPressure: return "blood pressure values of zero or less, or above 400 mmHg"
        case .impossibleSleepLength: return "sleep records longer than 48 hours"
        case .dateOutOfRange: return "records dated \(ImportDates.ruleText)"
        }
    }

    /// Orders by raw value, for stable listings.
    public static func < (a: HealthRecordProblem, b: HealthRecordProblem) -> Bool { a.rawValue < b.rawValue }
}

/// The bounds past which a health value is impossible rather than unusual.
public enum HealthRecordLimits {
    /// Steps per second of a record's length: well above a sprint (about 4.5 a second).
    public static let stepsPerSecond = 10.0
    /// Steps a record without length may hold (a day's total entered by hand at one instant).
    public static let stepsPerRecord = 100_000.0
    /// Steps allowed beyond the rate in a record with a length (rounding in very short records).
    public static let stepsSlack = 100.0
    /// Millimetres of mercury no blood pressure reading reaches (systolic or diastolic).
    public static let bloodPressure = 400.0
}

/// What one pass over an export found, besides the records it handed on.
public struct HealthReadSummary: Sendable, Equatable {
    /// Records of a kept type that passed every check (handed to the caller).
    public var recordsRead: Int = 0
    /// Records of other types, by their `type` attribute: skipped, not stored.
    public var skippedByType: [String: Int] = [:]
    /// Records of a kept type left out, by problem.
    public var warnings: [HealthRecordProblem: Int] = [:]
    /// The lines of `export.xml` where the first `ProblemList.shown` records left out for each problem start.
    public var warningRecordLines: [HealthRecordProblem: [Int]] = [:]
    /// The export file's size in bytes.
    public var fileBytes: Int64 = 0

    /// An empty summary.
    public init() {}

    /// How many records were skipped for their type.
    public var skippedCount: Int { skippedByType.values.reduce(0, +) }
    /// How many records were left out with a warning.
    public var warningCount: Int { warnings.values.reduce(0, +) }
}

/// Why an export could not be read. Nothing from a failed read is kept.
public enum HealthExportError: CairnError, Equatable {
    /// The file is missing or cannot be opened.
    case unreadable
    /// The file is a zip archive without an `export.xml` in it.
    case noExportInArchive
    /// The zip archive holds more than one `export.xml` (two exports packed together, or a tampered archive):
    /// Cairn would not know which one to import.
    case severalExportsInArchive(count: Int)
    /// The zip archive is damaged or uses a feature libarchive cannot read.
    case damagedArchive
    /// The XML is not well-formed (e.g. a truncated export); `line` is where the parser stopped.
    case malformedXML(line: Int)
    /// The file declares XML entities, which Cairn does not expand (a real export never declares any).
    case declaresEntities
    /// The XML is well-formed but its root element is not `HealthData`.
    case notAHealthExport
    /// The zip file holds more than one Health Connect database (`health_connect_export.db`).
    case severalHealthConnectDatabases(count: Int)
    /// The Health Connect database in the zip file unpacks to more than `HealthConnectExport.largestDatabase`
    /// bytes (a zip bomb, or not an export): nothing past the limit is written.
    case healthConnectDatabaseTooLarge
    /// The zip file's `health_connect_export.db` is not a SQLite database with Health Connect's tables.
    case notAHealthConnectExport
    /// The Health Connect database could not be read to its end (damaged, or changed while read).
    case damagedHealthConnectDatabase
    /// The vault's folder has no room for the copy of the Health Connect database the import reads.
    case noRoomForHealthConnectCopy
    /// The Health Connect database holds more sleep stages than `HealthConnectExport.mostSleepStages`.
    case tooManySleepStages

    public var userMessage: String {
        switch self {
        case .unreadable: return "The export could not be opened for reading."
        case .noExportInArchive:
            return
                "The zip file has no export.xml (Apple Health) or health_connect_export.db (Health Connect) in it. Choose the export.zip from Health's 'Export All Health Data', or the zip Health Connect's export wrote."
        case .severalExportsInArchive(let count):
            return
                "The zip file holds \(CountText.grouped(count)) files named export.xml; an export has exactly one. Choose the export.zip from Health's 'Export All Health Data' as the Health app wrote it. Nothing was imported."
        case .damagedArchive: return "The zip file is damaged or cannot be read."
        case .malformedXML(let line):
            return "The export is not well-formed XML (the problem is at line \(line)); it may be truncated or damaged. Nothing was imported."
        case .declaresEntities: return "The export declares XML entities, which Cairn does not expand. Nothing was imported."
        case .notAHealthExport: return "The file is XML, but not an Apple Health export (no HealthData element)."
        case .severalHealthConnectDatabases(let count):
            return
                "The zip file holds \(CountText.grouped(count)) files named health_connect_export.db; a Health Connect export has exactly one. Choose the zip as Health Connect wrote it. Nothing was imported."
        case .healthConnectDatabaseTooLarge:
            return
                "The Health Connect database in the zip file unpacks to more than 4 GB, far more than a phone's export holds. Nothing was imported."
        case .notAHealthConnectExport:
            return
                "The zip file's health_connect_export.db is not a Health Connect database (its tables are not Health Connect's). Nothing was imported."
        case .damagedHealthConnectDatabase: return "The Health Connect database is damaged and could not be read to its end. Nothing was imported."
        case .tooManySleepStages:
            return
                "The Health Connect database holds more sleep stages than fifty years of nights would (over 1,000,000): it is not an export Cairn can read. Nothing was imported."
        case .noRoomForHealthConnectCopy:
            return "There is not enough free space in Cairn's data folder to unpack the Health Connect database for reading. Nothing was imported."
        }
    }
}
