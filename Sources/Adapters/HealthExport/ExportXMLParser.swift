internal import CLibXML2
import CairnCore
import Foundation

/// A libxml2 SAX2 push parser over an Apple Health `export.xml`, fed in chunks, so memory stays constant
/// whatever the file size. Measured faster than `xmlTextReader` (see README, "Apple Health import").
///
/// Security: no network (`XML_PARSE_NONET`), no external DTD (`XML_PARSE_DTDLOAD` is never set), no entity
/// substitution (`XML_PARSE_NOENT` is never set); the only entities resolved are the five predefined ones, and
/// a file that declares any entity is refused. Real exports carry an internal DTD subset of ELEMENT and
/// ATTLIST declarations only, which is read and ignored.
final class ExportXMLParser {
    private let state: ParseState
    private var context: xmlParserCtxtPtr?

    /// A parser handing each kept record to `onRecord`; a record with a date outside `dates` (seconds since
    /// 1970, UTC) is left out as `HealthRecordProblem.dateOutOfRange`.
    init(dates: Range<Int64>? = nil, onRecord: @escaping (HealthRecord) throws -> Void) {
        ExportXMLParser.initialiseLibrary
        state = ParseState(onRecord: onRecord)
        state.dates = dates
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = saxStartElement
        handler.endElementNs = saxEndElement
        handler.getEntity = saxGetEntity
        handler.entityDecl = saxEntityDeclaration
        handler.unparsedEntityDecl = saxUnparsedEntityDeclaration
        handler.serror = saxStructuredError
        let userData = Unmanaged.passUnretained(state).toOpaque()
        context = xmlCreatePushParserCtxt(&handler, userData, nil, 0, nil)
        if let context {
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue)
            xmlCtxtUseOptions(context, options)
            state.context = context
        }
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
    }

    /// What has been read so far.
    var summary: HealthReadSummary {
        state.flushSkipped()
        return state.summary
    }

    /// Parses the next chunk; `isLast` ends the document (a truncated file fails here). Throws the first error
    /// a record callback threw, or `HealthExportError` for XML that is not a Health export.
    func parse(_ bytes: UnsafeRawBufferPointer, isLast: Bool) throws {
        guard let context else { throw HealthExportError.malformedXML(line: 0) }
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        let rc = xmlParseChunk(context, base, Int32(bytes.count), isLast ? 1 : 0)
        if let failure = state.failure { throw failure }
        if rc != 0 || (isLast && context.pointee.wellFormed == 0) {
            throw HealthExportError.malformedXML(line: state.errorLine ?? Int(xmlSAX2GetLineNumber(context)))
        }
        if isLast && !state.sawRoot { throw HealthExportError.notAHealthExport }
    }

    private static let initialiseLibrary: Void = { xmlInitParser() }()
}

/// The parser's state, reached from the C callbacks through the user-data pointer.
private final class ParseState {
    let onRecord: (HealthRecord) throws -> Void
    var context: xmlParserCtxtPtr?
    var summary = HealthReadSummary()
    var failure: Error?
    var errorLine: Int?
    var sawRoot = false
    var depth = 0
    /// The instants a record's dates must fall in (nil: any).
    var dates: Range<Int64>?
    /// The line the record being read starts on.
    var recordLine = 0

    // The record being read (kept types only).
    var recordDepth = -1
    var kind: HealthRecordKind = .stepCount
    var sourceName: String?
    var sourceVersion = ""
    var device = ""
    var unit = ""
    var valueText: String?
    var creation: HealthTimestamp??
    var start: HealthTimestamp??
    var end: HealthTimestamp??
    var timeZone: String?

    // Skipped types are counted without making a String per record: records come grouped by type, so the
    // run of the current type is counted and turned into a dictionary entry when the type changes.
    var skippedRunType: [UInt8] = []
    var skippedRunCount = 0

    // Source strings repeat from record to record: the last ones are kept to avoid a new String each time.
    var cachedSourceName = StringCache()
    var cachedSourceVersion = StringCache()
    var cachedDevice = StringCache()
    var cachedUnit = StringCache()

    init(onRecord: @escaping (HealthRecord) throws -> Void) { self.onRecord = onRecord }

    func stop(_ error: Error) {
        if failure == nil { failure = error }
        if let context { xmlStopParser(context) }
    }

    func countSkipped(_ type: UnsafeBufferPointer<UInt8>) {
        if skippedRunCount > 0, sameBytes(skippedRunType, type) {
            skippedRunCount += 1
            return
        }
        flushSkipped()
        skippedRunType = Array(type)
        skippedRunCount = 1
    }

