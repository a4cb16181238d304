import CairnCLI
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Testing

/// `cairn regimen labels ...`: import DSLD's bulk file, find a product by name and by barcode photo, add it
/// through the review gate, teach an unknown barcode.
@Suite(.serialized) struct RegimenLabelsCommandTests {
    struct Scene {
        let dir: URL
        var vault: String { dir.appendingPathComponent("vault").path }
        var zip: String { dir.appendingPathComponent("DSLD-full-database-JSON.zip").path }
        let environment = ["CAIRN_NOW": "2026-03-10T12:00:00Z", "TZ": "UTC"]

        func run(_ words: String...) -> CLIRun { cairn(["--data-dir", vault, "regimen"] + words, environment: environment) }

        /// A photo of `digits` (an EAN-13) as a phone would take it.
        func barcodePhoto(_ digits: String, name: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            let rgb = BarcodeDrawing.rgb(ean13: digits, width: 1600, height: 1200, x: 500, y: 400, moduleWidth: 5, barHeight: 300)
            try ImagePipeline().encodeJPEG(RGBImage(width: 1600, height: 1200, pixels: rgb), quality: 88).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    static func withImported(_ body: (Scene) throws -> Void) throws {
        try withTemporaryDirectory { dir throws in
            let scene = Scene(dir: dir)
            let labels = try DSLDFixtures.labels()
            try DSLDFixtures.zip(try labels.map { ("\($0["id"]!).json", try DSLDFixtures.json($0)) }, to: URL(fileURLWithPath: scene.zip))
            let imported = scene.run("labels", "import", scene.zip)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("The label database holds"))
            try body(scene)
        }
    }

    @Test func importThenStatusSaysTheDateSizeAndCountAndTheFileIsBesideTheVault() throws {
        try Self.withImported { scene in
            let status = scene.run("labels", "status")
            #expect(status.status == 0)
            #expect(status.stdout.contains("labels, imported 2026-03-10 12:00 from DSLD-full-database-JSON.zip"))
            #expect(FileManager.default.fileExists(atPath: scene.vault + "/labels.sqlite"))
            // Importing again replaces it.
            #expect(scene.run("labels", "import", scene.zip).stdout.contains("replacing the earlier one"))
            #expect(scene.run("labels", "remove").stdout.contains("was removed"))
            #expect(!FileManager.default.fileExists(atPath: scene.vault + "/labels.sqlite"))
            #expect(scene.run("labels", "search", "zinc").status == 1)
        }
    }

    @Test func aFailedImportLeavesTheEarlierDatabaseAndNothingHalfWritten() throws {
        try Self.withImported { scene in
            let broken = scene.dir.appendingPathComponent("broken.json").path
            try Data("[{\"id\": 1, \"fullName\": \"A\"}, {\"id\": ".utf8).write(to: URL(fileURLWithPath: broken))
            let failed = scene.run("labels", "import", broken)
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("cut off"))
            #expect(scene.run("labels", "search", "gnc", "zinc").stdout.contains("Ultra Zinc Lozenges"))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scene.vault).filter { $0.hasPrefix(".labels-") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test func aProductFoundByNameIsAddedOnlyOnceItsFlaggedRowsAreDecided() throws {
        try Self.withImported { scene in
            let found = scene.run("labels", "search", "gnc", "zinc", "lozenges")
            #expect(found.stdout.contains("1027 · Ultra Zinc Lozenges Orange Flavor · GNC"))
            // The first label with a flagged row (a name the catalogue does not know, an amount out of range).
            var chosen: (id: Int, flagged: [Int])?
            for id in try DSLDFixtures.labels().compactMap({ $0["id"] as? Int }) {
                let shown = scene.run("labels", "show", "\(id)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
                let rows = try #require((json["proposal"] as? [String: Any])?["rows"] as? [[String: Any]])
                let flagged = rows.filter { ($0["needsDecision"] as? Bool) ?? !(($0["flags"] as? [Any]) ?? []).isEmpty }
                    .compactMap { $0["number"] as? Int }
                if !flagged.isEmpty {
                    chosen = (id, flagged)
                    break
                }
            }
            let (id, flagged) = try #require(chosen)
            let refused = scene.run("labels", "add", "\(id)", "--form", "capsule")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("flagged and not decided"))
            #expect(scene.run("products", "list").stdout.isEmpty || !scene.run("products", "list").stdout.contains("\(id)"))
            let added = scene.run("labels", "add", "\(id)", "--form", "capsule", "--accept", flagged.map(String.init).joined(separator: ","))
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("from label \(id)"))
        }
    }

