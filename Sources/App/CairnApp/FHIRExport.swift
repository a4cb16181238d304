import CairnCore
import Foundation
import Outcomes
import Regimen

/// Which journals a FHIR export holds, as the person writes them: "regimen,outcomes", "regimen" or "outcomes".
public struct FHIRJournals: OptionSet, Hashable, Sendable, TextParsable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Products and the doses logged.
    public static let regimen = FHIRJournals(rawValue: 1)
    /// Outcome series (typed values and health imports).
    public static let outcomes = FHIRJournals(rawValue: 2)
    /// Both, the default.
    public static let all: FHIRJournals = [.regimen, .outcomes]

    /// Parses a comma-separated list of `regimen` and `outcomes` (any case, spaces allowed, at least one).
    public static func parse(_ text: String) throws -> FHIRJournals {
        var journals: FHIRJournals = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch word.trimmingCharacters(in: .whitespaces).lowercased() {
            case "regimen": journals.insert(.regimen)
            case "outcomes": journals.insert(.outcomes)
            default: throw FHIRExportError.unknownJournal
            }
        }
        return journals
    }
}

/// Why a FHIR export's request was refused.
public enum FHIRExportError: CairnError, Equatable {
    /// A journal other than regimen or outcomes was named.
    case unknownJournal

    public var userMessage: String {
        switch self {
        case .unknownJournal: return "Name the journals as regimen, outcomes, or both: regimen,outcomes."
        }
    }
}

/// What a FHIR export holds: its days (nil ends: the whole history), its journals and the name the person typed
/// for the Patient (nil: nothing identifying).
public struct FHIRExportRequest: Hashable, Sendable {
    public var from: LocalDay?
    public var to: LocalDay?
    public var journals: FHIRJournals
    public var patientName: String?

    /// A request; the name goes through `TextInput.name` (a refusal is the name rule's) and a blank one is none.
    public init(from: LocalDay? = nil, to: LocalDay? = nil, journals: FHIRJournals = .all, patientName: String? = nil) throws {
        if let from, let to, to < from { throw ScheduleError.rangeEndsBeforeStart }
        self.from = from
        self.to = to
        self.journals = journals
        let name = try patientName.map { try TextInput.name($0, field: "name").trimmingCharacters(in: .whitespacesAndNewlines) }
        self.patientName = (name?.isEmpty ?? true) ? nil : name
    }

    func contains(_ day: LocalDay) -> Bool { (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true) }
}

/// Writes the Regimen and outcome history as one FHIR R4 `document` Bundle (JSON), for a clinician's system:
///
/// - a `Composition` first, whose narrative carries `FHIRExportService.disclaimer` and what the file holds;
/// - a `Patient` with nothing identifying unless the person typed a name;
/// - each product as a `MedicationStatement`, self-reported (`informationSource` is the Patient), whose status is
///   never stronger than what was logged (`statementStatus`);
/// - each dose logged in the period as a `MedicationAdministration`: `completed` when logged taken, `not-done`
///   when logged skipped (a skipped dose is never "taken"); corrected and undone records are left out;
/// - each day's outcome value as an `Observation`, with its LOINC code where a standard one exists
///   (`FHIRCodes`) and Cairn's own code system otherwise;
/// - no photo.
public struct FHIRExportService: Sendable {
    private let regimen: RegimenService
    private let outcomes: OutcomeService

    /// A service over the journals' services (their clock gives the export's time and zone).
    public init(regimen: RegimenService, outcomes: OutcomeService) {
        self.regimen = regimen
        self.outcomes = outcomes
    }

    /// The sentence every FHIR export carries in its Composition's narrative.
    public static let disclaimer =
        "Logged by the person themselves in Cairn, a personal wellness journal. These are self-reported records, not a medical record; no clinician has checked them, and they do not show that anything caused a change."

    /// The file name a download suggests.
    public static let suggestedFileName = "cairn-fhir.json"

