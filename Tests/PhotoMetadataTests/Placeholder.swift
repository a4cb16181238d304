import Testing

@Test func photoMetadataTestsPlaceholder() {}
