import CairnApp
import Foundation
import Storage
import Testing
import WebApp

#if canImport(Glibc)
    import Glibc
#endif

/// An in-memory settings service for the in-process server. Deleting is never expected here.
private final class InMemorySettings: SettingsServicing, @unchecked Sendable {
    private let lock = NSLock()
    private var onboarded = false
    private var flags: [String: Bool] = [:]
    struct Unexpected: Error {}

    func isOnboardingComplete() throws -> Bool { lock.withLock { onboarded } }
    func completeOnboarding() throws { lock.withLock { onboarded = true } }
    func flag(_ name: String) throws -> Bool { lock.withLock { flags[name] ?? false } }
    func setFlag(_ name: String, _ value: Bool) throws { lock.withLock { flags[name] = value } }
    func idleLockMinutes() throws -> Int { LockService.defaultIdleMinutes }
    func setIdleLockMinutes(_ minutes: Int) throws {}
    func lockSetting() throws -> LockSetting { .neverSet }
    func declineLock() throws {}
    func holdsRecords() throws -> Bool { false }
    func deleteAllData() throws {
        Issue.record("the browser test must not delete data")
        throw Unexpected()
    }
}

/// Where screenshots go: `CAIRN_SCREENSHOTS` if set (kept, to look at), else a temp dir removed afterwards.
private func screenshotDirectory() throws -> (URL, keep: Bool) {
    if let dir = ProcessInfo.processInfo.environment["CAIRN_SCREENSHOTS"], !dir.isEmpty {
        let url = URL(fileURLWithPath: dir)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (url, true)
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-shots-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return (url, false)
}

/// Runs `body` with a fresh browser and always quits it (chromedriver and Chromium are ended by pid).
private func withBrowser(_ body: (WebDriver) async throws -> Void) async throws {
    let browser = try await WebDriver.launch()
    do {
        try await body(browser)
    } catch {
        await browser.quit()
        throw error
    }
    await browser.quit()
}

/// Login -> onboarding 1, 2, 3 -> Finish -> home with three journals; reload shows home again. Takes
/// screenshots at 1280 and 390 px wide and checks that every request stayed on `origin`.
private func driveOnboardingToHome(_ browser: WebDriver, loginURL: String, origin: String, shots: URL, label: String) async throws {
    try await browser.open(loginURL)
    #expect(try await browser.currentURL() == "\(origin)/welcome/1", "login lands on the first onboarding page, key removed")
    if try await browser.count("#onboarding-progress") == 0 {
        Issue.record("not the onboarding page: \(String(describing: try await browser.evaluate("return document.body.innerText")))")
    }
    #expect(try await browser.text("#onboarding-progress") == "1 of 3")
    // The bundled stylesheet really applied (warm off-white ground), so CSP did not block it.
    #expect(try await browser.evaluate("return getComputedStyle(document.body).backgroundColor") as? String == "rgb(247, 244, 238)")
    #expect(try await browser.evaluate("return document.cookie") as? String == "", "the session cookie is HttpOnly")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-onboarding-1-1280.png"))

    try await browser.click("#onboarding-next")
    try await browser.waitFor("#onboarding-back")
    #expect(try await browser.text("#onboarding-progress") == "2 of 3")
    try await browser.click("#onboarding-next")
    try await browser.waitFor("#onboarding-finish")
    #expect(try await browser.text("#onboarding-progress") == "3 of 3")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-onboarding-3-1280.png"))
    try await browser.click("#onboarding-finish")
    if try await !browser.waitFor(".journal-card") {
        Issue.record(
            "after Finish: \(try await browser.currentURL()) \(String(describing: try await browser.evaluate("return document.body.innerText")))")
    }

    #expect(try await browser.currentURL() == "\(origin)/")
    #expect(try await browser.count(".journal-card") == 3)
    #expect(try await browser.text("#journal-skin") == "Skin")
    #expect(try await browser.text("#journal-smile") == "Smile")
    #expect(try await browser.text("#journal-regimen") == "Regimen")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-home-1280.png"))

    try await browser.refresh()
    #expect(try await browser.currentURL() == "\(origin)/")
    #expect(try await browser.count(".journal-card") == 3)
    #expect(try await browser.count("#onboarding-progress") == 0, "onboarding is shown once")

    // Keyboard: the first Tab reaches the skip link.
    try await browser.press("\u{E004}")
    #expect(try await browser.evaluate("return document.activeElement.className") as? String == "skip-link")
    try await browser.press("\u{E004}\u{E004}")
    #expect(try await browser.evaluate("return document.activeElement.getAttribute('href')") as? String == "/", "then the nav")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-focus-1280.png"))

    try await browser.open("\(origin)/settings")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-settings-1280.png"))
    try await browser.open("\(origin)/settings/delete")
    try await browser.screenshot(to: shots.appendingPathComponent("\(label)-delete-1280.png"))

    // Phone width.
    try await browser.emulateViewport(width: 390, height: 844, mobile: true)
    for (path, name) in [("/", "home"), ("/welcome/1", "onboarding-1"), ("/settings", "settings"), ("/settings/delete", "delete"), ("/skin", "skin")]
    {
        try await browser.open("\(origin)\(path)")
        #expect(try await browser.evaluate("return window.innerWidth") as? Int == 390)
        let overflow = try await browser.evaluate("return document.documentElement.scrollWidth") as? Int ?? .max
        #expect(overflow <= 390, "no sideways scrolling at 390 px on \(path)")
        try await browser.screenshot(to: shots.appendingPathComponent("\(label)-\(name)-390.png"))
    }

    // Every request the page made went to the loopback server (or stayed inside the browser).
    // The log starts with the browser's own start page (chrome:// requests); everything from our login
    // address on is what our pages asked for.
    let urls = try await browser.requestedURLs().drop { $0 != loginURL }
    #expect(urls.first == loginURL, "the performance log is being read")
    #expect(urls.contains("\(origin)/assets/cairn.css"))
    let foreign = urls.filter { url in
        !(url.hasPrefix("\(origin)/") || url.hasPrefix("data:") || url.hasPrefix("blob:") || url.hasPrefix("about:"))
    }
    #expect(foreign.isEmpty, "requests to other origins: \(foreign)")
    // And nothing was blocked by the Content-Security-Policy (it would show in the console).
    let console = try await browser.logs("browser").compactMap { $0["message"] as? String }
    #expect(console.filter { $0.contains("Content Security Policy") || $0.contains("Refused") }.isEmpty, "\(console)")
}

@Suite(.serialized) struct OnboardingBrowserTests {
    @Test func aRealBrowserGoesThroughOnboardingToTheHomePageWithoutLeavingLoopback() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-onboarding-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        var services = WebServices(try CairnApplication.open(dataDirectory: vault.path, environment: [:]))
        services.settings = InMemorySettings()
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let (shots, keep) = try screenshotDirectory()
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        try await withBrowser { browser in
            try await driveOnboardingToHome(
                browser, loginURL: server.loginURL, origin: "http://127.0.0.1:\(server.port)",
                shots: shots, label: "inprocess")
        }
    }

    @Test func theCairnServeCommandServesTheSameFlowToARealBrowser() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/cairn")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            try Test.cancel("No .build/debug/cairn binary to launch; build the package first.")
        }
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDir) }

        let serve = try ServeProcess(binary: binary, dataDir: dataDir)
        defer { serve.stop() }
        guard let line = serve.firstLine(timeout: 30),
            let match = line.wholeMatch(of: /Cairn is running at ((http:\/\/127\.0\.0\.1:[0-9]+)\/\?key=[A-Za-z0-9_-]+)/)
        else {
            try Test.cancel(
                "`cairn serve --data-dir DIR --port 0` is not available yet: its first line was not `Cairn is running at http://127.0.0.1:PORT/?key=SECRET`."
            )
        }
        let (shots, keep) = try screenshotDirectory()
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        try await withBrowser { browser in
            try await driveOnboardingToHome(browser, loginURL: String(match.1), origin: String(match.2), shots: shots, label: "cli")
        }
        #expect(serve.stop() == true, "cairn serve exits on SIGTERM")
    }
}

