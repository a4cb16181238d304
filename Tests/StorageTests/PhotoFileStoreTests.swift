import CairnCore
import Foundation
import Testing
@testable import Storage
import Encryption

/// A vault in a temp directory with its database open; `close()` removes everything.
struct TestVault {
    let dir: TemporaryDirectory
    let vault: Vault
    let database: Database

    init() throws {
        dir = try TemporaryDirectory()
        vault = try Vault(directory: dir.url.appendingPathComponent("vault"))
        database = try vault.openDatabase(clock: fixedClock)
    }

    func store(failingAt stage: PhotoWriteStage? = nil) -> PhotoFileStore {
        PhotoFileStore(vault: vault, database: database, clock: fixedClock) { reached in
            if reached == stage { throw InjectedFault(stage: reached) }
        }
    }

    var photoFiles: [String] { filesUnder(vault.photosDirectory) }
    func photoRowCount() throws -> Int { try database.read { try $0.scalar("SELECT count(*) FROM photos", as: Int.self) } ?? -1 }

    func close() {
        database.close()
        dir.remove()
    }
}

struct InjectedFault: Error, Equatable { let stage: PhotoWriteStage }
struct RejectedByInspector: Error, Equatable {}

@Test func writesAFileReadsItBackAndReferencesItInARow() throws {
    let t = try TestVault()
    defer { t.close() }
    let bytes = try Data(contentsOf: sharedPhotoURL)
    var verified: Data?
    let photo = try t.store().write(bytes, purpose: "skin", mediaType: .jpeg, width: 500, height: 375) { verified = $0 }
    #expect(verified == bytes)
    #expect(photo.byteCount == bytes.count)
    #expect(photo.sha256 == SHA256.hexDigest(bytes))
    #expect(photo.relativePath == "photos/\(photo.id.rawValue.prefix(2))/\(photo.id.rawValue).jpg")
    #expect(photo.createdAt == fixedClock.now())
    #expect(try t.store().photo(photo.id) == photo)
    #expect(try t.store().data(for: photo.id) == bytes)
    #expect(try t.store().fileURL(for: photo.id) == t.vault.directory.appendingPathComponent(photo.relativePath))
    #expect(t.photoFiles == [String(photo.relativePath.dropFirst("photos/".count))])
    #expect(FileModes.permissions(atPath: t.vault.directory.appendingPathComponent(photo.relativePath).path) == 0o600)
    #expect(try t.store().photos(purpose: "skin") == [photo])
    #expect(try t.store().photos(purpose: "label") == [])
}

@Test func refusesEmptyBytesBadDimensionsAndAnEmptyPurpose() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    #expect(throws: PhotoStoreError.emptyFile) { try store.write(Data(), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in } }
    #expect(throws: PhotoStoreError.invalidDimensions) { try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 0, height: 1) { _ in } }
    #expect(throws: PhotoStoreError.invalidDimensions) { try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: -3) { _ in } }
    #expect(throws: PhotoStoreError.missingPurpose) { try store.write(Data([1]), purpose: "", mediaType: .jpeg, width: 1, height: 1) { _ in } }
    #expect(t.photoFiles.isEmpty)
    #expect(try t.photoRowCount() == 0)
}

@Test func refusesAConnectionOutsideAWriteTransaction() throws {
    let t = try TestVault()
    defer { t.close() }
    #expect(throws: PhotoStoreError.notInWriteTransaction) {
        try t.database.read { db in try t.store().write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1, in: db) { _ in } }
    }
    #expect(t.photoFiles.isEmpty)
}

@Test func anInspectorRejectionLeavesNoFileAndNoRow() throws {
    let t = try TestVault()
    defer { t.close() }
    #expect(throws: RejectedByInspector()) {
        try t.store().write(Data([1, 2]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in throw RejectedByInspector() }
    }
    #expect(t.photoFiles.isEmpty)
    #expect(try t.photoRowCount() == 0)
}

@Test(arguments: PhotoWriteStage.allCases)
func aFailureAtEveryStepLeavesNoFileAndNoRow(stage: PhotoWriteStage) throws {
    let t = try TestVault()
    defer { t.close() }
    let kept = try t.store().write(Data([7]), purpose: "skin", mediaType: .png, width: 1, height: 1) { _ in }
    #expect(throws: InjectedFault(stage: stage)) {
        try t.store(failingAt: stage).write(Data([1, 2, 3]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    }
    #expect(t.photoFiles == [String(kept.relativePath.dropFirst("photos/".count))])
    #expect(try t.photoRowCount() == 1)
    #expect(try t.store().sweep() == 0)
}

@Test func thePhotoRowCommitsWithTheCallersRowsOrNotAtAll() throws {
    struct CallerFailed: Error {}
    let t = try TestVault()
    defer { t.close() }
    let photo = try t.database.write { db in
        try db.execute("INSERT INTO settings VALUES (?, ?)", "entry", "1")
        return try t.store().write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1, in: db) { _ in }
    }
    #expect(try t.store().photo(photo.id) != nil)
    #expect(throws: CallerFailed.self) {
        try t.database.write { db in
            try t.store().write(Data([2]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1, in: db) { _ in }
            try db.execute("INSERT INTO settings VALUES (?, ?)", "entry2", "1")
            throw CallerFailed()
        }
    }
    #expect(try t.photoRowCount() == 1)
    #expect(t.photoFiles.count == 1)
    #expect(try t.database.read { try $0.scalar("SELECT count(*) FROM settings", as: Int.self) } == 1)
}

