import Foundation
import Testing
@testable import WebApp
#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 exchange over a loopback socket, so the test controls every header (Host included).
private struct RawResponse {
    let status: Int
    let head: String
    let body: String
}

private func exchange(port: UInt16, _ raw: Data) throws -> RawResponse {
    struct SocketFailure: Error {}
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketFailure() }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw SocketFailure() }
    try raw.withUnsafeBytes { buffer in
        var sent = 0
        while sent < buffer.count {
            let n = send(fd, buffer.baseAddress! + sent, buffer.count - sent, 0)
            guard n > 0 else { throw SocketFailure() }
            sent += n
        }
    }
    var received = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { break }
        received.append(contentsOf: chunk[0..<n])
    }
    let text = String(decoding: received, as: UTF8.self)
    let parts = text.components(separatedBy: "\r\n\r\n")
    let head = parts.first ?? ""
    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    return RawResponse(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
}

private func request(_ method: String, _ target: String, port: UInt16, host: String? = nil, cookie: Bool = true,
                     headers: [String] = [], body: Data = Data()) throws -> RawResponse {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
    if cookie { lines.append("Cookie: cairn_session=\(Fixture.secret)") }
    lines += headers
    if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.count)") }
    var raw = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    raw.append(body)
    return try exchange(port: port, raw)
}

private func startServer(_ settings: SettingsDouble, maximumBodyBytes: Int = 1 << 20) throws -> WebServer {
    let server = try WebServer(configuration: try Fixture.configuration(maximumBodyBytes: maximumBodyBytes, port: 0),
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
    #expect(home.body.contains("Your journals"))
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
    let r = try request("POST", "/settings/delete", port: server.port,
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
    let r = try request("POST", "/settings/delete", port: server.port,
                        headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
    #expect(r.status == 413)
    #expect(settings.calls.isEmpty)
}

@Test func aPortInUseIsAClearError() throws {
    let first = try startServer(SettingsDouble(allowed: []))
    defer { first.stop() }
    let second = try WebServer(configuration: try Fixture.configuration(port: first.port),
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
