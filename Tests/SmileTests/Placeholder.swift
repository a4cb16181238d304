import Testing

@Test func smileTestsPlaceholder() {}
