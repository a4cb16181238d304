import CairnApp
import CairnCore
import CairnTestSupport
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
        gate = VaultGate(locked: OpenedVault.opening(vault, clock: clock), clock: clock)
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

/// A vault whose lock is off (one skin area with photos unless `empty`), served in process as `cairn serve` does,
/// on a clock the test moves: Settings can turn its lock on.
final class PlainSite: @unchecked Sendable {
    let directory: URL
    let vault: Vault
    let clock = HandClock()
    let gate: VaultGate
    let web: WebApplication
    let application: CairnApplication
    var areaID = ""
    var entryIDs: [String] = []
    let areaName = "Right calf patch"

    init(empty: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-plain-web-\(UUID().uuidString)")
        vault = try Vault(directory: directory)
        let opening = OpenedVault.opening(vault, clock: clock)
        let opened = try opening(nil)
        application = opened.services.application
        try application.settings.completeOnboarding()
        if !empty {
            let area = try application.skin.addArea(name: areaName, bodyLocation: "calf")
            entryIDs = try SkinDemo.generate(count: 2, seed: 4, into: area.id, service: application.skin, now: clock.now()).map(\.id.rawValue)
            areaID = area.id.rawValue
        }
        gate = VaultGate(lockIsOn: false, opened: opened, opening: opening, clock: clock)
        web = buildApplication(configuration: try Fixture.configuration(), gate: gate)
    }

