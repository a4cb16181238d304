import Testing

@Test func browserTestsPlaceholder() {}