    /// The bundle's JSON.
    /// - Complexity: O(doses + outcome days) in the period.
    public func bundle(_ request: FHIRExportRequest) throws -> Data {
        let now = regimen.clock.now()
        let zone = regimen.clock.timeZone
        var ids = ResourceIDs()
        var servingsText: [Decimal: String] = [:]
        // Every entry after the Composition is written as it is made (no tree of tens of thousands of resources
        // is kept); the Composition, which counts them, goes first at the end.
        var body = ""
        body.reserveCapacity(1 << 20)
        func add(_ id: String, _ resource: FHIRJSON) {
            body.append(",")
            Self.entry(id, resource).write(to: &body)
        }
        let patientID = ids.next()
        let patient = "urn:uuid:" + patientID
        var patientFields: [(String, FHIRJSON)] = [("resourceType", "Patient")]
        if let name = request.patientName { patientFields.append(("name", .array([.object([("text", .string(name))])]))) }
        add(patientID, .object(patientFields))
        var sections: [FHIRJSON] = []
        var counts: [String] = []

        if request.journals.contains(.regimen) {
            let products = try regimen.products()
            let entries = try regimen.exportableLedger().filter { $0.isCurrent && !$0.isUndo && request.contains($0.localDay) }
            let byProduct = Dictionary(grouping: entries.filter { $0.status == .taken || $0.status == .skipped }, by: \.productID)
            var statementRefs: [FHIRJSON] = []
            var doseRefs: [FHIRJSON] = []
            for stored in products {
                let product = stored.product
                let doses = byProduct[product.id] ?? []
                let taken = doses.filter { $0.status == .taken }
                let skipped = doses.count - taken.count
                let medication: FHIRJSON = .object([("text", .string(Self.medicationText(product)))])
                let id = ids.next()
                var statement: [(String, FHIRJSON)] = [
                    ("resourceType", "MedicationStatement"),
                    (
                        "status",
                        .string(Self.statementStatus(taken: taken.map(\.localDay), skipped: skipped, lastDay: request.to ?? LocalDay(now, in: zone)))
                    ),
                    ("medicationCodeableConcept", medication), ("subject", Self.reference(patient)),
                ]
                if let first = taken.map(\.takenAt).min(), let last = taken.map(\.takenAt).max() {
                    statement.append(("effectivePeriod", .object([("start", .string(Self.instant(first))), ("end", .string(Self.instant(last)))])))
                }
                statement += [
                    ("dateAsserted", .string(Self.instant(now))), ("informationSource", Self.reference(patient)),
                    (
                        "note",
                        .array([
                            .object([
                                (
                                    "text",
                                    .string(
                                        "Self-reported in Cairn: \(CountText.counted(taken.count, "dose")) logged as taken and \(CountText.grouped(skipped)) as skipped in this file's period."
                                    )
                                )
                            ])
                        ])
                    ),
                ]
                add(id, .object(statement))
                statementRefs.append(Self.reference("urn:uuid:" + id))
                for dose in doses.sorted(by: { $0.takenAt < $1.takenAt }) {
                    let doseID = ids.next()
                    var fields: [(String, FHIRJSON)] = [("resourceType", "MedicationAdministration")]
                    if dose.status == .taken {
                        fields.append(("status", "completed"))
                    } else {
                        fields.append(("status", "not-done"))
                        fields.append(("statusReason", .array([.object([("text", "Logged as skipped")])])))
                    }
                    let servings =
                        servingsText[dose.servings]
                        ?? {
                            let text = "\(dose.servings)"
                            servingsText[dose.servings] = text
                            return text
                        }()
                    fields += [
                        ("medicationCodeableConcept", medication), ("subject", Self.reference(patient)),
                        ("effectiveDateTime", .string(DateText.isoOffset(dose.takenAt, in: dose.timeZone))),
                        ("performer", .array([.object([("actor", Self.reference(patient))])])),
                        (
                            "dosage",
                            .object([
                                ("text", .string("\(servings) \(dose.servings == 1 ? "serving" : "servings")")),
                                ("dose", .object([("value", .number(servings)), ("unit", "serving")])),
                            ])
                        ),
                    ]
                    add(doseID, .object(fields))
                    doseRefs.append(Self.reference("urn:uuid:" + doseID))
                }
            }
            sections.append(Self.section("Products", text: "The products listed in Cairn, as the person reported them.", entries: statementRefs))
            sections.append(Self.section("Doses logged", text: "Each dose logged as taken or as skipped.", entries: doseRefs))
            counts.append("\(CountText.counted(products.count, "product")) and \(CountText.counted(doseRefs.count, "dose")) logged")
        }

        if request.journals.contains(.outcomes) {
            var refs: [FHIRJSON] = []
            let allSeries = try outcomes.dailySeries()
            for series in allSeries {
                let days = series.values.keys.filter(request.contains).sorted()
                if series.metric.id == BuiltInMetrics.bloodPressureDiastolic.id { continue }
                if series.metric.id == BuiltInMetrics.bloodPressureSystolic.id {
                    let diastolic = allSeries.first { $0.metric.id == BuiltInMetrics.bloodPressureDiastolic.id }?.values ?? [:]
                    let all = Set(days).union(diastolic.keys.filter(request.contains)).sorted()
                    for day in all {
                        var components: [FHIRJSON] = []
                        if let value = series.values[day] { components.append(Self.component(FHIRCodes.systolic, value: value)) }
                        if let value = diastolic[day] { components.append(Self.component(FHIRCodes.diastolic, value: value)) }
                        let id = ids.next()
                        add(
                            id,
                            Self.observation(
                                code: FHIRCodes.bloodPressurePanel, category: "vital-signs", text: "Blood pressure", day: day, patient: patient,
                                value: nil, components: components))
                        refs.append(Self.reference("urn:uuid:" + id))
                    }
                    continue
                }
                let code = FHIRCodes.loinc[series.metric.id]
                for day in days {
                    let id = ids.next()
                    add(
                        id,
                        Self.observation(
                            code: code ?? FHIRCodes.cairn(series.metric), category: code?.category ?? "survey", text: series.metric.name,
                            day: day, patient: patient, value: Self.quantity(series.values[day]!, unit: series.metric.unit, code: code),
                            components: []))
                    refs.append(Self.reference("urn:uuid:" + id))
                }
            }
            sections.append(Self.section("Outcome values", text: "One value per metric and day, as Cairn combines a day's values.", entries: refs))
            counts.append("\(CountText.counted(refs.count, "outcome value"))")
        }

        let period =
            switch (request.from, request.to) {
            case (nil, nil): "the whole history"
            case (let from?, nil): "from \(from) on"
            case (nil, let to?): "up to \(to)"
            case (let from?, let to?): "from \(from) to \(to)"
            }
        let holds = "This file holds \(counts.joined(separator: ", ")), \(period). No photos."
        let compositionID = ids.next()
        let composition: FHIRJSON = .object([
            ("resourceType", "Composition"),
            (
                "text",
                .object([
                    ("status", "generated"),
                    (
                        "div",
                        .string(
                            "<div xmlns=\"http://www.w3.org/1999/xhtml\"><p>\(Self.escape(Self.disclaimer))</p><p>\(Self.escape(holds))</p></div>")
                    ),
                ])
            ),
            ("status", "final"),
            (
                "type",
                .object([
                    ("coding", .array([.object([("system", .string(FHIRCodes.loincSystem)), ("code", "11503-0"), ("display", "Medical records")])])),
                    ("text", "Self-reported wellness journal"),
                ])
            ),
            ("subject", Self.reference(patient)), ("date", .string(Self.instant(now))),
            ("author", .array([Self.reference(patient)])), ("title", "Cairn journal export"),
            ("section", .array(sections)),
        ])
        var text = ""
        text.reserveCapacity(body.utf8.count + 4096)
        FHIRJSON.object([
            ("resourceType", "Bundle"),
            ("identifier", .object([("system", "urn:ietf:rfc:3986"), ("value", .string("urn:uuid:" + ids.next()))])),
            ("type", "document"), ("timestamp", .string(Self.instant(now))),
        ]).write(to: &text)
        text.removeLast()
        text.append(",\"entry\":[")
        Self.entry(compositionID, composition).write(to: &text)
        text.append(body)
        text.append("]}\n")
        return Data(text.utf8)
    }

