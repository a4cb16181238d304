import Testing

@Test func landmarksTestsPlaceholder() {}
