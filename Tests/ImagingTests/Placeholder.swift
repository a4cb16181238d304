import Testing

@Test func imagingTestsPlaceholder() {}
