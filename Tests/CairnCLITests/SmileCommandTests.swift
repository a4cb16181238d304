import CairnCLI
import Foundation
import Imaging
import Testing

private let faces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces")
private func face(_ name: String) -> String { faces.appendingPathComponent(name).path }

/// Every regular file under the vault's photos folder.
private func photoFiles(_ vault: URL) -> [String] {
    let photos = vault.appendingPathComponent("photos")
    return (FileManager.default.enumerator(atPath: photos.path)?.allObjects as? [String] ?? []).filter { path in
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: photos.appendingPathComponent(path).path, isDirectory: &isDirectory)
        return !isDirectory.boolValue
    }
}

@Test func smileAddJSONReportsOutcomeDetectorAndTheSquareInTheOriginalsPixels() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let text = dir.appendingPathComponent("notes.jpg")
        try Data("not a picture".utf8).write(to: text)
        let run = cairn("--data-dir", vault, "smile", "add", "--json", face("fr_obama.jpg"), face("dogs.jpg"), text.path)
        #expect(run.status == 1)
        #expect(run.err.last == "cairn: 2 of 3 photos were not added (see the result for each file above).")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(results.map { $0["outcome"] as? String } == ["ok", "needs-manual-crop", "not-an-image"])
        #expect(results.map { $0["file"] as? String } == ["fr_obama.jpg", "dogs.jpg", "notes.jpg"])
        #expect(results[0]["detector"] as? String == "landmarks")
        let square = try #require(results[0]["square"] as? [String: Int])
        let info = try ImagePipeline().probe(Data(contentsOf: URL(fileURLWithPath: face("fr_obama.jpg"))))
        #expect(results[0]["photoWidth"] as? Int == info.width && results[0]["photoHeight"] as? Int == info.height)
        let (x, y, side) = (try #require(square["x"]), try #require(square["y"]), try #require(square["side"]))
        #expect(x >= 0 && y >= 0 && side > 0 && x + side <= info.width && y + side <= info.height)
        #expect((results[0]["entry"] as? String)?.count == 36)
        #expect(results[1]["entry"] == nil)
        #expect((results[1]["message"] as? String)?.contains("Nothing was stored") == true)
        #expect(results[2]["message"] as? String == "The file is not a photo Cairn can read. Use a JPEG, PNG, HEIC or WebP image.")
        #expect(photoFiles(URL(fileURLWithPath: vault)).count == 1, "only the one confirmed crop is in the vault")
    }
}

@Test func smileAddOfAFolderShowsProgressAndAResultPerFile() throws {
    try withTemporaryDirectory { dir in
        let folder = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["fr_obama.jpg", "fr_biden.jpg"] {
            try FileManager.default.copyItem(atPath: face(name), toPath: folder.appendingPathComponent(name).path)
        }
        try Data("hello".utf8).write(to: folder.appendingPathComponent("readme.txt"))
        let run = cairn("--data-dir", dir.appendingPathComponent("vault").path, "smile", "add", folder.path)
        #expect(run.status == 1)
        #expect(run.out.count == 3)
        #expect(run.out[0].hasPrefix("fr_biden.jpg: ok. Added as "))
        #expect(run.out[1].hasPrefix("fr_obama.jpg: ok. Added as "))
        #expect(run.out[2] == "readme.txt: not an image. The file is not a photo Cairn can read. Use a JPEG, PNG, HEIC or WebP image.")
        #expect(
            Array(run.err.prefix(3)) == [
                "Progress [######--------------] 1/3", "Progress [#############-------] 2/3",
                "Progress [####################] 3/3",
            ])
    }
}

