import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Regimen
import Testing
import TextRecognition

@testable import WebApp

/// The label pages end to end in process: a rendered label photo is uploaded, the review page is read back like a
/// browser would submit it, edited, and confirmed against a real vault.
@Suite(.serialized) struct LabelScanPagesTests {
    static let scanner = try! LabelScanService.makeDefault()
    static let panel = """
        <b><span size="x-large">Supplement Facts</span></b>
        Serving Size 1 Lozenge
        Servings Per Container 60
        <b>Amount Per Serving                           % Daily Value</b>
        Vitamin D3 (as cholecalciferol)        25 mcg         125%
        Zinc (as zinc gluconate)                   15 mg         136%
        Melatonin                                          3 mg             †
        † Daily Value not established.
        Other ingredients: Sorbitol, Citric Acid.
        """

    static func jpeg(_ image: RGBImage) throws -> Data { try ImagePipeline().encodeJPEG(image, quality: 90) }

    /// A multipart upload as the server's form parser hands it over.
    static func upload(_ photo: Data?, csrf: String? = Fixture.csrf) -> Request {
        var fields: [String: Data] = [:]
        if let photo { fields["photo"] = photo }
        if let csrf { fields["csrf"] = Data(csrf.utf8) }
        return Request(
            method: .post, path: "/regimen/products/scan",
            headers: [
                "Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)",
                "Content-Type": "multipart/form-data; boundary=x",
            ], formFields: fields)
    }

