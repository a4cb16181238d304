import Testing

@testable import WebApp

@Test func defaultsToLoopbackOnTheDefaultPortWithARandomSecret() throws {
    let a = try WebConfiguration()
    let b = try WebConfiguration()
    #expect(a.host == "127.0.0.1")
    #expect(a.port == 8737)
    #expect(a.secret.count == 43)
    #expect(a.csrfToken.count == 43)
    #expect(a.secret != b.secret)
    #expect(a.secret != a.csrfToken)
    #expect(WebConfiguration.isWellFormedToken(a.secret))
}

@Test func acceptsLocalhostAsAHostName() throws {
    #expect(try WebConfiguration(host: "localhost").host == "localhost")
    #expect(try WebConfiguration(host: "LOCALHOST", port: 0).port == 0)
}

@Test(arguments: ["0.0.0.0", "::1", "[::1]", "192.168.1.20", "evil.example", "", "127.0.0.2", "localhost.evil.example"])
func refusesEveryHostButIPv4Loopback(_ host: String) {
    #expect(throws: WebConfigurationError.hostNotLoopback) { try WebConfiguration(host: host) }
}

@Test func theHostErrorSaysWhatToDoWithoutEchoingTheHost() {
    let message = WebConfigurationError.hostNotLoopback.userMessage
    #expect(message.contains("127.0.0.1"))
    #expect(!message.contains("evil"))
}

@Test(arguments: ["short", String(repeating: "a", count: 31), String(repeating: "a", count: 40) + "; x", String(repeating: "é", count: 40)])
func refusesSecretsThatAreShortOrUnsafeInACookie(_ secret: String) {
    #expect(throws: WebConfigurationError.weakSecret) { try WebConfiguration(secret: secret) }
    #expect(throws: WebConfigurationError.weakSecret) { try WebConfiguration(csrfToken: secret) }
}

@Test func refusesANonPositiveBodyLimit() {
    #expect(throws: WebConfigurationError.invalidBodyLimit) { try WebConfiguration(maximumBodyBytes: 0) }
}
