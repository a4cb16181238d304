import CairnApp
import CairnCore
import Foundation
import PhoneLink
import Storage
import Testing

@testable import WebApp

/// What curl saw of one request to the phone listener (loopback only: 127.0.0.2 stands in for the home network).
struct PhoneReply {
    /// curl's exit status: 0 answered, 7 nothing listens, 35/56 the connection was closed during the handshake.
    let exit: Int32
    let status: Int
    let headers: String
    let body: String

    var cookies: [String] {
        headers.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("set-cookie:") }.map {
            String($0.dropFirst(11)).trimmingCharacters(in: .whitespaces)
        }
    }
}

/// Talks TLS to the phone listener with curl, trusting only the session's key (`--pinnedpubkey`).
func phoneRequest(
    _ status: PhoneSessions.Status, _ path: String, method: String = "GET", form: String? = nil, cookie: String? = nil,
    host: String? = nil, origin: Bool = true, from source: String? = nil, multipart: [(name: String, value: String)] = [],
    userAgent: String = "Mozilla/5.0 (Linux; Android 14) Chrome/156.0 Mobile Safari/537.36"
) throws -> PhoneReply {
    let base = URL(string: status.address)!
    var arguments = [
        "-sS", "-i", "-k", "--pinnedpubkey", "sha256//\(status.publicKeyPin)", "--max-time", "10", "--noproxy", "*",
        "-X", method, "-A", userAgent,
    ]
    if let host { arguments += ["-H", "Host: \(host)"] }
    if origin, method != "GET" { arguments += ["-H", "Origin: \(status.address.dropLast())"] }
    if let cookie { arguments += ["-b", cookie] }
    if let form { arguments += ["--data-raw", form] }
    // A multipart form as a browser sends it: `value` "@PATH;type=..." is a file, anything else a text field.
    for field in multipart { arguments += ["-F", "\(field.name)=\(field.value)"] }
    if let source { arguments += ["--interface", source] }
    // The path as written (a query included): appendingPathComponent would escape its "?".
    arguments.append(base.absoluteString + path.dropFirst())
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = output.components(separatedBy: "\r\n\r\n")
    let head = parts.first ?? ""
    let code = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return PhoneReply(exit: process.terminationStatus, status: code, headers: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
}

/// The value of cookie `name` in a reply's Set-Cookie headers.
func cookieValue(_ reply: PhoneReply, _ name: String) -> String? {
    reply.cookies.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) }
}

@Suite(.serialized) struct PhoneSessionTests {
    /// A plain vault served in process with a phone session on 127.0.0.2 (a free port).
    static func site(minutes: Int = 15) throws -> (PlainSite, PhoneSessions, WebApplication) {
        let site = try PlainSite()
        let sessions = PhoneSessions(options: PhoneOptions(address: "127.0.0.2", port: 0, minutes: minutes), gate: site.gate, clock: site.clock)
        let web = buildApplication(configuration: try Fixture.configuration(), gate: site.gate, phone: sessions)
        return (site, sessions, web)
    }