    @Test func aBarcodePhotoFindsItsLabelAndAnUnknownOneCanBeTaught() throws {
        try Self.withImported { scene in
            // The first label's made-up UPC-A, as a scanner reads its bars: an EAN-13 with a leading 0.
            let upc = DSLDFixtures.upc(for: 0).replacingOccurrences(of: " ", with: "")
            let known = scene.run("labels", "search", "--barcode-photo", try scene.barcodePhoto("0" + upc, name: "known.jpg"))
            #expect(known.status == 0, "\(known.stderr)")
            #expect(known.stdout.contains("1027 · Ultra Zinc Lozenges"))
            let unknownPhoto = try scene.barcodePhoto("4006381333931", name: "unknown.jpg")
            let unknown = scene.run("labels", "search", "--barcode-photo", unknownPhoto)
            #expect(unknown.stdout.contains("Nothing knows this barcode yet"))
            #expect(scene.run("products", "add", "Own Blend", "Zinc=10 mg", "--form", "capsule").status == 0)
            let taught = scene.run("labels", "teach", "--barcode-photo", unknownPhoto, "Own Blend")
            #expect(taught.status == 0, "\(taught.stderr)")
            let again = scene.run("labels", "search", "--barcode", "4006381333931")
            #expect(again.stdout.contains("Your product: Own Blend"))
            // The photos are not kept anywhere in the vault.
            let files = FileManager.default.enumerator(atPath: scene.vault)?.allObjects as? [String] ?? []
            #expect(!files.contains { $0.hasSuffix(".jpg") })
        }
    }

    /// A label photo whose barcode the label database knows with another amount: the scan says so, and a save
    /// waits for the person's choice of the row.
    @Test func aScanThatDisagreesWithTheLabelDatabaseSavesOnlyOnceEachDifferingRowIsChosen() throws {
        try withTemporaryDirectory { dir throws in
            let scene = Scene(dir: dir)
            let label: [String: Any] = [
                "id": 990_002, "fullName": "Night Lozenge", "brandName": "Example", "upcSku": "4 006381 333931",
                "servingSizes": [["order": 1, "minQuantity": 1, "unit": "Lozenge(s)"]],
                "ingredientRows": [
                    ["name": "Vitamin D3", "quantity": [["quantity": 50, "unit": "mcg", "dailyValueTargetGroup": [["percent": 250]]]]],
                    ["name": "Zinc", "quantity": [["quantity": 15, "unit": "mg", "dailyValueTargetGroup": [["percent": 136]]]]],
                ],
            ]
            let file = dir.appendingPathComponent("labels.json")
            try DSLDFixtures.jsonArray([label]).write(to: file)
            #expect(scene.run("labels", "import", file.path).status == 0)
            let panel = TextRenderer.render(
                """
                <b><span size="x-large">Supplement Facts</span></b>
                Serving Size 1 Lozenge
                <b>Amount Per Serving                           % Daily Value</b>
                Vitamin D3 (as cholecalciferol)        25 mcg         125%
                Zinc (as zinc gluconate)                   15 mg         136%
                """, font: "DejaVu Sans 15")
            let side = 900
            let bars = BarcodeDrawing.rgb(
                ean13: "4006381333931", width: side, height: panel.height, x: 220, y: max(10, panel.height / 2 - 150), moduleWidth: 5,
                barHeight: min(260, panel.height - 20))
            var pixels: [UInt8] = []
            for row in 0..<panel.height {
                pixels += panel.pixels[(row * panel.width * 3)..<((row + 1) * panel.width * 3)]
                pixels += bars[(row * side * 3)..<((row + 1) * side * 3)]
            }
            let photo = dir.appendingPathComponent("label.jpg").path
            try ImagePipeline().encodeJPEG(RGBImage(width: panel.width + side, height: panel.height, pixels: pixels), quality: 92)
                .write(to: URL(fileURLWithPath: photo))
            let scanned = scene.run("scan", photo)
            #expect(scanned.status == 0)
            #expect(scanned.stderr.contains("The barcode in this photo is in the label database: label 990002, Night Lozenge"))
            #expect(scanned.stderr.contains("the photo 25 mcg, 125% DV; the label database 50 mcg, 250% DV"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(scanned.stdout.utf8)) as? [String: Any])
            let rows = try #require(json["rows"] as? [[String: Any]])
            let flagged = rows.filter { !(($0["flags"] as? [Any]) ?? []).isEmpty }.compactMap { $0["number"] as? Int }
            let accept = flagged.isEmpty ? [] : ["--accept", flagged.map(String.init).joined(separator: ",")]
            let unchosen = cairn(
                ["--data-dir", scene.vault, "regimen", "scan", photo, "--confirm", "--name", "Night", "--form", "lozenge"] + accept,
                environment: scene.environment)
            #expect(unchosen.status == 1)
            #expect(unchosen.stderr.contains("differ on row 1"))
            let saved = cairn(
                ["--data-dir", scene.vault, "regimen", "scan", photo, "--confirm", "--name", "Night", "--form", "lozenge", "--use-database", "1"]
                    + accept,
                environment: scene.environment)
            #expect(saved.status == 0, "\(saved.stderr)")
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(scene.run("products", "list", "--json").stdout.utf8)) as? [[String: Any]])
            let ingredients = try #require(listed.first?["ingredients"] as? [[String: Any]])
            let vitaminD = try #require(ingredients.first { ($0["nameOnLabel"] as? String) == "Vitamin D3" })
            #expect((vitaminD["amount"] as? [String: Any])?["value"] as? String == "50")
        }
    }

    @Test func helpSaysWhereTheDataComesFromItsLicenceAndThatCairnNeverFetchesIt() {
        let help = cairn("regimen", "labels", "import", "--help")
        #expect(help.stdout.contains("Dietary Supplement Label Database"))
        #expect(help.stdout.contains("public domain"))
        #expect(help.stdout.contains("never"))
    }
}
