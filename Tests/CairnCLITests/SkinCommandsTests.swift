import CairnApp
import CairnCore
import Foundation
import Skin
import Testing

@Suite struct SkinCommandsTests {
    @Test func areasCanBeAddedListedRenamedAndDeleted() throws {
        try withTemporaryDirectory { dir in
            let d = ["--data-dir", dir.appendingPathComponent("vault").path]
            #expect(cairn(d + ["skin", "areas"]).stdout.contains("No areas yet"))
            #expect(cairn(d + ["skin", "add-area", "Left arm", "--location", "forearm"]).status == 0)
            #expect(cairn(d + ["skin", "add-area", "left ARM"]).status == 1)
            #expect(cairn(d + ["skin", "rename-area", "left arm", "Right arm"]).status == 0)
            let listed = cairn(d + ["skin", "areas", "--json"])
            #expect(listed.status == 0 && listed.stdout.contains("\"Right arm\""))
            let refused = cairn(d + ["skin", "delete-area", "Right arm"])
            #expect(refused.status == 2 && refused.stderr.contains("--yes"))
            #expect(cairn(d + ["skin", "delete-area", "Right arm", "--yes"]).status == 0)
            #expect(cairn(d + ["skin", "timeline", "Right arm"]).stderr.contains("no such area"))
        }
    }

