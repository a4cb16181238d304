import Encryption
import Foundation
import Testing

@testable import Storage

/// The cheapest key derivation a header may name, so the tests stay fast (Cairn writes `KeyDerivation.standard()`).
func cheapDerivation() -> KeyDerivation { KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))! }

let vaultPassphraseText = "correct horse battery staple"
private let noteText = "Isotretinoin 20 mg, patch on the left cheek"

/// The bytes of the `index`-th test photo (a little over two secretstream chunks, none like another).
func testPhoto(_ index: Int) -> Data {
    Data("\(noteText) photo \(index)".utf8) + Data((0..<140_000).map { UInt8(truncatingIfNeeded: $0 &* (index + 5) &+ $0 >> 12) })
}

/// A vault at `dir/vault` whose plain database holds `rows` notes and `photos` photos (`testPhoto(0...)`).
func makeVaultWithNotes(in dir: TemporaryDirectory, rows: Int = 300, photos: Int = 3) throws -> Vault {
    let vault = try Vault(directory: dir.url.appendingPathComponent("vault"))
    let database = try vault.openDatabase()
    try database.write { db in
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        for i in 0..<rows { try db.execute("INSERT INTO notes (body) VALUES (?)", "\(noteText) #\(i)") }
    }
    let store = PhotoFileStore(vault: vault, database: database)
    for i in 0..<photos { try store.write(testPhoto(i), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in } }
    database.close()
    return vault
}

/// The vault's photos as its header says to open it (decrypted in memory when the lock is on), oldest first, and
/// how many of their files are encrypted.
func photos(in vault: Vault, tidy: Bool = false) throws -> (photos: [Data], encryptedFiles: Int) {
    let key = try vault.lockSetting() == .on ? vault.unlock(passphrase: Passphrase(vaultPassphraseText)) : nil
    let database = try vault.openDatabase(key: key)
    defer { database.close() }
    if tidy { try vault.finishPhotoConversion(database: database) }
    let store = PhotoFileStore(vault: vault, database: database)
    let stored = try database.read { try $0.query("SELECT id FROM photos ORDER BY rowid").map { PhotoID(try $0.get("id")) } }
    let files = try stored.map { try Data(contentsOf: store.fileURL(for: $0)) }
    return (try stored.map { try store.data(for: $0) }, files.filter(EncryptedPhoto.isEncrypted).count)
}

/// The notes of `vault`, opened as its header says (with the passphrase when the lock is on); integrity checked.
func noteCount(in vault: Vault) throws -> Int {
    let key = try vault.lockSetting() == .on ? vault.unlock(passphrase: Passphrase(vaultPassphraseText)) : nil
    let database = try vault.openDatabase(key: key)
    defer { database.close() }
    #expect(database.isEncrypted == vault.databaseIsEncrypted)
    return try database.read { db in
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        return try db.scalar("SELECT count(*) FROM notes", as: Int.self) ?? -1
    }
}

private func contains(_ url: URL, _ text: String) -> Bool {
    (try? Data(contentsOf: url)).map { $0.range(of: Data(text.utf8)) != nil } ?? false
}

@Test func theLockIsNeverSetDeclinedOnOrTurnedOffAndEachIsRemembered() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    #expect(try vault.lockSetting() == .neverSet)
    try vault.declineLock()
    #expect(try vault.lockSetting() == .declined)
    let plain = try vault.openDatabase()
    let locked = try vault.turnLockOn(database: plain, passphrase: Passphrase(vaultPassphraseText), keyDerivation: cheapDerivation())
    #expect(locked.isEncrypted && vault.databaseIsEncrypted)
    #expect(try vault.lockSetting() == .on)
    try vault.declineLock()  // "Not now" never undoes a lock that is on
    #expect(try vault.lockSetting() == .on)
    let unlocked = try vault.turnLockOff(database: locked, passphrase: Passphrase(vaultPassphraseText))
    unlocked.close()
    #expect(try vault.lockSetting() == .turnedOff)
    #expect(!vault.databaseIsEncrypted)
    try vault.declineLock()
    #expect(try vault.lockSetting() == .turnedOff)
    #expect(try noteCount(in: vault) == 300)
}

