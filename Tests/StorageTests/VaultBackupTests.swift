import CairnCore
import Encryption
import Foundation
import Testing

@testable import Storage

/// A vault with a database, a few photos and a backup of it written with cheap key-derivation parameters.
private final class BackedUpVault {
    let scratch: TemporaryDirectory
    let vault: Vault
    let database: Database
    let photos: [StoredPhoto]
    let backupPath: String
    let passphrase = try! Passphrase("a long backup passphrase")

    /// With `key`, of a locked vault (its database and photo files encrypted with that vault key).
    init(photoCount: Int = 3, photoBytes: Int = 150_000, key: SecretKey? = nil) throws {
        scratch = try TemporaryDirectory()
        vault = try Vault(directory: scratch.url.appendingPathComponent("vault"))
        database = try vault.openDatabase(clock: fixedClock, key: key)
        let store = PhotoFileStore(vault: vault, database: database, clock: fixedClock)
        photos = try (0..<photoCount).map { i in
            let bytes = Data((0..<photoBytes).map { UInt8(truncatingIfNeeded: $0 &* (i + 3) &+ $0 >> 11) })
            return try store.write(bytes, purpose: "skin", mediaType: .jpeg, width: 10, height: 10) { _ in }
        }
        try database.write { try $0.execute("INSERT INTO settings (key, value) VALUES ('note', 'kept')") }
        backupPath = scratch.url.appendingPathComponent("vault.cairnbackup").path
        try write(to: backupPath)
    }

    @discardableResult
    func write(to path: String) throws -> BackupSummary {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        return try VaultBackup.write(
            vault: vault, database: database, passphrase: passphrase, createdAt: fixedClock.now(),
            keyDerivation: cheap()
        ) { handle.write(Data($0)) }
    }

    func alteredCopy(_ change: (inout [UInt8]) -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backupPath)))
        change(&bytes)
        let path = scratch.url.appendingPathComponent("altered-\(UUID().uuidString).cairnbackup").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit { scratch.remove() }
}

private func cheap() -> KeyDerivation {
    KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))!
}

@Test func aBackupVerifiesAndRestoresToTheSameDatabaseAndPhotos() throws {
    let v = try BackedUpVault()
    let summary = try VaultBackup.verify(fileAt: v.backupPath, passphrase: v.passphrase)
    #expect(summary.photoCount == 3)
    #expect(summary.vaultID == Hex.encode(try v.vault.identifier()))
    let target = v.scratch.url.appendingPathComponent("restored")
    #expect(try VaultBackup.restore(fileAt: v.backupPath, passphrase: v.passphrase, into: target) == summary)
    let restored = try Vault(directory: target)
    #expect(try restored.identifier() == (try v.vault.identifier()))
    let database = try restored.openDatabase(clock: fixedClock)
    let note: String? = try database.read { try $0.scalar("SELECT value FROM settings WHERE key = 'note'") }
    #expect(note == "kept")
    for photo in v.photos {
        #expect(
            try Data(contentsOf: target.appendingPathComponent(photo.relativePath))
                == (try Data(contentsOf: v.vault.directory.appendingPathComponent(photo.relativePath))))
        #expect(FileModes.permissions(atPath: target.appendingPathComponent(photo.relativePath).path) == 0o600)
    }
    #expect(FileModes.permissions(atPath: target.path) == 0o700)
}

@Test func aLockedVaultsBackupHoldsThePhotosThemselvesAndRestoresAVaultWithoutLock() throws {
    let v = try BackedUpVault(key: SecretKey.random())
    let store = PhotoFileStore(vault: v.vault, database: v.database)
    for photo in v.photos {
        #expect(EncryptedPhoto.isEncrypted(try Data(contentsOf: v.vault.directory.appendingPathComponent(photo.relativePath))))
    }
    let summary = try VaultBackup.verify(fileAt: v.backupPath, passphrase: v.passphrase)
    #expect(summary.photoCount == 3)
    #expect(summary.contentBytes > Int64(3 * 150_000))
    let target = v.scratch.url.appendingPathComponent("restored")
    #expect(try VaultBackup.restore(fileAt: v.backupPath, passphrase: v.passphrase, into: target) == summary)
    let restored = try Vault(directory: target)
    #expect(try restored.lockSetting() == .neverSet)
    #expect(!restored.databaseIsEncrypted)
    let database = try restored.openDatabase(clock: fixedClock)
    defer { database.close() }
    let restoredStore = PhotoFileStore(vault: restored, database: database)
    for photo in v.photos {
        let bytes = try store.data(for: photo.id)
        #expect(try Data(contentsOf: target.appendingPathComponent(photo.relativePath)) == bytes)
        #expect(try restoredStore.data(for: photo.id) == bytes)
    }
}

