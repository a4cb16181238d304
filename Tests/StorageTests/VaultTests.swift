import CairnCore
import Foundation
import Testing

@testable import Storage

@Test func resolvesTheDataDirectoryInPrecedenceOrder() throws {
    let all = ["CAIRN_HOME": "/c", "XDG_DATA_HOME": "/x", "HOME": "/h"]
    #expect(try Vault.resolveDirectory(dataDir: "/d", environment: all).path == "/d")
    #expect(try Vault.resolveDirectory(dataDir: nil, environment: all).path == "/c")
    #expect(try Vault.resolveDirectory(dataDir: "", environment: all).path == "/c")
    #expect(try Vault.resolveDirectory(dataDir: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).path == "/x/cairn")
    #expect(
        try Vault.resolveDirectory(dataDir: nil, environment: ["CAIRN_HOME": "", "XDG_DATA_HOME": "", "HOME": "/h"]).path
            == "/h/.local/share/cairn")
    #expect(
        try Vault.resolveDirectory(dataDir: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]).path
            == "/h/.local/share/cairn")
    #expect(throws: VaultError.noHomeDirectory) { try Vault.resolveDirectory(dataDir: nil, environment: [:]) }
}

@Test func createsTheDirectoryPrivateAndTightensALooserOne() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let target = dir.url.appendingPathComponent("nested/cairn")
    let vault = try Vault(dataDir: target.path, environment: [:])
    #expect(FileModes.permissions(atPath: vault.directory.path) == 0o700)
    #expect(FileModes.permissions(atPath: vault.photosDirectory.path) == 0o700)
    chmod(vault.directory.path, 0o755)
    _ = try Vault(directory: target)
    #expect(FileModes.permissions(atPath: vault.directory.path) == 0o700)
}

@Test func refusesAPathThatIsAFile() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let file = dir.url.appendingPathComponent("plain")
    try Data("x".utf8).write(to: file)
    let error = try #require(throws: VaultError.self) { _ = try Vault(directory: file) }
    #expect(!error.userMessage.contains(dir.path))
    #expect(!error.description.contains(dir.path))
}

@Test func opensTheDatabaseAtTodaysSchemaWithPrivateFiles() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url.appendingPathComponent("v"))
    let database = try vault.openDatabase()
    defer { database.close() }
    #expect(database.path == vault.databaseURL.path)
    #expect(try Migrator(CairnSchema.migrations).pendingIDs(in: database).isEmpty)
    try database.write { try $0.execute("INSERT INTO settings VALUES (?, ?)", "k", "v") }
    let store = PhotoFileStore(vault: vault, database: database)
    try store.write(Data([1, 2, 3]), purpose: "skin", mediaType: .png, width: 1, height: 1) { _ in }
    for file in filesUnder(vault.directory) {
        #expect(FileModes.permissions(atPath: vault.directory.appendingPathComponent(file).path) == 0o600, "\(file)")
    }
    #expect(filesUnder(vault.directory).contains("cairn.sqlite-wal"))
}

@Test func deleteAllDataLeavesAnEmptyVaultThatReopensCleanly() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url.appendingPathComponent("v"))
    let database = try vault.openDatabase()
    let store = PhotoFileStore(vault: vault, database: database)
    try database.write { try $0.execute("INSERT INTO settings VALUES (?, ?)", "onboarded", "true") }
    for _ in 0..<3 { try store.write(Data(repeating: 9, count: 100), purpose: "skin", mediaType: .jpeg, width: 2, height: 2) { _ in } }
    try vault.deleteAllData(database: database)
    #expect(filesUnder(vault.photosDirectory).isEmpty)
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM settings", as: Int.self) } == 0)
    #expect(try database.read { try $0.scalar("SELECT count(*) FROM photos", as: Int.self) } == 0)
    #expect(try Migrator(CairnSchema.migrations).pendingIDs(in: database).isEmpty)
    try store.write(Data([1]), purpose: "skin", mediaType: .jpeg, width: 1, height: 1) { _ in }
    database.close()
    let reopened = try vault.openDatabase()
    defer { reopened.close() }
    #expect(try reopened.read { try $0.scalar("SELECT count(*) FROM photos", as: Int.self) } == 1)
    #expect(FileModes.permissions(atPath: vault.directory.path) == 0o700)
}

@Test func deleteAllDataRemovesTheTemporaryFilesAndWhatWasKeptAsideButKeepsTheVaultsOwnFiles() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url.appendingPathComponent("v"))
    let database = try vault.openDatabase()
    let id = try vault.identifier()
    for name in [".health-upload-1234", ".health-import-abcd.lock", ".backup-5678.sqlite"] {
        try Data("private".utf8).write(to: vault.directory.appendingPathComponent(name))
    }
    // A photo file once kept aside is the person's data too.
    let keptAside = vault.lostAndFoundURL.appendingPathComponent("20261207-101010/photos/ab")
    try FileManager.default.createDirectory(at: keptAside, withIntermediateDirectories: true)
    try Data("photo".utf8).write(to: keptAside.appendingPathComponent("x.jpg"))
    try vault.deleteAllData(database: database)
    #expect(Set(filesUnder(vault.directory)).isSubset(of: ["cairn.sqlite", "cairn.sqlite-wal", "cairn.sqlite-shm", "owner.lock", "vault.id"]))
    #expect(try vault.identifier() == id)
}

@Test func deleteAllDataRefusesADatabaseFromAnotherVault() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try Vault(directory: dir.url.appendingPathComponent("a"))
    let other = try Vault(directory: dir.url.appendingPathComponent("b")).openDatabase()
    defer { other.close() }
    #expect(throws: DatabaseError.self) { try vault.deleteAllData(database: other) }
}

@Test func vaultErrorMessagesArePlainAndFreeOfBannedWords() {
    for error in [VaultError.noHomeDirectory, .directoryUnusable("x"), .fileOperationFailed("y")] {
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
        #expect(!error.userMessage.isEmpty)
    }
}
