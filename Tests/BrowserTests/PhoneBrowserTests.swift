import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

/// The phone session in a real browser (one Chromium plays both the computer, on 127.0.0.1, and the phone, on
/// 127.0.0.2 over TLS, trusting only the session's key): Settings → Use your phone shows the QR code and the
/// fingerprint; the pairing page sends the secret from the fragment and clears it from the address bar; the computer
/// allows the phone; the phone's home page opens; ending the session replaces the phone's page. axe on every page.
@Suite(.serialized) struct PhoneBrowserTests {
    /// A vault served as `cairn serve --phone --phone-address 127.0.0.2` does, its phone session open.
    final class Served {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-phone-browser-\(UUID().uuidString)")
        let cairn: CairnApplication
        let server: WebServer
        let sessions: PhoneSessions
        let status: PhoneSessions.Status

        init() throws {
            cairn = try CairnApplication.open(dataDirectory: directory.path, environment: [:])
            try cairn.settings.completeOnboarding()
            var configuration = try WebConfiguration(port: 0)
            configuration.phone = PhoneOptions(address: "127.0.0.2", port: 0, minutes: 5)
            server = try WebServer(configuration: configuration, services: WebServices(cairn))
            try server.start()
            sessions = try #require(server.phone)
            status = try sessions.open()
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func pairingAPhoneFromTheComputersPageAndEndingTheSession() async throws {
        let served = try Served()
        defer { served.stop() }
        let (server, sessions, status) = (served.server, served.sessions, served.status)
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
            #expect(try await browser.waitFor("#phone-skin"))
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

    /// The guided capture on a phone-sized screen: paired over TLS on 127.0.0.2, the fake camera shows a real skin
    /// photo, the ghost of the area's newest photo lies over it, the light and focus badges come from Cairn's
    /// analyser and the steadiness badge from the emulated motion sensor (still, then turning); the shutter stores
    /// the photo and the phone shows its figure with the disclaimer and the note step. Today and Smile are audited
    /// too. Screenshots at 390 x 844 (portrait) and 844 x 390 (landscape).
    @Test func thePhoneCapturesASkinPhotoWithTheGhostAndTheMotionSensorsSteadiness() async throws {
        let served = try Served()
        defer { served.stop() }
        let (cairn, sessions, status) = (served.cairn, served.sessions, served.status)
        let area = try cairn.skin.addArea(name: "Left shoulder", guidance: "Arm relaxed, window light from the left.")
        try SkinDemo.generate(count: 1, seed: 5, into: area.id, service: cairn.skin, now: Date())
        let product = try cairn.regimen.addProduct(ProductInput(name: "Vitamin D3", form: "softgel"))
        try cairn.regimen.addSchedule(
            try SchedulePlan(
                productID: product.product.id, times: ["00:00", "23:59"].compactMap { TimeSlot(parsing: $0) }, recurrence: .daily,
                startDay: cairn.regimen.today()))
        let pairing = try #require(status.pairingURL)

        let (shots, keep) = try screenshotDirectory("phone-capture")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        let video = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-phone-still-\(UUID().uuidString).y4m")
        try SkinCaptureBrowserTests.panningVideo().write(to: video)
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try await WebDriver.launch(
            fakeCamera: true, fakeVideo: video, arguments: ["--ignore-certificate-errors-spki-list=\(status.publicKeyPin)"])
        do {
            try await browser.setViewport(.init(width: 390, height: 844, mobile: true))
            try await browser.open(pairing)
            var asked = false
            for _ in 0..<50 where !asked {
                asked = sessions.status?.waiting.isEmpty == false
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            // The computer (its own browser) allows the phone on Settings → Use your phone.
            let join = try #require(sessions.status?.waiting.first)
            let computer = try await WebDriver.launch()
            do {
                try await computer.open(served.server.loginURL)
                try await computer.open("http://127.0.0.1:\(served.server.port)/phone")
                #expect(try await computer.text("#join-\(join.id)").hasPrefix("A phone asks to join: "))
                try await computer.click("#allow-\(join.id)")
                #expect(try await computer.waitFor(".phone-list button"), "the computer lists the phone with Disconnect")
            } catch {
                await computer.quit()
                throw error
            }
            await computer.quit()
            #expect(try await browser.waitFor("#phone-skin"), "two steps on the phone: the code, then the home page once allowed")
            try await browser.screenshot(to: shots.appendingPathComponent("phone-home-390x844.png"))

            // The motion sensor holds still (the phone's browser grants its sensors to the page).
            try await browser.devTools("Browser.grantPermissions", ["permissions": ["sensors"], "origin": String(status.address.dropLast())])
            for sensor in ["accelerometer", "linear-acceleration", "gyroscope"] {
                try await browser.devTools("Emulation.setSensorOverrideEnabled", ["enabled": true, "type": sensor])
            }
            for (sensor, z) in [("accelerometer", 9.8), ("linear-acceleration", 0.0), ("gyroscope", 0.0)] {
                try await browser.devTools(
                    "Emulation.setSensorOverrideReadings", ["type": sensor, "reading": ["xyz": ["x": 0.0, "y": 0.0, "z": z]]])
            }
            try await browser.open(status.address + "skin/\(area.id.rawValue)")
            #expect(try await browser.waitFor("#shutter:not([hidden])", seconds: 20), "the camera runs over TLS")
            #expect(try await browser.waitFor("#ghost", seconds: 5))
            let light = try await SkinCaptureBrowserTests.waitForText(browser, "#badge-light", seconds: 10) { !$0.contains("waiting") }
            #expect(light.hasPrefix("Light: "))
            let still = try await SkinCaptureBrowserTests.waitForText(browser, "#badge-steady", seconds: 10) { $0.contains("Holding still") }
            #expect(still == "Steadiness: Holding still", "steadiness from the motion sensor: \(still)")
            #expect(try await browser.evaluate("return document.getElementById('skin-capture').hasAttribute('data-motion')") as? Bool == true)
            // The shutter is within the thumb's reach: on screen, in the lower part of a portrait screen, whatever is scrolled.
            let shutter =
                try await browser.evaluate(
                    "var r = document.getElementById('shutter').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight];")
                as? [Double]
            try await browser.screenshot(to: shots.appendingPathComponent("phone-capture-390x844.png"))
            #expect(shutter.map { $0[1] <= $0[2] && $0[0] > $0[2] * 0.6 } == true, "shutter at \(String(describing: shutter))")
            // Turning the phone: 2 rad/s.
            try await browser.devTools(
                "Emulation.setSensorOverrideReadings", ["type": "gyroscope", "reading": ["xyz": ["x": 0.0, "y": 2.0, "z": 0.0]]])
            let moving = try await SkinCaptureBrowserTests.waitForText(browser, "#badge-steady", seconds: 10) { $0.contains("Moving") }
            #expect(moving == "Steadiness: Moving: hold still")
            try await browser.setViewport(.init(width: 844, height: 390, mobile: true))
            try await browser.screenshot(to: shots.appendingPathComponent("phone-capture-844x390.png"))
            try await browser.audit("landscape")
            try await browser.setViewport(.init(width: 390, height: 844, mobile: true))

            try await browser.click("#shutter")
            #expect(try await browser.waitFor("#note-form", seconds: 20), "the photo's result and its note step follow the shutter")
            #expect(try await browser.text("h1") == "Photo added")
            let text = try await browser.text("main")
            #expect(text.contains(Disclaimer.similarity.text) || text.contains("Not comparable"))
            #expect(try cairn.skin.timeline(of: area.id).items.count == 2, "the shutter logged the camera frame")
            try await browser.screenshot(to: shots.appendingPathComponent("phone-result-390x844.png"))

            try await browser.open(status.address + "today")
            #expect(try await browser.count(".regimen-doses li") == 2)
            try await browser.screenshot(to: shots.appendingPathComponent("phone-today-390x844.png"))
            try await browser.open(status.address + "smile")
            try await browser.screenshot(to: shots.appendingPathComponent("phone-smile-390x844.png"))
            try await browser.open(status.address + "label")
            try await browser.open(status.address + "skin")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
