import CairnApp
import CairnCore
import Encryption
import Foundation
import Storage
import Testing
import WebApp

/// A clock the test moves by hand (the gate's idle time is read from it).
private final class HandClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant = Date(timeIntervalSince1970: 1_780_000_000)
    let timeZone = TimeZone(identifier: "UTC")!
    func now() -> Date { lock.withLock { instant } }
    func advance(_ seconds: TimeInterval) { lock.withLock { instant = instant.addingTimeInterval(seconds) } }
}

/// The vault lock in a real browser: the unlock page (audited with axe at 1280 and 390 px), the privacy cover when
/// the tab is hidden or the window loses focus, the unlock page again once the vault idled past its limit, and no
/// photo URL answering while locked.
@Suite(.serialized) struct LockBrowserTests {
    @Test func theUnlockPageTheCoverAndTheIdleRelock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-lock-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = HandClock()
        let plain = try CairnApplication.open(dataDirectory: directory.path, environment: [:], clock: clock)
        try plain.settings.completeOnboarding()
        let area = try plain.skin.addArea(name: "Left forearm patch", bodyLocation: "forearm")
        let entry = try #require(try SkinDemo.generate(count: 2, seed: 5, into: area.id, service: plain.skin, now: clock.now()).first)
        let vault = plain.vault
        let cheap = KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))!
        try vault.turnLockOn(database: plain.database, passphrase: Passphrase("a browser vault passphrase"), keyDerivation: cheap, clock: clock).close()
        let gate = VaultGate(locked: OpenedVault.opening(vault, clock: clock), clock: clock)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), gate: gate)
        try server.start()
        defer { server.stop(); gate.lock() }
        let origin = "http://127.0.0.1:\(server.port)"
        let photo = "\(origin)/skin/areas/\(area.id.rawValue)/entries/\(entry.id.rawValue)/photo.jpg"
        let (shots, keep) = try screenshotDirectory("lock")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }

        let browser = try await WebDriver.launch()
        do {
            // Locked: the login address lands on the unlock page (audited), and a photo URL gives no photo.
            try await browser.open(server.loginURL)
            #expect(try await browser.currentURL() == "\(origin)/unlock")
            let fetched = try await browser.evaluate("""
                var r = new XMLHttpRequest(); r.open('GET', arguments[0], false); r.send();
                return [r.status, r.getResponseHeader('Content-Type'), r.responseURL];
                """, arguments: [photo]) as? [Any]
            #expect(fetched?[0] as? Int == 200 && (fetched?[1] as? String)?.hasPrefix("text/html") == true
                    && (fetched?[2] as? String)?.hasPrefix("\(origin)/unlock") == true, "the photo URL leads to the unlock page: \(String(describing: fetched))")
            for viewport in [WebDriver.Viewport(width: 1280, height: 900, mobile: false), WebDriver.Viewport(width: 390, height: 844, mobile: true)] {
                try await browser.setViewport(viewport)
                try await browser.screenshot(to: shots.appendingPathComponent("unlock-\(viewport.width).png"))
            }
            try await browser.setViewport(WebDriver.Viewport(width: 1280, height: 900, mobile: false))

            // A wrong passphrase: the error beside the field (audited), then the right one after the wait.
            try await browser.type("not it", into: "#passphrase")
            try await browser.click("#unlock")
            #expect(try await browser.waitFor("#passphrase-error"))
            #expect(try await browser.text("#passphrase-error").contains("does not unlock this vault"))
            try await browser.screenshot(to: shots.appendingPathComponent("unlock-wrong-1280.png"))
            clock.advance(2)
            try await browser.type("a browser vault passphrase", into: "#passphrase")
            try await browser.click("#unlock")
            #expect(try await browser.waitFor("#lock-now"))
            try await browser.open("\(origin)/skin")
            for viewport in [WebDriver.Viewport(width: 1280, height: 900, mobile: false), WebDriver.Viewport(width: 390, height: 844, mobile: true)] {
                try await browser.setViewport(viewport)
                try await browser.open("\(origin)/skin")
                try await browser.screenshot(to: shots.appendingPathComponent("header-lock-now-\(viewport.width).png"))
                try await browser.open("\(origin)/settings#lock")
                _ = try await browser.evaluate("document.getElementById('lock').scrollIntoView(); return 0")
                try await browser.screenshot(to: shots.appendingPathComponent("settings-lock-\(viewport.width).png"))
            }
            try await browser.setViewport(WebDriver.Viewport(width: 1280, height: 900, mobile: false))

            // The cover: the tab hidden, or the window losing focus, covers the page; coming back uncovers it.
            try await browser.open("\(origin)/skin")
            #expect(try await browser.evaluate("return document.getElementById('privacy-cover').hidden") as? Bool == true)
            let covered = """
                var c = document.getElementById('privacy-cover'), s = getComputedStyle(c), r = c.getBoundingClientRect();
                return !c.hidden && s.display !== 'none' && s.backgroundColor !== 'rgba(0, 0, 0, 0)' && r.top <= 0 && r.left <= 0
                    && r.width >= document.documentElement.clientWidth && r.height >= document.documentElement.clientHeight
                    && document.elementFromPoint(r.width / 2, r.height / 2).closest('#privacy-cover') === null;
                """
            _ = try await browser.evaluate("""
                Object.defineProperty(document, 'hidden', { value: true, configurable: true });
                Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
                document.dispatchEvent(new Event('visibilitychange')); return 0
                """)
            #expect(try await browser.evaluate(covered) as? Bool == true, "a hidden tab is covered")
            try await browser.screenshot(to: shots.appendingPathComponent("cover-1280.png"))
            _ = try await browser.evaluate("""
                delete document.hidden; delete document.visibilityState; window.dispatchEvent(new Event('focus')); return 0
                """)
            #expect(try await browser.evaluate("return document.getElementById('privacy-cover').hidden") as? Bool == true)
            _ = try await browser.evaluate("window.dispatchEvent(new Event('blur')); return 0")
            #expect(try await browser.evaluate(covered) as? Bool == true, "a window that lost focus is covered")
            #expect(!gate.isLocked, "the cover only covers: the vault stays open")

            // Idle past the limit (10 minutes by default): coming back to the window shows the unlock page.
            clock.advance(10 * 60 + 1)
            _ = try await browser.evaluate("window.dispatchEvent(new Event('focus')); return 0")
            for _ in 0..<50 where !(try await browser.currentURL()).contains("/unlock") { try await Task.sleep(nanoseconds: 100_000_000) }
            #expect(try await browser.currentURL() == "\(origin)/unlock?next=%2Fskin")
            #expect(gate.isLocked)
            #expect(try await browser.count("#passphrase") == 1)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