    @Test func logTimelineCompareTrendAndDeleteCarryTheDisclaimers() throws {
        try withTemporaryDirectory { dir in
            let d = ["--data-dir", dir.appendingPathComponent("vault").path]
            #expect(cairn(d + ["skin", "generate", "--area", "Arm", "--count", "3", "--seed", "5"]).status == 0)
            let photo = dir.appendingPathComponent("new.jpg")
            try SkinDemo.jpeg(index: 2, count: 3, seed: 5).write(to: photo)
            let logged = cairn(d + ["skin", "log", "Arm", photo.path, "--note", "evening", "--json"])
            #expect(logged.status == 0)
            #expect(logged.stdout.contains("\"similarity\"") && logged.stdout.contains(Disclaimer.similarity.text))
            // The raw score under the comparison's own object, as compare-batch gives it.
            #expect(logged.stdout.contains("\"score\" : "))

            let timeline = cairn(d + ["skin", "timeline", "Arm"])
            // Beside the figures: what they cover, and the disclaimer.
            #expect(timeline.out.count == 6 && timeline.out.last == Disclaimer.similarity.text)
            #expect(timeline.out[4].hasPrefix("The whole of the first photo is compared"))
            #expect(timeline.out[0].contains("first photo") && timeline.out[1].contains("visual similarity"))

            let json = try JSONSerialization.jsonObject(with: Data(cairn(d + ["skin", "timeline", "Arm", "--json"]).stdout.utf8)) as? [String: Any]
            let entries = try #require(json?["entries"] as? [[String: Any]])
            let second = try #require(entries[1]["comparison"] as? [String: Any])
            #expect(second["disclaimer"] as? String == Disclaimer.similarity.text)
            #expect((second["comparedRegion"] as? String)?.hasPrefix("The whole of the first photo is compared") == true)
            #expect((second["similarity"] as? Int).map { (0...100).contains($0) } == true)
            // The figure's band in words, beside it.
            let similarity = Double(try #require(second["similarity"] as? Int))
            #expect(second["band"] as? String == SimilarityBand(similarityPercent: similarity).sentence)
            let id = try #require(entries[1]["entry"] as? String)

            let compare = cairn(d + ["skin", "compare", "Arm", String(id.prefix(8))])
            #expect(compare.status == 0 && compare.stdout.contains("Visual similarity") && compare.out.last == Disclaimer.similarity.text)
            #expect(compare.stdout.contains("does not count as similar."))
            #expect(compare.stdout.contains(try #require(SkinComparator.comparedRegionSentence.split(separator: ".").first)))
            #expect(!compare.stdout.contains("Raw score"))

            let trend = cairn(d + ["skin", "trend", "Arm"])
            #expect(trend.status == 0 && trend.out.first?.contains("Similar") == true && trend.out.last == Disclaimer.trend.text)
            #expect(ProductWording.bannedWords(in: trend.stdout + compare.stdout + timeline.stdout).isEmpty)
            #expect(cairn(d + ["skin", "trend", "Arm", "--json"]).stdout.contains(Disclaimer.trend.text))

            let first = try #require(entries[0]["entry"] as? String)
            let asked = cairn(d + ["skin", "delete-entry", "Arm", first])
            #expect(asked.status == 2 && asked.stderr.contains("compared with it again"))
            #expect(cairn(d + ["skin", "delete-entry", "Arm", first, "--yes"]).status == 0)
            #expect(cairn(d + ["skin", "timeline", "Arm"]).out.count == 5)
        }
    }

    @Test func compareBatchPrintsOneJSONLinePerPairAndStoresNothing() throws {
        try withTemporaryDirectory { dir in
            let folder = dir.appendingPathComponent("pairs")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for i in 0..<3 { try SkinDemo.jpeg(index: i, count: 3, seed: 9).write(to: folder.appendingPathComponent("p\(i).jpg")) }
            try SkinDemo.jpeg(index: 0, count: 1, seed: 1234).write(to: folder.appendingPathComponent("other.jpg"))
            try Data("junk".utf8).write(to: folder.appendingPathComponent("bad.jpg"))
            let tsv = folder.appendingPathComponent("pairs.tsv")
            try "same\tp0.jpg\tp0.jpg\nnear\tp0.jpg\tp2.jpg\nbad\tp0.jpg\tbad.jpg\nshort\tp0.jpg\nfar\tp0.jpg\tother.jpg\n".write(
                to: tsv, atomically: true, encoding: .utf8)
            let vault = dir.appendingPathComponent("vault")
            let run = cairn(["--data-dir", vault.path, "skin", "compare-batch", tsv.path])
            #expect(run.status == 0)
            #expect(run.out.count == 5)
            let lines = try run.out.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(lines.map { $0["id"] as? String } == ["same", "near", "bad", "short", "far"])
            // Another area's photo: not comparable, and `similarity` is there as null, as the help says.
            #expect(lines[4]["comparable"] as? Bool == false && lines[4]["similarity"] is NSNull, "\(lines[4])")
            #expect(lines[0]["comparable"] as? Bool == true && (lines[0]["similarity"] as? Int ?? 0) >= 95)
            #expect((lines[1]["score"] as? Double ?? -1) > (lines[0]["score"] as? Double ?? 0))
            #expect(lines.allSatisfy { $0["disclaimer"] as? String == Disclaimer.similarity.text })
            #expect(lines[2]["error"] is String && lines[2]["comparable"] as? Bool == false && lines[2]["similarity"] == nil)
            #expect(lines[3]["error"] is String)
            #expect(!run.stdout.contains(folder.path))
            #expect(cairn(["--data-dir", vault.path, "skin", "areas"]).stdout.contains("No areas yet"))
        }
    }

    @Test func generateNeedsItsOptionsAndBadPhotosGetAClearMessage() throws {
        try withTemporaryDirectory { dir in
            let d = ["--data-dir", dir.appendingPathComponent("vault").path]
            #expect(cairn(d + ["skin", "generate", "--count", "2"]).status == 2)
            #expect(cairn(d + ["skin", "generate", "--area", "A", "--count", "0"]).status == 2)
            #expect(cairn(d + ["skin", "add-area", "A"]).status == 0)
            let bad = dir.appendingPathComponent("bad.jpg")
            try Data("not an image".utf8).write(to: bad)
            let run = cairn(d + ["skin", "log", "A", bad.path])
            #expect(run.status == 1 && run.stderr.contains("not a photo Cairn can read") && !run.stderr.contains(bad.path))
        }
    }

    @Test func noteWritesRemovesAndListsAPhotosNoteAndTheTimelineShowsTheCurrentOne() throws {
        try withTemporaryDirectory { dir in
            let d = ["--data-dir", dir.appendingPathComponent("vault").path]
            let help = cairn(d + ["skin", "note", "--help"])
            #expect(help.status == 0 && help.stdout.contains("Usage: cairn skin note AREA ENTRY TEXT | AREA ENTRY --clear | AREA ENTRY --history"))
            #expect(cairn(d + ["skin", "--help"]).stdout.contains("note"))

            #expect(cairn(d + ["skin", "generate", "--area", "Arm", "--count", "2", "--seed", "5"]).status == 0)
            let json = try JSONSerialization.jsonObject(with: Data(cairn(d + ["skin", "timeline", "Arm", "--json"]).stdout.utf8)) as? [String: Any]
            let id = try #require((json?["entries"] as? [[String: Any]])?[1]["entry"] as? String)
            let short = String(id.prefix(8))

            let written = cairn(d + ["skin", "note", "Arm", short, "new cream\nsince Monday"])
            #expect(written.status == 0 && written.stdout == "Saved the note.")
            #expect(cairn(d + ["skin", "note", "Arm", short, "new cream\nsince Monday"]).stdout == "The note is unchanged.")
            let timeline = cairn(d + ["skin", "timeline", "Arm"])
            #expect(timeline.out[1].hasPrefix(short) && timeline.out[1].hasSuffix("note: new cream / since Monday"))
            #expect(timeline.out[0].hasSuffix("note: Demo photo 1 of 2"))
            let after = try JSONSerialization.jsonObject(with: Data(cairn(d + ["skin", "timeline", "Arm", "--json"]).stdout.utf8)) as? [String: Any]
            #expect((after?["entries"] as? [[String: Any]])?[1]["note"] as? String == "new cream\nsince Monday")

            let cleared = cairn(d + ["skin", "note", "Arm", short, "--clear"])
            #expect(cleared.status == 0 && cleared.stdout.contains("Removed the note"))
            #expect(!cairn(d + ["skin", "timeline", "Arm"]).out[1].contains("note:"))
            let history = cairn(d + ["skin", "note", "Arm", short, "--history"])
            #expect(history.status == 0 && history.out.count == 3)
            #expect(history.out[0].hasSuffix("Demo photo 2 of 2") && history.out[1].hasSuffix("new cream / since Monday"))
            #expect(history.out[2].hasSuffix("(note removed)"))
            // A note that starts with a dash goes after --.
            #expect(cairn(d + ["skin", "note", "Arm", short, "--", "-2 days after"]).stdout == "Saved the note.")
        }
    }

    @Test func noteRefusesABadIdAnEmptyNoteAndControlCharacters() throws {
        try withTemporaryDirectory { dir in
            let d = ["--data-dir", dir.appendingPathComponent("vault").path]
            #expect(cairn(d + ["skin", "generate", "--area", "Arm", "--count", "1", "--seed", "5"]).status == 0)
            let badID = cairn(d + ["skin", "note", "Arm", "zzzz", "hello"])
            #expect(badID.status == 1 && badID.stderr.contains("There is no such photo in this area."))
            let badArea = cairn(d + ["skin", "note", "Leg", "zzzz", "hello"])
            #expect(badArea.status == 1 && badArea.stderr.contains("no such area"))

            let json = try JSONSerialization.jsonObject(with: Data(cairn(d + ["skin", "timeline", "Arm", "--json"]).stdout.utf8)) as? [String: Any]
            let id = try #require((json?["entries"] as? [[String: Any]])?[0]["entry"] as? String)
            for empty in ["", "  \n "] {
                let run = cairn(d + ["skin", "note", "Arm", id, empty])
                #expect(run.status == 2 && run.stderr.contains("The note is empty. To remove a photo's note, use --clear."))
            }
            #expect(cairn(d + ["skin", "note", "Arm", id]).stderr.contains("Missing TEXT."))
            #expect(cairn(d + ["skin", "note", "Arm", id, "--clear", "--history"]).status == 2)
            for bad in ["red \u{1B}[31mtext", "bell\u{07}", "back\u{08}space", "cr\rhere"] {
                let run = cairn(d + ["skin", "note", "Arm", id, bad])
                #expect(run.status == 1 && run.stderr.contains("The note contains a control character"), "\(bad.debugDescription)")
            }
            #expect(cairn(d + ["skin", "note", "Arm", id, "tab\there\nand a line"]).status == 0, "newline and tab are kept")
            let history = cairn(d + ["skin", "note", "Arm", id, "--history"])
            #expect(history.out.count == 2 && history.out[1].hasSuffix("tab here / and a line"))
        }
    }
}
