internal import CSodium
import CairnCore
import Foundation

/// libsodium, started once per process. Every entry point of this module calls `Sodium.ready()` first.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Starts libsodium (idempotent, thread-safe); false only when the library cannot work on this machine.
    @discardableResult
    static func ready() -> Bool { initialised }

    /// `count` bytes from the operating system's random source.
    static func randomBytes(_ count: Int) -> [UInt8] {
        ready()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Overwrites `bytes` with zeros in a way the compiler cannot drop.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
        }
    }
}

/// The native library this module owns, as `cairn doctor` reports it.
public enum EncryptionLibraries {
    /// libsodium, with the version that loaded.
    public static func statuses() -> [ComponentStatus] {
        [
            ComponentStatus(
                name: "libsodium", role: "encryption and hashing", present: Sodium.ready(),
                version: String(cString: sodium_version_string()))
        ]
    }
}

/// Lowercase hex, for digests and test vectors.
public enum Hex {
    /// `bytes` as lowercase hex.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells (whitespace ignored), or nil when it is not an even run of hex digits.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = text.unicodeScalars.filter { !$0.properties.isWhitespace }
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for scalar in digits {
            guard let value = UInt8(String(scalar), radix: 16) else { return nil }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }
}
