import Foundation

/// The one CSV reader of the project (RFC 4180): comma-separated fields, fields in double quotes may hold
/// commas, line breaks and doubled quotes (`""`), records end with CRLF, LF or CR, a UTF-8 byte order mark
/// is ignored. Imports (outcome values, intake history) read their files through it.
///
/// Tolerances, decided: blank lines (a record that is one empty field) are skipped, so a trailing line
/// break or an empty line between records does no harm; spaces around a quoted field are allowed.
/// Refused: text that is not UTF-8, a quote that is never closed, text after a closing quote, and a quote
/// inside an unquoted field.
public enum CSV {
    /// One record and the line of the file it starts on (1-based, counting physical lines, so a quoted
    /// line break inside a field moves the next record's line number on).
    public struct Record: Hashable, Sendable {
        /// The line the record starts on.
        public let line: Int
        /// The fields, unquoted.
        public let fields: [String]

        /// A record.
        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    /// Every non-blank record of `data`. Throws `CSVError`.
    /// - Complexity: O(n) in the size of the file; works on the UTF-8 bytes (every character with a meaning
    ///   in CSV is ASCII), so memory stays near the size of the file.
    public static func records(in data: Data) throws -> [Record] {
        var result: [Record] = []
        try forEachRecord(in: data) { result.append($0) }
        return result
    }

    /// Calls `body` with each non-blank record of `data`, in order, holding one record at a time (an import
    /// of a million lines needs no list of them). Throws `CSVError` at the first unreadable record (the
    /// records before it have been passed on), or what `body` throws.
    public static func forEachRecord(in data: Data, _ body: (Record) throws -> Void) throws {
        try data.withUnsafeBytes { raw in try parse(raw.bindMemory(to: UInt8.self), body) }
    }

    /// Every non-blank record of `text`. Throws `CSVError`.
    public static func records(in text: String) throws -> [Record] {
        var copy = text
        var result: [Record] = []
        try copy.withUTF8 { try parse($0) { result.append($0) } }
        return result
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    private static func parse(_ b: UnsafeBufferPointer<UInt8>, _ body: (Record) throws -> Void) throws {
        let n = b.count
        var i = 0
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1

        // Every byte outside a field is ASCII, so checking each field's UTF-8 checks the whole file.
        func endField() throws {
            guard let text = String(validating: field, as: UTF8.self) else { throw CSVError.notUTF8 }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
        }
        func endRecord() throws {
            try endField()
            if !(fields.count == 1 && fields[0].isEmpty) { try body(Record(line: recordLine, fields: fields)) }
            fields = []
        }

        while i < n {
            var start = i
            while start < n, b[start] == space || b[start] == tab { start += 1 }
            if start < n, b[start] == quote {
                // A quoted field.
                i = start + 1
                let quoteLine = line
                var closed = false
                while i < n {
                    let c = b[i]
                    if c == quote {
                        if i + 1 < n, b[i + 1] == quote {
                            field.append(quote)
                            i += 2
                            continue
                        }
                        closed = true
                        i += 1
                        break
                    }
                    if c == lf || (c == cr && !(i + 1 < n && b[i + 1] == lf)) { line += 1 }
                    field.append(c)
                    i += 1
                }
                guard closed else { throw CSVError.unclosedQuote(line: quoteLine) }
                while i < n, b[i] == space || b[i] == tab { i += 1 }
                if i == n { break }
                if b[i] == comma {
                    try endField()
                    i += 1
                } else if b[i] != cr && b[i] != lf {
                    throw CSVError.textAfterClosingQuote(line: line)
                }
            } else {
                // An unquoted field: up to the next comma or line break, spaces kept.
                while i < n {
                    let c = b[i]
                    if c == comma || c == cr || c == lf { break }
                    if c == quote { throw CSVError.quoteInsideField(line: line) }
                    field.append(c)
                    i += 1
                }
                if i < n, b[i] == comma {
                    try endField()
                    i += 1
                    continue
                }
            }
            if i < n, b[i] == cr || b[i] == lf {
                if b[i] == cr, i + 1 < n, b[i + 1] == lf { i += 1 }
                i += 1
                try endRecord()
                line += 1
                recordLine = line
            }
        }
        if !field.isEmpty || !fields.isEmpty { try endRecord() }
    }

    /// A header name reduced for tolerant matching: lower-cased, trimmed, with spaces, hyphens, underscores
    /// and dots removed ("Time Zone", "time_zone" and "timezone" all read "timezone").
    public static func headerKey(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { !" \t-_.".unicodeScalars.contains($0) })
    }