    @Test func pairingNeedsTheSecretOnceAndTheComputersAllowAndOpensOnlyThePhonesRoutes() throws {
        let (site, sessions, web) = try Self.site()
        defer { sessions.end() }
        let status = try sessions.open()
        #expect(status.address.hasPrefix("https://127.0.0.2:"))
        let secret = try #require(status.pairingURL?.components(separatedBy: "#").last)

        // Without pairing nothing of the vault is answered.
        let outsider = try phoneRequest(status, "/")
        #expect(outsider.exit == 0 && outsider.status == 403)
        #expect(!outsider.body.contains(site.areaName))
        #expect(try phoneRequest(status, "/skin").status == 403)
        let pairPage = try phoneRequest(status, "/pair")
        #expect(pairPage.status == 200 && pairPage.body.contains("compare its SHA-256 fingerprint"), "the warning explained where it is seen")
        #expect(try phoneRequest(status, "/pair", host: "evil.example:\(URL(string: status.address)!.port!)").status == 421)

        // A wrong secret, or the right one without our Origin, is refused.
        #expect(try phoneRequest(status, "/pair", method: "POST", form: "secret=wrong").status == 403)
        #expect(try phoneRequest(status, "/pair", method: "POST", form: "secret=\(secret)", origin: false).status == 403)
        let paired = try phoneRequest(status, "/pair", method: "POST", form: "secret=\(secret)")
        #expect(paired.status == 202)
        let pairing = try #require(cookieValue(paired, PhoneApplication.pairingCookie))
        #expect(cookieValue(paired, PhoneApplication.sessionCookie) == nil, "no session before the computer allows it")
        // Used once.
        #expect(try phoneRequest(status, "/pair", method: "POST", form: "secret=\(secret)").status == 403)
        #expect(sessions.status?.pairingURL != status.pairingURL, "a new code for the next phone")

        // The pairing cookie alone opens nothing; the computer is asked.
        #expect(try phoneRequest(status, "/", cookie: "\(PhoneApplication.sessionCookie)=\(pairing)").status == 410)
        #expect(try phoneRequest(status, "/pair/status", cookie: "\(PhoneApplication.pairingCookie)=\(pairing)").status == 202)
        let join = try #require(sessions.status?.waiting.first)
        #expect(join.browser == "Chrome on Android")
        #expect(web.handle(Fixture.get("/phone")).bodyText.contains("A phone asks to join: Chrome on Android"))
        #expect(web.handle(Fixture.post("/phone/joins/\(join.id)/allow")).status == 303)

        let allowed = try phoneRequest(status, "/pair/status", cookie: "\(PhoneApplication.pairingCookie)=\(pairing)")
        #expect(allowed.status == 200)
        let phoneCookie = try #require(allowed.cookies.first { $0.hasPrefix(PhoneApplication.sessionCookie + "=") })
        #expect(
            phoneCookie.contains("Secure") && phoneCookie.contains("HttpOnly") && phoneCookie.contains("SameSite=Strict")
                && phoneCookie.contains("Path=/"))
        let token = try #require(cookieValue(allowed, PhoneApplication.sessionCookie))
        #expect(token != pairing)
        let cookie = "\(PhoneApplication.sessionCookie)=\(token)"

        // Every computer page says so, with how to end it, and its footer names the phone.
        let settings = web.handle(Fixture.get("/settings")).bodyText
        #expect(settings.contains("Your phone (Chrome on Android) is connected over your home network until"))
        #expect(settings.contains("action=\"/phone/end\"") && settings.contains("to your phone (Chrome on Android)"))

        let home = try phoneRequest(status, "/", cookie: cookie)
        #expect(home.status == 200 && home.body.contains("Cairn on this phone"))
        #expect(home.headers.contains("Content-Security-Policy") && home.headers.contains("Cache-Control: no-store"))
        // A route outside the phone's set is not there, whatever the computer's table has.
        let products = try phoneRequest(status, "/regimen/products", cookie: cookie)
        #expect(products.status == 404 && !products.body.contains(site.areaName))
        #expect(try phoneRequest(status, "/settings", cookie: cookie).status == 404)
        #expect(try phoneRequest(status, "/", cookie: cookie, host: "127.0.0.1:\(URL(string: status.address)!.port!)").status == 421)
        #expect(web.handle(Fixture.get("/phone")).bodyText.contains(status.fingerprint))

        // Disconnected: the phone's next request gets the "ended" page, holding nothing.
        let phone = try #require(sessions.status?.phones.first)
        #expect(web.handle(Fixture.post("/phone/phones/\(phone.id)/disconnect")).status == 303)
        let after = try phoneRequest(status, "/", cookie: cookie)
        #expect(after.status == 410 && after.body.contains("has ended"))

