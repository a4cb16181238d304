import CairnApp
import CairnCLI
import CairnCore
import CairnTestSupport
import Foundation
import Storage
import Testing

/// Finding 2: "Delete all data" from the CLI left a running server with the deleted database open, and a Smile
/// upload held in server memory could be saved after the delete.
@Suite struct DeleteAllWhileServingTests {
    /// A server without its command socket here (as a locked `cairn serve` answers): the command runs on its own and
    /// refuses. Through a running `cairn serve` it runs inside the server instead (CommandForwardingTests).
    @Test func deletingFromTheCommandLineWhileServingRefusesAndLeavesEverything() throws {
        let served = try ServedVault()
        try served.app.skin.addArea(name: "Left forearm")
        var err: [String] = []
        let console = Console(out: { _ in }, err: { err.append($0) })
        let code = CairnCommandLine.run(
            ["--data-dir", served.directory, "settings", "delete-all-data", "--yes"],
            console: console, environment: [:])
        #expect(code == 1)
        #expect(err.joined().contains("is using this vault"))
        #expect(try served.app.skin.areas().count == 1)
        let page = try HTTP.request("GET", "/skin", port: served.port)
        #expect(page.text.contains("Left forearm"))
    }

    @Test func deletingFromTheWebShowsTheEmptyVaultAtOnceAndLeavesNoFileBehind() throws {
        let served = try ServedVault()
        let area = try served.app.skin.addArea(name: "Left forearm")
        try served.app.skin.log(photo: try Photos.jpeg(), in: area.id)
        #expect(try HTTP.request("GET", "/skin", port: served.port).text.contains("Left forearm"))
        let deleted = try HTTP.post("/settings/delete", port: served.port, form: ["confirm": "DELETE"])
        #expect(deleted.status == 200)
        #expect(!(try HTTP.request("GET", "/skin", port: served.port).text.contains("Left forearm")))
        // Nothing readable on disk: no photo file, no row in the new database, no old WAL.
        let photos = FileManager.default.enumerator(atPath: served.app.vault.photosDirectory.path)?.allObjects ?? []
        #expect(photos.isEmpty)
        let database = try Data(contentsOf: served.app.vault.databaseURL)
        #expect(database.range(of: Data("Left forearm".utf8)) == nil)
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: served.app.vault.databaseURL.path + "-wal"))) ?? Data()
        #expect(wal.range(of: Data("Left forearm".utf8)) == nil)
        // New data after the delete is kept, in the file a restart opens.
        #expect(try HTTP.post("/skin/areas", port: served.port, form: ["name": "Right knee"]).status == 303)
        let reopened = try served.openAgain()
        #expect(try reopened.skin.areas().map(\.area.name) == ["Right knee"])
    }

    @Test func aSmileUploadWaitingForItsCropCannotBeSavedAfterDeleteAll() throws {
        let served = try ServedVault()
        let upload = try served.app.smile.holdUpload(try Photos.jpeg(width: 640, height: 480))
        #expect(served.app.smile.pendingUploadCount == 1)
        #expect(try HTTP.post("/settings/delete", port: served.port, form: ["confirm": "DELETE"]).status == 200)
        #expect(served.app.smile.pendingUploadCount == 0)
        #expect(throws: SmileError.uploadExpired) {
            try served.app.smile.confirmUpload(upload.id, square: nil, note: "")
        }
        let page = try HTTP.request("GET", "/smile/crop/\(upload.id)", port: served.port)
        #expect(page.status != 200 || !page.text.contains(upload.id))
        #expect(try served.app.smile.entries().isEmpty)
    }
}