@Test func aFailedPhotoWriteKeepsTheCallersTransactionUsable() throws {
    let t = try TestVault()
    defer { t.close() }
    try t.database.write { db in
        try db.execute("INSERT INTO settings VALUES (?, ?)", "before", "1")
        _ = try? t.store(failingAt: .rowInserted).write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1, in: db) { _ in }
        try db.execute("INSERT INTO settings VALUES (?, ?)", "after", "1")
    }
    #expect(try t.database.read { try $0.scalar("SELECT count(*) FROM settings", as: Int.self) } == 2)
    #expect(try t.photoRowCount() == 0)
    #expect(t.photoFiles.isEmpty)
}

@Test func deleteRemovesTheRowAndThenTheFile() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    try store.delete(photo.id)
    #expect(try store.photo(photo.id) == nil)
    #expect(t.photoFiles.isEmpty)
    #expect(throws: PhotoStoreError.notFound) { try store.delete(photo.id) }
    #expect(throws: PhotoStoreError.notFound) { try store.data(for: photo.id) }
}

@Test func aDeleteThatRollsBackKeepsTheFile() throws {
    struct CallerFailed: Error {}
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    #expect(throws: CallerFailed.self) { try t.database.write { db in try store.delete(photo.id, in: db); throw CallerFailed() } }
    #expect(try store.data(for: photo.id) == Data([1]))
}

@Test func aPhotoAJournalStillReferencesCannotBeDeleted() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    try t.database.write { db in
        try db.execute("CREATE TABLE entry (id TEXT PRIMARY KEY, photo_id TEXT NOT NULL REFERENCES photos(id))")
        try db.execute("INSERT INTO entry VALUES (?, ?)", "e1", photo.id.rawValue)
    }
    let error = try #require(throws: DatabaseError.self) { try store.delete(photo.id) }
    #expect(error.constraintKind == .foreignKey)
    #expect(try store.data(for: photo.id) == Data([1]))
}

@Test func aMissingFileIsReportedWithoutItsPath() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    try FileManager.default.removeItem(at: try store.fileURL(for: photo.id))
    let error = try #require(throws: PhotoStoreError.self) { try store.data(for: photo.id) }
    guard case .fileUnavailable = error else { Issue.record("unexpected \(error)"); return }
    #expect(!error.description.contains(photo.id.rawValue))
    #expect(!error.userMessage.contains(photo.id.rawValue))
}

@Test func sweepRemovesOnlyFilesNoRowReferences() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    #expect(try store.sweep() == 0)
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let strays = [".tmp-leftover", "ab/stray.jpg", "stray.png"]
    try FileManager.default.createDirectory(at: t.vault.photosDirectory.appendingPathComponent("ab"), withIntermediateDirectories: true)
    for stray in strays { try Data([0]).write(to: t.vault.photosDirectory.appendingPathComponent(stray)) }
    #expect(try store.sweep() == 3)
    #expect(t.photoFiles == [String(photo.relativePath.dropFirst("photos/".count))])
    #expect(try store.sweep() == 0)
}

@Test func photoStoreErrorMessagesArePlainAndFreeOfBannedWords() {
    let all: [PhotoStoreError] = [.emptyFile, .invalidDimensions, .missingPurpose, .readBackMismatch, .notFound,
                                  .fileUnavailable("x"), .fileOperationFailed("y"), .notInWriteTransaction]
    for error in all {
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
        #expect(error.description.hasPrefix("PhotoStoreError."))
    }
}

// MARK: crash in mid-write, for real

@Test(arguments: PhotoWriteStage.allCases)
func aProcessKilledMidWriteLeavesNothingAfterReopenAndSweep(stage: PhotoWriteStage) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url.appendingPathComponent("vault"))
    let before = try vault.openDatabase()
    let kept = try PhotoFileStore(vault: vault, database: before).write(Data([42]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    before.close()

    let child = try ChildProcess.launch(role: "crash", directory: dir.url, extra: ["CAIRN_CRASH_STAGE": stage.rawValue])
    let reached = ChildProcess.waitForFile(dir.url.appendingPathComponent("reached").path, process: child)
    #expect(reached, "the child never reached \(stage)")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(child.terminationReason == .uncaughtSignal)
    // The half-finished write is on disk: a temp file, or an unreferenced final file.
    if reached { #expect(filesUnder(vault.photosDirectory).count == 2) }

    let database = try vault.openDatabase()
    defer { database.close() }
    let store = PhotoFileStore(vault: vault, database: database)
    #expect(try store.sweep() == (reached ? 1 : 0))
    let referenced = Set(try database.read { try $0.query("SELECT relative_path FROM photos") }.map { try $0.get("relative_path", as: String.self) })
    #expect(referenced == [kept.relativePath])
    #expect(filesUnder(vault.photosDirectory).map { "photos/" + $0 } == [kept.relativePath])
    #expect(try store.data(for: kept.id) == Data([42]))
}
