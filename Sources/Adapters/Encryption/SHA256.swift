internal import CSodium
import Foundation

/// SHA-256 through libsodium: the content hash recorded with every photo file and the digests of a backup's
/// manifest.
public enum SHA256 {
    /// The digest of `data` as 64 lowercase hex characters.
    /// - Complexity: O(n).
    public static func hexDigest(_ data: Data) -> String {
        Hex.encode(data.withUnsafeBytes { digest($0) })
    }

    /// The 32-byte digest of `bytes`.
    /// - Complexity: O(n).
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        Sodium.ready()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        // A null pointer with length 0 is valid for the empty input.
        _ = crypto_hash_sha256(&digest, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        return digest
    }
}

/// SHA-256 over bytes that arrive in pieces (a photo streamed out of a backup), in constant memory.
public struct SHA256Hasher {
    private var state = crypto_hash_sha256_state()

    /// A hasher that has seen nothing yet.
    public init() {
        Sodium.ready()
        _ = crypto_hash_sha256_init(&state)
    }

    /// Adds `bytes` to what was hashed so far.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        _ = crypto_hash_sha256_update(&state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The digest of everything added, as 64 lowercase hex characters. The hasher is spent afterwards.
    public mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256_final(&state, &digest)
        return Hex.encode(digest)
    }
}