@Test func aLockedVaultsPhotoThatDoesNotOpenStopsTheBackup() throws {
    let v = try BackedUpVault(photoCount: 2, key: SecretKey.random())
    let url = v.vault.directory.appendingPathComponent(v.photos[1].relativePath)
    var file = try Data(contentsOf: url)
    file[file.count / 2] ^= 0x40
    try file.write(to: url)
    let path = v.scratch.url.appendingPathComponent("second.cairnbackup").path
    #expect(throws: BackupError.photoDamaged) { try v.write(to: path) }
}

@Test func theBackupLeavesNoCopyOfTheDatabaseInTheVault() throws {
    let v = try BackedUpVault(photoCount: 1)
    let names = try FileManager.default.contentsOfDirectory(atPath: v.vault.directory.path)
    #expect(!names.contains { $0.hasPrefix(".backup-") })
}

@Test func aWrongPassphraseIsSaidAndNothingIsRestored() throws {
    let v = try BackedUpVault(photoCount: 1)
    let target = v.scratch.url.appendingPathComponent("restored")
    #expect(throws: EncryptionError.wrongPassphrase) {
        try VaultBackup.restore(fileAt: v.backupPath, passphrase: try Passphrase("a long backup passphrasE"), into: target)
    }
    #expect(!FileManager.default.fileExists(atPath: target.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: v.scratch.path).allSatisfy { !$0.hasPrefix(".cairn-restore") })
}

@Test func aFlippedBitInAPhotoIsFoundAndNothingIsRestored() throws {
    let v = try BackedUpVault()
    let size = try #require(try FileManager.default.attributesOfItem(atPath: v.backupPath)[.size] as? Int)
    let altered = try v.alteredCopy { $0[size / 2] ^= 0x04 }
    #expect(throws: EncryptionError.damaged) { try VaultBackup.verify(fileAt: altered, passphrase: v.passphrase) }
    let target = v.scratch.url.appendingPathComponent("restored")
    #expect(throws: EncryptionError.damaged) { try VaultBackup.restore(fileAt: altered, passphrase: v.passphrase, into: target) }
    #expect(!FileManager.default.fileExists(atPath: target.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: v.scratch.path).allSatisfy { !$0.hasPrefix(".cairn-restore") })
}

@Test func aTruncatedBackupIsIncomplete() throws {
    let v = try BackedUpVault()
    for keep in [0.3, 0.999] {
        let altered = try v.alteredCopy { $0.removeLast(Int(Double($0.count) * (1 - keep))) }
        #expect(throws: EncryptionError.truncated) { try VaultBackup.verify(fileAt: altered, passphrase: v.passphrase) }
    }
}

@Test func aHeaderAskingForSixtyFourGibibytesIsRefusedBeforeDerivingAnything() throws {
    let v = try BackedUpVault(photoCount: 0)
    let altered = try v.alteredCopy { bytes in
        let memory = UInt64(64) << 30
        for i in 0..<8 { bytes[36 + i] = UInt8(truncatingIfNeeded: memory >> (56 - 8 * UInt64(i))) }
        let checksum = bytes[0..<156].withUnsafeBytes { SHA256.digest($0) }
        bytes.replaceSubrange(156..<188, with: checksum)
    }
    #expect(throws: EncryptionError.keyDerivationTooCostly) { try VaultBackup.verify(fileAt: altered, passphrase: v.passphrase) }
}

@Test func aRestoreIntoAFolderThatHoldsAnythingIsRefusedAndTouchesNothing() throws {
    let v = try BackedUpVault(photoCount: 1)
    let target = v.scratch.url.appendingPathComponent("occupied")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: target.appendingPathComponent("notes.txt"))
    #expect(throws: BackupError.restoreTargetNotEmpty) {
        try VaultBackup.restore(fileAt: v.backupPath, passphrase: v.passphrase, into: target)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["notes.txt"])
    // The vault itself is not an empty folder either.
    #expect(throws: BackupError.restoreTargetNotEmpty) {
        try VaultBackup.restore(fileAt: v.backupPath, passphrase: v.passphrase, into: v.vault.directory)
    }
    // An empty folder is fine.
    let empty = v.scratch.url.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    #expect(try VaultBackup.restore(fileAt: v.backupPath, passphrase: v.passphrase, into: empty).photoCount == 1)
}

