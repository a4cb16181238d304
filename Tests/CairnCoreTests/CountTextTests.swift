import CairnCore
import Testing

@Test func countsAreWrittenWithTheirThousandsGrouped() {
    #expect(CountText.grouped(0) == "0")
    #expect(CountText.grouped(999) == "999")
    #expect(CountText.grouped(1000) == "1,000")
    #expect(CountText.grouped(150000) == "150,000")
    #expect(CountText.grouped(1_234_567) == "1,234,567")
    #expect(CountText.grouped(-4500) == "-4,500")
}

@Test func aCountAgreesWithItsNoun() {
    #expect(CountText.counted(1, "type") == "1 type")
    #expect(CountText.counted(2, "type") == "2 types")
    #expect(CountText.counted(0, "record") == "0 records")
    #expect(CountText.counted(12500, "record") == "12,500 records")
    #expect(CountText.counted(3, "entry", plural: "entries") == "3 entries")
}
