import CairnApp
import CairnCore
import Encryption
import Foundation
import Storage
import Testing

@testable import WebApp

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
        try vault.turnLockOn(database: plain.database, passphrase: Passphrase("a browser vault passphrase"), keyDerivation: cheap, clock: clock)
            .close()
        let gate = VaultGate(locked: OpenedVault.opening(vault, clock: clock), clock: clock)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), gate: gate)
        try server.start()
        defer {
            server.stop()
            gate.lock()
        }
        let origin = "http://127.0.0.1:\(server.port)"
        let photo = "\(origin)/skin/areas/\(area.id.rawValue)/entries/\(entry.id.rawValue)/photo.jpg"
        let (shots, keep) = try screenshotDirectory("lock")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }

        let browser = try await WebDriver.launch()
        do {
            // Locked: the login address lands on the unlock page (audited), and a photo URL gives no photo.
            try await browser.open(server.loginURL)
            #expect(try await browser.currentURL() == "\(origin)/unlock")
            let fetched =
                try await browser.evaluate(
                    """
                    var r = new XMLHttpRequest(); r.open('GET', arguments[0], false); r.send();
                    return [r.status, r.getResponseHeader('Content-Type'), r.responseURL];
                    """, arguments: [photo]) as? [Any]
            #expect(
                fetched?[0] as? Int == 200 && (fetched?[1] as? String)?.hasPrefix("text/html") == true
                    && (fetched?[2] as? String)?.hasPrefix("\(origin)/unlock") == true,
                "the photo URL leads to the unlock page: \(String(describing: fetched))")
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
            _ = try await browser.evaluate(
                """
                Object.defineProperty(document, 'hidden', { value: true, configurable: true });
                Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
                document.dispatchEvent(new Event('visibilitychange')); return 0
                """)
            #expect(try await browser.evaluate(covered) as? Bool == true, "a hidden tab is covered")
            try await browser.screenshot(to: shots.appendingPathComponent("cover-1280.png"))
            _ = try await browser.evaluate(
                """
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

    /// Settings turns the lock on and off while the server runs, by keyboard (Enter sends each form), each state and
    /// each refusal audited at 1280 and 390 px; the question comes first on the home page; the "lock is changing"
    /// page is audited while a conversion is held at its start.
    @Test func settingsTurnsTheLockOnAndOffByKeyboardAndEveryStateIsAudited() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-lock-settings-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = HandClock()
        let vault = try Vault(directory: directory)
        let opening = OpenedVault.opening(vault, clock: clock)
        let opened = try opening(nil)
        let cairn = opened.services.application
        try cairn.settings.completeOnboarding()
        let area = try cairn.skin.addArea(name: "Left forearm patch", bodyLocation: "forearm")
        _ = try SkinDemo.generate(count: 2, seed: 6, into: area.id, service: cairn.skin, now: clock.now())
        let gate = VaultGate(lockIsOn: false, opened: opened, opening: opening, clock: clock)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), gate: gate)
        try server.start()
        defer {
            server.stop()
            gate.lock()
        }
        let origin = "http://127.0.0.1:\(server.port)"
        let (shots, keep) = try screenshotDirectory("lock-settings")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        let wide = WebDriver.Viewport(width: 1280, height: 900, mobile: false)
        let narrow = WebDriver.Viewport(width: 390, height: 844, mobile: true)
        let passphrase = "a browser vault passphrase"

        let browser = try await WebDriver.launch()
        do {
            func shoot(_ name: String, scrollTo id: String? = nil) async throws {
                for viewport in [wide, narrow] {
                    try await browser.setViewport(viewport)
                    if let id { _ = try await browser.evaluate("document.getElementById(arguments[0]).scrollIntoView(); return 0", arguments: [id]) }
                    try await browser.screenshot(to: shots.appendingPathComponent("\(name)-\(viewport.width).png"))
                }
                try await browser.setViewport(wide)
            }
            // The vault holds photos and the lock was never set: the home page asks.
            try await browser.open(server.loginURL)
            #expect(try await browser.count("#lock-prompt") == 1)
            try await shoot("home-lock-prompt")
            try await browser.click("#lock-prompt-choose")
            #expect(try await browser.waitFor("#on-new"))
            try await shoot("settings-lock-off", scrollTo: "lock")

            // Two different passphrases: the refusal beside the second field, which has the focus.
            try await browser.type("one passphrase", into: "#on-new")
            try await browser.type("another passphrase\u{E007}", into: "#on-again")
            #expect(try await browser.waitFor("#on-again-error"))
            #expect(try await browser.evaluate("return document.activeElement.id") as? String == "on-again")
            try await shoot("settings-lock-error", scrollTo: "lock")
            #expect(!gate.hasLock)

            // The same one twice: the vault is encrypted and Settings shows the lock on.
            try await browser.type(passphrase, into: "#on-new")
            try await browser.type(passphrase + "\u{E007}", into: "#on-again")
            #expect(try await browser.waitFor("#settings-lock-now"))
            #expect(gate.hasLock && !gate.isLocked && vault.databaseIsEncrypted)
            try await shoot("settings-lock-on", scrollTo: "lock")

            // A wrong current passphrase in the change form: beside its field, the form unfolded.
            try await browser.click("#lock-change summary")
            try await browser.type("not the passphrase", into: "#change-current")
            try await browser.type("a newer passphrase", into: "#change-new")
            try await browser.type("a newer passphrase\u{E007}", into: "#change-again")
            #expect(try await browser.waitFor("#change-current-error"))
            try await shoot("settings-lock-change-error", scrollTo: "lock-change")
            clock.advance(2)

            // Turning it off, held at its start: every page says the lock is changing.
            let started = Flag()
            let proceed = DispatchSemaphore(value: 0)
            gate.onChange { opened in
                if opened == nil, !started.isRaised {
                    started.raise()
                    proceed.wait()
                }
            }
            let done = Flag()
            Thread.detachNewThread {
                _ = try? gate.changeLock(.turnOff(try Passphrase(passphrase)))
                done.raise()
            }
            for _ in 0..<100 where !started.isRaised { try await Task.sleep(nanoseconds: 50_000_000) }
            try await browser.open("\(origin)/skin")
            #expect(try await browser.count("#lock-changing") == 1)
            try await shoot("lock-changing")
            proceed.signal()
            for _ in 0..<200 where !done.isRaised { try await Task.sleep(nanoseconds: 50_000_000) }
            #expect(!gate.hasLock && !vault.databaseIsEncrypted)
            // The changing page reloads itself once done.
            for _ in 0..<100 where try await browser.count("#lock-changing") > 0 { try await Task.sleep(nanoseconds: 100_000_000) }
            #expect(try await browser.count("#lock-changing") == 0, "the changing page reloaded itself")
            #expect(try await browser.currentURL() == "\(origin)/skin")
            try await browser.open("\(origin)/settings#lock")
            #expect(try await browser.count("#lock-on") == 1)
            #expect(try await browser.count("#lock-prompt") == 0)
            try await shoot("settings-lock-turned-off", scrollTo: "lock")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}

/// A flag one thread raises and another reads.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}
