import CairnApp
import CairnCore
import CairnTestSupport
import Encryption
import Foundation
import Testing

@Test func openingAVaultCreatesItPrivately() throws {
    let vault = try TestVault()
    let attributes = try FileManager.default.attributesOfItem(atPath: vault.directory.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    let database = try FileManager.default.attributesOfItem(atPath: vault.app.vault.databaseURL.path)
    #expect((database[.posixPermissions] as? NSNumber)?.intValue == 0o600)
}

@Test func openingAVaultSweepsFilesLeftByAnInterruptedWrite() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = scratch.file("vault").path
    let first = try CairnApplication.open(dataDirectory: path, environment: [:])
    let kept = try first.photoIntake.ingest(Data(contentsOf: SharedData.photo), purpose: "skin", database: first.database)
    // What a crash between "temp written" and "row committed" leaves: a temp file and an unreferenced photo.
    let leftovers = [
        first.vault.photosDirectory.appendingPathComponent(".tmp-crashed"),
        first.vault.photosDirectory.appendingPathComponent("ab/orphan.jpg"),
    ]
    try FileManager.default.createDirectory(at: leftovers[1].deletingLastPathComponent(), withIntermediateDirectories: true)
    for url in leftovers { try Data([0xFF, 0xD8, 0xFF]).write(to: url) }

    let second = try CairnApplication.open(dataDirectory: path, environment: [:])

    for url in leftovers { #expect(!FileManager.default.fileExists(atPath: url.path)) }
    #expect(FileManager.default.fileExists(atPath: try second.photoStore.fileURL(for: kept.full.id).path))
    #expect(FileManager.default.fileExists(atPath: try second.photoStore.fileURL(for: kept.thumbnail.id).path))
}

@Test func theDataDirectoryOptionWinsOverTheEnvironment() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let app = try CairnApplication.open(
        dataDirectory: scratch.file("explicit").path,
        environment: ["CAIRN_HOME": scratch.file("env").path])
    #expect(app.vault.directory.lastPathComponent == "explicit")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("env").path))
}

@Test func eachJournalsServiceIsMadeOnceAndSharedByEveryCaller() async throws {
    let vault = try TestVault()
    let app = vault.app
    // Made on first use, from whichever thread asks first: every caller gets the same one (Smile holds uploads
    // in memory between requests, so two would lose them).
    let smiles = await withTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<8 { group.addTask { ObjectIdentifier(app.smile) } }
        return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(smiles.count == 1)
    #expect(app.skin === app.skin && app.regimen === app.regimen && app.outcomes === app.outcomes)
    #expect(app.health === app.health && app.insights === app.insights)
}

@Test func turningTheLockOnEncryptsEveryPhotoAndAnOpenWithThePassphraseFinishesAConversionThatStopped() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = scratch.file("vault").path
    let photo = try Data(contentsOf: SharedData.photo)
    let plain = try CairnApplication.open(dataDirectory: path, environment: [:])
    let kept = try plain.photoIntake.ingest(photo, purpose: "skin", database: plain.database)
    let stored = try plain.photoStore.data(for: kept.full.id)
    let thumbnail = try plain.photoStore.data(for: kept.thumbnail.id)
    let fullURL = try plain.photoStore.fileURL(for: kept.full.id)
    try LockService.turnOn(plain, passphrase: Passphrase("a passphrase for the test"))
    #expect(try Data(contentsOf: fullURL).starts(with: Data("CAIRNPHO".utf8)))

    // What a turn-on killed in its photo phase leaves: the marker, and a photo file still plain.
    try stored.write(to: fullURL)
    try Data().write(to: URL(fileURLWithPath: path).appendingPathComponent(".photos-converting"))
    let locked = try CairnApplication.open(
        dataDirectory: path, environment: [:],
        passphrase: { try Passphrase("a passphrase for the test") })
    #expect(try Data(contentsOf: fullURL).starts(with: Data("CAIRNPHO".utf8)))
    #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).appendingPathComponent(".photos-converting").path))
    #expect(try locked.photoStore.data(for: kept.full.id) == stored)
    #expect(try locked.photoStore.data(for: kept.thumbnail.id) == thumbnail)
}
