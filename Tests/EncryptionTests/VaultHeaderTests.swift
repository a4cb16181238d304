import Encryption
import Foundation
import Testing

/// The cheapest derivation a header may name, so the tests stay fast (Cairn writes `KeyDerivation.standard()`).
private func cheap() -> KeyDerivation { KeyDerivation(operations: 1, memoryBytes: 8192, salt: SecretKey.randomBytes(16))! }
private let headerVaultID = Array(UInt8(0)..<16)

/// Whether `a` and `b` are the same key (keys never leave `SecretKey`: compare what they seal).
private func sameKey(_ a: SecretKey, _ b: SecretKey) -> Bool {
    let nonce = [UInt8](repeating: 0, count: AEAD.nonceByteCount)
    return AEAD.seal([1, 2, 3], key: a, nonce: nonce, associatedData: []) == AEAD.seal([1, 2, 3], key: b, nonce: nonce, associatedData: [])
}

/// `bytes` with its SHA-256 checksum (offset 132) made right again after a change.
private func rechecksummed(_ bytes: [UInt8]) -> [UInt8] {
    var out = Array(bytes[0..<132])
    out += out.withUnsafeBytes { SHA256.digest($0) }
    return out
}

@Test func theDocumentsVaultHeaderWrittenByAnotherProgramUnlocks() throws {
    let v = try Vectors()
    let bytes = try v.bytes("vault-header")
    let header = try VaultHeader.parse(bytes)
    #expect(header.state == .on)
    #expect(header.vaultID == headerVaultID)
    #expect(header.keyDerivation?.operations == 1 && header.keyDerivation?.memoryBytes == 8192)
    let passphrase = try Passphrase(String(decoding: try v.bytes("vault-passphrase"), as: UTF8.self))
    let expected = try #require(SecretKey(bytes: try v.bytes("vault-key")))
    #expect(sameKey(try header.vaultKey(passphrase: passphrase), expected))
    #expect(header.bytes == bytes)
}

@Test func aVaultHeaderIsWrittenByTheDocumentedLayout() throws {
    let v = try Vectors()
    let bytes = try v.bytes("vault-header")
    let kdf = try #require(KeyDerivation(operations: 1, memoryBytes: 8192, salt: Array(bytes[44..<60])))
    let written = try VaultHeader.lockedForTest(
        vaultKey: try #require(SecretKey(bytes: try v.bytes("vault-key"))),
        passphrase: Passphrase(String(decoding: try v.bytes("vault-passphrase"), as: UTF8.self)),
        vaultID: headerVaultID, keyDerivation: kdf, nonce: Array(bytes[60..<84]))
    #expect(written.bytes == bytes)
    #expect(VaultHeader.unlocked(.turnedOff, vaultID: headerVaultID).bytes == (try v.bytes("vault-header-off")))
    #expect(try VaultHeader.parse(try v.bytes("vault-header-off")).state == .turnedOff)
}

@Test func theThreeLockStatesAreDistinctAndSurviveARoundTrip() throws {
    let on = try VaultHeader.locked(vaultKey: .random(), passphrase: Passphrase("pass"), vaultID: headerVaultID, keyDerivation: cheap())
    let headers = [on, VaultHeader.unlocked(.turnedOff, vaultID: headerVaultID), VaultHeader.unlocked(.declined, vaultID: headerVaultID)]
    #expect(Set(headers.map { $0.bytes }).count == 3)
    for header in headers {
        #expect(header.bytes.count == VaultHeader.byteCount)
        #expect(try VaultHeader.parse(header.bytes) == header)
    }
    #expect(throws: EncryptionError.vaultNotLocked) { try headers[1].vaultKey(passphrase: Passphrase("pass")) }
}

