import Testing

@Test func storageTestsPlaceholder() {}