@Test func turningTheLockOnEncryptsTheDatabaseInPlaceAndOffDecryptsIt() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    #expect(contains(vault.databaseURL, noteText))
    do {
        // (In a block of its own: a database that wrote holds the vault's writer lock until it is released.)
        let locked = try vault.turnLockOn(
            database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
            keyDerivation: cheapDerivation())
        try locked.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "written while locked") }
        locked.close()
    }
    #expect(!contains(vault.databaseURL, noteText))
    #expect(!contains(vault.databaseURL, "SQLite format 3"))
    #expect(try noteCount(in: vault) == 301)
    // Every photo file is encrypted too, and reads back as the photo.
    #expect(!filesUnder(vault.photosDirectory).contains { contains(vault.photosDirectory.appendingPathComponent($0), noteText) })
    #expect(try photos(in: vault) == ((0..<3).map(testPhoto), 3))
    // No copy, pending header or WAL of the old database is left beside it.
    #expect(
        Set(filesUnder(vault.directory).filter { !$0.hasPrefix("photos/") })
            .isSubset(of: ["cairn.sqlite", "cairn.sqlite-wal", "cairn.sqlite-shm", "owner.lock", "vault.id", "vault.header"]))
    // Without the passphrase (or with a wrong one) it does not open.
    #expect(throws: EncryptionError.wrongVaultPassphrase) { try vault.unlock(passphrase: Passphrase("correct horse battery stapl")) }
    #expect(throws: (any Error).self) { try vault.openDatabase().close() }
    let key = try vault.unlock(passphrase: Passphrase(vaultPassphraseText))
    let encrypted = try vault.openDatabase(key: key)
    #expect(throws: EncryptionError.wrongVaultPassphrase) {
        _ = try vault.turnLockOff(database: encrypted, passphrase: Passphrase("wrong"))
    }
    let plain = try vault.turnLockOff(database: encrypted, passphrase: Passphrase(vaultPassphraseText))
    plain.close()
    #expect(contains(vault.databaseURL, "written while locked"))
    #expect(try noteCount(in: vault) == 301)
    #expect(try photos(in: vault) == ((0..<3).map(testPhoto), 0))
    #expect(!FileManager.default.fileExists(atPath: vault.photoConversionMarkerURL.path))
}

@Test func anEncryptedPhotoThatDoesNotOpenStopsTurningTheLockOffBeforeTheDatabase() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
        keyDerivation: cheapDerivation()
    ).close()
    let damaged = vault.photosDirectory.appendingPathComponent(filesUnder(vault.photosDirectory)[1])
    var file = try Data(contentsOf: damaged)
    file[500] ^= 0x08
    try file.write(to: damaged)
    let key = try vault.unlock(passphrase: Passphrase(vaultPassphraseText))
    let error = #expect(throws: PhotoStoreError.self) {
        _ = try vault.turnLockOff(database: try vault.openDatabase(key: key), passphrase: Passphrase(vaultPassphraseText))
    }
    if case .fileDamaged? = error {} else { Issue.record("unexpected \(String(describing: error))") }
    // The lock is still on, the database encrypted; the next open with the key encrypts the others again.
    #expect(try vault.lockSetting() == .on && vault.databaseIsEncrypted)
    #expect(try noteCount(in: vault) == 300)
    #expect(vault.photoConversionPending)
    let database = try vault.openDatabase(key: key)
    defer { database.close() }
    try vault.finishPhotoConversion(database: database)
    #expect(!vault.photoConversionPending)
    let files = filesUnder(vault.photosDirectory).map { try? Data(contentsOf: vault.photosDirectory.appendingPathComponent($0)) }
    #expect(files.count == 3 && files.allSatisfy { $0.map(EncryptedPhoto.isEncrypted) == true })
}

@Test func changingThePassphraseRewrapsTheKeyAndLeavesTheDatabaseAlone() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase("first passphrase"),
        keyDerivation: cheapDerivation()
    ).close()
    let before = try Data(contentsOf: vault.databaseURL)
    #expect(throws: EncryptionError.wrongVaultPassphrase) {
        try vault.changePassphrase(from: Passphrase("not it"), to: Passphrase(vaultPassphraseText), keyDerivation: cheapDerivation())
    }
    try vault.changePassphrase(from: Passphrase("first passphrase"), to: Passphrase(vaultPassphraseText), keyDerivation: cheapDerivation())
    #expect(try Data(contentsOf: vault.databaseURL) == before)
    #expect(throws: EncryptionError.wrongVaultPassphrase) { try vault.unlock(passphrase: Passphrase("first passphrase")) }
    #expect(try noteCount(in: vault) == 300)
}

@Test func aVaultHeaderAskingFor64GiBIsRefusedAndNothingChanges() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
        keyDerivation: cheapDerivation()
    ).close()
    var bytes = [UInt8](try Data(contentsOf: vault.headerURL))
    let memory = UInt64(64) << 30
    for i in 0..<8 { bytes[36 + i] = UInt8(truncatingIfNeeded: memory >> (56 - 8 * UInt64(i))) }
    bytes.replaceSubrange(132..<164, with: bytes[0..<132].withUnsafeBytes { SHA256.digest($0) })
    try Data(bytes).write(to: vault.headerURL)
    #expect(throws: EncryptionError.keyDerivationTooCostly) { try vault.unlock(passphrase: Passphrase(vaultPassphraseText)) }
    bytes[100] ^= 1
    try Data(bytes).write(to: vault.headerURL)
    #expect(throws: EncryptionError.vaultHeaderDamaged) { try vault.lockSetting() }
}

