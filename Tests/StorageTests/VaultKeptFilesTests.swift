import Encryption
import Foundation
import Testing

@testable import Storage

/// The phone session's key file follows the lock as the photos do: sealed under the vault key when the lock goes on,
/// plain again when it goes off, readable throughout.
@Test func aKeptFileIsSealedWhenTheLockGoesOnAndPlainAgainWhenItGoesOff() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let vault = try makeVaultWithNotes(in: dir, rows: 1, photos: 1)
    let secret = Data("-----BEGIN EC PRIVATE KEY-----\nnot really a key\n".utf8)
    let path = vault.directory.appendingPathComponent(Vault.phoneIdentityFileName)
    do {
        let plain = try vault.openDatabase()
        try vault.writeKeptFile(secret, named: Vault.phoneIdentityFileName, database: plain)
        #expect(try Data(contentsOf: path) == secret)
        let locked = try vault.turnLockOn(database: plain, passphrase: Passphrase(vaultPassphraseText), keyDerivation: cheapDerivation())
        #expect(EncryptedPhoto.isEncrypted(try Data(contentsOf: path)))
        #expect(try vault.readKeptFile(named: Vault.phoneIdentityFileName, database: locked) == secret)
        let unlocked = try vault.turnLockOff(database: locked, passphrase: Passphrase(vaultPassphraseText))
        defer { unlocked.close() }
        #expect(try Data(contentsOf: path) == secret)
        #expect(try vault.readKeptFile(named: Vault.phoneIdentityFileName, database: unlocked) == secret)
    }
}