    /// One field written for a CSV file: quoted when it holds a comma, a quote or a line break (quotes
    /// doubled); a field starting with =, +, - or @ gets a leading ' so a spreadsheet does not run it as a
    /// formula.
    public static func field(_ raw: String) -> String {
        var text = raw
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Where each wanted column is in a CSV header, with the whole-file checks every import shares: every
/// required column present once, and no column Cairn does not read. Header names are matched with
/// `CSV.headerKey`, so "Time zone", "time_zone" and "TimeZone" agree.
public struct CSVColumns: Sendable {
    private let positions: [String: Int]

    /// Matches `header` against `columns` (Cairn's name, the header keys it accepts, whether required).
    /// Throws `CSVError.wrongColumns`.
    public init(header: [String], columns: [(name: String, keys: Set<String>, required: Bool)]) throws {
        var positions: [String: Int] = [:]
        var unknown: [Int] = []
        var repeated = false
        for (index, raw) in header.enumerated() {
            let key = CSV.headerKey(raw)
            guard let column = columns.first(where: { $0.keys.contains(key) }) else {
                unknown.append(index + 1)
                continue
            }
            if positions[column.name] != nil { repeated = true }
            positions[column.name] = index
        }
        let missing = columns.filter { $0.required && positions[$0.name] == nil }.map(\.name)
        guard missing.isEmpty, unknown.isEmpty, !repeated else {
            throw CSVError.wrongColumns(
                missing: missing, unknownPositions: unknown, repeated: repeated,
                expected: columns.map(\.name))
        }
        self.positions = positions
    }

    /// The position of column `name`, if the file has it.
    public subscript(name: String) -> Int? { positions[name] }
}

/// Why a file could not be read as CSV at all. Messages name the line, never the file's content.
public enum CSVError: CairnError, Hashable, Sendable {
    /// The bytes are not UTF-8 text.
    case notUTF8
    /// A quoted field that starts on `line` is never closed.
    case unclosedQuote(line: Int)
    /// Something other than a comma or a line break follows a closing quote.
    case textAfterClosingQuote(line: Int)
    /// A double quote in the middle of a field that does not start with one.
    case quoteInsideField(line: Int)
    /// The file has no header row.
    case empty
    /// Required columns are missing, columns Cairn does not read are present, or a column appears twice.
    /// Only Cairn's own column names and column numbers are named, never the file's header text.
    case wrongColumns(missing: [String], unknownPositions: [Int], repeated: Bool, expected: [String])

    /// The plain-English message.
    public var userMessage: String {
        switch self {
        case .empty:
            "The file is empty. It needs a header row, then one line per record. Nothing was imported."
        case .wrongColumns(let missing, let unknown, let repeated, let expected):
            Self.columnsMessage(missing: missing, unknown: unknown, repeated: repeated, expected: expected)
        case .notUTF8: "The file is not UTF-8 text. Save it as CSV (UTF-8) and try again."
        case .unclosedQuote(let line): "Line \(line): a quoted field is never closed. Nothing was imported."
        case .textAfterClosingQuote(let line): "Line \(line): there is text after a closing quote. Nothing was imported."
        case .quoteInsideField(let line): "Line \(line): a double quote appears inside a field that is not quoted. Nothing was imported."
        }
    }

    private static func columnsMessage(missing: [String], unknown: [Int], repeated: Bool, expected: [String]) -> String {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("missing column\(missing.count == 1 ? "" : "s") \(ProblemList.joined(missing, separator: ", ") { $0 })") }
        if !unknown.isEmpty {
            // At most the first 20 positions, then how many more (`ProblemList`): a header of millions of columns
            // gives a short message.
            parts.append(
                "column\(unknown.count == 1 ? "" : "s") \(ProblemList.joined(unknown, separator: ", ") { String($0) }) "
                    + "\(unknown.count == 1 ? "is" : "are") not one Cairn reads")
        }
        if repeated { parts.append("a column appears twice") }
        return "The file does not have the right columns: \(parts.joined(separator: "; ")). "
            + "The header row must name the columns \(expected.joined(separator: ", ")). Nothing was imported."
    }
}