    /// The fields a browser would submit from `html`'s review form: text and hidden inputs, checked boxes, selected options.
    static func formFields(_ html: String) -> [String: String] {
        func unescape(_ s: String) -> String {
            s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        var fields: [String: String] = [:]
        let input = try! Regex(#"<input ([^>]*)>"#)
        for match in html.matches(of: input) {
            let attributes = String(match.output[1].substring ?? "")
            guard let name = attributes.firstMatch(of: try! Regex(#"name="([^"]*)""#))?.output[1].substring.map(String.init),
                let value = attributes.firstMatch(of: try! Regex(#"value="([^"]*)""#))?.output[1].substring.map(String.init)
            else { continue }
            if attributes.contains("type=\"checkbox\"") && !attributes.contains(" checked") { continue }
            if attributes.contains("type=\"file\"") { continue }
            fields[name] = unescape(value)
        }
        let textarea = try! Regex(#"<textarea [^>]*name="([^"]+)"[^>]*>(.*?)</textarea>"#).dotMatchesNewlines()
        for match in html.matches(of: textarea) {
            fields[String(match.output[1].substring ?? "")] = unescape(String(match.output[2].substring ?? ""))
        }
        let select = try! Regex(#"<select [^>]*name="([^"]+)"[^>]*>(.*?)</select>"#)
        for match in html.matches(of: select) {
            let name = String(match.output[1].substring ?? "")
            let options = String(match.output[2].substring ?? "")
            let selected = options.firstMatch(of: try! Regex(#"<option value="([^"]*)" selected"#))?.output[1].substring.map(String.init)
            fields[name] = selected ?? ""
        }
        return fields
    }

    /// Every file under `directory` with its size.
    static func tree(_ directory: URL) -> [String: Int] {
        var files: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            guard values?.isRegularFile == true else { continue }
            files[url.path.replacingOccurrences(of: directory.path, with: "")] = values?.fileSize ?? 0
        }
        return files
    }

    @Test func theUploadPageTakesAPhotoAndSaysItIsNotKept() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let page = site.get("/regimen/products/scan")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("enctype=\"multipart/form-data\""))
        #expect(page.bodyText.contains("name=\"photo\""))
        #expect(page.bodyText.contains("is not kept"))
        #expect(page.bodyText.contains("<script src=\"/assets/label-scan.js\" defer></script>"))
        #expect(!page.bodyText.contains("<script>"), "no inline scripts (CSP)")
        #expect(ProductWording.bannedWords(in: page.bodyText).isEmpty)
        #expect(site.get("/regimen/products").bodyText.contains("href=\"/regimen/products/scan\""))
        #expect(site.get("/regimen/products/new").bodyText.contains("href=\"/regimen/products/scan\""))
        #expect(site.app.handle(Fixture.get("/assets/label-scan.js")).status == 200)
    }

    @Test func withoutTextRecognitionThePageSaysSo() throws {
        let site = try RegimenSite()
        let page = site.get("/regimen/products/scan")
        #expect(page.bodyText.contains("Text recognition is not available"))
        #expect(site.app.handle(Self.upload(Data([0xFF]))).status == 503)
    }

    /// A two-column panel goes through the same review: a box per row over the photo, every row editable, the
    /// flags beside their rows, nothing saved before the person confirms.
    @Test func aTwoColumnPanelIsReviewedRowByRowBesideItsBoxes() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let review = site.app.handle(Self.upload(try Self.jpeg(TextRenderer.twoColumnPanel())))
        #expect(review.status == 200)
        let html = review.bodyText
        #expect(html.contains("id=\"scan-box-0\"") && html.contains("id=\"scan-box-22\"") && !html.contains("id=\"scan-box-23\""), "a box per row")
        #expect(html.contains(">Vitamin A</textarea>") && html.contains(">Biotin</textarea>") && html.contains(">Lycopene</textarea>"))
        #expect(ProductWording.bannedWords(in: html).isEmpty)
        #expect(try site.regimen.products().isEmpty, "nothing is saved before the person confirms")
        if let path = ProcessInfo.processInfo.environment["CAIRN_SAVE_REVIEW"] { try Data(html.utf8).write(to: URL(fileURLWithPath: path)) }
    }

    @Test func uploadReviewAndConfirmSavesTheProductAndKeepsNoPhoto() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let photo = try Self.jpeg(TextRenderer.render(Self.panel))
        let before = Self.tree(site.directory)

        #expect(site.app.handle(Self.upload(photo, csrf: nil)).status == 403)
        let review = site.app.handle(Self.upload(photo))
        #expect(review.status == 200)
        let html = review.bodyText
        #expect(html.contains(Disclaimer.labelReading.text))
        #expect(html.contains("src=\"data:image/jpeg;base64,"))
        #expect(html.contains("id=\"scan-box-0\"") && html.contains("id=\"scan-box-2\""), "a box per row")
        #expect(html.contains(">Vitamin D3</textarea>") && html.contains(">Zinc</textarea>") && html.contains(">Melatonin</textarea>"))
        #expect(html.contains("<option value=\"lozenge\" selected>"), "the form comes from the serving size")
        #expect(html.contains("Other ingredients"))
        #expect(!html.contains("<script>") && !html.contains("style=") && !html.contains("<style"), "CSP: no inline script or style")
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
        #expect(ProductWording.bannedWords(in: html).isEmpty)
        #expect(try site.regimen.products().isEmpty, "nothing is saved before the person confirms")

        var fields = Self.formFields(html)
        #expect(fields["rows"] == "3")
        #expect(fields["row-0-unit"] == "mcg" && fields["row-0-amount"] == "25" && fields["row-0-dv"] == "125")
        fields["name"] = "Night lozenge"
        fields["action"] = "save"
        // A row read with low confidence (the "†" often is) is saved only once the person ticks that they checked it.
        let flagged = (0..<3).filter { html.contains("id=\"row-\($0)-accept\"") }
        if !flagged.isEmpty {
            let refused = site.post("/regimen/products/scan/confirm", form: fields)
            #expect(refused.status == 400 && refused.bodyText.contains("flagged"))
            for i in flagged { fields["row-\(i)-accept"] = "1" }
        }
        let saved = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(saved.status == 303)
        let product = try #require(try site.regimen.products().first).product
        #expect(product.name == "Night lozenge" && product.form == .lozenge)
        #expect(product.ingredients.map(\.catalogueID) == ["vitamin-d", "zinc", "melatonin"])
        #expect(product.ingredients[0].amount == (try Amount(25, .mcg)))
        #expect(product.ingredients[0].dailyValuePercent == 125)
        #expect(product.ingredients[0].form == "cholecalciferol")

        // The vault gained database rows only: no new file, and no file holds the photo or its preview.
        let after = Self.tree(site.directory)
        let added = Set(after.keys).subtracting(before.keys).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && !$0.hasSuffix("-journal") }
        #expect(added.isEmpty, "new files in the vault: \(added)")
        let preview = try #require(LabelScanPages.preview(fromField: fields["photo"]))
        for path in after.keys {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: site.directory.path + path))
            #expect(bytes.range(of: photo.subdata(in: 600..<700)) == nil, "photo bytes in \(path)")
            #expect(bytes.range(of: preview.subdata(in: 600..<700)) == nil, "preview bytes in \(path)")
        }
    }

    @Test func editsAreAppliedAndAHandEnteredUnknownIngredientKeepsItsFlag() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let html = site.app.handle(Self.upload(try Self.jpeg(TextRenderer.render(Self.panel)))).bodyText
        var fields = Self.formFields(html)
        fields["name"] = "Edited"
        fields["row-1-amount"] = "10"  // zinc 15 -> 10 mg
        fields["row-1-dv"] = "91"
        fields["row-2-remove"] = "1"  // leave out melatonin
        fields["action"] = "add"
        let added = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(added.status == 200)
        #expect(added.bodyText.contains("id=\"row-2-name\"") && !added.bodyText.contains(">Melatonin</textarea>"))
        #expect(try site.regimen.products().isEmpty)

        fields = Self.formFields(added.bodyText)
        #expect(fields["rows"] == "3" && fields["row-1-amount"] == "10" && fields["name"] == "Edited", "edits are kept")
        fields["row-2-name"] = "Mystery root"
        fields["row-2-amount"] = "40"
        fields["row-2-unit"] = "mg"
        fields["action"] = "save"
        // The new row raises flags the page has not shown yet: the page comes back with them, nothing saved.
        let gated = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(gated.status == 400)
        #expect(gated.bodyText.contains("Your edits raised something to check"))
        #expect(gated.bodyText.contains("<strong>Unknown ingredient:</strong>"))
        #expect(gated.bodyText.contains(">Mystery root</textarea>"))
        #expect(try site.regimen.products().isEmpty)

        // Seen is not accepted: the flagged row is saved only once the person ticks that they checked it.
        fields = Self.formFields(gated.bodyText)
        fields["action"] = "save"
        let unticked = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(unticked.status == 400)
        #expect(unticked.bodyText.contains("Row 3 is flagged"))
        #expect(try site.regimen.products().isEmpty)
        fields = Self.formFields(unticked.bodyText)
        fields["row-2-accept"] = "1"
        fields["action"] = "save"
        let saved = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(saved.status == 303)
        let product = try #require(try site.regimen.products().first).product
        #expect(product.ingredients.map(\.nameOnLabel) == ["Vitamin D3", "Zinc", "Mystery root"])
        #expect(product.ingredients.map(\.catalogueID) == ["vitamin-d", "zinc", nil])
        #expect(product.ingredients[1].amount == (try Amount(10, .mg)) && product.ingredients[1].dailyValuePercent == 91)
        #expect(product.ingredients[2].amount == (try Amount(40, .mg)))
        let page = site.get("/regimen/products/\(product.id.rawValue)").bodyText
        #expect(
            page.contains("Mystery root — 40 mg <span class=\"regimen-flag\"><strong>Unknown ingredient:</strong>"),
            "the flag stays visible on the product page")
        #expect(page.contains("Vitamin D3 (as cholecalciferol) — 25 mcg · 125% DV"))

        // The Edit page offers every field the review had: name, form, amount and unit, %DV.
        let edit = site.get("/regimen/products/\(product.id.rawValue)/edit").bodyText
        let lines = try #require(Self.formFields(edit)["name"] == "Edited" ? edit : nil)
        #expect(lines.contains("Zinc (as zinc gluconate) = 10 mg, 91% DV"), "\(lines)")
        #expect(lines.contains("Vitamin D3 (as cholecalciferol) = 25 mcg, 125% DV"))
        let edited = site.post(
            "/regimen/products/\(product.id.rawValue)/edit",
            form: [
                "name": "Edited", "form": "lozenge", "serving": "1",
                "ingredients": "Vitamin D3 (as cholecalciferol) = 25 mcg, 125% DV\nZinc (as zinc picolinate) = 12 mg\nMystery root = 40 mg",
            ])
        #expect(edited.status == 303, "\(edited.bodyText)")
        let second = try #require(try site.regimen.products().first).product
        #expect(second.ingredients.map(\.form) == ["cholecalciferol", "zinc picolinate", nil])
        #expect(second.ingredients.map(\.dailyValuePercent) == [125, nil, nil])
        #expect(second.ingredients.map(\.catalogueID) == ["vitamin-d", "zinc", nil])
    }

