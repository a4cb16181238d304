import Testing

@Test func cairnCoreTestsPlaceholder() {}