@Test func aPhotoMissingFromTheFolderStopsTheBackup() throws {
    let v = try BackedUpVault(photoCount: 2)
    try FileManager.default.removeItem(at: v.vault.directory.appendingPathComponent(v.photos[1].relativePath))
    #expect(throws: BackupError.photoUnavailable) { try v.write(to: v.scratch.url.appendingPathComponent("b2").path) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: v.vault.directory.path).allSatisfy { !$0.hasPrefix(".backup-") })
}

@Test func aBackupOfAnotherVaultSaysSoInItsHeaderAndStillVerifies() throws {
    let one = try BackedUpVault(photoCount: 1)
    let two = try BackedUpVault(photoCount: 1)
    let header = try VaultBackup.header(ofFileAt: two.backupPath)
    #expect(header.vaultID == (try two.vault.identifier()))
    #expect(header.vaultID != (try one.vault.identifier()))
    // The key inside one backup does not open the other's stream: a spliced file is damaged, not mixed.
    let spliced = try one.alteredCopy { bytes in
        let other = [UInt8](try! Data(contentsOf: URL(fileURLWithPath: two.backupPath)))
        bytes = Array(bytes[0..<188]) + other[188...]
    }
    #expect(throws: EncryptionError.damaged) { try VaultBackup.verify(fileAt: spliced, passphrase: one.passphrase) }
}

@Test func onlyVaultPathsAreAcceptedInABackup() {
    #expect(VaultBackup.isValidPath("cairn.sqlite"))
    #expect(VaultBackup.isValidPath("photos/3f/3f2c0000-aaaa-bbbb-cccc-000000000000.jpg"))
    for bad in [
        "../etc/passwd", "/etc/passwd", "photos/../x", "photos/3f/../../x", "photos/3F/x.jpg", "photos/3f/.hidden",
        "photos/3f", "photos/3f/a/b", "cairn.sqlite-wal",
    ] {
        #expect(!VaultBackup.isValidPath(bad), "\(bad)")
    }
}

@Test func theVaultIdentifierIsMadeOnceAndKept() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url)
    let id = try vault.identifier()
    #expect(id.count == 16)
    #expect(try Vault(directory: dir.url).identifier() == id)
    #expect(FileModes.permissions(atPath: dir.url.appendingPathComponent("vault.id").path) == 0o600)
}

// MARK: kill -9 during a backup of a locked vault, for real

@Test(arguments: [100, 300_000, 700_000, 1_100_000])
func aProcessKilledDuringALockedVaultsBackupLeavesTheVaultWholeAndNothingReadableBehind(stopAfter: Int) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir, photos: 8)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
        keyDerivation: cheapDerivation()
    ).close()
    let before = Dictionary(
        uniqueKeysWithValues: filesUnder(vault.directory).map {
            ($0, try? Data(contentsOf: vault.directory.appendingPathComponent($0)))
        })
    FileManager.default.createFile(atPath: dir.url.appendingPathComponent("backup.partial").path, contents: nil)
    let child = try ChildProcess.launch(role: "backup", directory: dir.url, extra: ["CAIRN_STOP_AFTER": String(stopAfter)])
    #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("reached").path, process: child), "never wrote \(stopAfter) bytes")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(child.terminationReason == .uncaughtSignal)
    // The database snapshot was unlinked as soon as it was open: nothing of it is left in the vault folder, and
    // no file of the vault changed (the lock file aside) or holds a readable byte of a note or a photo.
    let after = filesUnder(vault.directory)
    #expect(!after.contains { $0.hasPrefix(".backup-") })
    for name in after where name != VaultLock.fileName && !name.hasPrefix("cairn.sqlite-") {
        #expect(before[name] == (try? Data(contentsOf: vault.directory.appendingPathComponent(name))), "\(name) changed")
        let bytes = (try? Data(contentsOf: vault.directory.appendingPathComponent(name))) ?? Data()
        #expect(bytes.range(of: Data("Isotretinoin".utf8)) == nil, "\(name) holds plaintext")
    }
    #expect(try noteCount(in: vault) == 300)
    #expect(try photos(in: vault) == ((0..<8).map(testPhoto), 8))
    // What was written is an encrypted backup cut short: refused as such, never restored.
    let partial = dir.url.appendingPathComponent("backup.partial").path
    #expect(throws: (any Error).self) { _ = try VaultBackup.verify(fileAt: partial, passphrase: Passphrase("a backup passphrase")) }
}
