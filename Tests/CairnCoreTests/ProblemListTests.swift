import CairnCore
import Foundation
import Testing

@Test func aListOfProblemsShowsTheFirstTwentyAndHowManyMore() {
    let lines = (1...5_000_000).lazy.map { "Line \($0): bad." }
    let entries = ProblemList.entries(Array(lines.prefix(25))) { $0 }
    #expect(entries.count == 21)
    #expect(entries.first == "Line 1: bad." && entries[19] == "Line 20: bad.")
    #expect(entries.last == "… and 5 more.")
    // The texts of the problems past the first twenty are never made.
    var made = 0
    let many = ProblemList.entries(0..<5_000_000) { n -> String in
        made += 1
        return "\(n)"
    }
    #expect(made == 20 && many.last == "… and 4,999,980 more.")
    #expect(ProblemList.entries(["a", "b"]) == ["a", "b"])
    #expect(ProblemList.entries(Array(repeating: "x", count: 20)).count == 20)
    #expect(
        ProblemList.joined(1...22, separator: ", ") { "\($0)" }
            == "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 … and 2 more")
}

@Test func aHeaderWithAHundredThousandExtraColumnsGivesAShortMessage() throws {
    let columns: [(name: String, keys: Set<String>, required: Bool)] = [("date", ["date"], true), ("value", ["value"], true)]
    let header = ["date", "value"] + (1...100_000).map { "extra\($0)" }
    do {
        _ = try CSVColumns(header: header, columns: columns)
        Issue.record("expected wrong columns")
    } catch let error as CSVError {
        let message = error.userMessage
        #expect(message.utf8.count < 4096, "\(message.utf8.count) bytes")
        #expect(
            message.contains(
                "columns 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22 … and 99,980 more are not one Cairn reads"),
            "\(message)")
        #expect(!message.contains("extra"))
    }
}

@Test func fieldProblemsListAtMostTwentyRefusals() {
    struct Bad: CairnError { var userMessage: String { "bad." } }
    let problems = FieldProblems((1...30).map { FieldProblems<String>.Problem("rows", row: $0, Bad()) })
    #expect(problems.messages(for: "rows").count == 21)
    #expect(problems.messages(for: "rows").last == "… and 10 more.")
    #expect(problems.userMessage.hasPrefix("Row 1: bad. Row 2: bad.") && problems.userMessage.hasSuffix("Row 20: bad. … and 10 more."))
}