// MARK: kill -9 during a lock change, for real

@Test(arguments: LockChangeStage.allCases)
func aProcessKilledWhileTurningTheLockOnLeavesTheOldVaultOrTheNew(stage: LockChangeStage) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    let child = try ChildProcess.launch(
        role: "lock-change", directory: dir.url,
        extra: ["CAIRN_CRASH_STAGE": stage.rawValue, "CAIRN_LOCK_TO": "on"])
    #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("reached").path, process: child), "never reached \(stage)")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(child.terminationReason == .uncaughtSignal)
    let committed = ![.staged, .headerPending].contains(stage)
    #expect(try vault.lockSetting() == (committed ? .on : .neverSet))
    #expect(vault.databaseIsEncrypted == committed)
    #expect(try noteCount(in: vault) == 300)
    #expect(!FileManager.default.fileExists(atPath: vault.pendingHeaderURL.path))
    #expect(!FileManager.default.fileExists(atPath: vault.stagedDatabaseURL.path))
    // Every photo reads as it was, whatever form its file is in; the next open with the key finishes the job.
    let now = try photos(in: vault)
    #expect(now.photos == (0..<3).map(testPhoto))
    #expect(now.encryptedFiles == (stage == .photoConverted ? 1 : stage == .done ? 3 : 0))
    #expect(try photos(in: vault, tidy: true) == ((0..<3).map(testPhoto), committed ? 3 : 0))
    #expect(!vault.photoConversionPending)
}

@Test(arguments: LockChangeStage.allCases)
func aProcessKilledWhileTurningTheLockOffLeavesTheOldVaultOrTheNew(stage: LockChangeStage) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
        keyDerivation: cheapDerivation()
    ).close()
    let child = try ChildProcess.launch(
        role: "lock-change", directory: dir.url,
        extra: ["CAIRN_CRASH_STAGE": stage.rawValue, "CAIRN_LOCK_TO": "off"])
    #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("reached").path, process: child), "never reached \(stage)")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    let committed = [.databaseReplaced, .headerReplaced, .done].contains(stage)
    #expect(try vault.lockSetting() == (committed ? .turnedOff : .on))
    #expect(vault.databaseIsEncrypted == !committed)
    #expect(try noteCount(in: vault) == 300)
    #expect(!FileManager.default.fileExists(atPath: vault.pendingHeaderURL.path))
    #expect(!FileManager.default.fileExists(atPath: vault.stagedDatabaseURL.path))
    // Photos are decrypted before the database: stopped at the first, two are still encrypted; by the database's
    // stages all are plain. A vault still locked encrypts them again at its next open with the key.
    let now = try photos(in: vault)
    #expect(now.photos == (0..<3).map(testPhoto))
    #expect(now.encryptedFiles == (stage == .photoConverted ? 2 : 0))
    #expect(try photos(in: vault, tidy: true) == ((0..<3).map(testPhoto), committed ? 0 : 3))
    #expect(!vault.photoConversionPending)
}

@Test(arguments: ["on", "off"])
func aProcessKilledAtRandomMomentsWhileChangingTheLockNeverLosesTheVaultOrAPhoto(to: String) throws {
    // Kills without a stopping point: wherever the copy, a photo, a sync or a rename happens to be.
    for delay in [3, 8, 15, 25, 40, 60, 90] {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let vault = try makeVaultWithNotes(in: dir, rows: 20_000, photos: 60)
        if to == "off" {
            try vault.turnLockOn(
                database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
                keyDerivation: cheapDerivation()
            ).close()
        }
        let child = try ChildProcess.launch(role: "lock-change", directory: dir.url, extra: ["CAIRN_LOCK_TO": to])
        #expect(ChildProcess.waitForFile(dir.url.appendingPathComponent("started").path, process: child))
        usleep(UInt32(delay * 1000))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(try noteCount(in: vault) == 20_000, "killed after \(delay) ms")
        let locked = try vault.lockSetting() == .on
        #expect(vault.databaseIsEncrypted == locked)
        let seen = try photos(in: vault)
        #expect(seen.photos == (0..<60).map(testPhoto), "killed after \(delay) ms")
        #expect(try photos(in: vault, tidy: true).encryptedFiles == (locked ? 60 : 0), "killed after \(delay) ms")
    }
}

@Test func aLockedVaultsPhotosStillOpenWhenVaultIDIsLostBecauseTheHeaderNamesTheVault() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir)
    try vault.turnLockOn(
        database: try vault.openDatabase(), passphrase: Passphrase(vaultPassphraseText),
        keyDerivation: cheapDerivation()
    ).close()
    try FileManager.default.removeItem(at: vault.directory.appendingPathComponent(Vault.identifierFileName))
    #expect(try photos(in: vault) == ((0..<3).map(testPhoto), 3))
}
