import CairnCore
import Foundation
import Testing

@testable import Regimen

private func entry(
    name: String, supersedes: IntakeRecordID? = nil, supersededBy: IntakeRecordID? = nil,
    status: IntakeStatus = .taken
) -> LedgerEntry {
    LedgerEntry(
        id: "i1", kind: .scheduled, status: status, productID: "p", productRevisionID: "pr", productName: name,
        scheduleRevisionID: "r",
        occurrence: DoseOccurrence(
            revisionID: "r", day: LocalDay(year: 2026, month: 3, day: 1)!,
            slot: TimeSlot(hour: 8, minute: 0)!),
        servings: Decimal(string: "1.5")!, takenAt: Date(timeIntervalSince1970: 1_772_348_400),
        timeZone: TimeZone(identifier: "Europe/Berlin")!, localDay: LocalDay(year: 2026, month: 3, day: 1)!,
        recordedAt: Date(timeIntervalSince1970: 1_772_348_401), supersedes: supersedes, supersededBy: supersededBy)
}

@Test func csvRowsQuoteCommasQuotesAndLineBreaksAndDefuseFormulas() {
    let header = LedgerEntry.csvHeader.split(separator: ",")
    let plain = entry(name: "Magnesium").csvRow
    #expect(plain.split(separator: ",", omittingEmptySubsequences: false).count == header.count)
    #expect(plain.contains(",Magnesium,"))
    #expect(plain.contains(",r_2026-03-01_0800,2026-03-01,08:00,1.5,2026-03-01T07:00:00Z,Europe/Berlin,2026-03-01,"))
    #expect(entry(name: "Fish oil, \"triple\"").csvRow.contains(",\"Fish oil, \"\"triple\"\"\","))
    #expect(entry(name: "two\nlines").csvRow.contains(",\"two\nlines\","))
    #expect(entry(name: "=SUM(A1)").csvRow.contains(",'=SUM(A1),"))
}

@Test func onlyATakenRecordNoLaterRecordCorrectsCountsAsIntake() {
    #expect(entry(name: "x").countsAsIntake)
    #expect(!entry(name: "x", status: .skipped).countsAsIntake)
    #expect(!entry(name: "x", supersededBy: "i2").countsAsIntake)
}

@Test func jsonKeepsDecimalsExactAndNamesTheZone() throws {
    let data = try JSONEncoder().encode(entry(name: "x", supersedes: "i0"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["servings"] as? String == "1.5")
    #expect(object["timeZone"] as? String == "Europe/Berlin")
    #expect(object["takenAt"] as? String == "2026-03-01T07:00:00Z")
    #expect(object["doseID"] as? String == "r_2026-03-01_0800")
    #expect(object["supersedes"] as? String == "i0")
    #expect(object["supersededBy"] == nil)
}
