import CairnApp
import CairnTestSupport
import Foundation
import Imaging
import Testing
import WebApp

@Suite(.serialized) struct LabelScanBrowserTests {
    static let panel = """
        <b><span size="x-large">Supplement Facts</span></b>
        Serving Size 2 Softgels
        Servings Per Container 30
        <b>Amount Per Serving                           % Daily Value</b>
        Vitamin D3 (as cholecalciferol)        50 mcg         250%
        Vitamin K2 (as menaquinone-7)         100 mcg         83%
        Magnesium (as magnesium glycinate)   200 mg          48%
        Zinc (as zinc gluconate)                   15 mg         136%
        Vitamin B6 (as pyridoxine HCl)          150 mg        8824%
        Turmeric root extract                     500 mg            †
        Moonpetal root extract                     40 mg             †
        † Daily Value not established.
        Other ingredients: Olive oil, gelatin, glycerin.
        """

    @Test func aLabelPhotoIsReviewedBesideItsBoxesAndSavedOnlyOnConfirm() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-label-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        var services = WebServices(cairn)
        services.labelScanner = try LabelScanService.makeDefault()
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let (shots, keep) = try screenshotDirectory("label")
        defer { if !keep { try? FileManager.default.removeItem(at: shots) } }
        // A phone-like photo: the panel turned by 3 degrees (the boxes must follow the deskew back).
        let photo = shots.appendingPathComponent("label-photo.jpg")
        let tilted = try ImageDegradation.rotated(
            TextRenderer.render(Self.panel, font: "DejaVu Sans 15", width: 760), degrees: 3,
            background: 200)
        try ImagePipeline().encodeJPEG(tilted, quality: 85).write(to: photo)
        defer { if !keep { try? FileManager.default.removeItem(at: photo) } }

        let browser = try await WebDriver.launch()
        do {
            try await browser.open(server.loginURL)
            try await browser.open("\(origin)/regimen/products/scan")
            try await browser.screenshot(to: shots.appendingPathComponent("label-upload-1280.png"))
            try await browser.type(photo.path, into: "#scan-photo")
            try await browser.click("#scan-read")
            #expect(try await browser.waitFor("#scan-review", seconds: 60))
            #expect(try cairn.regimen.products().isEmpty, "nothing is saved before the person confirms")
            let rows = try await browser.count(".scan-row")
            #expect(rows == 7)
            #expect(try await browser.count(".scan-box") == rows, "one box per row")

            // Each row's first word sits on the photo, in the rows' order, one line tall.
            let geometry =
                try await browser.evaluate(
                    """
                    var img = document.getElementById('scan-image').getBoundingClientRect();
                    return Array.prototype.map.call(document.querySelectorAll('.scan-box'), function (g) {
                      var b = g.querySelector('rect').getBoundingClientRect();
                      return [b.top - img.top, b.height, b.left - img.left, b.right - img.left, img.width, img.height];
                    });
                    """) as? [[Double]] ?? []
            #expect(geometry.count == rows)
            for (i, g) in geometry.enumerated() {
                #expect(g[0] >= 0 && g[0] + g[1] <= g[5] && g[2] >= 0 && g[3] <= g[4] + 1, "box \(i) inside the photo: \(g)")
                #expect(g[1] < g[5] / 8, "box \(i) is about one line tall: \(g)")
                if i > 0 { #expect(g[0] > geometry[i - 1][0], "box \(i) is below box \(i - 1)") }
            }
            try await browser.screenshot(to: shots.appendingPathComponent("label-review-top-1280.png"))
            // Keyboard: focusing a row's field highlights its box.
            _ = try await browser.evaluate("document.getElementById('row-2-name').focus(); return 0")
            #expect(try await browser.evaluate("return document.getElementById('scan-box-2').classList.contains('is-active')") as? Bool == true)
            #expect(try await browser.evaluate("return document.getElementById('scan-box-1').classList.contains('is-active')") as? Bool == false)
            try await browser.screenshot(to: shots.appendingPathComponent("label-review-1280.png"))
            #expect(try await browser.count(".scan-flag") >= 2, "the B6 amount and the unknown root are flagged")
            _ = try await browser.evaluate("document.getElementById('row-6-name').focus(); window.scrollTo(0, document.body.scrollHeight); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("label-review-bottom-1280.png"))

            try await browser.type("Daily D3 + K2", into: "#scan-name")
            // A flagged row is saved only once the person ticks "I checked this row" (the label gate).
            _ = try await browser.evaluate(
                """
                document.querySelectorAll('.scan-accept input[type=checkbox]').forEach(function (c) { c.checked = true; });
                return 0
                """)
            try await browser.click("#scan-save")
            #expect(try await browser.waitFor("#regimen-notice", seconds: 20))
            try await browser.screenshot(to: shots.appendingPathComponent("label-saved-1280.png"))
            let product = try #require(try cairn.regimen.products().first).product
            #expect(product.name == "Daily D3 + K2" && product.form == .softgel)
            #expect(product.ingredients.count == 7)

            try await browser.emulateViewport(width: 390, height: 844, mobile: true)
            try await browser.open("\(origin)/regimen/products/scan")
            try await browser.screenshot(to: shots.appendingPathComponent("label-upload-390.png"))
            try await browser.type(photo.path, into: "#scan-photo")
            try await browser.click("#scan-read")
            #expect(try await browser.waitFor("#scan-review", seconds: 60))
            let overflow = try await browser.evaluate("return document.documentElement.scrollWidth") as? Int ?? .max
            #expect(overflow <= 390, "no sideways scrolling at 390 px")
            try await browser.screenshot(to: shots.appendingPathComponent("label-review-390.png"))
            _ = try await browser.evaluate("document.getElementById('row-3-amount').focus(); return 0")
            try await browser.screenshot(to: shots.appendingPathComponent("label-review-row4-390.png"))

            // A food panel: a clear message and no rows.
            let food = shots.appendingPathComponent("label-food.jpg")
            defer { if !keep { try? FileManager.default.removeItem(at: food) } }
            try ImagePipeline().encodeJPEG(
                TextRenderer.render(
                    "<b><span size=\"x-large\">Nutrition Facts</span></b>\n8 servings per container\nServing size 2/3 cup (55g)\nCalories 230\nTotal Fat 8g 10%\nSodium 160mg 7%\nTotal Carbohydrate 37g 13%",
                    font: "DejaVu Sans 15", width: 600), quality: 85
            ).write(to: food)
            try await browser.open("\(origin)/regimen/products/scan")
            try await browser.type(food.path, into: "#scan-photo")
            try await browser.click("#scan-read")
            #expect(try await browser.waitFor("#scan-message", seconds: 60))
            #expect(try await browser.text("#scan-message").contains("Nutrition Facts"))
            #expect(try await browser.count(".scan-row") == 0)
            try await browser.screenshot(to: shots.appendingPathComponent("label-food-390.png"))

            let console = try await browser.logs("browser").compactMap { $0["message"] as? String }
            #expect(console.filter { $0.contains("Content Security Policy") || $0.contains("Refused") }.isEmpty, "\(console)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        #expect(try cairn.regimen.products().count == 1, "the second reading was never saved")
    }
}
