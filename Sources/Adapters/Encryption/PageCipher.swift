internal import CSodium
import Foundation

/// Seals and opens fixed-size pages in place with XChaCha20-Poly1305 (IETF), the nonce and tag kept in the last
/// `reservedByteCount` bytes of the page: how the database of an encrypted vault is stored (docs/ENCRYPTION.md,
/// "Database pages"). Every seal draws a fresh random 24-byte nonce, so a page written twice never reuses one.
public final class PageCipher: @unchecked Sendable {
    /// Bytes at the end of every page that hold its nonce (24) then its tag (16).
    public static let reservedByteCount = AEAD.nonceByteCount + AEAD.tagByteCount
    private let key: SecretKey

    /// A cipher over `key` (the vault key).
    public init(key: SecretKey) {
        Sodium.ready()
        self.key = key
    }

    /// Encrypts the first `count - reservedByteCount` bytes of `page` in place under a fresh random nonce,
    /// authenticating `associatedData`, and writes the nonce and the tag into the last `reservedByteCount` bytes.
    public func seal(
        page: UnsafeMutablePointer<UInt8>, count: Int, associatedData: UnsafePointer<UInt8>,
        associatedDataCount: Int
    ) {
        let body = count - Self.reservedByteCount
        precondition(body > 0)
        randombytes_buf(page + body, AEAD.nonceByteCount)
        sealWithStoredNonce(page: page, count: count, associatedData: associatedData, associatedDataCount: associatedDataCount)
    }

    /// `seal` with the nonce already in place (the test vectors fix it).
    func sealWithStoredNonce(
        page: UnsafeMutablePointer<UInt8>, count: Int, associatedData: UnsafePointer<UInt8>,
        associatedDataCount: Int
    ) {
        let body = count - Self.reservedByteCount
        let nonce = page + body
        let tag = nonce + AEAD.nonceByteCount
        key.withBytes { k in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
                page, tag, nil, page, UInt64(body), associatedData, UInt64(associatedDataCount), nil, nonce, k)
        }
    }

    /// Decrypts `page` in place when its tag verifies under the nonce stored in it and `associatedData`; false
    /// (and the page unchanged) when it does not: a wrong key, a changed byte, or a page from another place.
    public func open(
        page: UnsafeMutablePointer<UInt8>, count: Int, associatedData: UnsafePointer<UInt8>,
        associatedDataCount: Int
    ) -> Bool {
        let body = count - Self.reservedByteCount
        guard body > 0 else { return false }
        let nonce = page + body
        let tag = nonce + AEAD.nonceByteCount
        return key.withBytes { k in
            crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                page, nil, page, UInt64(body), tag, associatedData, UInt64(associatedDataCount), nonce, k) == 0
        }
    }
}

extension PageCipher {
    /// `page` sealed with a given 24-byte `nonce` (for known-answer tests; real pages use `seal`).
    public func sealedForTest(_ page: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        precondition(nonce.count == AEAD.nonceByteCount && page.count > Self.reservedByteCount)
        var out = page
        out.replaceSubrange((page.count - Self.reservedByteCount)..<(page.count - AEAD.tagByteCount), with: nonce)
        out.withUnsafeMutableBufferPointer { buffer in
            associatedData.withUnsafeBufferPointer { ad in
                sealWithStoredNonce(
                    page: buffer.baseAddress!, count: buffer.count, associatedData: ad.baseAddress!,
                    associatedDataCount: ad.count)
            }
        }
        return out
    }
}