    func flushSkipped() {
        guard skippedRunCount > 0 else { return }
        summary.skippedByType[String(decoding: skippedRunType, as: UTF8.self), default: 0] += skippedRunCount
        skippedRunCount = 0
    }

    func beginRecord(_ kind: HealthRecordKind, attributes: AttributeList) {
        self.kind = kind
        recordDepth = depth
        recordLine = context.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0
        sourceName = nil
        sourceVersion = ""
        device = ""
        unit = ""
        valueText = nil
        creation = nil
        start = nil
        end = nil
        timeZone = nil
        for i in 0..<attributes.count {
            let name = attributes.name(i)
            let value = attributes.value(i)
            if name.equals("sourceName") {
                sourceName = cachedSourceName.string(value)
            } else if name.equals("sourceVersion") {
                sourceVersion = cachedSourceVersion.string(value)
            } else if name.equals("device") {
                device = cachedDevice.string(value)
            } else if name.equals("unit") {
                unit = cachedUnit.string(value)
            } else if name.equals("value") {
                valueText = String(decoding: value, as: UTF8.self)
            } else if name.equals("creationDate") {
                creation = .some(HealthTimestamp(bytes: value))
            } else if name.equals("startDate") {
                start = .some(HealthTimestamp(bytes: value))
            } else if name.equals("endDate") {
                end = .some(HealthTimestamp(bytes: value))
            }
        }
    }

    func metadataEntry(_ attributes: AttributeList) {
        var isTimeZone = false
        var value: UnsafeBufferPointer<UInt8>?
        for i in 0..<attributes.count {
            let name = attributes.name(i)
            if name.equals("key") {
                isTimeZone = attributes.value(i).equals("HKTimeZone")
            } else if name.equals("value") {
                value = attributes.value(i)
            }
        }
        if isTimeZone, let value, !value.isEmpty { timeZone = String(decoding: value, as: UTF8.self) }
    }

    func endRecord() {
        recordDepth = -1
        switch RecordCheck.validate(self) {
        case .failure(let problem):
            summary.warnings[problem, default: 0] += 1
            if summary.warningRecordLines[problem, default: []].count < ProblemList.shown {
                summary.warningRecordLines[problem, default: []].append(recordLine)
            }
        case .success(let record):
            summary.recordsRead += 1
            do { try onRecord(record) } catch { stop(error) }
        }
    }
}

/// The checks a kept record must pass; a failure is a warning, counted by kind.
private enum RecordCheck {
    enum Outcome {
        case success(HealthRecord)
        case failure(HealthRecordProblem)
    }

    static func validate(_ s: ParseState) -> Outcome {
        guard let sourceName = s.sourceName, let startField = s.start, let endField = s.end,
            let valueText = s.valueText
        else { return .failure(.missingField) }
        guard let start = startField, let end = endField else { return .failure(.unreadableDate) }
        var creation: HealthTimestamp?
        if let creationField = s.creation {
            guard let parsed = creationField else { return .failure(.unreadableDate) }
            creation = parsed
        }
        let value: Double
        if s.kind == .sleepAnalysis {
            guard let sleep = HealthSleepValue(exportText: valueText) else { return .failure(.unreadableValue) }
            value = Double(sleep.rawValue)
        } else {
            guard let number = Double(valueText), number.isFinite else { return .failure(.unreadableValue) }
            value = number
        }
        let unit = s.kind == .sleepAnalysis ? "" : s.unit
        if let problem = HealthRecordCheck.problem(
            kind: s.kind, value: value, unit: unit, start: start, end: end, creation: creation, dates: s.dates)
        {
            return .failure(problem)
        }
        guard
            let record = HealthRecord(
                kind: s.kind, sourceName: sourceName, sourceVersion: s.sourceVersion,
                device: s.device, unit: unit, value: value,
                creationDate: creation, startDate: start, endDate: end,
                timeZoneIdentifier: s.timeZone)
        else { return .failure(.unreadableValue) }
        return .success(record)
    }
}

/// Body mass units the export may use, converted exactly (1 lb = 0.45359237 kg by definition, 1 st = 14 lb).
public enum BodyMassUnit {
    /// `value` in kilograms, or nil for a unit that is not a mass Cairn reads.
    public static func kilograms(_ value: Double, unit: String) -> Double? {
        switch unit {
        case "kg": return value
        case "g": return value / 1000
        case "lb": return value * 0.45359237
        case "st": return value * 14 * 0.45359237
        default: return nil
        }
    }
}

