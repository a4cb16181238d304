import Testing

@testable import WebApp

@Test func dateFieldsAreWrittenYearMonthDayLikeEveryDateInCairn() {
    let form = RegimenLedgerPage.form(products: [], product: "", from: "2026-01-31", to: "")
    #expect(form.contains("id=\"ledger-from\" name=\"from\" value=\"2026-01-31\""))
    #expect(form.contains("placeholder=\"YYYY-MM-DD\""))
    #expect(!form.contains("type=\"date\""), "a browser's date field shows its own locale's order")
}
