internal import CSodium
import Foundation

/// SHA-256 through libsodium, for the content hash recorded with every photo file.
enum SHA256 {
    /// The digest of `data` as 64 lowercase hex characters.
    /// - Complexity: O(n).
    static func hexDigest(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress
            // Calling with a null pointer and length 0 is valid for the empty input.
            _ = crypto_hash_sha256(&digest, base, UInt64(raw.count))
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension SHA256 {
    /// The 32-byte digest of `bytes`.
    /// - Complexity: O(n).
    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        return digest
    }
}
