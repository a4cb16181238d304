import CairnCore
import Foundation
import Testing

@Test func readsPlainRecordsWithTheirLineNumbers() throws {
    let records = try CSV.records(in: "date,metric,value\n2026-03-01,energy,3\n2026-03-02,mood,4\n")
    #expect(records.map(\.fields) == [["date", "metric", "value"], ["2026-03-01", "energy", "3"], ["2026-03-02", "mood", "4"]])
    #expect(records.map(\.line) == [1, 2, 3])
}

@Test func readsQuotedFieldsWithCommasDoubledQuotesAndLineBreaks() throws {
    let text = "a,b\r\n\"one, two\",\"say \"\"hi\"\"\"\r\n\"line\nbreak\",x\r\nlast,row"
    let records = try CSV.records(in: text)
    #expect(records.map(\.fields) == [["a", "b"], ["one, two", "say \"hi\""], ["line\nbreak", "x"], ["last", "row"]])
    // The quoted line break moves the next record to line 5.
    #expect(records.map(\.line) == [1, 2, 3, 5])
}

@Test func ignoresAByteOrderMarkBlankLinesAndOldMacLineEnds() throws {
    let data = Data([0xEF, 0xBB, 0xBF]) + Data("a,b\r\r\n1,2\r3,4\n\n".utf8)
    let records = try CSV.records(in: data)
    #expect(records.map(\.fields) == [["a", "b"], ["1", "2"], ["3", "4"]])
    #expect(records.map(\.line) == [1, 3, 4])
}

@Test func keepsEmptyFieldsIncludingATrailingOne() throws {
    #expect(try CSV.records(in: "a,,c\nx,\n,\n").map(\.fields) == [["a", "", "c"], ["x", ""], ["", ""]])
    #expect(try CSV.records(in: "\"\",b").map(\.fields) == [["", "b"]])
}

@Test func anEmptyFileHasNoRecords() throws {
    #expect(try CSV.records(in: "").isEmpty)
    #expect(try CSV.records(in: Data()).isEmpty)
    #expect(try CSV.records(in: "\n\r\n").isEmpty)
}

@Test func refusesMalformedQuotingWithTheLineAndNoContent() throws {
    #expect(throws: CSVError.unclosedQuote(line: 2)) { try CSV.records(in: "a\n\"never closed\nmore") }
    #expect(throws: CSVError.textAfterClosingQuote(line: 1)) { try CSV.records(in: "\"a\"b,c") }
    #expect(throws: CSVError.quoteInsideField(line: 2)) { try CSV.records(in: "a\nb\"c") }
    #expect(throws: CSVError.notUTF8) { try CSV.records(in: Data([0x61, 0xFF, 0xFE])) }
    #expect(CSVError.unclosedQuote(line: 7).userMessage.contains("Line 7"))
}

@Test func headerKeysIgnoreCaseSpacesHyphensAndUnderscores() {
    #expect(CSV.headerKey(" Time Zone ") == "timezone")
    #expect(CSV.headerKey("time_zone") == "timezone")
    #expect(CSV.headerKey("TIME-ZONE") == "timezone")
}

@Test func writtenFieldsAreQuotedOnlyWhenNeededAndNeverRunAsFormulas() throws {
    #expect(CSV.field("plain") == "plain")
    #expect(CSV.field("a,b") == "\"a,b\"")
    #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
    #expect(CSV.field("=SUM(A1)") == "'=SUM(A1)")
    let round = try CSV.records(in: ["x,y", "q\"r", "line\nbreak"].map(CSV.field).joined(separator: ","))
    #expect(round.map(\.fields) == [["x,y", "q\"r", "line\nbreak"]])
}

@Test func columnsMatchTolerantlyAndRefuseMissingUnknownOrRepeatedOnes() throws {
    let columns: [(name: String, keys: Set<String>, required: Bool)] = [
        ("date", ["date"], true), ("value", ["value"], true), ("note", ["note"], false),
    ]
    let map = try CSVColumns(header: ["Value", " DATE "], columns: columns)
    #expect(map["date"] == 1 && map["value"] == 0 && map["note"] == nil)
    do {
        _ = try CSVColumns(header: ["date", "secret header text"], columns: columns)
        Issue.record("expected wrong columns")
    } catch let error as CSVError {
        #expect(error == .wrongColumns(missing: ["value"], unknownPositions: [2], repeated: false, expected: ["date", "value", "note"]))
        #expect(error.userMessage.contains("missing column value"))
        #expect(error.userMessage.contains("column 2 is not one Cairn reads"))
        #expect(!error.userMessage.contains("secret"))
    }
    #expect(throws: CSVError.wrongColumns(missing: [], unknownPositions: [], repeated: true, expected: ["date", "value", "note"])) {
        try CSVColumns(header: ["date", "value", "Date"], columns: columns)
    }
}
