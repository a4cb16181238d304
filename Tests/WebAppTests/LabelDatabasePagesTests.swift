import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Regimen
import Testing

@testable import WebApp

/// The label database on the web, in process over a real vault: import from a path in Settings, search and add a
/// product through the review gate, a barcode photo, teaching an unknown barcode, and a scan that disagrees with
/// the label database.
@Suite(.serialized) struct LabelDatabasePagesTests {
    /// A site whose vault has the 148 labels in DSLD's format imported (`extra` labels added to them).
    static func site(labelScanner: LabelScanService? = nil, extra: [[String: Any]] = []) throws -> (RegimenSite, Scratch) {
        let site = try RegimenSite(labelScanner: labelScanner)
        let scratch = try Scratch()
        let file = scratch.file("DSLD.json")
        try DSLDFixtures.jsonArray(try DSLDFixtures.labels() + extra).write(to: file)
        let imported = site.post("/settings/label-database/import", form: ["path": file.path])
        #expect(imported.status == 303)
        return (site, scratch)
    }

    static func photo(barcode digits: String) throws -> Data {
        let rgb = BarcodeDrawing.rgb(ean13: digits, width: 1600, height: 1200, x: 500, y: 400, moduleWidth: 5, barHeight: 300)
        return try ImagePipeline().encodeJPEG(RGBImage(width: 1600, height: 1200, pixels: rgb), quality: 88)
    }

    static func upload(_ path: String, photo: Data) -> Request {
        Request(
            method: .post, path: path,
            headers: ["Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)", "Content-Type": "multipart/form-data; boundary=x"],
            formFields: ["photo": photo, "csrf": Data(Fixture.csrf.utf8)])
    }

    @Test func settingsImportsFromAPathAndShowsTheDateAndSizeThenRemoves() throws {
        let site = try RegimenSite()
        let settings = WebServices(site.cairn)
        let app = buildApplication(configuration: try Fixture.configuration(), services: settings)
        #expect(app.handle(Fixture.get("/settings")).bodyText.contains("Not imported."))
        let page = site.get("/settings/label-database")
        #expect(page.bodyText.contains("Dietary Supplement Label Database"))
        #expect(page.bodyText.contains("public domain") && page.bodyText.contains("Cairn never fetches anything"))

        let missing = site.post("/settings/label-database/import", form: ["path": "/nowhere/DSLD.zip"])
        #expect(missing.status == 400)
        #expect(
            missing.bodyText.contains("id=\"label-database-path-error\"") && missing.bodyText.contains("aria-invalid=\"true\" autofocus"),
            "the error is beside its field")
        #expect(missing.bodyText.contains("Nothing was changed."))
        #expect(site.post("/settings/label-database/import", form: ["path": "relative.zip"]).status == 400)

        let scratch = try Scratch()
        defer { scratch.remove() }
        let zip = scratch.file("DSLD-full-database-JSON.zip")
        try DSLDFixtures.zip(try DSLDFixtures.labels().map { ("\($0["id"]!).json", try DSLDFixtures.json($0)) }, to: zip)
        let imported = site.post("/settings/label-database/import", form: ["path": zip.path])
        #expect(imported.status == 303)
        let settingsPage = app.handle(Fixture.get("/settings")).bodyText
        #expect(settingsPage.contains("labels, imported") && settingsPage.contains("MB on this computer"))
        let facts = site.get("/settings/label-database?done=imported").bodyText
        #expect(facts.contains("The label database was imported.") && facts.contains("DSLD-full-database-JSON.zip"))
        #expect(FileManager.default.fileExists(atPath: site.directory.appendingPathComponent("labels.sqlite").path))

