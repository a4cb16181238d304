internal import CSodium
import Foundation

/// XChaCha20-Poly1305 (IETF construction, 24-byte nonce) for small messages: wrapping one key with another.
public enum AEAD {
    /// The nonce length (24 bytes).
    public static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The authentication tag length (16 bytes).
    public static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// `plaintext` encrypted under `key` and `nonce`, authenticating `associatedData` too: ciphertext then tag.
    /// The caller owns the nonce's uniqueness (random 24 bytes are safe).
    public static func seal(_ plaintext: [UInt8], key: SecretKey, nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        precondition(nonce.count == nonceByteCount)
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        var written: UInt64 = 0
        key.withBytes { k in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                &out, &written, plaintext, UInt64(plaintext.count),
                associatedData, UInt64(associatedData.count), nil, nonce, k)
        }
        return out
    }

    /// The plaintext of `sealed`, or nil when the tag does not verify (wrong key, altered bytes or data).
    public static func open(_ sealed: [UInt8], key: SecretKey, nonce: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        guard nonce.count == nonceByteCount, sealed.count >= tagByteCount else { return nil }
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: sealed.count - tagByteCount)
        var written: UInt64 = 0
        let result = key.withBytes { k in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &out, &written, nil, sealed, UInt64(sealed.count),
                associatedData, UInt64(associatedData.count), nonce, k)
        }
        return result == 0 ? out : nil
    }
}

/// A key encrypted under another key (a file key under the passphrase's key): a random nonce and the sealed
/// 32 bytes with their tag, 72 bytes in all. The associated data binds it to the header it sits in.
public struct WrappedKey: Sendable, Equatable {
    /// The length of a wrapped key on disk: 24-byte nonce + 32-byte key + 16-byte tag.
    public static let byteCount = AEAD.nonceByteCount + SecretKey.byteCount + AEAD.tagByteCount
    /// The random nonce.
    public let nonce: [UInt8]
    /// The sealed key and its tag.
    public let sealed: [UInt8]

    /// Wraps `key` under `wrappingKey`, authenticating `associatedData` (the header bytes before it).
    public init(wrapping key: SecretKey, with wrappingKey: SecretKey, associatedData: [UInt8]) {
        let nonce = Sodium.randomBytes(AEAD.nonceByteCount)
        self.nonce = nonce
        sealed = key.withBytes {
            AEAD.seal(
                Array(UnsafeBufferPointer(start: $0, count: SecretKey.byteCount)),
                key: wrappingKey, nonce: nonce, associatedData: associatedData)
        }
    }

    /// A wrapped key as read from a header (`bytes` is `byteCount` long).
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        nonce = Array(bytes[0..<AEAD.nonceByteCount])
        sealed = Array(bytes[AEAD.nonceByteCount...])
    }

    /// Nonce then sealed key, as stored.
    public var bytes: [UInt8] { nonce + sealed }

    /// The key inside. Throws `wrongPassphrase` when `wrappingKey` (or the associated data) is not the one it was
    /// wrapped with.
    public func unwrap(with wrappingKey: SecretKey, associatedData: [UInt8]) throws -> SecretKey {
        guard var plain = AEAD.open(sealed, key: wrappingKey, nonce: nonce, associatedData: associatedData) else {
            throw EncryptionError.wrongPassphrase
        }
        defer { Sodium.wipe(&plain) }
        return SecretKey(taking: plain)
    }
}