@Test func smileAddWithASquareStoresAManualCropOfAPhotoWithoutAFace() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let run = cairn("--data-dir", vault, "smile", "add", "--square", "100,120,300", "--note", "by hand", "--json", face("dogs.jpg"))
        #expect(run.status == 0)
        let results = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(results[0]["outcome"] as? String == "ok")
        #expect(results[0]["detector"] as? String == "manual")
        #expect(results[0]["square"] as? [String: Int] == ["x": 100, "y": 120, "side": 300])

        let list = cairn("--data-dir", vault, "smile", "list")
        #expect(list.out.count == 1)
        #expect(list.out[0].hasSuffix("manual    by hand"))
        let outside = cairn("--data-dir", vault, "smile", "add", "--square", "800,800,300", face("dogs.jpg"))
        #expect(outside.status == 1)
        #expect(outside.out.first?.contains("The square must lie inside the photo.") == true)
    }
}

@Test func smileAddRefusesMalformedCalls() {
    #expect(cairn("smile", "add").err.first == "cairn smile add: Missing FILE.")
    #expect(cairn("smile", "add", "--square", "1,2", "a.jpg").status == 2)
    #expect(
        cairn("smile", "add", "--square", "1,2,3", "a.jpg", "b.jpg").err.first
            == "cairn smile add: --square places the square in one photo: give exactly one file.")
}

@Test func smileListExportAndCompareWriteOnlyWhatWasAskedFor() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        #expect(cairn("--data-dir", vault, "smile", "list").out == ["No smile entries yet. Add one with: cairn smile add PHOTO"])
        #expect(cairn("--data-dir", vault, "smile", "add", face("fr_obama.jpg"), face("fr_biden.jpg")).status == 0)
        let list = cairn("--data-dir", vault, "smile", "list", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 2)
        let ids = entries.compactMap { $0["id"] as? String }
        let short = cairn("--data-dir", vault, "smile", "list").out.map { String($0.prefix(8)) }
        #expect(Set(short) == Set(ids.map { String($0.prefix(8)) }))

        let out = dir.appendingPathComponent("crop.jpg")
        let export = cairn("--data-dir", vault, "smile", "export", short[0], "--out", out.path)
        #expect(export.status == 0)
        let written = try Data(contentsOf: out)
        #expect(
            export.out == [
                "Wrote \(out.path): 768x768 JPEG, \(written.count) bytes (\(written.count >= 1_000_000 ? "" : "\((written.count + 500) / 1000) KB")), no metadata (checked)."
            ])
        let stored = photoFiles(URL(fileURLWithPath: vault)).map {
            try? Data(contentsOf: URL(fileURLWithPath: vault).appendingPathComponent("photos").appendingPathComponent($0))
        }
        #expect(stored.contains(written), "exactly the stored bytes")
        let again = cairn("--data-dir", vault, "smile", "export", short[0], "--out", out.path)
        #expect(again.status == 1)
        #expect(again.err == ["cairn: A file is already there. Nothing was written; add --force to replace it."])
        #expect(cairn("--data-dir", vault, "smile", "export", short[1], "--out", out.path, "--force").status == 0)
        #expect(try Data(contentsOf: out) != written)

        let pair = dir.appendingPathComponent("side-by-side.jpg")
        let compare = cairn("--data-dir", vault, "smile", "compare", short[0], short[1], "--out", pair.path)
        #expect(compare.status == 0)
        let info = try ImagePipeline().probe(Data(contentsOf: pair))
        #expect(info.width == 1552 && info.height == 768)
        #expect(compare.out.first?.hasPrefix("Wrote \(pair.path): 1552x768 JPEG") == true)
        #expect(photoFiles(URL(fileURLWithPath: vault)).count == 2, "the side-by-side is not stored")

        let unknown = cairn("--data-dir", vault, "smile", "export", "ffffffff", "--out", dir.appendingPathComponent("x.jpg").path)
        #expect(unknown.err == ["cairn: There is no smile entry with that ID. Run 'cairn smile list' to see the IDs."])
        #expect(cairn("--data-dir", vault, "smile", "export", short[0]).err.first == "cairn smile export: Missing --out PATH.")
        #expect(cairn("--data-dir", vault, "smile", "compare", short[0], "--out", pair.path).err.first == "cairn smile compare: Missing B.")
    }
}

