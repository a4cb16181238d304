import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Storage

/// A fresh vault in a temporary folder with every service, and a snapshot of what is in it.
final class TestVault {
    let scratch: Scratch
    let app: CairnApplication
    var directory: URL { app.vault.directory }

    init(clock: any Clock = FixedClock(Date(timeIntervalSince1970: 1_780_000_000))) throws {
        scratch = try Scratch()
        app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:], clock: clock)
    }

    deinit { scratch.remove() }

    /// Every file under the vault's photos folder (relative paths), and the photo rows.
    func snapshot() throws -> (files: [String], rows: Int) {
        let photos = app.vault.photosDirectory
        let files = (FileManager.default.enumerator(atPath: photos.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("/") }
            .filter { path in
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: photos.appendingPathComponent(path).path, isDirectory: &isDirectory)
                return !isDirectory.boolValue
            }
            .sorted()
        let rows = try app.database.read { db in try db.scalar("SELECT count(*) FROM photos", as: Int.self) ?? 0 }
        return (files, rows)
    }
}
