import CairnApp
import CairnCore
import Foundation
import Testing

@testable import WebApp

/// The phone session in a real browser (one Chromium plays both the computer, on 127.0.0.1, and the phone, on
/// 127.0.0.2 over TLS, trusting only the session's key): Settings → Use your phone shows the QR code and the
/// fingerprint; the pairing page sends the secret from the fragment and clears it from the address bar; the computer
/// allows the phone; the phone's home page opens; ending the session replaces the phone's page. axe on every page.
@Suite(.serialized) struct PhoneBrowserTests {
    @Test func pairingAPhoneFromTheComputersPageAndEndingTheSession() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-phone-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        try cairn.settings.completeOnboarding()
        var configuration = try WebConfiguration(port: 0)
        configuration.phone = PhoneOptions(address: "127.0.0.2", port: 0, minutes: 5)
        let server = try WebServer(configuration: configuration, services: WebServices(cairn))
        try server.start()
        defer { server.stop() }
        let sessions = try #require(server.phone)
        let status = try sessions.open()
        let pairing = try #require(status.pairingURL)

        let (shots, keep) = try screenshotDirectory("phone")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        let browser = try await WebDriver.launch(arguments: ["--ignore-certificate-errors-spki-list=\(status.publicKeyPin)"])
        do {
            try await browser.open(server.loginURL)
            try await browser.open("http://127.0.0.1:\(server.port)/phone")
            #expect(try await browser.count(".phone-qr svg[role=img][aria-label]") == 1)
            #expect(try await browser.text("#phone-fingerprint") == status.fingerprint)
            try await browser.screenshot(to: shots.appendingPathComponent("phone-computer-open.png"))

            // The phone: the pairing page posts the secret and takes it out of the address bar.
            try await browser.open(pairing)
            #expect(try await browser.currentURL() == status.address + "pair")
            var asked = false
            for _ in 0..<50 where !asked {
                asked = sessions.status?.waiting.isEmpty == false
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            #expect(asked, "the computer is asked")
            #expect(try await browser.text("#pair-status").contains("allow this phone"))
            let join = try #require(sessions.status?.waiting.first)
            try sessions.answer(join: join.id, allow: true)
            #expect(try await browser.waitFor("#offer-title"))
            #expect(try await browser.currentURL() == status.address)
            try await browser.setViewport(.init(width: 390, height: 844, mobile: true))
            try await browser.screenshot(to: shots.appendingPathComponent("phone-home-390.png"))
            try await browser.setViewport(.init(width: 1280, height: 900, mobile: false))

            // The computer's page names the phone, with Disconnect.
            try await browser.open("http://127.0.0.1:\(server.port)/phone")
            #expect(try await browser.count(".phone-list button") == 1)
            try await browser.screenshot(to: shots.appendingPathComponent("phone-computer-paired.png"))
            try await browser.open(status.address)
            sessions.end()
            #expect(try await browser.waitFor("main h1", seconds: 1))
            var ended = false
            for _ in 0..<100 where !ended {
                ended = (try? await browser.text("h1")) == "This phone session has ended"
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            #expect(ended, "phone.js replaces the page once the session has ended")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
