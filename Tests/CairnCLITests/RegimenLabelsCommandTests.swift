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

    @Test func helpSaysWhereTheDataComesFromItsLicenceAndThatCairnNeverFetchesIt() {
        let help = cairn("regimen", "labels", "import", "--help")
        #expect(help.stdout.contains("Dietary Supplement Label Database"))
        #expect(help.stdout.contains("public domain"))
        #expect(help.stdout.contains("never"))
    }
}
