import CairnApp
import Foundation
import Testing
import WebApp

private let faces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces")

/// Uploads `name` on the capture page, waits for the crop page and saves the proposed square.
private func addPhoto(_ browser: WebDriver, origin: String, name: String, shots: URL?) async throws {
    try await browser.open("\(origin)/smile/add")
    try await browser.type(faces.appendingPathComponent(name).path, into: "#smile-file")
    if try await !browser.waitFor("#smile-save", seconds: 60) {
        Issue.record("no crop page after the upload: \(String(describing: try await browser.evaluate("return document.body.innerText")))")
        return
    }
    #expect(
        try await browser.evaluate("return document.getElementById('smile-square').hidden") as? Bool == false,
        "the draggable square is shown")
    if let shots { try await browser.screenshot(to: shots.appendingPathComponent("smile-crop-1280.png")) }
    try await browser.click("#smile-save")
    try await browser.waitFor("#smile-added")
}

@Suite(.serialized) struct SmileBrowserTests {
    @Test func aPhotoUploadedOnTheCapturePageAppearsOnTheTimeline() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-smile-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        var services = WebServices(cairn)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let (shots, keep) = try screenshotDirectory("smile")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }

        let browser = try await WebDriver.launch()
        do {
            try await browser.open(server.loginURL)
            try await browser.open("\(origin)/smile")
            #expect(try await browser.count(".empty-state") == 1)
            try await browser.screenshot(to: shots.appendingPathComponent("smile-empty-1280.png"))
            try await browser.open("\(origin)/smile/add")
            try await browser.screenshot(to: shots.appendingPathComponent("smile-capture-1280.png"))

            try await addPhoto(browser, origin: origin, name: "fr_obama.jpg", shots: shots)
            #expect(try await browser.count(".smile-entry") == 1)
            #expect(
                try await browser.evaluate("return document.querySelector('.smile-crop').naturalWidth") as? Int == 768,
                "the crop is served and loads")
            try await addPhoto(browser, origin: origin, name: "fr_biden.jpg", shots: nil)
            #expect(try await browser.count(".smile-entry") == 2)
            try await browser.screenshot(to: shots.appendingPathComponent("smile-timeline-1280.png"))

            try await browser.open("\(origin)/smile/compare")
            #expect(try await browser.evaluate("return document.getElementById('smile-compare').classList.contains('is-slider')") as? Bool == true)
            _ = try await browser.evaluate(
                "var s = document.getElementById('smile-slider'); s.value = 30; s.dispatchEvent(new Event('input')); return 0")
            #expect((try await browser.evaluate("return document.getElementById('smile-after').style.clipPath") as? String)?.contains("30%") == true)
            try await browser.screenshot(to: shots.appendingPathComponent("smile-compare-1280.png"))
            let entry = try #require(try cairn.smile.entries().first)
            try await browser.open("\(origin)/smile/export/\(entry.id.rawValue)")
            try await browser.screenshot(to: shots.appendingPathComponent("smile-export-1280.png"))

            // A photo without a face: the manual crop page.
            try await browser.open("\(origin)/smile/add")
            try await browser.type(faces.appendingPathComponent("dogs.jpg").path, into: "#smile-file")
            #expect(try await browser.waitFor("#smile-save", seconds: 60))
            try await browser.screenshot(to: shots.appendingPathComponent("smile-manual-1280.png"))
            // Keyboard: minus makes the square smaller (dogs.jpg's is a close-up's largest square, the photo's whole
            // width), then the arrow keys move it and the fields follow.
            let side = try await browser.evaluate("return +document.getElementById('smile-side').value") as? Int ?? -1
            _ = try await browser.evaluate("document.getElementById('smile-square').focus(); return 0")
            try await browser.press("-")
            let smaller = try await browser.evaluate("return +document.getElementById('smile-side').value") as? Int ?? -1
            #expect(smaller < side, "minus makes the square smaller")
            let left = try await browser.evaluate("return +document.getElementById('smile-x').value") as? Int ?? -1
            try await browser.press("\u{E012}")
            let moved = try await browser.evaluate("return +document.getElementById('smile-x').value") as? Int ?? -1
            #expect(moved < left, "ArrowLeft moves the square left")
            _ = try await browser.evaluate("window.scrollTo(0, document.body.scrollHeight); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("smile-manual-bottom-1280.png"))
            let cropURL = try await browser.currentURL()

            try await browser.emulateViewport(width: 390, height: 844, mobile: true)
            for (path, name) in [
                ("/smile", "timeline"), ("/smile/add", "capture"), (String(cropURL.dropFirst(origin.count)), "manual"),
                ("/smile/compare", "compare"), ("/smile/export/\(entry.id.rawValue)", "export"),
            ] {
                try await browser.open("\(origin)\(path)")
                let overflow = try await browser.evaluate("return document.documentElement.scrollWidth") as? Int ?? .max
                #expect(overflow <= 390, "no sideways scrolling at 390 px on \(name)")
                try await browser.screenshot(to: shots.appendingPathComponent("smile-\(name)-390.png"))
            }

            let console = try await browser.logs("browser").compactMap { $0["message"] as? String }
            #expect(console.filter { $0.contains("Content Security Policy") || $0.contains("Refused") }.isEmpty, "\(console)")
            let foreign = try await browser.requestedURLs().filter { url in
                !(url.hasPrefix("\(origin)/") || url.hasPrefix("data:") || url.hasPrefix("blob:") || url.hasPrefix("about:")
                    || url.hasPrefix("chrome"))
            }
            #expect(foreign.isEmpty, "requests to other origins: \(foreign)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        #expect(try cairn.smile.entries().count == 2, "the dogs photo was never saved")
    }
}