        #expect(site.post("/settings/label-database/remove").status == 303)
        #expect(!FileManager.default.fileExists(atPath: site.directory.appendingPathComponent("labels.sqlite").path))
        #expect(site.get("/regimen/products/labels").bodyText.contains("There is no label database on this computer yet."))
    }

    @Test func aLabelFoundByNameIsReviewedAndSavedOnlyOnceItsFlaggedRowsAreAccepted() throws {
        // No Tesseract needed: the label's rows are checked by the catalogue's matcher.
        let (site, scratch) = try Self.site()
        defer { scratch.remove() }
        #expect(site.get("/regimen/products").bodyText.contains("href=\"/regimen/products/labels\""))
        let results = site.get("/regimen/products/labels?q=gnc+zinc+lozenges").bodyText
        #expect(results.contains("href=\"/regimen/products/labels/1027\""))
        let review = site.get("/regimen/products/labels/1027")
        #expect(review.status == 200)
        let html = review.bodyText
        #expect(html.contains("From the label database: Ultra Zinc Lozenges Orange Flavor (GNC)"))
        #expect(html.contains(Disclaimer.labelReading.text))
        #expect(html.contains("from the label database"))
        #expect(try site.regimen.products().isEmpty, "nothing is saved before the person confirms")

        var fields = LabelScanPagesTests.formFields(html)
        #expect(fields["name"] == "Ultra Zinc Lozenges Orange Flavor")
        #expect(fields["form"] == "lozenge")
        fields["action"] = "save"
        let flagged = (0..<Int(fields["rows"] ?? "0")!).filter { html.contains("id=\"row-\($0)-accept\"") }
        if !flagged.isEmpty {
            let refused = site.post("/regimen/products/scan/confirm", form: fields)
            #expect(refused.status == 400 && refused.bodyText.contains("flagged"))
            #expect(try site.regimen.products().isEmpty)
            for i in flagged { fields["row-\(i)-accept"] = "1" }
        }
        let saved = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(saved.status == 303)
        let product = try #require(try site.regimen.products().first).product
        #expect(product.brand == "GNC")
        #expect(product.ingredients.first?.amount == (try Amount(2000, .iu)))
    }

    @Test func aBarcodePhotoFindsItsLabelAndAnUnknownBarcodeIsTaughtThenFound() throws {
        let (site, scratch) = try Self.site()
        defer { scratch.remove() }
        let upc = DSLDFixtures.upc(for: 0).replacingOccurrences(of: " ", with: "")
        let known = site.app.handle(Self.upload("/regimen/products/labels/barcode", photo: try Self.photo(barcode: "0" + upc)))
        #expect(known.status == 200)
        #expect(known.bodyText.contains("href=\"/regimen/products/labels/1027\""))

        let own = try site.addProduct("My own blend")
        let unknownPhoto = try Self.photo(barcode: "4006381333931")
        let unknown = site.app.handle(Self.upload("/regimen/products/labels/barcode", photo: unknownPhoto)).bodyText
        #expect(unknown.contains("Nothing knows this barcode yet"))
        #expect(unknown.contains("id=\"label-teach\""))
        let unchosen = site.post("/regimen/products/labels/teach", form: ["barcode": "04006381333931", "product": ""])
        #expect(unchosen.status == 400 && unchosen.bodyText.contains("Choose one of your products."))
        let taught = site.post("/regimen/products/labels/teach", form: ["barcode": "04006381333931", "product": own.product.id.rawValue])
        #expect(taught.status == 303)
        let again = site.app.handle(Self.upload("/regimen/products/labels/barcode", photo: unknownPhoto)).bodyText
        #expect(again.contains("It is your product") && again.contains("My own blend"))
        #expect(LabelScanPagesTests.tree(site.directory).keys.allSatisfy { !$0.hasSuffix(".jpg") }, "the photo is never stored")
    }

    @Test func aPhotoWithoutABarcodeSaysSoPlainly() throws {
        let (site, scratch) = try Self.site()
        defer { scratch.remove() }
        let plain = try ImagePipeline().encodeJPEG(RGBImage(width: 640, height: 480, pixels: [UInt8](repeating: 190, count: 640 * 480 * 3)))
        let page = site.app.handle(Self.upload("/regimen/products/labels/barcode", photo: plain))
        #expect(page.bodyText.contains("No barcode could be read in this photo."))
        let notPhoto = site.app.handle(Self.upload("/regimen/products/labels/barcode", photo: Data("text".utf8)))
        #expect(notPhoto.status == 400)
    }

    /// A label photo whose barcode the label database knows, with a reformulated amount and a row the photo lacks:
    /// both are shown side by side and the person chooses per row before anything is saved.
    @Test func whenTheScanAndTheLabelDatabaseDisagreeThePersonChoosesPerRow() throws {
        let digits = "4006381333931"
        let label: [String: Any] = [
            "id": 990_001, "fullName": "Night Lozenge", "brandName": "Example", "upcSku": "4 006381 333931", "entryDate": "2024-02-01",
            "offMarket": 0, "physicalState": ["langualCodeDescription": "Lozenge"],
            "servingSizes": [["order": 1, "minQuantity": 1, "maxQuantity": 1, "unit": "Lozenge(s)"]],
            "ingredientRows": [
                ["name": "Vitamin D3", "quantity": [["quantity": 50, "unit": "mcg", "dailyValueTargetGroup": [["percent": 250]]]]],
                ["name": "Zinc", "quantity": [["quantity": 15, "unit": "mg", "dailyValueTargetGroup": [["percent": 136]]]]],
                ["name": "Melatonin", "quantity": [["quantity": 3, "unit": "mg"]]],
                ["name": "Vitamin B6", "quantity": [["quantity": 2, "unit": "mg", "dailyValueTargetGroup": [["percent": 118]]]]],
            ],
        ]
        let (site, scratch) = try Self.site(labelScanner: LabelScanPagesTests.scanner, extra: [label])
        defer { scratch.remove() }
        // The panel beside its barcode, as on a bottle.
        let panel = TextRenderer.render(LabelScanPagesTests.panel)
        let side = 900
        let bars = BarcodeDrawing.rgb(
            ean13: digits, width: side, height: panel.height, x: 220, y: max(10, panel.height / 2 - 150), moduleWidth: 5, barHeight: 260)
        var pixels: [UInt8] = []
        for row in 0..<panel.height {
            pixels += panel.pixels[(row * panel.width * 3)..<((row + 1) * panel.width * 3)]
            pixels += bars[(row * side * 3)..<((row + 1) * side * 3)]
        }
        let photo = try LabelScanPagesTests.jpeg(RGBImage(width: panel.width + side, height: panel.height, pixels: pixels))
        let review = site.app.handle(LabelScanPagesTests.upload(photo))
        #expect(review.status == 200)
        let html = review.bodyText
        #expect(html.contains("The barcode in this photo is in the label database: Night Lozenge (Example)"))
        #expect(html.contains("The photo and the label database differ. Which matches your bottle?"))
        #expect(html.contains("The label database: 50 mcg, 250% DV"))
        #expect(html.contains("Only the label database has this row."))

        var fields = LabelScanPagesTests.formFields(html)
        fields["name"] = "Night lozenge"
        fields["action"] = "save"
        for key in fields.keys where key.hasSuffix("-use") { fields[key] = nil }
        for i in 0..<Int(fields["rows"] ?? "0")! where html.contains("id=\"row-\(i)-accept\"") { fields["row-\(i)-accept"] = "1" }
        let unchosen = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(unchosen.status == 400)
        #expect(unchosen.bodyText.contains("differ on"))
        #expect(try site.regimen.products().isEmpty)

        let rows = Int(fields["rows"] ?? "0")!
        let vitaminD = try #require((0..<rows).first { fields["row-\($0)-name"] == "Vitamin D3" })
        let b6 = try #require((0..<rows).first { fields["row-\($0)-name"] == "Vitamin B6" })
        fields["row-\(vitaminD)-use"] = "database"
        fields["row-\(b6)-use"] = "leave"
        // The choice is an edit: the page shows the rows again for a look, then saves.
        var reply = site.post("/regimen/products/scan/confirm", form: fields)
        for _ in 0..<2 where reply.status == 400 {
            fields = LabelScanPagesTests.formFields(reply.bodyText)
            fields["action"] = "save"
            fields["row-\(vitaminD)-use"] = "database"
            for i in 0..<Int(fields["rows"] ?? "0")! where reply.bodyText.contains("id=\"row-\(i)-accept\"") { fields["row-\(i)-accept"] = "1" }
            reply = site.post("/regimen/products/scan/confirm", form: fields)
        }
        #expect(reply.status == 303, "\(reply.bodyText.prefix(0))")
        let product = try #require(try site.regimen.products().first).product
        #expect(product.ingredients.first { $0.nameOnLabel == "Vitamin D3" }?.amount == (try Amount(50, .mcg)))
        #expect(!product.ingredients.contains { $0.nameOnLabel == "Vitamin B6" })
    }
}
