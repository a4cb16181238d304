import CairnApp
import CairnCore
import Foundation
import Imaging
import Skin
import Storage
import Testing

@Suite struct SkinServiceTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    func photo(_ index: Int, of count: Int = 6, seed: UInt64 = 7) throws -> Data {
        try SkinDemo.jpeg(index: index, count: count, seed: seed)
    }

    @Test func addsListsRenamesAndDeletesAreas() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        #expect(try skin.areas().isEmpty)
        let arm = try skin.addArea(name: "  Left forearm ", bodyLocation: "forearm", guidance: "Window light.")
        try skin.addArea(name: "Back")
        #expect(arm.name == "Left forearm")
        #expect(try skin.areas().map(\.area.name) == ["Back", "Left forearm"])
        #expect(throws: SkinJournalError.nameTaken) { try skin.addArea(name: "left FOREARM") }
        #expect(throws: SkinJournalError.emptyName) { try skin.addArea(name: "   ") }
        try skin.renameArea(arm.id, to: "Right forearm")
        #expect(try skin.area(arm.id).name == "Right forearm")
        #expect(try skin.area(named: "right forearm").id == arm.id)
        #expect(throws: SkinJournalError.nameTaken) { try skin.renameArea(arm.id, to: "back") }
        try skin.deleteArea(arm.id)
        #expect(throws: SkinJournalError.areaNotFound) { try skin.area(arm.id) }
        #expect(throws: SkinJournalError.areaNotFound) { try skin.deleteArea(arm.id) }
        #expect(try skin.areas().count == 1)
    }

    @Test func anAreaNameWithAFormatCharacterOrOver120CharactersIsRefused() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let arm = try skin.addArea(name: String(repeating: "a", count: 120))
        for bad in ["Left\u{202E}mra", "Left\u{200B}arm"] {
            #expect(throws: TextInputError.formatCharacter(field: "area name")) { try skin.addArea(name: bad) }
            #expect(throws: TextInputError.formatCharacter(field: "area name")) { try skin.renameArea(arm.id, to: bad) }
        }
        #expect(throws: TextInputError.tooLong(field: "area name", maximum: 120)) { try skin.addArea(name: String(repeating: "b", count: 121)) }
        #expect(throws: TextInputError.tooLong(field: "body location", maximum: 120)) {
            try skin.addArea(name: "Knee", bodyLocation: String(repeating: "b", count: 121))
        }
        #expect(try skin.areas().map(\.area.name) == [String(repeating: "a", count: 120)])
    }

    @Test func loggingStoresPhotoThumbnailQualityAndComparison() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let first = try skin.log(photo: photo(0), in: area.id, note: "first", capturedAt: Self.start)
        let second = try skin.log(photo: photo(3), in: area.id, capturedAt: Self.start.addingTimeInterval(Self.day))
        #expect(try vault.snapshot().rows == 4)
        #expect(first.quality.meanLuminance > 0.3 && first.quality.sharpness > 0)
        #expect(try skin.photoData(of: first.id, in: area.id, thumbnail: true).count > 0)
        let timeline = try skin.timeline(of: area.id)
        #expect(timeline.items.map(\.entry.id) == [first.id, second.id])
        #expect(timeline.items[0].isBaseline && timeline.items[0].comparison == nil)
        #expect(timeline.items[0].entry.note == "first")
        let stored = try #require(timeline.items[1].comparison)
        #expect(stored.baselineID == first.id && stored.comparable && stored.revision == .current)
        let similarity = try #require(stored.similarityPercent)
        #expect(similarity >= 0 && similarity < 100)
        // The demo speckles drift gradually: a nearer photo of the series is more similar to the first.
        let nearer = try #require(try skin.compareFiles(baseline: photo(0), probe: photo(1)).similarityPercent)
        #expect(nearer > similarity)
        let view = try skin.comparison(of: second.id, in: area.id)
        #expect(view.comparison == stored && view.changeMap?.values.count == 64 * 64 && view.details != nil)
        #expect(try skin.changeMapJPEG(of: second.id, in: area.id) != nil)
        #expect(try skin.comparison(of: first.id, in: area.id).isBaseline)
    }

    @Test func deletingTheBaselineReanchorsOnTheNextOldestEntry() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let entries = try (0..<4).map {
            try skin.log(photo: photo($0, of: 4), in: area.id, capturedAt: Self.start.addingTimeInterval(Double($0) * Self.day))
        }
        let consequence = try skin.deletionConsequence(of: entries[0].id, in: area.id)
        #expect(consequence.isBaseline && consequence.nextBaseline?.id == entries[1].id && consequence.recomparedCount == 2)
        #expect(consequence.message.contains("compared with it again"))
        #expect(try !skin.deletionConsequence(of: entries[2].id, in: area.id).isBaseline)
        try skin.deleteEntry(entries[0].id, in: area.id)
        let timeline = try skin.timeline(of: area.id)
        #expect(timeline.baseline?.id == entries[1].id)
        #expect(timeline.items.dropFirst().allSatisfy { $0.comparison?.baselineID == entries[1].id })
        let rows = try vault.app.database.read { db in try db.scalar("SELECT count(*) FROM skin_comparisons", as: Int.self) }
        #expect(rows == 2)
        #expect(try vault.snapshot().rows == 6)
    }

    @Test func anOlderPhotoLoggedLaterBecomesTheBaseline() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let later = try skin.log(photo: photo(2), in: area.id, capturedAt: Self.start.addingTimeInterval(5 * Self.day))
        let earlier = try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start)
        let timeline = try skin.timeline(of: area.id)
        #expect(timeline.baseline?.id == earlier.id)
        #expect(timeline.items[1].comparison?.baselineID == earlier.id && timeline.items[1].entry.id == later.id)
    }

    @Test func anEntryOfAnotherAreaCannotBeCompared() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let arm = try skin.addArea(name: "Arm")
        let back = try skin.addArea(name: "Back")
        let armEntry = try skin.log(photo: photo(0), in: arm.id, capturedAt: Self.start)
        let backFirst = try skin.log(photo: photo(0, seed: 99), in: back.id, capturedAt: Self.start)
        #expect(throws: SkinJournalError.entryNotFound) { try skin.comparison(of: armEntry.id, in: back.id) }
        #expect(throws: SkinJournalError.entryNotFound) { try skin.deleteEntry(armEntry.id, in: back.id) }
        // The schema refuses a comparison row whose entry and baseline belong to different areas.
        #expect(throws: DatabaseError.self) {
            try vault.app.database.write { db in
                try db.execute(
                    """
                    INSERT INTO skin_comparisons (entry_id, baseline_id, area_id, revision, comparable, similarity, raw_score, reason,
                    change_map, details) VALUES (?, ?, ?, 1, 1, 50, 1, NULL, x'00', '{}')
                    """, armEntry.id.rawValue, backFirst.id.rawValue, arm.id.rawValue)
            }
        }
    }

    @Test func aFileThatIsNotAnImageGetsAClearMessageAndStoresNothing() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        var corrupt = try photo(0)
        corrupt = corrupt.prefix(corrupt.count / 3)
        for bad in [Data("not a photo".utf8), Data(), corrupt] {
            do {
                try skin.log(photo: bad, in: area.id)
                Issue.record("a bad file was logged")
            } catch let error as SkinJournalError {
                guard case .unreadablePhoto(let message) = error else {
                    Issue.record("wrong error \(error)")
                    continue
                }
                #expect(!message.isEmpty && error.userMessage == message)
            }
        }
        #expect(try vault.snapshot().rows == 0 && vault.snapshot().files.isEmpty)
        #expect(try skin.timeline(of: area.id).items.isEmpty)
        #expect(throws: SkinJournalError.areaNotFound) { try skin.log(photo: photo(0), in: AreaID.random()) }
        #expect(try vault.snapshot().rows == 0)
    }

    @Test func aPhotoOfADifferentSubjectIsNotComparableAndHasNoPercentage() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start)
        let stripes = RGBImage(
            width: 400, height: 300,
            pixels: (0..<(400 * 300)).flatMap { i -> [UInt8] in
                let x = i % 400
                let y = i / 400
                return (x / 9 + y / 13) % 2 == 0 ? [30, 90, 200] : [240, 240, 60]
            })
        let other = try skin.log(photo: ImagePipeline().encodeJPEG(stripes), in: area.id, capturedAt: Self.start.addingTimeInterval(Self.day))
        let stored = try #require(try skin.timeline(of: area.id).items.last?.comparison)
        #expect(stored.entryID == other.id && !stored.comparable && stored.similarityPercent == nil)
        #expect(stored.reasonNotComparable != nil)
        #expect(try skin.changeMapJPEG(of: other.id, in: area.id) == nil)
    }

    @Test func comparingFilesStoresNothingAndRefusesBadInput() throws {
        let vault = try TestVault()
        let result = try vault.app.skin.compareFiles(baseline: photo(0), probe: photo(1))
        #expect(result.comparable && result.similarityPercent != nil)
        #expect(try vault.snapshot().rows == 0)
        #expect(throws: SkinJournalError.self) { try vault.app.skin.compareFiles(baseline: photo(0), probe: Data("x".utf8)) }
    }

    @Test func theDemoSeriesIsReproducibleAndChangesGradually() {
        let a = SkinDemo.photo(index: 3, count: 8, seed: 11)
        let b = SkinDemo.photo(index: 3, count: 8, seed: 11)
        #expect(a == b)
        #expect(SkinDemo.photo(index: 3, count: 8, seed: 12) != a)
        func distance(_ x: RGBImage, _ y: RGBImage) -> Int { zip(x.pixels, y.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } }
        let first = SkinDemo.photo(index: 0, count: 8, seed: 11)
        #expect(distance(first, SkinDemo.photo(index: 1, count: 8, seed: 11)) < distance(first, SkinDemo.photo(index: 7, count: 8, seed: 11)))
    }

    @Test func storedCopiesFillAnAreaWithComparedEntriesAfterTheLoggedPair() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let arm = try skin.addArea(name: "Arm")
        let knee = try skin.addArea(name: "Knee")
        let logged = try SkinDemo.generateStoredCopies(
            count: 6, seed: 3, into: arm.id, service: skin, database: vault.app.database,
            now: Self.start)
        let items = try skin.timeline(of: arm.id).items
        #expect(logged.count == 2 && items.map(\.entry.id).prefix(2) == logged.map(\.id).prefix(2))
        #expect(items.count == 6 && Set(items.map(\.entry.id)).count == 6)
        #expect(items.dropFirst().allSatisfy { $0.comparison?.revision == ComparisonRevision.current })
        #expect(items.dropFirst(2).allSatisfy { ($0.comparison?.similarityPercent).map { (40...99).contains($0) } == true })
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.0.entry.capturedAt < $0.1.entry.capturedAt })
        #expect(items.dropFirst(2).allSatisfy { $0.entry.photoID == logged[1].photoID })
        // A second fill in the same vault, and the smallest counts: only the logged pair.
        try SkinDemo.generateStoredCopies(count: 2, seed: 3, into: knee.id, service: skin, database: vault.app.database, now: Self.start)
        #expect(try skin.timeline(of: knee.id).items.count == 2)
        try SkinDemo.generateStoredCopies(count: 0, seed: 3, into: knee.id, service: skin, database: vault.app.database, now: Self.start)
        #expect(try skin.timeline(of: knee.id).items.count == 4)
        #expect(try skin.recompareOutdatedAreas() == 0)
        #expect(throws: SkinJournalError.areaNotFound) {
            try SkinDemo.generateStoredCopies(
                count: 4, seed: 3, into: AreaID("missing"), service: skin, database: vault.app.database,
                now: Self.start)
        }
    }

    @Test func storedFingerprintsRoundTripAndRefuseDamage() throws {
        let fingerprint = try SkinComparator.prepare(SkinDemo.photo(index: 0, count: 1, seed: 1)).fingerprint
        #expect(try FingerprintCoding.decode(FingerprintCoding.encode(fingerprint)) == fingerprint)
        #expect(throws: SkinComparisonError.corruptFingerprint) { try FingerprintCoding.decode(Data("SKF1".utf8)) }
        #expect(throws: SkinComparisonError.corruptFingerprint) { try FingerprintCoding.decode(FingerprintCoding.encode(fingerprint).dropLast()) }
    }

    @Test func aFingerprintOfAnotherRevisionIsReExtractedFromThePhoto() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let first = try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start)
        try skin.log(photo: photo(1), in: area.id, capturedAt: Self.start.addingTimeInterval(Self.day))
        let third = try skin.log(photo: photo(2), in: area.id, capturedAt: Self.start.addingTimeInterval(2 * Self.day))
        try vault.app.database.write { db in
            try db.execute("UPDATE skin_entries SET fingerprint_revision = 0, fingerprint = x'00' WHERE id <> ?", first.id.rawValue)
        }
        try skin.deleteEntry(first.id, in: area.id)
        let revisions = try vault.app.database.read { db in
            try db.query("SELECT fingerprint_revision FROM skin_entries").map { try $0.get(at: 0, as: Int.self) }
        }
        #expect(revisions == [ComparisonRevision.current.number, ComparisonRevision.current.number])
        #expect(try skin.timeline(of: area.id).items.last?.comparison?.entryID == third.id)
    }

    @Test func comparisonsOfAnOlderRevisionAreRecomputedNotShown() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let other = try skin.addArea(name: "Knee")
        try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start)
        let second = try skin.log(photo: photo(1), in: area.id, capturedAt: Self.start.addingTimeInterval(Self.day))
        try skin.log(photo: photo(2), in: other.id, capturedAt: Self.start)
        #expect(try skin.recompareOutdatedAreas() == 0)
        // As if stored by the previous revision: its rows and comparison data must not be used.
        try vault.app.database.write { db in
            try db.execute("UPDATE skin_comparisons SET revision = revision - 1")
            try db.execute("UPDATE skin_entries SET fingerprint_revision = fingerprint_revision - 1")
        }
        #expect(try skin.timeline(of: area.id).items.last?.comparison == nil)
        #expect(try skin.recompareOutdatedAreas() == 1)
        let item = try #require(try skin.timeline(of: area.id).items.last)
        #expect(item.entry.id == second.id && item.comparison?.revision == ComparisonRevision.current)
        #expect(try skin.recompareOutdatedAreas() == 0)
        let stale = try vault.app.database.read { db in
            try db.scalar("SELECT count(*) FROM skin_comparisons WHERE revision <> ?", ComparisonRevision.current.number, as: Int.self)
        }
        #expect(stale == 0)
    }

    @Test func aNoteCanBeChangedLaterAndEveryEarlierVersionStaysRecorded() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let entry = try skin.log(photo: photo(0), in: area.id, note: "  after the walk ", capturedAt: Self.start)
        #expect(try skin.entry(entry.id, in: area.id).note == "after the walk")
        #expect(try skin.setNote("new cream\r\nsince Monday\t(evening)", of: entry.id, in: area.id))
        #expect(try skin.timeline(of: area.id).items[0].entry.note == "new cream\nsince Monday\t(evening)")
        #expect(try !skin.setNote("new cream\nsince Monday\t(evening)", of: entry.id, in: area.id), "the same note again adds nothing")
        #expect(try skin.setNote("", of: entry.id, in: area.id))
        #expect(try skin.comparison(of: entry.id, in: area.id).entry.note == "")
        #expect(try !skin.setNote("  ", of: entry.id, in: area.id), "removing a removed note adds nothing")
        #expect(try skin.noteHistory(of: entry.id, in: area.id).map(\.text) == ["after the walk", "new cream\nsince Monday\t(evening)", ""])
        #expect(try skin.noteHistory(of: entry.id, in: area.id).map(\.version) == [1, 2, 3])
        // The database refuses to rewrite a recorded note.
        #expect(throws: (any Error).self) {
            try vault.app.database.write { try $0.execute("UPDATE skin_entry_notes SET text = 'x'") }
        }
    }

    @Test func aNoteWithControlCharactersOrTooLongIsRefusedAndNothingIsWritten() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let entry = try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start)
        for bad in ["bell\u{07}", "escape \u{1B}[31m red", "nul\u{0}", "delete\u{7F}", "c1 \u{85} inside", "line\rover"] {
            #expect(throws: TextInputError.controlCharacter(field: "note")) { try skin.setNote(bad, of: entry.id, in: area.id) }
        }
        #expect(throws: TextInputError.tooLong(field: "note", maximum: 500)) {
            try skin.setNote(String(repeating: "é", count: TextInput.maximumNoteLength + 1), of: entry.id, in: area.id)
        }
        #expect(throws: TextInputError.controlCharacter(field: "note")) { try skin.log(photo: photo(1), in: area.id, note: "x\u{1B}") }
        #expect(try skin.timeline(of: area.id).items.count == 1, "a photo with a refused note is not logged")
        #expect(try skin.noteHistory(of: entry.id, in: area.id).isEmpty)
        #expect(try skin.setNote(String(repeating: "é", count: TextInput.maximumNoteLength), of: entry.id, in: area.id))
        #expect(throws: SkinJournalError.entryNotFound) { try skin.setNote("x", of: EntryID.random(), in: area.id) }
        let other = try skin.addArea(name: "Back")
        #expect(throws: SkinJournalError.entryNotFound) { try skin.setNote("x", of: entry.id, in: other.id) }
    }

    @Test func deletingAnEntryDeletesItsNotes() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        let entry = try skin.log(photo: photo(0), in: area.id, note: "one", capturedAt: Self.start)
        try skin.setNote("two", of: entry.id, in: area.id)
        try skin.deleteEntry(entry.id, in: area.id)
        #expect(try vault.app.database.read { try $0.scalar("SELECT count(*) FROM skin_entry_notes", as: Int.self) } == 0)
    }

    @Test func anAreaSummaryNamesItsNewestPhotoByCaptureTime() throws {
        let vault = try TestVault()
        let skin = vault.app.skin
        let area = try skin.addArea(name: "Arm")
        try skin.addArea(name: "Back")
        let newest = try skin.log(photo: photo(0), in: area.id, capturedAt: Self.start.addingTimeInterval(Self.day))
        try skin.log(photo: photo(1), in: area.id, capturedAt: Self.start)  // logged later, taken earlier
        let summaries = try skin.areas()
        #expect(summaries.map(\.latestEntry) == [newest.id, nil])
    }

    /// Successive live frames cut from real skin photos (the shared set's 16 baselines) at the capture page's
    /// 320 px and JPEG quality: the same view twice, or moved by a hand's tremor, reads steady; a deliberate
    /// movement of 6% of the frame does not.
    @Test func liveFramesOfRealSkinReadSteadyWhenStillAndMovingWhenMoved() throws {
        let vault = try TestVault()
        let pipeline = ImagePipeline()
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/data/skin-pairs/img")
        let bases = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("b") }.sorted()
        #expect(bases.count == 16)
        var still: [Double] = []
        var tremor: [Double] = []
        var moved: [Double] = []
        for name in bases {
            let image = try pipeline.decodeRGB(try Data(contentsOf: folder.appendingPathComponent(name)), maxSide: 480)
            let side = min(image.width, image.height) * 3 / 4
            func view(dx: Double, quality: Int = 80) throws -> Data {
                let x0 = (image.width - side) / 2 + Int(dx * Double(side))
                let y0 = (image.height - side) / 2
                var px = [UInt8](repeating: 0, count: side * side * 3)
                for y in 0..<side {
                    for x in 0..<side {
                        for c in 0..<3 { px[(y * side + x) * 3 + c] = image.pixels[((y0 + y) * image.width + x0 + x) * 3 + c] }
                    }
                }
                return try pipeline.encodeJPEG(RGBImage(width: side, height: side, pixels: px), quality: quality)
            }
            let base = try view(dx: 0)
            func displacement(_ other: Data) throws -> Double {
                try #require(try vault.app.skin.liveScores(frame: other, previous: base).steadiness).displacement
            }
            still.append(try displacement(try view(dx: 0, quality: 70)))
            tremor.append(try displacement(try view(dx: 0.005)))
            moved.append(try displacement(try view(dx: 0.06)))
        }
        print(
            "steadiness on real skin (displacement, share of the frame): still max \(still.max()!), tremor max \(tremor.max()!), moved min \(moved.min()!)"
        )
        #expect(still.allSatisfy { $0 <= CaptureQualityAnalyzer.steadyLimit })
        #expect(tremor.allSatisfy { $0 <= CaptureQualityAnalyzer.steadyLimit })
        #expect(moved.filter { $0 > CaptureQualityAnalyzer.steadyLimit }.count >= 15, "\(moved)")
        #expect(try vault.app.skin.liveScores(frame: try photo(0)).steadiness == nil)
        #expect(try vault.app.skin.liveScores(frame: try photo(0), previous: Data("junk".utf8)).steadiness == nil)
    }
}

@Suite struct SkinStoredInstantTests {
    @Test func storedInstantsParseLikeTheTimestampFormat() {
        for seconds in [0.0, 1_780_000_000.123, 951_782_400.5, 4_102_444_799.999, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = Timestamp.string(from: date)
            #expect(SkinService.instantForTesting(text) == Timestamp.date(from: text), "\(text)")
        }
        #expect(SkinService.instantForTesting("garbage") == Date(timeIntervalSince1970: 0))
    }
}
