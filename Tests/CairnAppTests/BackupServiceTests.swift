import CairnApp
import CairnCore
import CairnTestSupport
import Encryption
import Foundation
import Storage
import Testing

private func cheap() -> KeyDerivation { KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))! }
private let passphrase = try! Passphrase("a long backup passphrase")

@Test func aBackupIsWrittenOwnerOnlyAndReadBackBeforeItCounts() throws {
    let vault = try TestVault()
    let path = vault.scratch.file("one.cairnbackup").path
    let result = try vault.app.backups.create(at: path, passphrase: passphrase, keyDerivation: cheap())
    #expect(result.path == path)
    #expect(result.summary.photoCount == 0)
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
    #expect(try VaultBackup.header(ofFileAt: path).vaultID == (try vault.app.vault.identifier()))
    // A file is never replaced.
    #expect(throws: BackupRequestError.targetExists) { try vault.app.backups.create(at: path, passphrase: passphrase, keyDerivation: cheap()) }
}

@Test func keepRemovesOnlyThisVaultsOlderBackupsInTheFolder() throws {
    let folder = try Scratch()
    defer { folder.remove() }
    try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
    let scratch = try Scratch()
    defer { scratch.remove() }
    let directory = scratch.file("vault").path
    func app(at seconds: TimeInterval) throws -> CairnApplication {
        try CairnApplication.open(
            dataDirectory: directory, environment: [:],
            clock: FixedClock(Date(timeIntervalSince1970: 1_780_000_000 + seconds), timeZone: TimeZone(identifier: "UTC")!))
    }
    let other = try TestVault()
    let foreign = try other.app.backups.create(at: folder.url.path, passphrase: passphrase, keyDerivation: cheap())
    try Data("not a backup".utf8).write(to: folder.file("cairn-backup-19990101-000000.cairnbackup"))
    var made: [String] = []
    for i in 0..<3 {
        let result = try app(at: 60 * Double(i + 1)).backups.create(at: folder.url.path, passphrase: passphrase, keep: 2, keyDerivation: cheap())
        made.append(result.path)
        #expect(result.removed == (i == 2 ? [made[0]] : []))
    }
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
    #expect(left == Set([made[1], made[2], foreign.path].map { ($0 as NSString).lastPathComponent } + ["cairn-backup-19990101-000000.cairnbackup"]))
    #expect(try VaultBackup.header(ofFileAt: foreign.path).vaultID != (try app(at: 0).vault.identifier()))
    #expect(made[2].hasSuffix("cairn-backup-20260528-202940.cairnbackup"))
}

@Test func aShortPassphraseOrKeepWithAFileIsRefusedBeforeWriting() throws {
    let vault = try TestVault()
    let path = vault.scratch.file("b.cairnbackup").path
    #expect(throws: BackupRequestError.passphraseTooShort) {
        try vault.app.backups.create(at: path, passphrase: try Passphrase("short"), keyDerivation: cheap())
    }
    #expect(throws: BackupRequestError.keepNeedsFolder) {
        try vault.app.backups.create(at: path, passphrase: passphrase, keep: 3, keyDerivation: cheap())
    }
    #expect(!FileManager.default.fileExists(atPath: path))
}

@Test func aLockedVaultsBackupVerifiesAndRestoresItsPhotosAsThePersonSeesThem() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = scratch.file("vault").path
    let plain = try CairnApplication.open(dataDirectory: path, environment: [:])
    let kept = try plain.photoIntake.ingest(Data(contentsOf: SharedData.photo), purpose: "skin", database: plain.database)
    let photo = try plain.photoStore.data(for: kept.full.id)
    try LockService.turnOn(plain, passphrase: Passphrase("a passphrase for the test"))
    let locked = try CairnApplication.open(
        dataDirectory: path, environment: [:],
        passphrase: { try Passphrase("a passphrase for the test") })
    let backup = scratch.file("locked.cairnbackup").path
    let made = try locked.backups.create(at: backup, passphrase: passphrase, keyDerivation: cheap())
    #expect(made.summary.photoCount == 2)
    #expect(try VaultBackup.verify(fileAt: backup, passphrase: passphrase) == made.summary)
    let target = scratch.file("restored")
    _ = try VaultBackup.restore(fileAt: backup, passphrase: passphrase, into: target)
    // The restored vault has no lock: its database and photos are plain, and the photo is the one logged.
    let restored = try CairnApplication.open(dataDirectory: target.path, environment: [:])
    #expect(try restored.vault.lockSetting() == .neverSet)
    #expect(try restored.photoStore.data(for: kept.full.id) == photo)
    #expect(try Data(contentsOf: restored.photoStore.fileURL(for: kept.full.id)) == photo)
}
