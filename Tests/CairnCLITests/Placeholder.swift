import Testing

@Test func cLITestsPlaceholder() {}
