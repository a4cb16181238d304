import Testing

@Test func cairnAppTestsPlaceholder() {}
