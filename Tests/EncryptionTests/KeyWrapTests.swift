import Encryption
import Testing

@Test func aWrappedKeyUnwrapsOnlyWithItsKeyAndItsAssociatedData() throws {
    let fileKey = SecretKey.random()
    let wrappingKey = SecretKey.random()
    let wrapped = WrappedKey(wrapping: fileKey, with: wrappingKey, associatedData: [1, 2, 3])
    #expect(wrapped.bytes.count == WrappedKey.byteCount)
    let nonce = [UInt8](repeating: 9, count: AEAD.nonceByteCount)
    let unwrapped = try wrapped.unwrap(with: wrappingKey, associatedData: [1, 2, 3])
    #expect(AEAD.seal([5], key: unwrapped, nonce: nonce, associatedData: []) == AEAD.seal([5], key: fileKey, nonce: nonce, associatedData: []))
    #expect(throws: EncryptionError.wrongPassphrase) { try wrapped.unwrap(with: SecretKey.random(), associatedData: [1, 2, 3]) }
    #expect(throws: EncryptionError.wrongPassphrase) { try wrapped.unwrap(with: wrappingKey, associatedData: [1, 2, 4]) }
    var flipped = wrapped.bytes
    flipped[40] ^= 0x01
    let altered = try #require(WrappedKey(bytes: flipped))
    #expect(throws: EncryptionError.wrongPassphrase) { try altered.unwrap(with: wrappingKey, associatedData: [1, 2, 3]) }
}

@Test func twoWrapsOfOneKeyDifferBecauseEachHasItsOwnNonce() {
    let key = SecretKey.random()
    let wrappingKey = SecretKey.random()
    #expect(
        WrappedKey(wrapping: key, with: wrappingKey, associatedData: []).bytes
            != WrappedKey(wrapping: key, with: wrappingKey, associatedData: []).bytes)
}
