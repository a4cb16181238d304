import Testing

@Test func regimenTestsPlaceholder() {}
