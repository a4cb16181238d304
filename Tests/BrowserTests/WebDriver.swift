import CairnTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal W3C WebDriver client for Debian's `chromedriver` driving headless Chromium (test-only).
///
/// It speaks HTTP/1.1 over a loopback socket itself rather than through URLSession: chromedriver 156 writes
/// header lines without a space after the colon (`Content-Length:251`), and FoundationNetworking on this
/// toolchain rejects every such response with "Failed writing header" (NSURLErrorUnknown).
final class WebDriver {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    private let driver: Process
    private let base: String
    private let session: String
    private let profile: URL
    private var quitted = false

    /// An emulated viewport in CSS pixels.
    struct Viewport: Equatable { var width: Int, height: Int, mobile: Bool }
    /// The viewport pages are laid out in now (the window's 1280 x 900 until a test emulates another).
    private(set) var viewport = Viewport(width: 1280, height: 900, mobile: false)
    /// Whether `open` audits every page it loads (`PageAudit`); on unless a test turns it off.
    var auditing = true
    /// The states audited in this session (address and markup hash), so none is audited twice.
    var auditedStates: Set<String> = []
    /// Every finding of this session's audits, written to `CAIRN_AUDIT_LOG` on quit.
    var auditLog: [String] = []

    private init(driver: Process, base: String, session: String, profile: URL) {
        self.driver = driver
        self.base = base
        self.session = session
        self.profile = profile
    }

