import CairnApp
import CairnCore
import Foundation
import Skin
import Testing
import WebApp

/// The guided capture page with a camera: Chromium's fake camera stands in for a webcam.
@Suite(.serialized) struct SkinCaptureBrowserTests {
    /// A vault with one area of two demo photos, served on a free port.
    final class Served {
        let vault: URL
        let cairn: CairnApplication
        let area: TrackingArea
        let server: WebServer
        var origin: String { "http://127.0.0.1:\(server.port)" }
        var capturePath: String { "\(origin)/skin/areas/\(area.id.rawValue)/capture" }

        init() throws {
            vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-skin-camera-\(UUID().uuidString)")
            cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
            area = try cairn.skin.addArea(name: "Left forearm")
            _ = try SkinDemo.generate(count: 2, seed: 3, into: area.id, service: cairn.skin, now: Date())
            server = try WebServer(configuration: try WebConfiguration(port: 0), services: WebServices(cairn))
            try server.start()
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: vault)
        }
    }

    /// Polls `css`'s text every 250 ms for up to `seconds` until `done` holds; returns the last text.
    static func waitForText(_ browser: WebDriver, _ css: String, seconds: Int, until done: (String) -> Bool) async throws -> String {
        var text = try await browser.text(css)
        for _ in 0..<(seconds * 4) where !done(text) {
            try await Task.sleep(for: .milliseconds(250))
            text = try await browser.text(css)
        }
        return text
    }

    @Test func theCameraShowsLiveBadgesAndTheShutterLeadsToTheNoteStepThenTheComparison() async throws {
        let served = try Served()
        defer { served.stop() }
        let browser = try await WebDriver.launch(fakeCamera: true)
        do {
            try await browser.open(served.server.loginURL)
            try await browser.open(served.capturePath)
            #expect(try await browser.waitFor("#shutter:not([hidden])", seconds: 20), "the shutter appears once the camera runs")
            #expect(try await browser.waitFor("#badges:not([hidden])", seconds: 5), "the badges appear with the camera")
            #expect(try await browser.waitFor("#ghost", seconds: 5), "the last photo is the ghost overlay")
            // The badges change from "waiting for the camera" once frames have been scored by the Swift analyzer.
            let light = try await Self.waitForText(browser, "#badge-light", seconds: 10) { !$0.contains("waiting") }
            #expect(light.hasPrefix("Light: ") && !light.contains("waiting"), "live light badge: \(light)")
            #expect(try await !browser.text("#badge-focus").contains("waiting"))
            let steady = try await Self.waitForText(browser, "#badge-steady", seconds: 10) { !$0.contains("waiting") }
            #expect(steady.hasPrefix("Steadiness: ") && !steady.contains("waiting"), "live steadiness badge: \(steady)")

            try await browser.click("#shutter")
            #expect(try await browser.waitFor("#note-form", seconds: 20), "the note step follows the shutter")
            #expect(try cairn(served).timeline(of: served.area.id).items.count == 3, "the shutter logged the camera frame")
            #expect(try await browser.text("h1") == "Photo added")
            // The note field has the focus: typing goes straight into it.
            #expect(try await browser.evaluate("return document.activeElement.id") as? String == "note")
            try await browser.type("test pattern, desk lamp", into: "#note")
            try await browser.click("#save-note")
            // The test pattern is not the demo skin: the page must say so rather than show a figure.
            #expect(try await browser.waitFor("#edit-note", seconds: 20), "the compare page follows the note step")
            let text = try await Self.waitForText(browser, "body", seconds: 10) { $0.contains("Not comparable") || $0.contains("%") }
            #expect(text.contains("Not comparable") || text.contains("%"), "a compare page follows the note step")
            #expect(text.contains("The note was saved.") && text.contains("Note: test pattern, desk lamp"))
            let newest = try #require(try cairn(served).timeline(of: served.area.id).items.last)
            #expect(newest.entry.note == "test pattern, desk lamp")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// A camera that holds still for three seconds, then pans across the skin for three, looped: the steadiness
    /// badge must say both, and the shutter is never blocked while it says "Moving".
    @Test func theSteadinessBadgeSaysHoldingStillThenMovingAsTheCameraPans() async throws {
        let served = try Served()
        defer { served.stop() }
        let video = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-pan-\(UUID().uuidString).y4m")
        try Self.panningVideo().write(to: video)
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try await WebDriver.launch(fakeCamera: true, fakeVideo: video)
        do {
            try await browser.open(served.server.loginURL)
            try await browser.open(served.capturePath)
            #expect(try await browser.waitFor("#shutter:not([hidden])", seconds: 20))
            var seen = Set<String>()
            var shutterUsableWhileMoving = false
            for _ in 0..<160 where seen.count < 2 || !shutterUsableWhileMoving {
                try await Task.sleep(for: .milliseconds(250))
                let text = try await browser.text("#badge-steady")
                if text == "Steadiness: Holding still" { seen.insert("still") }
                if text.hasPrefix("Steadiness: Moving") {
                    seen.insert("moving")
                    let enabled = try await browser.evaluate(
                        "return !document.getElementById('shutter').disabled && !document.getElementById('shutter').hidden")
                    shutterUsableWhileMoving = shutterUsableWhileMoving || enabled as? Bool == true
                }
            }
            #expect(seen == ["still", "moving"], "the badge said \(seen)")
            #expect(shutterUsableWhileMoving, "the badge informs; it never blocks the shutter")
            let classes = try await browser.evaluate("return document.getElementById('badge-steady').className") as? String ?? ""
            #expect(classes.contains("skin-badge-good") || classes.contains("skin-badge-check"))
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    func cairn(_ served: Served) -> SkinService { served.cairn.skin }

    /// 320x240 at 10 frames a second (YUV4MPEG2, 4:2:0): 30 frames of one view of a demo skin photo, then 30
    /// frames panning 4 px a frame (1.6% of the width a frame, 6% between two of the page's looks 400 ms apart).
    static func panningVideo() throws -> Data {
        let source = SkinDemo.photo(index: 0, count: 1, seed: 3)
        let w = 320
        let h = 240
        var data = Data("YUV4MPEG2 W\(w) H\(h) F10:1 Ip A1:1 C420jpeg\n".utf8)
        for frame in 0..<60 {
            let dx = frame < 30 ? 0 : (frame - 30) * 4
            let y0 = (source.height - h) / 2
            var yPlane = [UInt8](repeating: 0, count: w * h)
            var uPlane = [UInt8](repeating: 0, count: w * h / 4)
            var vPlane = uPlane
            for y in 0..<h {
                for x in 0..<w {
                    let i = ((y0 + y) * source.width + min(x + dx, source.width - 1)) * 3
                    let r = Double(source.pixels[i])
                    let g = Double(source.pixels[i + 1])
                    let b = Double(source.pixels[i + 2])
                    yPlane[y * w + x] = UInt8(min(max(0.299 * r + 0.587 * g + 0.114 * b, 0), 255))
                    if x % 2 == 0 && y % 2 == 0 {
                        uPlane[(y / 2) * (w / 2) + x / 2] = UInt8(min(max(128 - 0.168736 * r - 0.331264 * g + 0.5 * b, 0), 255))
                        vPlane[(y / 2) * (w / 2) + x / 2] = UInt8(min(max(128 + 0.5 * r - 0.418688 * g - 0.081312 * b, 0), 255))
                    }
                }
            }
            data.append(Data("FRAME\n".utf8))
            data.append(contentsOf: yPlane)
            data.append(contentsOf: uPlane)
            data.append(contentsOf: vPlane)
        }
        return data
    }
}

/// The compare page's change map over the selected photo.
@Suite(.serialized) struct SkinCompareBrowserTests {
    @Test func theChangeMapShowsOnlyWhileTheToggleIsOnAndTheToggleWorksByKeyboard() async throws {
        let served = try SkinCaptureBrowserTests.Served()
        defer { served.stop() }
        let timeline = try served.cairn.skin.timeline(of: served.area.id)
        let second = try #require(timeline.items.last?.entry)
        let browser = try await WebDriver.launch()
        do {
            try await browser.open(served.server.loginURL)
            try await browser.open("\(served.origin)/skin/areas/\(served.area.id.rawValue)/entries/\(second.id.rawValue)")
            let shown = "return getComputedStyle(document.querySelector('.skin-heatmap')).display"
            #expect(try await browser.evaluate(shown) as? String == "none", "the map stays hidden until asked for")
            try await browser.click("#heat-toggle")
            #expect(try await browser.evaluate(shown) as? String == "block", "the toggle shows the map")
            _ = try await browser.evaluate("document.getElementById('heat-toggle').focus()")
            try await browser.press(" ")
            #expect(try await browser.evaluate(shown) as? String == "none", "space on the focused toggle hides it again")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