/// `cairn serve` as a child process: its first stdout line, and a stop that always ends it.
private final class ServeProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var line: String?
    private let gotLine = DispatchSemaphore(value: 0)
    private var stopped = false

    init(binary: URL, dataDir: URL) throws {
        process.executableURL = binary
        process.arguments = ["serve", "--data-dir", dataDir.path, "--port", "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let reader = pipe.fileHandleForReading
        try process.run()
        // Read stdout until EOF on a thread of its own (so the child never blocks on a full pipe).
        Thread.detachNewThread { [self] in
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                lock.withLock {
                    buffer.append(data)
                    if line == nil, let newline = buffer.firstIndex(of: 0x0A) {
                        line = String(decoding: buffer[..<newline], as: UTF8.self)
                        gotLine.signal()
                    }
                }
            }
            lock.withLock {
                if line == nil {
                    line = String(decoding: buffer, as: UTF8.self)
                    gotLine.signal()
                }
            }
        }
    }

    func firstLine(timeout: Int) -> String? {
        guard gotLine.wait(timeout: .now() + .seconds(timeout)) == .success else { return nil }
        gotLine.signal()
        return lock.withLock { line }
    }

    /// SIGTERM, then SIGKILL after 10 s. Returns whether the process exited on SIGTERM alone.
    @discardableResult
    func stop() -> Bool {
        if lock.withLock({ stopped }) { return true }
        lock.withLock { stopped = true }
        guard process.isRunning else { return true }
        process.terminate()
        for _ in 0..<100 where process.isRunning { usleep(100_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }
}
