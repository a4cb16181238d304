import CairnTestSupport
import Foundation
import Testing

@testable import WebApp

#if canImport(Glibc)
    import Glibc
#endif

private func request(
    _ method: String, _ target: String, port: UInt16, host: String? = nil, cookie: Bool = true,
    headers: [String] = [], body: Data = Data()
) throws -> RawResponse {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
    if cookie { lines.append("Cookie: cairn_session=\(Fixture.secret)") }
    lines += headers
    if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.count)") }
    var raw = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    raw.append(body)
    return try LoopbackSocket.exchange(port: port, raw)
}

private func startServer(_ settings: SettingsDouble, maximumBodyBytes: Int = 1 << 20) throws -> WebServer {
    let server = try WebServer(
        configuration: try Fixture.configuration(maximumBodyBytes: maximumBodyBytes, port: 0),
        services: Fixture.services(settings))
    try server.start()
    return server
}

@Test func servesOnAFreeLoopbackPortAndReportsIt() throws {
    let server = try startServer(SettingsDouble(onboarded: true))
    defer { server.stop() }
    #expect(server.port != 0)
    #expect(server.url.absoluteString == "http://127.0.0.1:\(server.port)/")
    #expect(server.startupLine == "Cairn is running at http://127.0.0.1:\(server.port)/?key=\(Fixture.secret)")
    let home = try request("GET", "/", port: server.port)
    #expect(home.status == 200)
    #expect(home.text.contains("Your journals"))
    #expect(home.head.contains("Content-Security-Policy: default-src 'self'"))
}

@Test func overTheSocketTheLoginSetsTheCookieAndOutsidersAreRefused() throws {
    let server = try startServer(SettingsDouble(allowed: []))
    defer { server.stop() }
    let login = try request("GET", "/?key=\(Fixture.secret)", port: server.port, cookie: false)
    #expect(login.status == 303)
    #expect(login.head.contains("Set-Cookie: cairn_session=\(Fixture.secret); HttpOnly; SameSite=Strict; Path=/"))
    let noSecret = try request("GET", "/settings", port: server.port, cookie: false)
    #expect(noSecret.status == 403)
    let evil = try request("GET", "/settings", port: server.port, host: "evil.example")
    #expect(evil.status == 421)
    #expect(evil.head.contains("Content-Security-Policy"))
}

@Test func aPostBodyArrivingInManyChunksIsReadWhole() throws {
    let settings = SettingsDouble(allowed: [.deleteAllData])
    let server = try startServer(settings)
    defer { server.stop() }
    let padding = String(repeating: "x", count: 300_000)
    let body = Data("padding=\(padding)&confirm=DELETE&csrf=\(Fixture.csrf)".utf8)
    let r = try request(
        "POST", "/settings/delete", port: server.port,
        headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
    #expect(r.status == 200)
    #expect(settings.deleted)
}

/// A multipart form body, as a browser sends a form with a file input (no JavaScript involved).
private func multipart(_ fields: [(String, String)], boundary: String = "cairnBoundary42") -> (header: String, body: Data) {
    var body = Data()
    for (name, value) in fields {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return ("Content-Type: multipart/form-data; boundary=\(boundary)", body)
}

@Test func aMultipartFormIsDecodedByTheServerAndItsCSRFFieldCounts() throws {
    let settings = SettingsDouble(allowed: [.deleteAllData])
    let server = try startServer(settings)
    defer { server.stop() }
    let refused = multipart([("confirm", "DELETE")])
    #expect(try request("POST", "/settings/delete", port: server.port, headers: [refused.header], body: refused.body).status == 403)
    #expect(!settings.deleted)
    let form = multipart([("confirm", "DELETE"), ("csrf", Fixture.csrf), ("padding", String(repeating: "y", count: 200_000))])
    let r = try request("POST", "/settings/delete", port: server.port, headers: [form.header], body: form.body)
    #expect(r.status == 200)
    #expect(settings.deleted)
}

@Test func aBodyOverTheLimitIsRefusedWithoutReachingTheService() throws {
    let settings = SettingsDouble(allowed: [])
    let server = try startServer(settings, maximumBodyBytes: 1024)
    defer { server.stop() }
    let body = Data(("confirm=DELETE&csrf=\(Fixture.csrf)&padding=" + String(repeating: "x", count: 5000)).utf8)
    let r = try request(
        "POST", "/settings/delete", port: server.port,
        headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
    #expect(r.status == 413)
    #expect(settings.calls.isEmpty)
}

@Test func aPortInUseIsAClearError() throws {
    let first = try startServer(SettingsDouble(allowed: []))
    defer { first.stop() }
    let second = try WebServer(
        configuration: try Fixture.configuration(port: first.port),
        services: Fixture.services(SettingsDouble(allowed: [])))
    #expect(throws: WebConfigurationError.cannotListen(port: first.port)) { try second.start() }
}

@Test func afterStopNothingListensAndStopIsIdempotent() throws {
    let server = try startServer(SettingsDouble(allowed: []))
    let port = server.port
    server.stop()
    server.stop()
    #expect(throws: (any Error).self) { try request("GET", "/", port: port) }
    // The port is free again: a new server can take it.
    let again = try WebServer(configuration: try Fixture.configuration(port: port), services: Fixture.services(SettingsDouble(allowed: [])))
    try again.start()
    again.stop()
}
