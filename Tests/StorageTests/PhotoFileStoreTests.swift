import CairnCore
import Encryption
import Foundation
import Testing

@testable import Storage

/// A vault in a temp directory with its database open; `close()` removes everything.
struct TestVault {
    let dir: TemporaryDirectory
    let vault: Vault
    let database: Database

    /// With `key`, a locked vault's: its database (and so its photo files) encrypted with that vault key.
    init(key: SecretKey? = nil) throws {
        dir = try TemporaryDirectory()
        vault = try Vault(directory: dir.url.appendingPathComponent("vault"))
        database = try vault.openDatabase(clock: fixedClock, key: key)
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
    #expect(throws: PhotoStoreError.invalidDimensions) {
        try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: -3) { _ in }
    }
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
    #expect(try t.store().sweep() == .init())
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
    #expect(throws: CallerFailed.self) {
        try t.database.write { db in
            try store.delete(photo.id, in: db)
            throw CallerFailed()
        }
    }
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
    guard case .fileUnavailable = error else {
        Issue.record("unexpected \(error)")
        return
    }
    #expect(!error.description.contains(photo.id.rawValue))
    #expect(!error.userMessage.contains(photo.id.rawValue))
}

@Test func sweepRemovesCairnsTemporaryFilesAndKeepsEveryOtherUnnamedFileAside() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    #expect(try store.sweep() == .init())
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let strays = [".tmp-leftover", "ab/stray.jpg", "stray.png"]
    try FileManager.default.createDirectory(at: t.vault.photosDirectory.appendingPathComponent("ab"), withIntermediateDirectories: true)
    for stray in strays { try Data([0]).write(to: t.vault.photosDirectory.appendingPathComponent(stray)) }
    #expect(try store.sweep() == .init(removed: 1, keptAside: 2))
    #expect(t.photoFiles == [String(photo.relativePath.dropFirst("photos/".count))])
    let kept = filesUnder(t.vault.lostAndFoundURL).map { $0.split(separator: "/").dropFirst().joined(separator: "/") }.sorted()
    #expect(kept == ["photos/ab/stray.jpg", "photos/stray.png"], "kept aside under lost+found/<stamp>/, nothing deleted")
    #expect(try store.sweep() == .init())
}

@Test func sweepReachesStraysAtAnyDepthAndMovesALinkWithoutFollowingIt() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let photo = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let deep = t.vault.photosDirectory.appendingPathComponent("ab/cd")
    try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
    try Data([0]).write(to: deep.appendingPathComponent("deep.jpg"))
    let outside = t.vault.directory.appendingPathComponent("outside.txt")
    try Data([7]).write(to: outside)
    try FileManager.default.createSymbolicLink(
        at: t.vault.photosDirectory.appendingPathComponent("ab/link.jpg"),
        withDestinationURL: outside)
    #expect(try store.sweep() == .init(removed: 0, keptAside: 2))
    #expect(t.photoFiles == [String(photo.relativePath.dropFirst("photos/".count))])
    #expect(try Data(contentsOf: outside) == Data([7]), "the link's target stays as it was")
}

