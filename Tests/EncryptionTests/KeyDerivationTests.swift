import Encryption
import Testing

private let salt = [UInt8](repeating: 7, count: 16)

@Test func theSameParametersAndPassphraseGiveTheSameKeyAndAnyChangeAnother() throws {
    let kdf = try #require(KeyDerivation(operations: 1, memoryBytes: 8192, salt: salt))
    let key = try kdf.deriveKey(from: Passphrase("hunter2 hunter2"))
    let again = try kdf.deriveKey(from: Passphrase("hunter2 hunter2"))
    let other = try kdf.deriveKey(from: Passphrase("hunter2 hunter3"))
    let otherSalt = try #require(KeyDerivation(operations: 1, memoryBytes: 8192, salt: [UInt8](repeating: 8, count: 16)))
    let nonce = [UInt8](repeating: 1, count: AEAD.nonceByteCount)
    func tag(_ k: SecretKey) -> [UInt8] { AEAD.seal([], key: k, nonce: nonce, associatedData: []) }
    #expect(tag(key) == tag(again))
    #expect(tag(key) != tag(other))
    #expect(tag(key) != tag(try otherSalt.deriveKey(from: Passphrase("hunter2 hunter2"))))
}

@Test func aHeaderAskingForSixtyFourGibibytesIsRefusedBeforeAnyMemoryIsTaken() throws {
    let greedy = try #require(KeyDerivation(operations: 3, memoryBytes: 64 << 30, salt: salt))
    #expect(!greedy.isWithinReadLimit)
    #expect(throws: EncryptionError.keyDerivationTooCostly) { try greedy.deriveKey(from: Passphrase("x")) }
    let slow = try #require(KeyDerivation(operations: 1_000_000, memoryBytes: 8192, salt: salt))
    #expect(throws: EncryptionError.keyDerivationTooCostly) { try slow.deriveKey(from: Passphrase("x")) }
}

@Test func whatCairnWritesIsAtLeastSixtyFourMebibytesAndWithinWhatItReads() {
    let standard = KeyDerivation.standard()
    #expect(standard.memoryBytes >= 64 << 20)
    #expect(standard.isWithinReadLimit)
    #expect(standard.salt != KeyDerivation.standard().salt)
}

@Test func parametersBelowArgon2sMinimumOrAShortSaltAreNotParameters() {
    #expect(KeyDerivation(operations: 0, memoryBytes: 8192, salt: salt) == nil)
    #expect(KeyDerivation(operations: 1, memoryBytes: 1024, salt: salt) == nil)
    #expect(KeyDerivation(operations: 1, memoryBytes: 8192, salt: [1, 2, 3]) == nil)
}

@Test func anEmptyPassphraseIsRefused() {
    #expect(throws: EncryptionError.emptyPassphrase) { try Passphrase("") }
}
