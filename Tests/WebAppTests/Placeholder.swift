import Testing

@Test func webAppTestsPlaceholder() {}