@Test func aWrongPassphraseIsAClearErrorThatSaysNothingOfHowItDiffers() throws {
    let key = SecretKey.random()
    let header = try VaultHeader.locked(vaultKey: key, passphrase: Passphrase("correct horse"), vaultID: headerVaultID, keyDerivation: cheap())
    for wrong in ["correct hors", "correct horse ", "Correct horse", "x"] {
        #expect(throws: EncryptionError.wrongVaultPassphrase) { try header.vaultKey(passphrase: Passphrase(wrong)) }
    }
    #expect(EncryptionError.wrongVaultPassphrase.userMessage == "That passphrase does not unlock this vault. Nothing was changed.")
    #expect(sameKey(try header.vaultKey(passphrase: Passphrase("correct horse")), key))
}

@Test func aHeaderAskingForA64GiBDerivationIsRefusedBeforeAnythingIsAllocated() throws {
    let header = try VaultHeader.locked(vaultKey: .random(), passphrase: Passphrase("pass"), vaultID: headerVaultID, keyDerivation: cheap())
    var bytes = header.bytes
    let memory = UInt64(64) << 30
    for i in 0..<8 { bytes[36 + i] = UInt8(truncatingIfNeeded: memory >> (56 - 8 * UInt64(i))) }
    let crafted = try VaultHeader.parse(rechecksummed(bytes))
    #expect(crafted.keyDerivation?.memoryBytes == memory)
    #expect(throws: EncryptionError.keyDerivationTooCostly) { try crafted.vaultKey(passphrase: Passphrase("pass")) }
    // So is one asking for a million passes.
    bytes = header.bytes
    bytes[32] = 0
    bytes[33] = 0x0f
    bytes[34] = 0x42
    bytes[35] = 0x40
    #expect(throws: EncryptionError.keyDerivationTooCostly) {
        try VaultHeader.parse(rechecksummed(bytes)).vaultKey(passphrase: Passphrase("pass"))
    }
}

@Test func aChangedHeaderIsDamagedOrDoesNotUnlock() throws {
    let header = try VaultHeader.locked(vaultKey: .random(), passphrase: Passphrase("pass"), vaultID: headerVaultID, keyDerivation: cheap())
    let original = header.bytes
    for offset in [0, 8, 9, 12, 40, 50, 70, 100, 140] {
        var bytes = original
        bytes[offset] ^= 0x01
        #expect(throws: (any Error).self, "byte \(offset)") { try VaultHeader.parse(bytes) }
    }
    // With its checksum made right again (anyone can), a changed state, vault or salt still does not unlock.
    for offset in [12, 50, 100] {
        var bytes = original
        bytes[offset] ^= 0x01
        #expect(throws: EncryptionError.wrongVaultPassphrase, "byte \(offset)") {
            try VaultHeader.parse(rechecksummed(bytes)).vaultKey(passphrase: Passphrase("pass"))
        }
    }
    #expect(throws: EncryptionError.notVaultHeader) { try VaultHeader.parse(Array(original.prefix(100))) }
}

@Test func changingThePassphraseRewrapsTheSameKey() throws {
    let key = SecretKey.random()
    let header = try VaultHeader.locked(vaultKey: key, passphrase: Passphrase("old"), vaultID: headerVaultID, keyDerivation: cheap())
    #expect(throws: EncryptionError.wrongVaultPassphrase) {
        try header.rewrapped(passphrase: Passphrase("wrong"), newPassphrase: Passphrase("new"), keyDerivation: cheap())
    }
    let changed = try header.rewrapped(passphrase: Passphrase("old"), newPassphrase: Passphrase("new"), keyDerivation: cheap())
    #expect(changed.keyDerivation?.salt != header.keyDerivation?.salt)
    #expect(sameKey(try changed.vaultKey(passphrase: Passphrase("new")), key))
    #expect(throws: EncryptionError.wrongVaultPassphrase) { try changed.vaultKey(passphrase: Passphrase("old")) }
}

@Test func theStandardDerivationCostsAtLeast64MiB() {
    let standard = KeyDerivation.standard()
    #expect(standard.memoryBytes >= 64 << 20)
    #expect(standard.isWithinReadLimit)
}