    @Test func aConfirmThatFailsKeepsTheEditsAndSavesNothing() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let html = site.app.handle(Self.upload(try Self.jpeg(TextRenderer.render(Self.panel)))).bodyText
        var fields = Self.formFields(html)
        fields["name"] = "  "
        fields["row-0-amount"] = "lots"
        fields["action"] = "save"
        let refused = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(refused.status == 400)
        #expect(refused.bodyText.contains("A product needs a name."))
        #expect(refused.bodyText.contains("id=\"row-0-error\""))
        #expect(refused.bodyText.contains("value=\"lots\""), "the typed amount stays on the page")
        #expect(refused.bodyText.contains("src=\"data:image/jpeg;base64,"), "the photo is still shown")

        // An amount no product can hold: flagged first, then refused by the service on a second save.
        fields = Self.formFields(refused.bodyText)
        fields["name"] = "Big D"
        fields["row-0-amount"] = "25"
        fields["row-0-unit"] = "g"
        fields["action"] = "save"
        let flagged = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(flagged.status == 400 && flagged.bodyText.contains("<strong>Impossible amount:</strong>"))
        fields = Self.formFields(flagged.bodyText)
        fields["action"] = "save"
        let refusedAgain = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(refusedAgain.status == 400)
        #expect(refusedAgain.bodyText.contains("Nothing was saved."))
        #expect(refusedAgain.bodyText.contains("value=\"Big D\""))
        #expect(try site.regimen.products().isEmpty)