/// Keeps the last string made from some bytes, so a repeated attribute value costs a compare, not an allocation.
private struct StringCache {
    private var bytes: [UInt8] = []
    private var value = ""

    mutating func string(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        if sameBytes(bytes, raw) { return value }
        bytes = Array(raw)
        value = String(decoding: raw, as: UTF8.self)
        return value
    }
}

/// Whether `stored` holds exactly the bytes of `raw` (memcmp: the generic `elementsEqual` showed up in profiles).
private func sameBytes(_ stored: [UInt8], _ raw: UnsafeBufferPointer<UInt8>) -> Bool {
    guard stored.count == raw.count else { return false }
    guard raw.count > 0, let base = raw.baseAddress else { return true }
    return stored.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, raw.count) == 0 }
}

/// The SAX2 attribute array: five pointers per attribute (local name, prefix, URI, value start, value end).
private struct AttributeList {
    let pointer: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    func name(_ i: Int) -> UnsafePointer<UInt8> { pointer![i * 5]! }

    func value(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        guard let start = pointer![i * 5 + 3], let end = pointer![i * 5 + 4] else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: start, count: end - start)
    }
}

extension UnsafePointer where Pointee == UInt8 {
    /// Whether this NUL-terminated string equals `literal`.
    fileprivate func equals(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        return memcmp(self, literal.utf8Start, count) == 0 && self[count] == 0
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether these bytes equal `literal`.
    fileprivate func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let baseAddress else { return count == 0 }
        return memcmp(baseAddress, literal.utf8Start, count) == 0
    }
}

/// The kept type a `type` attribute names, or nil. Compared as bytes: no String per record.
private func keptKind(_ type: UnsafeBufferPointer<UInt8>) -> HealthRecordKind? {
    if type.equals("HKQuantityTypeIdentifierStepCount") { return .stepCount }
    if type.equals("HKCategoryTypeIdentifierSleepAnalysis") { return .sleepAnalysis }
    if type.equals("HKQuantityTypeIdentifierRestingHeartRate") { return .restingHeartRate }
    if type.equals("HKQuantityTypeIdentifierHeartRateVariabilitySDNN") { return .heartRateVariabilitySDNN }
    if type.equals("HKQuantityTypeIdentifierBodyMass") { return .bodyMass }
    if type.equals("HKQuantityTypeIdentifierBloodPressureSystolic") { return .bloodPressureSystolic }
    if type.equals("HKQuantityTypeIdentifierBloodPressureDiastolic") { return .bloodPressureDiastolic }
    return nil
}

private func state(_ context: UnsafeMutableRawPointer?) -> ParseState {
    Unmanaged<ParseState>.fromOpaque(context!).takeUnretainedValue()
}

// MARK: SAX callbacks (C function pointers: they capture nothing and live outside main.swift)

private let saxStartElement: startElementNsSAX2Func = { context, localName, _, _, _, _, attributeCount, _, attributes in
    let s = state(context)
    guard let localName else { return }
    defer { s.depth += 1 }
    if s.depth == 0 {
        guard localName.equals("HealthData") else { return s.stop(HealthExportError.notAHealthExport) }
        s.sawRoot = true
        return
    }
    let list = AttributeList(pointer: attributes, count: Int(attributeCount))
    if s.recordDepth >= 0 {
        if s.depth == s.recordDepth + 1, localName.equals("MetadataEntry") { s.metadataEntry(list) }
        return
    }
    guard localName.equals("Record") else { return }
    var type = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    for i in 0..<list.count where list.name(i).equals("type") {
        type = list.value(i)
        break
    }
    if let kind = keptKind(type) {
        s.beginRecord(kind, attributes: list)
    } else {
        s.countSkipped(type)
    }
}

private let saxEndElement: endElementNsSAX2Func = { context, _, _, _ in
    let s = state(context)
    s.depth -= 1
    if s.depth == s.recordDepth { s.endRecord() }
}

/// Only the five predefined entities (&lt; &gt; &amp; &quot; &apos;) are ever resolved.
private let saxGetEntity: getEntitySAXFunc = { _, name in
    xmlGetPredefinedEntity(name)
}

private let saxEntityDeclaration: entityDeclSAXFunc = { context, _, _, _, _, _ in
    state(context).stop(HealthExportError.declaresEntities)
}

private let saxUnparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { context, _, _, _, _ in
    state(context).stop(HealthExportError.declaresEntities)
}

private let saxStructuredError: xmlStructuredErrorFunc = { context, error in
    guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let s = state(context)
    if s.errorLine == nil { s.errorLine = Int(error.pointee.line) }
}