    /// Starts chromedriver on a free loopback port and opens a headless Chromium session with the
    /// performance (network) and browser (console) logs enabled. `fakeCamera` gives the page Chromium's
    /// built-in test camera (a moving pattern) without a permission prompt; `fakeVideo` (a .y4m file) makes that
    /// camera play the file, looped, instead. `arguments` go to Chromium as well (the phone tests:
    /// `--ignore-certificate-errors-spki-list` for the phone session's key).
    static func launch(fakeCamera: Bool = false, fakeVideo: URL? = nil, arguments: [String] = []) async throws -> WebDriver {
        func trace(_ s: String) {
            if ProcessInfo.processInfo.environment["CAIRN_TRACE"] != nil { FileHandle.standardError.write(Data("webdriver: \(s)\n".utf8)) }
        }
        trace("launch")
        let port = try freeLoopbackPort()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        trace("chromedriver started on \(port)")
        let base = "http://127.0.0.1:\(port)"
        do {
            try await waitUntilReady(base: base)
            trace("ready")
            let capabilities: [String: Any] = [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": chromium,
                            "args": [
                                "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                                "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
                                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            ]
                                + (fakeCamera ? ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"] : [])
                                + (fakeVideo.map { ["--use-file-for-fake-video-capture=\($0.path)"] } ?? []) + arguments + ["about:blank"],
                        ] as [String: Any],
                        "goog:loggingPrefs": ["performance": "ALL", "browser": "ALL"],
                    ] as [String: Any]
                ]
            ]
            let value = try await call("POST", "\(base)/session", capabilities)
            guard let id = (value as? [String: Any])?["sessionId"] as? String else {
                throw Failure(description: "chromedriver returned no session: \(String(describing: value))")
            }
            return WebDriver(driver: process, base: base, session: id, profile: profile)
        } catch {
            terminate(process, profile: profile)
            throw error
        }
    }

    /// Ends the session, then stops chromedriver and any browser process still using our profile, by pid.
    func quit() async {
        guard !quitted else { return }
        quitted = true
        PageAudit.writeLog(auditLog)
        _ = try? await command("DELETE", "")
        WebDriver.terminate(driver, profile: profile)
    }

    // MARK: commands

    /// Loads `url`, then audits the page it shows (`PageAudit`) unless auditing is off.
    func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
        if auditing { try await audit() }
    }

    /// Audits the page as it is now, at 1280 and 390 px (axe, sideways overflow, overlapping and tiny text), under
    /// the name `state` (e.g. "after an empty upload"); a state already audited in this session is skipped.
    func audit(_ state: String = "") async throws {
        try await PageAudit.audit(self, state: state, viewport: viewport)
    }

    func refresh() async throws { _ = try await command("POST", "/refresh", [:]) }

    func currentURL() async throws -> String { try await command("GET", "/url") as? String ?? "" }

    func element(_ css: String) async throws -> String {
        let value = try await command("POST", "/element", ["using": "css selector", "value": css])
        guard let id = (value as? [String: Any])?[WebDriver.elementKey] as? String else {
            throw Failure(description: "no element matches \(css): \(String(describing: value))")
        }
        return id
    }

    func click(_ css: String) async throws {
        let id = try await element(css)
        _ = try await command("POST", "/element/\(id)/click", [:])
    }

    func type(_ text: String, into css: String) async throws {
        let id = try await element(css)
        _ = try await command("POST", "/element/\(id)/value", ["text": text])
    }

    func text(_ css: String) async throws -> String {
        let id = try await element(css)
        return try await command("GET", "/element/\(id)/text") as? String ?? ""
    }

    /// Waits up to `seconds` for an element matching `css` (a click may return before its navigation ends).
    /// The state it waited for is audited (`PageAudit`), as a page `open` loads is.
    @discardableResult
    func waitFor(_ css: String, seconds: Int = 15) async throws -> Bool {
        for _ in 0..<(seconds * 10) {
            if try await count(css) > 0 {
                if auditing { try await audit() }
                return true
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return false
    }

    func count(_ css: String) async throws -> Int {
        let value = try await command("POST", "/elements", ["using": "css selector", "value": css])
        return (value as? [Any])?.count ?? 0
    }

    /// Runs a script in the page (WebDriver evaluates it outside the page's CSP) and returns its result.
    func evaluate(_ script: String, arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// The smallest text in the SVGs `css` selects, in CSS pixels as drawn: chart text is sized in the chart's own
    /// units, so its size on screen follows the chart's width. Nil when there is no such text.
    func smallestSVGTextPixels(in css: String) async throws -> Double? {
        let script = """
            var sizes = [];
            document.querySelectorAll(arguments[0]).forEach(function (svg) {
              var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              svg.querySelectorAll('text').forEach(function (t) { sizes.push(parseFloat(getComputedStyle(t).fontSize) * scale); });
            });
            return sizes.length ? Math.min.apply(null, sizes) : null;
            """
        return (try await evaluate(script, arguments: [css]) as? NSNumber)?.doubleValue
    }

    /// Presses and releases each key in turn (e.g. "\u{E004}" is Tab).
    func press(_ keys: String) async throws {
        var actions: [[String: Any]] = []
        for key in keys {
            actions.append(["type": "keyDown", "value": String(key)])
            actions.append(["type": "keyUp", "value": String(key)])
        }
        _ = try await command("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions] as [String: Any]]])
    }

    /// Emulates a viewport `width` CSS pixels wide (e.g. 390 for a phone) through the DevTools protocol.
    func emulateViewport(width: Int, height: Int, mobile: Bool) async throws {
        try await setViewport(Viewport(width: width, height: height, mobile: mobile))
    }

    /// Sends one DevTools protocol command (e.g. `Emulation.setSensorOverrideReadings`) to the page.
    @discardableResult
    func devTools(_ command: String, _ params: [String: Any] = [:]) async throws -> Any? {
        try await self.command("POST", "/goog/cdp/execute", ["cmd": command, "params": params])
    }

    func setViewport(_ wanted: Viewport) async throws {
        _ = try await command(
            "POST", "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": wanted.width, "height": wanted.height, "deviceScaleFactor": 1, "mobile": wanted.mobile] as [String: Any],
            ])
        viewport = wanted
    }

    func screenshot(to file: URL) async throws {
        guard let base64 = try await command("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try data.write(to: file)
    }

    /// Log entries of `type` ("performance" or "browser") since the last read.
    func logs(_ type: String) async throws -> [[String: Any]] {
        (try await command("POST", "/se/log", ["type": type]) as? [[String: Any]]) ?? []
    }

    /// Every URL the page asked for since the last read, from `Network.requestWillBeSent` in the performance log.
    func requestedURLs() async throws -> [String] {
        try await logs("performance").compactMap { entry in
            guard let text = entry["message"] as? String,
                let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let message = json["message"] as? [String: Any],
                message["method"] as? String == "Network.requestWillBeSent",
                let params = message["params"] as? [String: Any],
                let request = params["request"] as? [String: Any]
            else { return nil }
            return request["url"] as? String
        }
    }

    // MARK: plumbing

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await WebDriver.call(method, "\(base)/session/\(session)\(path)", body)
    }

    private static func call(_ method: String, _ url: String, _ body: [String: Any]?) async throws -> Any? {
        guard let parsed = URL(string: url), let port = parsed.port else { throw Failure(description: "bad URL \(url)") }
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(parsed.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(payload.count)\r\n\r\n"
        let (status, data) = try exchange(port: UInt16(port), Data(head.utf8) + payload)
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = json?["value"]
        if status >= 400 || status == 0 {
            throw Failure(description: "WebDriver \(method) \(parsed.path) -> \(status): \(String(describing: value))")
        }
        return value
    }

    /// One HTTP/1.1 exchange over a loopback socket (chromedriver keeps the connection open despite
    /// `Connection: close`: the response ends at its Content-Length).
    private static func exchange(port: UInt16, _ request: Data) throws -> (Int, Data) {
        do {
            let response = try LoopbackSocket.exchange(port: port, request, timeoutSeconds: 180)
            return (response.status, response.body)
        } catch let failure as SocketFailure where failure.step == "read response" {
            return (0, Data())
        } catch {
            throw Failure(description: "cannot talk to 127.0.0.1:\(port): \(error)")
        }
    }

    /// Waits until chromedriver reports ready.
    private static func waitUntilReady(base: String) async throws {
        for _ in 0..<150 {
            if let value = try? await call("GET", "\(base)/status", nil) as? [String: Any], value["ready"] as? Bool == true { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw Failure(description: "chromedriver did not become ready")
    }

    /// SIGTERM to chromedriver (SIGKILL after 3 s), then SIGKILL to every process whose command line names our private profile
    /// directory (the browser and its helpers), then removes the profile.
    private static func terminate(_ process: Process, profile: URL) {
        if process.isRunning {
            process.terminate()
            for _ in 0..<30 where process.isRunning { usleep(100_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        for pid in processes(mentioning: profile.path) { kill(pid, SIGKILL) }
        // SIGKILL is asynchronous: wait until they are gone so none writes into the profile after removal.
        for _ in 0..<50 where !processes(mentioning: profile.path).isEmpty { usleep(100_000) }
        try? FileManager.default.removeItem(at: profile)
    }

    /// The ids of processes whose command line contains `needle` (never this process).
    static func processes(mentioning needle: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { name -> pid_t? in
            guard let pid = pid_t(name), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return nil }
            let cmdline = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return cmdline.contains(needle) ? pid : nil
        }
    }

    /// A port nothing listens on right now.
    static func freeLoopbackPort() throws -> UInt16 { try LoopbackSocket.freePort() }
}

/// Where a browser test's screenshots go: `CAIRN_SCREENSHOTS` if set (kept, to look at), else a temp folder
/// named after `topic` that the test removes afterwards (`keep` false).
func screenshotDirectory(_ topic: String) throws -> (URL, keep: Bool) {
    if let dir = ProcessInfo.processInfo.environment["CAIRN_SCREENSHOTS"], !dir.isEmpty {
        let url = URL(fileURLWithPath: dir)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (url, true)
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-\(topic)-shots-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return (url, false)
}