    /// Writes the bundle to `path` (0600, fsynced, renamed into place: `OutputFile`).
    public func write(_ request: FHIRExportRequest, to path: String) throws {
        try OutputFile.write(try bundle(request), to: path, replace: true)
    }

    /// A product's status, never stronger than what was logged: "active" when a dose was logged taken in the
    /// last 30 days of the period, "completed" when doses were logged taken only before, "not-taken" when every
    /// dose logged was skipped, "unknown" when nothing was logged.
    public static func statementStatus(taken: [LocalDay], skipped: Int, lastDay: LocalDay) -> String {
        if let last = taken.max() { return last >= lastDay.adding(days: -29) ? "active" : "completed" }
        return skipped > 0 ? "not-taken" : "unknown"
    }

    static func medicationText(_ product: Product) -> String {
        product.brand.isEmpty ? product.name : "\(product.name) (\(product.brand))"
    }

    static func instant(_ date: Date) -> String { DateText.utc(date) }

    static func reference(_ url: String) -> FHIRJSON { .object([("reference", .string(url))]) }

    static func entry(_ id: String, _ resource: FHIRJSON) -> FHIRJSON {
        .object([("fullUrl", .string("urn:uuid:" + id)), ("resource", resource)])
    }

    static func section(_ title: String, text: String, entries: [FHIRJSON]) -> FHIRJSON {
        var fields: [(String, FHIRJSON)] = [
            ("title", .string(title)),
            ("text", .object([("status", "generated"), ("div", .string("<div xmlns=\"http://www.w3.org/1999/xhtml\">\(escape(text))</div>"))])),
        ]
        if entries.isEmpty {
            fields.append(("emptyReason", .object([("text", "Nothing logged in this period")])))
        } else {
            fields.append(("entry", .array(entries)))
        }
        return .object(fields)
    }