        // End: nothing listens on the port any more.
        #expect(web.handle(Fixture.post("/phone/end")).status == 303)
        #expect(!sessions.isOpen)
        #expect(try phoneRequest(status, "/pair").exit == 7)
    }

    @Test func theSessionEndsWhenItsMinutesRunOutAndClientsOutsideTheSubnetAreRefused() throws {
        let (site, sessions, _) = try Self.site(minutes: 1)
        defer { sessions.end() }
        let status = try sessions.open()
        #expect(try phoneRequest(status, "/pair", from: "127.0.0.3").status == 200)
        site.clock.advance(61)
        // The first to notice may be a phone's request: it is told the session ended (or its connection closes).
        let late = try phoneRequest(status, "/pair")
        #expect(late.status == 410 || late.exit != 0)
        #expect(!sessions.isOpen)
        #expect(try phoneRequest(status, "/pair").exit == 7)

        // A network of one address (/32): a client from another address is closed at accept.
        let identity = try site.application.phoneIdentity.identity(for: IPAddress("127.0.0.2")!)
        let narrow = try PhoneServer(
            network: PhoneNetwork(address: IPAddress("127.0.0.2")!, prefixLength: 32), port: 0, identity: identity, sessions: sessions)
        defer { narrow.stop() }
        let narrowStatus = PhoneSessions.Status(
            address: "https://127.0.0.2:\(narrow.port)/", pairingURL: nil, fingerprint: "", publicKeyPin: identity.certificate.publicKeyPin,
            ends: Date(), waiting: [], phones: [])
        #expect(try phoneRequest(narrowStatus, "/pair", from: "127.0.0.2").exit == 0)
        #expect(try phoneRequest(narrowStatus, "/pair", from: "127.0.0.3").exit != 0)
    }

    @Test func theVaultKeepsOneKeySealedWhileTheLockIsOnAndLockingEndsTheSession() throws {
        let site = try LockedSite()
        let sessions = PhoneSessions(options: PhoneOptions(address: "127.0.0.2", port: 0), gate: site.gate, clock: site.clock)
        defer { sessions.end() }
        #expect(throws: PhoneSessionError.vaultLocked) { try sessions.open() }
        #expect(site.unlock().status == 303)
        let first = try sessions.open()
        let kept = try Data(contentsOf: site.directory.appendingPathComponent(Vault.phoneIdentityFileName))
        #expect(kept.starts(with: Array("CAIRNPHO".utf8)), "sealed under the vault key")
        #expect(!String(decoding: kept, as: UTF8.self).contains("PRIVATE KEY"))
        site.gate.lock()
        #expect(!sessions.isOpen)
        #expect(sessions.endReason == .locked)
        #expect(try phoneRequest(first, "/pair").exit == 7)
        // Unlocked again: the same key (the phone's exception and the pin hold), the same certificate for the same address.
        #expect(site.unlock().status == 303)
        let second = try sessions.open()
        #expect(second.publicKeyPin == first.publicKeyPin)
        #expect(second.fingerprint == first.fingerprint)
        #expect(second.pairingURL != first.pairingURL)
    }

    @Test func aPlainVaultKeepsItsKeyInPEMAndANewAddressGetsANewCertificateOverIt() throws {
        let site = try PlainSite(empty: true)
        let service = site.application.phoneIdentity
        let first = try service.identity(for: IPAddress("127.0.0.2")!)
        let kept = try String(contentsOf: site.directory.appendingPathComponent(Vault.phoneIdentityFileName), encoding: .utf8)
        #expect(kept.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        let moved = try service.identity(for: IPAddress("127.0.0.3")!)
        #expect(moved.key == first.key)
        #expect(moved.certificate.addresses == [IPAddress("127.0.0.3")!])
        #expect(moved.certificate.publicKeyPin == first.certificate.publicKeyPin)
    }

    @Test func theComputersPageSaysWhenNoPhoneSessionIsOffered() throws {
        let site = try PlainSite(empty: true)
        let page = site.get("/phone")
        #expect(page.status == 200 && page.bodyText.contains("cairn serve"))
        #expect(site.post("/phone/open").status == 503)
        #expect(site.get("/settings").bodyText.contains("href=\"/phone\""))
    }
}
