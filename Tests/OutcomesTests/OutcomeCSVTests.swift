import CairnCore
import Foundation
import Outcomes
import Regimen
import Testing

private let today = day("2026-03-10")
private let metrics = BuiltInMetrics.all + [try! MetricDefinition.custom(id: "headache", name: "Headache")]

private func parse(_ text: String) throws -> OutcomeCSV.Parsed {
    try OutcomeCSV.parse(Data(text.utf8), metrics: metrics, today: today)
}

@Test func readsGoodLinesWithIdsNamesAndANoteColumnInAnyOrder() throws {
    let parsed = try parse(
        """
        Value,Metric,Date,Note\r
        3,energy,2026-03-01,\r
        4.5,Sleep quality,2026-03-02,"slept, finally"\r
        2,HEADACHE,2026-03-03,\r

        """)
    #expect(parsed.problems.isEmpty)
    #expect(parsed.rows.map(\.metricID) == ["energy", "sleep_quality", "headache"])
    #expect(parsed.rows.map(\.value) == [3, 4.5, 2])
    #expect(parsed.rows.map(\.line) == [2, 3, 4])
    #expect(parsed.rows[1].note == "slept, finally")
    #expect(parsed.rows[0].day == day("2026-03-01"))
}

@Test func reportsEveryBadLineWithItsNumberAndAReasonWithoutItsContent() throws {
    let parsed = try parse(
        """
        date,metric,value
        2026-03-01,energy,3
        2026-02-30,energy,3
        2026-03-11,energy,3
        2026-03-01,secretmetric,3
        2026-03-01,steps,4000
        2026-03-01,mood,three
        2026-03-01,mood,3,5
        2026-03-01,mood,6
        2026-03-01,mood,3,5
        2026-03-01,mood,1e3
        2026-03-01,mood,NaN
        """.replacingOccurrences(of: "3,5\n2026-03-01,mood,6", with: "\"3,5\"\n2026-03-01,mood,6"))
    #expect(parsed.rows.count == 1)
    let reasons = parsed.problems.map(\.reason)
    #expect(parsed.problems.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    #expect(
        reasons == [
            .badDate, .dayInFuture, .unknownMetric, .readOnlyMetric, .notANumber, .notANumber,
            .outOfRange(range: "1-5"), .wrongFieldCount(expected: 3, found: 4), .notANumber, .notANumber,
        ])
    for problem in parsed.problems {
        #expect(problem.message.hasPrefix("Line \(problem.line): "))
        #expect(!problem.message.contains("secretmetric") && !problem.message.contains("three"))
        #expect(ProductWording.bannedWords(in: problem.message).isEmpty)
    }
}

@Test func aDateBefore1900IsRefusedWithItsLine() throws {
    let parsed = try parse("date,metric,value\n0001-01-01,energy,3\n1899-12-31,energy,3\n1900-01-01,energy,3\n9999-12-31,energy,3")
    #expect(parsed.rows.map(\.line) == [4])
    #expect(parsed.problems.map(\.line) == [2, 3, 5])
    #expect(parsed.problems.map(\.reason) == [.dateOutOfRange, .dateOutOfRange, .dayInFuture])
    #expect(parsed.problems[0].message == "Line 2: the date is before 1900-01-01 or after tomorrow; Cairn imports dates from 1900-01-01 to tomorrow.")
}

@Test func aFileWithTheWrongColumnsIsRefusedWhole() throws {
    #expect(
        throws: CSVError.wrongColumns(
            missing: ["value"], unknownPositions: [3], repeated: false,
            expected: ["date", "metric", "value", "note"])
    ) {
        try parse("date,metric,amount\n2026-03-01,energy,3\n")
    }
    // A file without a header: its first line is read as one, and is wrong.
    #expect(throws: CSVError.self) { try parse("2026-03-01,energy,3\n") }
    #expect(throws: CSVError.empty) { try parse("") }
}

@Test func aHeaderOnlyFileHasNothingToRead() throws {
    let parsed = try parse("date,metric,value\n")
    #expect(parsed.rows.isEmpty && parsed.problems.isEmpty)
}

@Test func numbersArePlainDecimals() {
    #expect(OutcomeCSV.number("3") == 3 && OutcomeCSV.number("-1.5") == -1.5 && OutcomeCSV.number(".5") == 0.5)
    for bad in ["", "3,5", "1e3", "NaN", "inf", "1.2.3", "--1", "+", "3 ", "0x10"] { #expect(OutcomeCSV.number(bad) == nil, "\(bad)") }
}
