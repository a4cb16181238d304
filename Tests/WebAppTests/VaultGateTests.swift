import CairnApp
import CairnCore
import Encryption
import Foundation
import Storage
import Testing
@testable import WebApp

/// A clock the test moves by hand.
final class HandClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Date
    let timeZone = TimeZone(identifier: "UTC")!

    init(_ instant: Date = Date(timeIntervalSince1970: 1_780_000_000)) { self.instant = instant }
    func now() -> Date { lock.withLock { instant } }
    func advance(_ seconds: TimeInterval) { lock.withLock { instant = instant.addingTimeInterval(seconds) } }
}

let lockedPassphrase = "correct horse battery staple"

/// A vault with a lock (one skin area with photos), served in process through a `VaultGate` as `cairn serve` does.
final class LockedSite {
    let directory: URL
    let vault: Vault
    let clock: HandClock
    let gate: VaultGate
    let web: WebApplication
    let areaID: String
    let entryIDs: [String]
    let areaName = "Left forearm patch"

    init() throws {
        let clock = HandClock()
        self.clock = clock
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-locked-web-\(UUID().uuidString)")
        let plain = try CairnApplication.open(dataDirectory: directory.path, environment: [:], clock: clock)
        try plain.settings.completeOnboarding()
        let area = try plain.skin.addArea(name: areaName, bodyLocation: "forearm")
        let entries = try SkinDemo.generate(count: 2, seed: 3, into: area.id, service: plain.skin, now: clock.now())
        areaID = area.id.rawValue
        entryIDs = entries.map(\.id.rawValue)
        let vault = plain.vault
        self.vault = vault
        let cheap = KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))!
        try vault.turnLockOn(database: plain.database, passphrase: Passphrase(lockedPassphrase), keyDerivation: cheap, clock: clock).close()
        gate = VaultGate(locked: { passphrase in
            let application = try CairnApplication(vault: vault, clock: clock, housekeeping: .none, passphrase: { passphrase })
            return OpenedVault(services: WebServices(application)) { application.database.close() }
        }, clock: clock)
        web = buildApplication(configuration: try Fixture.configuration(), gate: gate)
    }

    deinit {
        gate.lock()
        try? FileManager.default.removeItem(at: directory)
    }

    func get(_ path: String) -> Response { web.handle(Fixture.get(path)) }
    func post(_ path: String, _ form: [String: String] = [:]) -> Response { web.handle(Fixture.post(path, form: form)) }
    func unlock(_ passphrase: String = lockedPassphrase, next: String? = nil) -> Response {
        var form = ["passphrase": passphrase]
        if let next { form["next"] = next }
        return post("/unlock", form)
    }
}