@Test func aDeletionCutOffAfterItsCommitLeavesAFileTheSweepRemovesAndAWriteCutOffAfterItsCommitKeepsItsFile() throws {
    let t = try TestVault()
    defer { t.close() }
    let store = t.store()
    let deleted = try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let written = try store.write(Data([2]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let deletedPath = t.vault.directory.appendingPathComponent(deleted.relativePath).path
    do {
        // As a process killed between a deletion's commit and its unlink, and between a write's commit and the end
        // of its registration, leaves them: the entries' locks let go without `finish`.
        let registry = TemporaryArtefacts(vault: t.vault)
        let deletion = try registry.register(deletedPath, kind: .photoDeletion)
        let write = try registry.register(t.vault.directory.appendingPathComponent(written.relativePath).path, kind: .photoWrite)
        try t.database.write { try $0.execute("DELETE FROM photos WHERE id = ?", deleted.id.rawValue) }
        #expect(registry.entries().allSatisfy { $0.ownerRunning })
        deletion.abandon()
        write.abandon()
    }
    #expect(FileManager.default.fileExists(atPath: deletedPath))
    #expect(TemporaryArtefacts(vault: t.vault).entries().allSatisfy { !$0.ownerRunning })
    #expect(try store.sweep() == .init(removed: 1, keptAside: 0))
    #expect(t.photoFiles == [String(written.relativePath.dropFirst("photos/".count))])
    #expect(TemporaryArtefacts(vault: t.vault).entries().isEmpty)
    #expect(try store.data(for: written.id) == Data([2]))
}

@Test func photoStoreErrorMessagesArePlainAndFreeOfBannedWords() {
    let all: [PhotoStoreError] = [
        .emptyFile, .invalidDimensions, .missingPurpose, .readBackMismatch, .notFound,
        .fileUnavailable("x"), .fileOperationFailed("y"), .notInWriteTransaction, .fileDamaged("z"),
    ]
    for error in all {
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
        #expect(error.description.hasPrefix("PhotoStoreError."))
    }
}

// MARK: a locked vault's photo files

@Test func inALockedVaultThePhotoFileIsEncryptedAndReadsBackAsThePhoto() throws {
    let t = try TestVault(key: SecretKey.random())
    defer { t.close() }
    let bytes = try Data(contentsOf: sharedPhotoURL)
    var verified: Data?
    let photo = try t.store().write(bytes, purpose: "skin", mediaType: .jpeg, width: 500, height: 375) { verified = $0 }
    // The inspector saw the photo read back and decrypted; the row describes the photo, not the file.
    #expect(verified == bytes)
    #expect(photo.byteCount == bytes.count && photo.sha256 == SHA256.hexDigest(bytes))
    let file = try Data(contentsOf: try t.store().fileURL(for: photo.id))
    #expect(EncryptedPhoto.isEncrypted(file))
    #expect(file.count == EncryptedPhoto.sealedByteCount(plaintext: bytes.count))
    #expect(file.range(of: bytes.prefix(64)) == nil && file.range(of: bytes.suffix(64)) == nil)
    #expect(try t.store().data(for: photo.id) == bytes)
    #expect(try t.database.read { try t.store().data(for: photo.id, in: $0) } == bytes)
    // Nothing else was left under photos/ (no decrypted copy, no temp file).
    #expect(t.photoFiles == [String(photo.relativePath.dropFirst("photos/".count))])
}

@Test func aPlainVaultKeepsThePhotoBytesAsTheyAre() throws {
    let t = try TestVault()
    defer { t.close() }
    let photo = try t.store().write(Data([0xFF, 0xD8, 1, 2]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    #expect(try Data(contentsOf: try t.store().fileURL(for: photo.id)) == Data([0xFF, 0xD8, 1, 2]))
}

/// Expects `body` to fail with `PhotoStoreError.fileDamaged`.
func expectDamaged(_ body: () throws -> Data, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try body()
        Issue.record("\(comment): it opened", sourceLocation: sourceLocation)
    } catch let error as PhotoStoreError {
        guard case .fileDamaged = error else {
            Issue.record("\(comment): \(error)", sourceLocation: sourceLocation)
            return
        }
    } catch {
        Issue.record("\(comment): \(error)", sourceLocation: sourceLocation)
    }
}

@Test func aFlippedBitOrACutInALockedVaultsPhotoFileIsAClearError() throws {
    let t = try TestVault(key: SecretKey.random())
    defer { t.close() }
    let bytes = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let photo = try t.store().write(bytes, purpose: "skin", mediaType: .jpeg, width: 10, height: 10) { _ in }
    let url = try t.store().fileURL(for: photo.id)
    let original = try Data(contentsOf: url)
    for position in [3, 20, 40, 60, 70_000, original.count - 1] {
        var altered = original
        altered[position] ^= 0x01
        try altered.write(to: url)
        expectDamaged({ try t.store().data(for: photo.id) }, "bit flipped at \(position)")
    }
    for length in [0, 30, 70_000, original.count - 1] {
        try original.prefix(length).write(to: url)
        expectDamaged({ try t.store().data(for: photo.id) }, "cut to \(length)")
    }
    try original.write(to: url)
    #expect(try t.store().data(for: photo.id) == bytes)
    #expect(PhotoStoreError.fileDamaged("x").userMessage.contains("damaged"))
}

@Test func twoPhotoFilesSwappedOrAFileFromAnotherVaultDoNotOpen() throws {
    let key = SecretKey.random()
    let t = try TestVault(key: key)
    defer { t.close() }
    let store = t.store()
    let first = try store.write(Data(repeating: 1, count: 900), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let second = try store.write(Data(repeating: 2, count: 900), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let firstFile = try Data(contentsOf: try store.fileURL(for: first.id))
    try Data(contentsOf: try store.fileURL(for: second.id)).write(to: try store.fileURL(for: first.id))
    try firstFile.write(to: try store.fileURL(for: second.id))
    expectDamaged({ try store.data(for: first.id) }, "second's file under the first's name")
    expectDamaged({ try store.data(for: second.id) }, "first's file under the second's name")
    // The same photo id and key, but another vault's identifier.
    let other = try TestVault(key: key)
    defer { other.close() }
    let foreign = try EncryptedPhoto.seal(
        Data(repeating: 1, count: 900), photoID: first.id.rawValue,
        vaultID: try other.vault.identifier(), vaultKey: key)
    try foreign.write(to: try store.fileURL(for: first.id))
    expectDamaged({ try store.data(for: first.id) }, "another vault's file")
}

@Test func aPlainFileInALockedVaultOpensOnlyWhenItIsThePhotoItsRowNames() throws {
    // What a lock change stopped half-way leaves: the encrypted database's row vouches for the plain file.
    let t = try TestVault(key: SecretKey.random())
    defer { t.close() }
    let bytes = Data(repeating: 5, count: 2_000)
    let photo = try t.store().write(bytes, purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    let url = try t.store().fileURL(for: photo.id)
    try bytes.write(to: url)
    #expect(try t.store().data(for: photo.id) == bytes)
    try Data(repeating: 6, count: 2_000).write(to: url)
    expectDamaged({ try t.store().data(for: photo.id) }, "a plain file that is another photo")
}

@Test func anEncryptedFileInAPlainVaultIsAClearError() throws {
    let t = try TestVault()
    defer { t.close() }
    let photo = try t.store().write(Data(repeating: 5, count: 2_000), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    try EncryptedPhoto.seal(
        Data(repeating: 5, count: 2_000), photoID: photo.id.rawValue, vaultID: try t.vault.identifier(),
        vaultKey: SecretKey.random()
    ).write(to: try t.store().fileURL(for: photo.id))
    expectDamaged({ try t.store().data(for: photo.id) }, "encrypted without a key")
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
    #expect(try store.sweep() == .init(removed: reached ? 1 : 0))
    let referenced = Set(try database.read { try $0.query("SELECT relative_path FROM photos") }.map { try $0.get("relative_path", as: String.self) })
    #expect(referenced == [kept.relativePath])
    #expect(filesUnder(vault.photosDirectory).map { "photos/" + $0 } == [kept.relativePath])
    #expect(try store.data(for: kept.id) == Data([42]))
}

@Test func theNextOpenRemovesLeftoversWhoseOwnerIsGoneAndLeavesARunningOnesAlone() throws {
    let t = try TestVault()
    defer { t.close() }
    let registry = TemporaryArtefacts(vault: t.vault)
    func named(_ name: String) -> String { t.vault.directory.appendingPathComponent(name).path }
    // A download and a snapshot whose owner was killed, a snapshot an older Cairn left unregistered, and a running
    // backup's snapshot.
    let download = try registry.register(named(".download-1.cairnbackup"), kind: .download)
    let killed = try registry.register(named(".backup-1.sqlite"), kind: .backupSnapshot)
    let running = try registry.register(named(".backup-2.sqlite"), kind: .backupSnapshot)
    for name in [".download-1.cairnbackup", ".backup-1.sqlite", ".backup-2.sqlite", ".backup-3.sqlite"] {
        FileManager.default.createFile(atPath: named(name), contents: Data("SQLite format 3".utf8))
    }
    download.abandon()
    killed.abandon()
    #expect(t.vault.removeAbandonedArtefacts() == 3)
    let left = try FileManager.default.contentsOfDirectory(atPath: t.vault.directory.path).filter {
        $0.hasPrefix(".backup-") || $0.hasPrefix(".download-")
    }
    #expect(left == [".backup-2.sqlite"], "the running backup keeps its snapshot")
    #expect(registry.entries().map(\.path) == [named(".backup-2.sqlite")])
    running.finish(removing: true)
    #expect(registry.entries().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: named(".backup-2.sqlite")))
}

@Test func aMissingOrEmptyDatabaseIsRefusedOnlyBesideWhatADatabaseNamed() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fresh = try Vault(directory: dir.url.appendingPathComponent("fresh"))
    try fresh.refuseLostDatabase()  // a new vault: nothing to lose
    let vault = try Vault(directory: dir.url.appendingPathComponent("vault"))
    _ = try vault.identifier()
    #expect(throws: VaultError.databaseMissing(empty: false, holds: ["its identifier (vault.id)"])) { try vault.openDatabase() }
    FileManager.default.createFile(atPath: vault.databaseURL.path, contents: Data())
    try FileManager.default.createDirectory(at: vault.photosDirectory.appendingPathComponent("ab"), withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: vault.photosDirectory.appendingPathComponent("ab/x.jpg").path, contents: Data([1]))
    #expect(throws: VaultError.databaseMissing(empty: true, holds: ["photo files", "its identifier (vault.id)"])) { try vault.openDatabase() }
    #expect(try Data(contentsOf: vault.databaseURL).isEmpty, "nothing was written over it")
}