    deinit {
        gate.lock()
        gate.services?.application.database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every photo file of the vault as it is on disk.
    func photoFiles() throws -> [Data] {
        let files = FileManager.default.enumerator(at: vault.photosDirectory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { !$0.hasDirectoryPath }.map { try Data(contentsOf: $0) }
    }

    func get(_ path: String) -> Response { web.handle(Fixture.get(path)) }
    func post(_ path: String, _ form: [String: String] = [:]) -> Response { web.handle(Fixture.post(path, form: form)) }
    func unlock(_ passphrase: String) -> Response { post("/unlock", ["passphrase": passphrase]) }
}

/// Responses a callback saw (the first batch is kept).
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: (Response, Response, Response, Response)?
    func add(_ a: Response, _ b: Response, _ c: Response, _ d: Response) { lock.withLock { if kept == nil { kept = (a, b, c, d) } } }
    var first: (Response, Response, Response, Response)? { lock.withLock { kept } }
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
        #expect(
            site.web.handle(
                Request(method: .get, target: "/unlock", headers: ["Host": "evil.example:8737", "Cookie": "cairn_session=\(Fixture.secret)"])
            ).status == 421)
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
            guard case .wrong(let after) = try gate.unlock(try Passphrase("guess")) else {
                Issue.record("not a wrong answer")
                return
            }
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
        #expect(
            skin.bodyText.contains(
                "<form method=\"post\" action=\"/lock\" class=\"lock-now\"><input type=\"hidden\" name=\"csrf\" value=\"\(Fixture.csrf)\"><button type=\"submit\" class=\"button button-quiet\" id=\"lock-now\">Lock now</button></form>"
            ))
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
        #expect(settings.bodyText.contains("This vault has no passphrase") && settings.bodyText.contains("action=\"/settings/lock/on\""))
        #expect(app.handle(Fixture.post("/settings/lock/idle", form: ["minutes": "5"])).status == 400)
    }

    @Test func settingsSaysWhyAndWarnsBeforeThePassphraseIsChosenAndRefusesBadOnesBesideTheirField() throws {
        let site = try PlainSite()
        let page = site.get("/settings").bodyText
        let warning = try #require(page.range(of: HTML.escape(LockService.warning)))
        let why = try #require(page.range(of: HTML.escape(LockService.why)))
        let form = try #require(page.range(of: "<form method=\"post\" action=\"/settings/lock/on\""))
        #expect(why.upperBound <= warning.lowerBound && warning.upperBound <= form.lowerBound, "why, then the warning, then the form")
        #expect(
            page.contains("<label for=\"on-new\">New vault passphrase</label>")
                && page.contains("<label for=\"on-again\">The same passphrase again</label>"))
        #expect(page.contains("autocomplete=\"new-password\" required minlength=\"8\""))

        let short = site.post("/settings/lock/on", ["passphrase": "seven c", "passphrase_again": "seven c"])
        #expect(short.status == 400)
        #expect(
            short.bodyText.contains(
                "<p class=\"field-error\" id=\"on-new-error\">\(HTML.escape(LockService.Problem.passphraseTooShort.userMessage))</p>"))
        #expect(
            short.bodyText.contains(
                "id=\"on-new\" name=\"passphrase\" autocomplete=\"new-password\" required minlength=\"8\" aria-describedby=\"on-new-help on-new-error\" aria-invalid=\"true\" autofocus"
            ))
        let differ = site.post("/settings/lock/on", ["passphrase": "eight chars or more", "passphrase_again": "eight chars or mode"])
        #expect(differ.status == 400 && differ.bodyText.contains("id=\"on-again-error\">The two passphrases differ. Type the same one twice.</p>"))
        #expect(!differ.bodyText.contains("eight chars"), "a passphrase is never written back into the page")
        #expect(site.post("/settings/lock/on").bodyText.contains("id=\"on-new-error\""))
        #expect(try site.vault.lockSetting() == .neverSet && !site.vault.databaseIsEncrypted && !site.gate.hasLock, "nothing was changed")
    }

    @Test func settingsTurnsTheLockOnChangesItAndTurnsItOffWhileServingAndTheVaultReadsInEachNewState() throws {
        let site = try PlainSite()
        let photo = "/skin/areas/\(site.areaID)/entries/\(site.entryIDs[0])/photo.jpg"
        let first = "first passphrase here"
        let second = "second passphrase here"

        // On: the vault is converted in place and served again, open, without a restart.
        let on = site.post("/settings/lock/on", ["passphrase": first, "passphrase_again": first])
        #expect(on.status == 303 && on.header("Location") == "/settings?lock=on#lock")
        #expect(site.gate.hasLock && !site.gate.isLocked)
        #expect(try site.vault.lockSetting() == .on && site.vault.databaseIsEncrypted)
        #expect(try site.photoFiles().allSatisfy(EncryptedPhoto.isEncrypted) && site.photoFiles().count >= 2)
        #expect(throws: LockService.Problem.locked) { _ = try CairnApplication(vault: site.vault, housekeeping: .none) }
        let reader = try CairnApplication(vault: site.vault, housekeeping: .none, passphrase: { try Passphrase(first) })
        #expect(try reader.skin.areas().map { "\($0.area.name) \($0.entryCount)" } == ["\(site.areaName) 2"])
        reader.database.close()
        let settings = site.get("/settings?lock=on")
        #expect(settings.bodyText.contains(LockService.Done.turnedOn.message) && settings.bodyText.contains("id=\"lock-now\""))
        #expect(settings.bodyText.contains("action=\"/settings/lock/change\"") && settings.bodyText.contains("action=\"/settings/lock/off\""))
        #expect(site.get(photo).body.starts(with: [0xFF, 0xD8]))
        #expect(
            site.post("/settings/lock/on", ["passphrase": first, "passphrase_again": first]).bodyText.contains(
                HTML.escape(VaultError.lockAlreadyOn.userMessage)))

        // Lock now drops the key (nothing holds the application that had it); the passphrase opens it again.
        weak var keyed = site.gate.services?.application
        #expect(keyed != nil)
        #expect(site.post("/lock").header("Location") == "/unlock")
        #expect(keyed == nil, "the opened vault and its key are let go")
        #expect(site.gate.isLocked && site.gate.services == nil && site.get(photo).status == 303)
        #expect(site.unlock(first).status == 303 && site.get(photo).status == 200)

        // Change: a wrong current passphrase waits like the unlock page, beside its field.
        let wrong = site.post("/settings/lock/change", ["current": "not the one", "passphrase": second, "passphrase_again": second])
        #expect(
            wrong.status == 400
                && wrong.bodyText.contains(
                    "id=\"change-current-error\">That passphrase does not unlock this vault. You can try again in 2 seconds.</p>")
        )
        #expect(wrong.bodyText.contains("<details class=\"setting-row lock-more\" id=\"lock-change\" open>"))
        let soon = site.post("/settings/lock/change", ["current": first, "passphrase": second, "passphrase_again": second])
        #expect(soon.status == 429 && soon.header("Retry-After") == "2" && soon.bodyText.contains("Please wait 2 seconds"))
        site.clock.advance(2)
        #expect(
            site.post("/settings/lock/off", ["passphrase": "still not it"]).bodyText.contains("You can try again in 4 seconds."),
            "one count for the unlock page and every lock form")
        site.clock.advance(4)
        let changed = site.post("/settings/lock/change", ["current": first, "passphrase": second, "passphrase_again": second])
        #expect(changed.header("Location") == "/settings?lock=changed#lock" && !site.gate.isLocked)
        #expect(throws: EncryptionError.wrongVaultPassphrase) { try LockService.checkPassphrase(Passphrase(first), of: site.vault) }
        try LockService.checkPassphrase(Passphrase(second), of: site.vault)

        // Off: decrypted in place and served again without any key; the lock cannot lock it any more.
        weak var keyedAgain = site.gate.services?.application
        #expect(keyedAgain?.database.isEncrypted == true)
        let off = site.post("/settings/lock/off", ["passphrase": second])
        #expect(keyedAgain == nil && site.gate.services?.application.database.isEncrypted == false, "no key is kept after the lock is off")
        #expect(off.status == 303 && off.header("Location") == "/settings?lock=off#lock")
        #expect(!site.gate.hasLock && !site.gate.isLocked)
        #expect(try site.vault.lockSetting() == .turnedOff && !site.vault.databaseIsEncrypted)
        #expect(try site.photoFiles().allSatisfy { $0.starts(with: [0xFF, 0xD8]) })
        let plain = try CairnApplication(vault: site.vault, housekeeping: .none)
        #expect(try plain.skin.areas().map { "\($0.area.name) \($0.entryCount)" } == ["\(site.areaName) 2"])
        plain.database.close()
        _ = site.post("/lock")
        #expect(!site.gate.isLocked && site.get(photo).body.starts(with: [0xFF, 0xD8]))
        let afterOff = site.get("/settings?lock=off").bodyText
        #expect(afterOff.contains(LockService.Done.turnedOff.message) && afterOff.contains("The lock was turned off"))
        #expect(!afterOff.contains("id=\"lock-now\""))
        #expect(!site.get("/").bodyText.contains("id=\"lock-prompt\""), "turned off is not never set: Cairn does not ask again")
    }

    @Test func whileTheLockChangesEveryPageSaysSoAndNothingOfTheVaultIsServed() throws {
        let site = try PlainSite()
        let seen = Seen()
        site.gate.onChange { [weak site] opened in
            guard opened == nil, let site else { return }
            seen.add(
                site.get("/skin"), site.get("/skin/areas/\(site.areaID)/entries/\(site.entryIDs[0])/photo.jpg"), site.get("/unlock"),
                site.get("/lock/state"))
        }
        _ = site.post("/settings/lock/on", ["passphrase": "a long enough passphrase", "passphrase_again": "a long enough passphrase"])
        let (skin, photo, unlock, state) = try #require(seen.first)
        for page in [skin, photo, unlock] {
            #expect(page.status == 503 && page.header("Retry-After") == "2")
            #expect(
                page.bodyText.contains("<h1>Cairn is turning the lock on</h1>")
                    && page.bodyText.contains("Encrypting the database and photos in place: 0 photos done so far."))
            #expect(!page.bodyText.contains(site.areaName) && !page.body.starts(with: [0xFF, 0xD8]))
        }
        #expect(state.bodyText == "{\"changing\":\"Encrypting the database and photos in place: 0 photos done so far.\",\"locked\":true}")
        #expect(site.get("/skin").status == 200 && site.gate.changeProgress == nil)
    }

    @Test func pagesAskOnceTheVaultHoldsSomethingAndNotNowIsRemembered() throws {
        let site = try PlainSite(empty: true)
        #expect(!site.get("/").bodyText.contains("id=\"lock-prompt\""), "nothing to protect yet")
        _ = try site.application.skin.addArea(name: "Left shoulder", bodyLocation: "shoulder")
        let home = site.get("/").bodyText
        #expect(
            home.contains("<h2 id=\"lock-prompt-title\">Protect your journals with a passphrase?</h2>") && home.contains(HTML.escape(LockService.why))
        )
        #expect(home.contains("<a class=\"button\" href=\"/settings#lock\" id=\"lock-prompt-choose\">"))
        #expect(site.get("/skin").bodyText.contains("id=\"lock-prompt\"") && !site.get("/settings").bodyText.contains("id=\"lock-prompt\""))
        let declined = site.post("/settings/lock/decline", ["next": "/skin"])
        #expect(declined.status == 303 && declined.header("Location") == "/skin")
        #expect(try site.vault.lockSetting() == .declined)
        #expect(!site.get("/skin").bodyText.contains("id=\"lock-prompt\"") && !site.get("/").bodyText.contains("id=\"lock-prompt\""))
        #expect(site.get("/settings").bodyText.contains("you said Not now when Cairn asked"))
    }

    @Test func theServersIdleTimerLocksTheVaultWithoutARequestAndThenNoPhotoURLAnswers() throws {
        let site = try LockedSite()
        _ = site.unlock()
        #expect(site.post("/settings/lock/idle", ["minutes": "1"]).status == 303, "the shortest choice")
        let server = try WebServer(configuration: try Fixture.configuration(port: 0), gate: site.gate)
        try server.start()
        defer { server.stop() }
        let stopTimer = site.gate.startIdleTimer(every: 0.05)
        defer { stopTimer() }
        let photo = "/skin/areas/\(site.areaID)/entries/\(site.entryIDs[0])/photo.jpg"
        func get(_ target: String) throws -> RawResponse {
            let socket = try LoopbackSocket(port: server.port)
            socket.send(LoopbackHTTP.raw("GET", target, port: server.port, session: Fixture.secret))
            return try socket.receive()
        }
        let before = try get(photo)
        #expect(before.status == 200 && before.body.starts(with: [0xFF, 0xD8]))
        site.clock.advance(59)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!site.gate.isLocked, "59 seconds is not a minute: the timer leaves it open")
        site.clock.advance(2)
        for _ in 0..<100 where !site.gate.isLocked { Thread.sleep(forTimeInterval: 0.05) }
        #expect(site.gate.isLocked && site.gate.services == nil, "the timer locked it: no request came")
        let after = try get(photo)
        #expect(after.status == 303 && after.headers("Location") == ["/unlock?next=\(photo)"] && after.body.isEmpty)
    }

    @Test func theNextPageAfterTheUnlockIsAlwaysAPathOnThisServer() {
        #expect(LockPages.safeNext("/skin/areas/a") == "/skin/areas/a")
        for bad in [nil, "", "//evil.example/", "https://evil.example/", "/\\evil", "skin", "/a\nb"] {
            #expect(LockPages.safeNext(bad) == "/", "\(bad ?? "nil")")
        }
    }
}
