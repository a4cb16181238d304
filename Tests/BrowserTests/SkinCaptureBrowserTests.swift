import CairnApp
import Foundation
import Skin
import Testing
import WebApp

/// The guided capture page with a camera: Chromium's fake camera stands in for a webcam.
@Suite(.serialized) struct SkinCaptureBrowserTests {
    @Test func theCameraShowsLiveBadgesAndTheShutterLogsAPhotoThatIsThenCompared() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-skin-camera-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        let area = try cairn.skin.addArea(name: "Left forearm")
        _ = try SkinDemo.generate(count: 2, seed: 3, into: area.id, service: cairn.skin, now: Date())
        let services = WebServices(cairn)
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"

        let browser = try await WebDriver.launch(fakeCamera: true)
        do {
            try await browser.open(server.loginURL)
            try await browser.open("\(origin)/skin/areas/\(area.id.rawValue)/capture")
            #expect(try await browser.waitFor("#shutter:not([hidden])", seconds: 20), "the shutter appears once the camera runs")
            #expect(try await browser.waitFor("#ghost", seconds: 5), "the last photo is the ghost overlay")
            // The badges change from "waiting for the camera" once a frame has been scored by the Swift analyzer.
            var light = ""
            for _ in 0..<40 where !light.hasPrefix("Light: ") || light.contains("waiting") {
                try await Task.sleep(for: .milliseconds(250))
                light = try await browser.text("#badge-light")
            }
            #expect(light.hasPrefix("Light: ") && !light.contains("waiting"), "live light badge: \(light)")
            #expect(try await !browser.text("#badge-focus").contains("waiting"))

            try await browser.click("#shutter")
            var entries = 0
            for _ in 0..<60 where entries < 3 {
                try await Task.sleep(for: .milliseconds(250))
                entries = try cairn.skin.timeline(of: area.id).items.count
            }
            #expect(entries == 3, "the shutter logged the camera frame")
            // The test pattern is not the demo skin: the page must say so rather than show a figure.
            var text = ""
            for _ in 0..<60 where !(text.contains("Not comparable") || text.contains("%")) {
                try await Task.sleep(for: .milliseconds(250))
                text = try await browser.evaluate("return document.body.innerText") as? String ?? ""
            }
            #expect(text.contains("Not comparable") || text.contains("%"), "a compare page follows the shutter")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