/// Every path of the route table with its parameters filled in (real ids where the vault has them).
private func everyRoute(_ site: LockedSite) -> [(HTTPMethod, String)] {
    let services = Fixture.services(SettingsDouble())
    return WebApplication.routes(services, gate: VaultGate(open: services), csrfToken: Fixture.csrf).map { route in
        var path = route.path
        for (name, value) in [("{area}", site.areaID), ("{entry}", site.entryIDs[0])] { path = path.replacingOccurrences(of: name, with: value) }
        path = path.replacingOccurrences(of: #"\{[a-z]+\}"#, with: "x", options: .regularExpression)
        return (route.method, path)
    }
}

@Suite(.serialized) struct VaultGateTests {
    @Test func whileLockedEveryPageRedirectsToTheUnlockPageAndNoPhotoOrJSONRouteAnswersData() throws {
        let site = try LockedSite()
        #expect(site.gate.isLocked && site.gate.services == nil, "nothing of the vault is open before the passphrase")
        let routes = everyRoute(site)
        #expect(routes.count > 60)
        #expect(routes.contains { $0.1.hasSuffix("/photo.jpg") } && routes.contains { $0.1.hasSuffix("/thumbnail.jpg") })
        for (method, path) in routes {
            let request = method == .get ? Fixture.get(path) : Fixture.post(path, form: ["name": "x"])
            let response = site.web.handle(request)
            #expect(response.status == 303, "\(method.rawValue) \(path) answers \(response.status) while locked")
            #expect(response.header("Location")?.hasPrefix("/unlock") == true, "\(method.rawValue) \(path)")
            #expect(response.body.isEmpty && response.bodyFile == nil, "\(method.rawValue) \(path) sends no bytes")
        }
        // A page asked for by GET comes back after the unlock; HEAD is answered the same way.
        #expect(site.get("/skin/areas/\(site.areaID)").header("Location") == "/unlock?next=/skin/areas/\(site.areaID)")
        var head = Fixture.get("/skin")
        head.method = .head
        #expect(site.web.handle(head).status == 303)
        // The unlock page and the static assets answer; the lock state says locked and nothing more.
        let page = site.get("/unlock")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("<label for=\"passphrase\">Vault passphrase</label>"))
        #expect(page.bodyText.contains("name=\"csrf\" value=\"\(Fixture.csrf)\""))
        #expect(!page.bodyText.contains(site.areaName) && !page.bodyText.contains("id=\"lock-now\""))
        #expect(!page.bodyText.contains("<nav"), "no links into the vault from the unlock page")
        for asset in ["/assets/cairn.css", "/assets/cairn.js", "/assets/mark.svg"] { #expect(site.get(asset).status == 200, "\(asset)") }
        #expect(site.get("/lock/state").bodyText == "{\"locked\":true}")
        #expect(site.gate.services == nil)
    }

    @Test func theLaunchKeyHostAndCSRFChecksStillComeFirst() throws {
        let site = try LockedSite()
        let login = site.web.handle(Request(method: .get, target: "/?key=\(Fixture.secret)", headers: ["Host": Fixture.host]))
        #expect(login.status == 303 && login.header("Set-Cookie")?.hasPrefix("cairn_session=") == true)
        #expect(site.get("/").header("Location") == "/unlock")
        #expect(site.web.handle(Request(method: .get, target: "/unlock", headers: ["Host": Fixture.host])).status == 403, "no key, no unlock page")
        #expect(site.web.handle(Request(method: .get, target: "/unlock", headers: ["Host": "evil.example:8737", "Cookie": "cairn_session=\(Fixture.secret)"])).status == 421)
        let noToken = site.web.handle(Fixture.post("/unlock", form: ["passphrase": lockedPassphrase], csrf: nil))
        #expect(noToken.status == 403 && site.gate.isLocked, "the unlock form needs the CSRF token")
    }

    @Test func wrongPassphrasesWaitLongerEachTimeAndAnAttemptTooSoonIs429WithRetryAfter() throws {
        let site = try LockedSite()
        let wrong = site.unlock("correct horse battery stapler")
        #expect(wrong.status == 400)
        #expect(wrong.bodyText.contains("That passphrase does not unlock this vault. You can try again in 2 seconds."))
        #expect(wrong.bodyText.contains("aria-invalid=\"true\"") && wrong.bodyText.contains("id=\"passphrase-error\""))
        #expect(!wrong.bodyText.contains("correct horse"), "the passphrase is never written back into the page")
        // The right passphrase, but too soon: nothing is tried.
        let soon = site.unlock()
        #expect(soon.status == 429 && soon.header("Retry-After") == "2")
        #expect(soon.bodyText.contains("Please wait 2 seconds before the next try."))
        #expect(site.gate.isLocked)
        #expect(site.get("/unlock").bodyText.contains("Please wait 2 seconds"), "the page says so when it is shown again")
        site.clock.advance(2)
        #expect(site.unlock("wrong again").bodyText.contains("try again in 4 seconds"))
        site.clock.advance(3)
        #expect(site.unlock().status == 429)
        site.clock.advance(1)
        let opened = site.unlock(next: "/skin")
        #expect(opened.status == 303 && opened.header("Location") == "/skin")
        #expect(!site.gate.isLocked)
        // After an unlock the count starts again.
        site.gate.lock()
        #expect(site.unlock("no").bodyText.contains("try again in 2 seconds"))
    }

    @Test func theDelayDoublesUpToFiveMinutes() throws {
        let clock = HandClock()
        let gate = VaultGate(locked: { _ in throw EncryptionError.wrongVaultPassphrase }, clock: clock)
        var delays: [Int] = []
        for _ in 0..<11 {
            guard case .wrong(let after) = try gate.unlock(try Passphrase("guess")) else { Issue.record("not a wrong answer"); return }
            delays.append(after)
            #expect(try gate.unlock(try Passphrase("guess")) == .tooSoon(retryAfter: after))
            clock.advance(TimeInterval(after))
        }
        #expect(delays == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        #expect(LockPages.duration(300) == "5 minutes" && LockPages.duration(61) == "2 minutes" && LockPages.duration(1) == "1 second")
    }

    @Test func afterTheUnlockPagesAndPhotosAnswerAndLockNowClosesEverythingAgain() throws {
        let site = try LockedSite()
        #expect(site.unlock().status == 303)
        let skin = site.get("/skin")
        #expect(skin.status == 200 && skin.bodyText.contains(site.areaName))
        #expect(skin.bodyText.contains("<form method=\"post\" action=\"/lock\" class=\"lock-now\"><input type=\"hidden\" name=\"csrf\" value=\"\(Fixture.csrf)\"><button type=\"submit\" class=\"button button-quiet\" id=\"lock-now\">Lock now</button></form>"))
        #expect(skin.bodyText.contains("data-idle-seconds=\"600\""))
        let photo = site.get("/skin/areas/\(site.areaID)/entries/\(site.entryIDs[0])/photo.jpg")
        #expect(photo.status == 200 && photo.body.starts(with: [0xFF, 0xD8]))
        #expect(site.get("/unlock").header("Location") == "/", "the unlock page of an open vault goes on")
        #expect(site.get("/lock/state").bodyText == "{\"locked\":false}")

        let locked = site.post("/lock")
        #expect(locked.status == 303 && locked.header("Location") == "/unlock")
        #expect(site.gate.isLocked && site.gate.services == nil, "the services and their key are dropped")
        let again = site.get("/skin/areas/\(site.areaID)/entries/\(site.entryIDs[0])/photo.jpg")
        #expect(again.status == 303 && again.body.isEmpty)
        #expect(site.unlock().status == 303 && site.get("/skin").status == 200, "and it opens again")
    }

    @Test func settingsHasALockSectionAndTheIdleTimeLocksTheVaultByTheInjectedClock() throws {
        let site = try LockedSite()
        _ = site.unlock()
        let settings = site.get("/settings")
        #expect(settings.bodyText.contains("<h2 id=\"lock-title\">Lock</h2>"))
        #expect(settings.bodyText.contains("<option value=\"10\" selected>10 minutes</option>"))
        #expect(settings.bodyText.contains("<label for=\"idle-minutes\">Lock after this long without use</label>"))
        #expect(settings.bodyText.contains("id=\"settings-lock-now\""))
        #expect(site.post("/settings/lock/idle", ["minutes": "7"]).status == 400, "only the offered choices")
        let saved = site.post("/settings/lock/idle", ["minutes": "1"])
        #expect(saved.status == 303 && saved.header("Location") == "/settings?saved=1#lock")
        #expect(site.get("/settings").bodyText.contains("<option value=\"1\" selected>1 minute</option>"))
        #expect(site.get("/skin").bodyText.contains("data-idle-seconds=\"60\""))

        // Requests keep it open; the lock state and the assets do not count as a use.
        site.clock.advance(50)
        #expect(site.get("/skin").status == 200)
        site.clock.advance(50)
        #expect(site.get("/lock/state").bodyText == "{\"locked\":false}")
        #expect(site.get("/assets/cairn.css").status == 200)
        site.clock.advance(11)
        site.gate.lockIfIdle()
        #expect(site.gate.isLocked, "61 seconds without a page locks it (the server's timer)")
        // The choice is kept in the vault: the next unlock uses it; and a request after the limit locks it too.
        _ = site.unlock()
        site.clock.advance(61)
        #expect(site.get("/skin").header("Location") == "/unlock?next=/skin")
        #expect(site.gate.isLocked)
    }

    @Test func aVaultWithoutALockHasNoLockNowAndNeverLocks() throws {
        let app = try Fixture.app(SettingsDouble(onboarded: true))
        let home = app.handle(Fixture.get("/"))
        #expect(home.status == 200 && !home.bodyText.contains("lock-now") && !home.bodyText.contains("data-idle-seconds"))
        #expect(app.handle(Fixture.get("/unlock")).header("Location") == "/")
        _ = app.handle(Fixture.post("/lock"))
        #expect(!app.gate.isLocked)
        let settings = app.handle(Fixture.get("/settings"))
        #expect(settings.bodyText.contains("This vault has no passphrase") && settings.bodyText.contains("cairn settings lock on"))
        #expect(app.handle(Fixture.post("/settings/lock/idle", form: ["minutes": "5"])).status == 400)
    }

    @Test func theNextPageAfterTheUnlockIsAlwaysAPathOnThisServer() {
        #expect(LockPages.safeNext("/skin/areas/a") == "/skin/areas/a")
        for bad in [nil, "", "//evil.example/", "https://evil.example/", "/\\evil", "skin", "/a\nb"] {
            #expect(LockPages.safeNext(bad) == "/", "\(bad ?? "nil")")
        }
    }
}
