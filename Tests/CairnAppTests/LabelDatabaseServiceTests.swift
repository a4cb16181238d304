import CairnCore
import CairnTestSupport
import Foundation
import Regimen
import Testing

@testable import CairnApp
@testable import Storage

/// The label database's service over a real vault: imports that replace the file only once whole, the file kept
/// beside the vault, proposals flagged as scans are, and barcodes the person teaches.
@Suite(.serialized) struct LabelDatabaseServiceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func withApp(_ body: (CairnApplication, Scratch) throws -> Void) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:], clock: FixedClock(now))
        try body(app, scratch)
    }

    static func writeLabels(_ labels: [[String: Any]], in scratch: Scratch, name: String = "DSLD.json") throws -> String {
        let file = scratch.file(name)
        try DSLDFixtures.jsonArray(labels).write(to: file)
        return file.path
    }

    @Test func anImportIsKeptBesideTheVaultAndReplacedOnlyOnceTheNewOneIsWhole() throws {
        try Self.withApp { app, scratch in
            #expect(try app.labels.status() == nil)
            #expect(throws: LabelDatabaseError.notImported) { try app.labels.search("zinc") }
            let labels = try DSLDFixtures.labels()
            let first = try app.labels.importFile(atPath: try Self.writeLabels(labels, in: scratch))
            #expect(first.labels == 148 && !first.replaced)
            #expect(app.labels.fileURL.deletingLastPathComponent().path == app.vault.directory.path)
            let status = try #require(try app.labels.status())
            #expect(status.labels == 148 && status.importedAt == Self.now && status.sourceName == "DSLD.json")
            #expect(status.fileBytes > 0)

            // A newer file with fewer labels replaces it whole.
            let second = try app.labels.importFile(atPath: try Self.writeLabels(Array(labels.prefix(10)), in: scratch, name: "newer.json"))
            #expect(second.replaced && second.labels == 10)
            #expect(try app.labels.status()?.labels == 10)

            // A file cut off changes nothing and leaves nothing behind.
            let cut = scratch.file("cut.json")
            try Data(try DSLDFixtures.jsonArray(labels).prefix(20_000)).write(to: cut)
            #expect(throws: JSONRecordStreamError.cutOff) { try app.labels.importFile(atPath: cut.path) }
            #expect(try app.labels.status()?.labels == 10)
            let names = try FileManager.default.contentsOfDirectory(atPath: app.vault.directory.path)
            #expect(!names.contains { $0.hasPrefix(".labels-") })
            #expect(TemporaryArtefacts(vault: app.vault).entries().isEmpty)
            let missing = #expect(throws: (any Error).self) { try app.labels.importFile(atPath: scratch.file("missing.zip").path) }
            #expect((missing as? any CairnError)?.userMessage.contains("cannot be read") == true)

            #expect(try app.labels.remove())
            #expect(try app.labels.status() == nil)
            #expect(try !app.labels.remove())
        }
    }

    @Test func aBuildCutOffByAKilledProcessIsRemovedByTheNextOpen() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("vault").path
        let app = try CairnApplication.open(dataDirectory: path, environment: [:])
        let leftover = app.vault.directory.appendingPathComponent(".labels-\(UUID().uuidString.lowercased()).sqlite").path
        let artefact = try TemporaryArtefacts(vault: app.vault).register(leftover, kind: .labelDatabaseBuild)
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: leftover))
        artefact.abandon()
        app.database.close()
        _ = try CairnApplication.open(dataDirectory: path, environment: [:])
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }

    @Test func aLabelsRowsAreProposedWithTheScansFlagsAndNothingIsSaved() throws {
        try Self.withApp { app, scratch in
            _ = try app.labels.importFile(atPath: try Self.writeLabels(try DSLDFixtures.labels(), in: scratch))
            let zinc = try app.labels.label(1027)
            let proposal = try app.labels.proposal(for: zinc)
            #expect(proposal.status == .proposed)
            #expect(proposal.rows.map(\.nameOnLabel) == zinc.rows.map(\.name))
            #expect(proposal.rows.first?.catalogueID == "vitamin-a")
            #expect(proposal.servingSize == (try Amount(2, .count)))
            // Every row is flagged exactly as the gate flags it when saved.
            let gate = LabelGate(catalogue: try Catalogue.bundled())
            let product = try app.labels.checker().product(
                fromReviewed: proposal.rows, servingSize: proposal.servingSize, name: zinc.name, form: .lozenge)
            #expect(Set(gate.undecided(in: product).map(\.number)) == Set(proposal.rows.filter(\.needsDecision).map(\.number)))
            #expect(try app.regimen.products().isEmpty)
            #expect(throws: LabelDatabaseError.unknownLabel) { try app.labels.label(42) }
        }
    }

    @Test func aBarcodeNothingKnowsIsTaughtToAProductAndFoundNextTime() throws {
        try Self.withApp { app, scratch in
            _ = try app.labels.importFile(atPath: try Self.writeLabels(try DSLDFixtures.labels(), in: scratch))
            let known = try #require(GTIN(DSLDFixtures.upc(for: 0)))
            #expect(try app.labels.lookUp(known).labels.map(\.id) == [1027])
            #expect(try app.labels.search(known.printed).map(\.id) == [1027])
            let unknown = try #require(GTIN("4006381333931"))
            #expect(try app.labels.lookUp(unknown).isUnknown)
            let product = try Product(
                name: "Own blend", form: .capsule, servingSize: try Amount(1, .count),
                ingredients: [try ProductIngredient(catalogueID: "zinc", nameOnLabel: "Zinc", amount: try Amount(10, .mg))])
            let saved = try app.regimen.addProduct(product, decisions: .acceptingEveryRow(of: product))
            _ = try app.labels.teach(unknown, to: saved.product.id)
            let found = try app.labels.lookUp(unknown)
            #expect(found.yourProduct?.name == "Own blend" && !found.isUnknown)
            #expect(try app.labels.barcodes(of: saved.product.id) == [unknown])
            #expect(throws: BarcodeTeachError.unknownProduct) { try app.labels.teach(unknown, to: ProductID("nope")) }
            // What was taught is the person's: it stays when the label database goes.
            try app.labels.remove()
            #expect(try app.labels.lookUp(unknown).yourProduct?.name == "Own blend")
        }
    }
}
