import Testing

@Test func skinTestsPlaceholder() {}