    static func observation(
        code: FHIRCodes.Code, category: String, text: String, day: LocalDay, patient: String, value: FHIRJSON?, components: [FHIRJSON]
    ) -> FHIRJSON {
        var fields: [(String, FHIRJSON)] = [
            ("resourceType", "Observation"), ("status", "final"),
            (
                "category",
                .array([
                    .object([
                        (
                            "coding",
                            .array([.object([("system", "http://terminology.hl7.org/CodeSystem/observation-category"), ("code", .string(category))])])
                        )
                    ])
                ])
            ),
            ("code", .object([("coding", .array([code.coding])), ("text", .string(text))])),
            ("subject", reference(patient)), ("effectiveDateTime", .string(day.description)),
        ]
        if let value { fields.append(("valueQuantity", value)) }
        if !components.isEmpty { fields.append(("component", .array(components))) }
        return .object(fields)
    }

    static func component(_ code: FHIRCodes.Code, value: Double) -> FHIRJSON {
        .object([("code", .object([("coding", .array([code.coding]))])), ("valueQuantity", quantity(value, unit: "mmHg", code: code))])
    }

    /// A value with its unit; in UCUM when the metric's code names one.
    static func quantity(_ value: Double, unit: String, code: FHIRCodes.Code?) -> FHIRJSON {
        var fields: [(String, FHIRJSON)] = [("value", .number(MetricDefinition.number(value))), ("unit", .string(unit))]
        if let ucum = code?.ucum {
            fields += [("system", "http://unitsofmeasure.org"), ("code", .string(ucum))]
        }
        return .object(fields)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// The codes a FHIR export gives outcome metrics: LOINC where a standard code exists, Cairn's own otherwise.
public enum FHIRCodes {
    /// One code, with the observation category and the UCUM unit of its values.
    public struct Code: Sendable {
        public let system: String
        public let code: String
        public let display: String
        public let category: String
        public let ucum: String?

        var coding: FHIRJSON { .object([("system", .string(system)), ("code", .string(code)), ("display", .string(display))]) }
    }

    public static let loincSystem = "http://loinc.org"
    /// Cairn's own code system for metrics LOINC has no code for (ratings, time in bed, the person's own).
    public static let cairnSystem = "urn:cairn:outcome-metric"

    static func loinc(_ code: String, _ display: String, _ category: String, _ ucum: String) -> Code {
        Code(system: loincSystem, code: code, display: display, category: category, ucum: ucum)
    }

    /// LOINC codes by built-in metric id.
    public static let loinc: [String: Code] = [
        "steps": loinc("41950-7", "Number of steps in 24 hour Measured", "activity", "{steps}/d"),
        "sleep_asleep": loinc("93832-4", "Sleep duration", "activity", "h"),
        "heart_rate": loinc("8867-4", "Heart rate", "vital-signs", "/min"),
        "resting_heart_rate": loinc("40443-4", "Heart rate --resting", "vital-signs", "/min"),
        "body_mass": loinc("29463-7", "Body weight", "vital-signs", "kg"),
        "hrv_sdnn": loinc("80404-7", "R-R interval.standard deviation (Heart rate variability)", "vital-signs", "ms"),
    ]
    static let bloodPressurePanel = loinc("85354-9", "Blood pressure panel with all children optional", "vital-signs", "mm[Hg]")
    static let systolic = loinc("8480-6", "Systolic blood pressure", "vital-signs", "mm[Hg]")
    static let diastolic = loinc("8462-4", "Diastolic blood pressure", "vital-signs", "mm[Hg]")

    /// Cairn's code for a metric without a LOINC code: its id.
    static func cairn(_ metric: MetricDefinition) -> Code {
        Code(system: cairnSystem, code: metric.id, display: metric.name, category: "survey", ucum: nil)
    }
}

/// The ids of one export's resources: version 4 uuids from one random start, counted on (formatting a fresh
/// random uuid for each of tens of thousands of resources showed in profiles). Unique within the file, and no
/// two exports share one.
struct ResourceIDs {
    private var high: UInt64
    private var low: UInt64

    init() {
        var generator = SystemRandomNumberGenerator()
        high = (generator.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        low = (generator.next() & 0x3FFF_FFFF_0000_0000) | 0x8000_0000_0000_0000
    }

    /// The next id, as "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
    mutating func next() -> String {
        low += 1
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for (i, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if i == 8 || i == 12 { bytes.append(0x2D) }
            bytes.append(digits[Int((high >> UInt64(shift)) & 0xF)])
        }
        for (i, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if i == 0 || i == 4 { bytes.append(0x2D) }
            bytes.append(digits[Int((low >> UInt64(shift)) & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// JSON written in the order its fields are given (a FHIR resource reads best with `resourceType` first), without
/// a general serializer: ten years of doses and values are tens of thousands of resources.
public indirect enum FHIRJSON: Sendable, ExpressibleByStringLiteral {
    case object([(String, FHIRJSON)])
    case array([FHIRJSON])
    case string(String)
    /// A number already written as JSON text.
    case number(String)

    public init(stringLiteral value: String) { self = .string(value) }

    func write(to out: inout String) {
        switch self {
        case .object(let fields):
            out.append("{")
            for (i, (key, value)) in fields.enumerated() {
                // Keys are this file's own FHIR element names, never text a person typed: nothing to escape.
                out.append(i > 0 ? ",\"" : "\"")
                out.append(key)
                out.append("\":")
                value.write(to: &out)
            }
            out.append("}")
        case .array(let items):
            out.append("[")
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(",") }
                item.write(to: &out)
            }
            out.append("]")
        case .string(let text): Self.quote(text, to: &out)
        case .number(let text): out.append(text)
        }
    }

    static func quote(_ text: String, to out: inout String) {
        out.append("\"")
        // Most texts need no escape: appended whole (a scalar at a time showed in profiles).
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(text)
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            default:
                if scalar.value < 0x20 {
                    out.append(String(format: "\\u%04x", scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }
}

extension RegimenService {
    /// Every ledger record, oldest first, corrected ones included (the export filters them).
    func exportableLedger() throws -> [LedgerEntry] {
        try database.read { try RegimenStore($0).allEntries() }
    }

    /// How many ledger records there are, corrected ones included (the FHIR benchmark's size).
    public func exportableLedgerCount() throws -> Int { try exportableLedger().count }
}

extension CairnApplication {
    /// The FHIR export of this vault's Regimen and outcomes.
    public var fhir: FHIRExportService { FHIRExportService(regimen: regimen, outcomes: outcomes) }
}
