import Testing
@testable import WebApp

@Test func countsAreWrittenWithTheirThousandsGrouped() {
    #expect(Layout.grouped(0) == "0")
    #expect(Layout.grouped(999) == "999")
    #expect(Layout.grouped(1000) == "1,000")
    #expect(Layout.grouped(150000) == "150,000")
    #expect(Layout.grouped(1234567) == "1,234,567")
    #expect(Layout.grouped(-4500) == "-4,500")
}

@Test func aCountAgreesWithItsNoun() {
    #expect(Layout.counted(1, "type") == "1 type")
    #expect(Layout.counted(2, "type") == "2 types")
    #expect(Layout.counted(0, "record") == "0 records")
    #expect(Layout.counted(12500, "record") == "12,500 records")
    #expect(Layout.counted(3, "entry", plural: "entries") == "3 entries")
}

@Test func dateFieldsAreWrittenYearMonthDayLikeEveryDateInCairn() {
    let form = RegimenLedgerPage.form(products: [], product: "", from: "2026-01-31", to: "")
    #expect(form.contains("id=\"ledger-from\" name=\"from\" value=\"2026-01-31\""))
    #expect(form.contains("placeholder=\"YYYY-MM-DD\""))
    #expect(!form.contains("type=\"date\""), "a browser's date field shows its own locale's order")
}
