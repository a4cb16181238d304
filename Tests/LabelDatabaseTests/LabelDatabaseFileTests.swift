import CairnCore
import CairnTestSupport
import Foundation
import Testing

@testable import LabelDatabase
@testable import Regimen

/// The label database built from DSLD's bulk file, made in DSLD's format from 148 real labels.
@Suite struct LabelDatabaseFileTests {
    static let importedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// Builds a label database from `source` in `scratch`.
    static func build(_ source: URL, in scratch: Scratch) throws -> (LabelDatabaseFile, DSLDBulkFile.Summary) {
        let path = scratch.file("labels-\(UUID().uuidString).sqlite").path
        let summary = try LabelDatabaseFile.build(at: path, from: source, importedAt: importedAt)
        return (try LabelDatabaseFile(readingAt: path), summary)
    }

    @Test func aZipOfOneFilePerLabelBuildsASearchableDatabase() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let labels = try DSLDFixtures.labels()
        let zip = scratch.file("DSLD-full-database-JSON.zip")
        try DSLDFixtures.zip(try labels.map { ("labels/\($0["id"]!).json", try DSLDFixtures.json($0)) }, to: zip)
        let (file, summary) = try Self.build(zip, in: scratch)
        #expect(summary.labels == 148)
        #expect(summary.leftOut == 0)
        let about = try file.about()
        #expect(about.labels == Set(labels.map { $0["id"] as! Int }).count)
        #expect(about.sourceName == "DSLD-full-database-JSON.zip")
        #expect(about.importedAt == Self.importedAt)
        let found = try file.search("gnc zinc lozenges")
        #expect(found.contains { $0.id == 1027 && $0.name == "Ultra Zinc Lozenges Orange Flavor" && $0.brand == "GNC" })
        #expect(found.allSatisfy { $0.brand == "GNC" })
    }

    @Test func oneLargeArrayIsReadRecordByRecordToTheSameDatabase() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let labels = try DSLDFixtures.labels()
        let array = scratch.file("labels.json")
        try DSLDFixtures.jsonArray(labels).write(to: array)
        let zipped = scratch.file("labels.zip")
        try DSLDFixtures.zip([("all.json", try DSLDFixtures.jsonArray(labels))], to: zipped)
        let (fromArray, summary) = try Self.build(array, in: scratch)
        let (fromZip, _) = try Self.build(zipped, in: scratch)
        #expect(summary.labels == 148)
        #expect(try summary.textBytes == Int64(try Data(contentsOf: array).count))
        let id = try #require(labels[0]["id"] as? Int)
        #expect(try fromArray.label(id) == (try fromZip.label(id)))
    }

    @Test func aLabelReadBackHasItsRowsAmountsAndBarcode() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let labels = try DSLDFixtures.labels()
        let array = scratch.file("labels.json")
        try DSLDFixtures.jsonArray(labels).write(to: array)
        let (file, _) = try Self.build(array, in: scratch)
        // GNC's zinc lozenge: 2,000 IU vitamin A at 40% DV, 20 mg zinc (as zinc oxide).
        let zinc = try file.label(1027)
        #expect(zinc.rows.map(\.name).prefix(3) == ["Vitamin A", "Vitamin C", "Zinc"])
        #expect(try zinc.rows[0].amount == (try Amount(2000, .iu)))
        #expect(zinc.rows[0].dailyValuePercent == 40)
        #expect(zinc.rows[2].form == "zinc oxide")
        #expect(try zinc.servingSize == (try Amount(2, .count)))
        let barcode = try #require(GTIN(DSLDFixtures.upc(for: 0)))
        #expect(zinc.barcodes == [barcode])
        // The same bars as a scanner's EAN-13 find the label.
        #expect(try file.labels(withBarcode: try #require(GTIN("0" + barcode.printed))).map(\.id) == [1027])
        // A blend keeps its members after it, each naming it.
        let records = try labels.compactMap { $0["id"] as? Int }.map { try file.label($0) }
        let withBlend = try #require(records.first { $0.rows.contains(where: \.isBlend) })
        let blend = withBlend.rows.firstIndex(where: \.isBlend) ?? 0
        #expect(withBlend.rows[blend + 1].blendName == withBlend.rows[blend].name)
    }

    @Test func searchFindsWordBeginningsInNameAndBrandAndNothingForPunctuation() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let array = scratch.file("labels.json")
        try DSLDFixtures.jsonArray(try DSLDFixtures.labels()).write(to: array)
        let (file, _) = try Self.build(array, in: scratch)
        #expect(try file.search("zin loz").contains { $0.id == 1027 })
        // A one-letter word is a whole word, not every word starting with it.
        for label in try file.search("vitamin d") {
            let words = Set((label.name + " " + label.brand).lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
            #expect(words.contains("d"), "\(label.name)")
        }
        #expect(try file.search("\"*()").isEmpty)
        #expect(try file.search("zzzqqq").isEmpty)
        #expect(try file.search("vitamin", limit: 5).count == 5)
    }

    @Test func aFileWithoutLabelsBuildsNothing() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let empty = scratch.file("empty.json")
        try Data("[]".utf8).write(to: empty)
        #expect(throws: LabelDatabaseError.noLabels) { try Self.build(empty, in: scratch) }
        let other = scratch.file("other.zip")
        try DSLDFixtures.zip([("readme.txt", Data("hello".utf8))], to: other)
        #expect(throws: LabelDatabaseError.noLabels) { try Self.build(other, in: scratch) }
        let cut = scratch.file("cut.json")
        try Data(try DSLDFixtures.jsonArray(try DSLDFixtures.labels()).prefix(5000)).write(to: cut)
        #expect(throws: JSONRecordStreamError.cutOff) { try Self.build(cut, in: scratch) }
    }

    @Test func aFileThatIsNotALabelDatabaseIsDamaged() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("labels.sqlite")
        try Data(repeating: 7, count: 4096).write(to: path)
        #expect(throws: LabelDatabaseError.damaged) { try LabelDatabaseFile(readingAt: path.path) }
    }
}
