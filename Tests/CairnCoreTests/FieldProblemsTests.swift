import Testing

@testable import CairnCore

private enum Field: Hashable, Sendable { case name, rows }
private struct Refusal: CairnError { let userMessage: String }

@Test func everyRefusalIsKeptWithItsFieldAndRow() throws {
    var problems = FieldProblems<Field>.Collector()
    let name: String? = problems.field(.name) { throw Refusal(userMessage: "A name is needed.") }
    let first: Int? = problems.field(.rows, row: 2) { throw Refusal(userMessage: "Not a number.") }
    let second = problems.field(.rows, row: 3) { 7 }
    #expect(name == nil && first == nil && second == 7)
    let refusal = try #require(throws: FieldProblems<Field>.self) { try problems.check() }
    #expect(refusal.messages(for: .name) == ["A name is needed."])
    #expect(refusal.messages(for: .rows) == ["Row 2: Not a number."])
    #expect(refusal.userMessage == "A name is needed. Row 2: Not a number.")
    try FieldProblems<Field>.Collector().check()
}