@Test func smileHelpListsItsCommands() {
    let help = cairn("smile", "--help")
    #expect(help.status == 0)
    for word in ["add", "list", "export", "compare"] { #expect(help.stdout.contains("  \(word) ")) }
    #expect(cairn("--help").stdout.contains("  smile "))
}

@Test func smileDeleteAsksForYesThenRemovesTheEntry() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        #expect(cairn("--data-dir", vault, "smile", "add", face("fr_obama.jpg")).status == 0)
        let id = try #require(cairn("--data-dir", vault, "smile", "list").out.first.map { String($0.prefix(8)) })
        let unconfirmed = cairn("--data-dir", vault, "smile", "delete", id)
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.err.first?.contains("Add --yes to confirm.") == true)
        #expect(photoFiles(dir.appendingPathComponent("vault")).count == 1)
        let done = cairn("--data-dir", vault, "smile", "delete", id, "--yes")
        #expect(done.status == 0)
        #expect(done.out.first?.hasPrefix("Deleted the smile entry") == true)
        #expect(photoFiles(dir.appendingPathComponent("vault")).isEmpty)
        #expect(cairn("--data-dir", vault, "smile", "delete", id, "--yes").status != 0)
    }
}

@Test func smileAddWithoutATerminalRefusesAnUncheckedProposalAndSaysHowToKeepIt() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let run = cairn("--data-dir", vault, "smile", "add", "--json", face("dogs.jpg"))
        #expect(run.status == 1)
        let result = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(result["outcome"] as? String == "needs-manual-crop")
        #expect(result["checkReasons"] as? [String] == ["noFace"])
        let square = try #require(result["square"] as? [String: Int])
        let message = try #require(result["message"] as? String)
        #expect(message.contains("there is no terminal to ask at"))
        #expect(message.contains("--square \(square["x"]!),\(square["y"]!),\(square["side"]!)"))
        #expect(photoFiles(URL(fileURLWithPath: vault)).isEmpty)
    }
}

@Test func smileAddAtATerminalShowsTheProposalAndKeepsItOnlyWhenThePersonSaysSo() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let (skipped, asked) = cairn(["--data-dir", vault, "smile", "add", face("dogs.jpg")], answers: ["n"])
        #expect(asked.count == 1)
        #expect(asked.first?.contains("[y/n/X,Y,SIDE]") == true)
        #expect(skipped.err.contains { $0.contains("the suggested square needs your check") })
        #expect(skipped.err.contains { $0.contains("No face was found") })
        #expect(skipped.out.first?.contains("Skipped at your answer. Nothing was stored.") == true)
        #expect(photoFiles(URL(fileURLWithPath: vault)).isEmpty)

        let (kept, questions) = cairn(["--data-dir", vault, "smile", "add", "--json", face("dogs.jpg")], answers: ["perhaps", "y"])
        #expect(questions.count == 2, "an answer that is not y, n or a square is asked again")
        #expect(kept.status == 0)
        let result = try #require((try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(result["outcome"] as? String == "ok" && result["detector"] as? String == "colour")
        #expect(photoFiles(URL(fileURLWithPath: vault)).count == 1)

        let (typed, _) = cairn(["--data-dir", vault, "smile", "add", "--json", face("dogs.jpg")], answers: ["100,120,300"])
        let own = try #require((try JSONSerialization.jsonObject(with: Data(typed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(own["detector"] as? String == "manual" && own["square"] as? [String: Int] == ["x": 100, "y": 120, "side": 300])
    }
}

@Test func smileAddStoresAConfidentPortraitWithoutAsking() throws {
    try withTemporaryDirectory { dir in
        let (run, questions) = cairn(["--data-dir", dir.appendingPathComponent("vault").path, "smile", "add", face("fr_obama.jpg")], answers: [])
        #expect(questions.isEmpty)
        #expect(run.status == 0 && run.out.first?.hasPrefix("fr_obama.jpg: ok. Added as ") == true)
    }
}