        // Every row left out: nothing to save.
        fields = Self.formFields(refusedAgain.bodyText)
        for i in 0..<3 { fields["row-\(i)-remove"] = "1" }
        fields["action"] = "save"
        let empty = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(empty.status == 400 && empty.bodyText.contains("There are no rows to save."))
        fields["csrf"] = nil
        #expect(site.post("/regimen/products/scan/confirm", form: fields, csrf: nil).status == 403)
        #expect(try site.regimen.products().isEmpty)
    }

    @Test func linesThatAreNotIngredientsAreLeftOutAndListedAndNeverSaved() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let panel = Self.panel.replacingOccurrences(
            of: "Other ingredients: Sorbitol, Citric Acid.",
            with: "Suggested use: Take 1 lozenge daily.\nKEEP OUT OF REACH OF CHILDREN.")
        let html = site.app.handle(Self.upload(try Self.jpeg(TextRenderer.render(panel)))).bodyText
        #expect(html.contains("id=\"scan-not-ingredients\""))
        #expect(html.contains("KEEP OUT OF REACH"))
        var fields = Self.formFields(html)
        #expect(fields["rows"] == "3")
        fields["name"] = "Night"
        fields["action"] = "save"
        for i in 0..<3 where html.contains("id=\"row-\(i)-accept\"") { fields["row-\(i)-accept"] = "1" }
        #expect(site.post("/regimen/products/scan/confirm", form: fields).status == 303)
        let product = try #require(try site.regimen.products().first).product
        #expect(product.ingredients.map(\.nameOnLabel) == ["Vitamin D3", "Zinc", "Melatonin"])
    }

    @Test func checkingAgainShowsTheFlagsOfTheEditedRows() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let html = site.app.handle(Self.upload(try Self.jpeg(TextRenderer.render(Self.panel)))).bodyText
        var fields = Self.formFields(html)
        fields["row-1-amount"] = "90"  // zinc above the upper limit
        fields["action"] = "check"
        let checked = site.post("/regimen/products/scan/confirm", form: fields)
        #expect(checked.status == 200)
        #expect(checked.bodyText.contains("<strong>Above the upper limit:</strong>"))
        #expect(checked.bodyText.contains("Checked again."))
        #expect(try site.regimen.products().isEmpty)
    }

    @Test func badPhotosGetAClearMessageAndNoRows() throws {
        let site = try RegimenSite(labelScanner: Self.scanner)
        let blank = RGBImage(width: 900, height: 700, red: 235, green: 232, blue: 228)
        let food =
            "<b><span size=\"x-large\">Nutrition Facts</span></b>\n8 servings per container\nServing size 2/3 cup (55g)\nCalories 230\nTotal Fat 8g 10%\nSodium 160mg 7%\nTotal Carbohydrate 37g 13%"
        let german =
            "<b>Nahrungsergänzungsmittel</b>\nZutaten: Füllstoff Cellulose, Zinkgluconat, Überzugsmittel\nVerzehrempfehlung: täglich 1 Kapsel mit ausreichend Flüssigkeit\npro Tagesdosis          % NRV\nZink    10 mg   100 %"
        let cases: [(RGBImage, String)] = [
            (blank, "No text was found"), (TextRenderer.render(food), "Nutrition Facts panel"),
            (TextRenderer.render(german), "does not appear to be in English"),
        ]
        for (image, words) in cases {
            let page = site.app.handle(Self.upload(try Self.jpeg(image)))
            #expect(page.status == 200)
            #expect(page.bodyText.contains("id=\"scan-message\""))
            #expect(page.bodyText.contains(words), "\(words)")
            #expect(page.bodyText.contains("id=\"scan-no-rows\""))
            #expect(Self.formFields(page.bodyText)["rows"] == "0")
        }
        let upsideDown = site.app.handle(Self.upload(try Self.jpeg(try ImageDegradation.turnedHalf(TextRenderer.render(Self.panel)))))
        #expect(upsideDown.bodyText.contains("upside down"))
        #expect(upsideDown.bodyText.contains(">Vitamin D3</textarea>"))

        let notAPhoto = site.app.handle(Self.upload(Data("plain text".utf8)))
        #expect(notAPhoto.status == 400 && notAPhoto.bodyText.contains("id=\"regimen-error\""))
        #expect(site.app.handle(Self.upload(nil)).bodyText.contains("Choose a photo of the label first."))
        #expect(try site.regimen.products().isEmpty, "no bad photo is ever saved")
    }

    @Test func boxesFromTheFormAreCheckedAndPreviewsMustBeJPEG() {
        #expect(
            LabelScanPages.boxes(fromField: "1,2,3,4 x,1,2,3 5,6,7 -1,0,1,1 10,20,30,40") == [
                TextBox(x: 1, y: 2, width: 3, height: 4), TextBox(x: 10, y: 20, width: 30, height: 40),
            ])
        #expect(LabelScanPages.boxes(fromField: "").isEmpty)
        #expect(LabelScanPages.preview(fromField: Data("<svg/>".utf8).base64EncodedString()) == nil)
        #expect(LabelScanPages.preview(fromField: "not base64!") == nil)
        #expect(LabelScanPages.preview(fromField: nil) == nil)
        #expect(LabelScanPages.union([]) == nil)
        #expect(
            LabelScanPages.union([TextBox(x: 10, y: 10, width: 5, height: 5), TextBox(x: 0, y: 12, width: 2, height: 10)])
                == TextBox(x: 0, y: 10, width: 15, height: 12))
    }
}
