internal import CSodium
import Foundation

/// A 256-bit symmetric key, wiped from memory when the last reference goes.
public final class SecretKey: @unchecked Sendable {
    /// The key length in bytes (32).
    public static let byteCount = 32
    private var storage: [UInt8]

    /// A fresh key from the operating system's random source.
    public static func random() -> SecretKey { SecretKey(taking: Sodium.randomBytes(byteCount)) }

    /// A key holding exactly these 32 bytes (a test vector, an unwrapped key). Nil for another length.
    public convenience init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.init(taking: bytes)
    }

    init(taking bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        storage = bytes
    }

    deinit { Sodium.wipe(&storage) }

    /// Runs `body` with the key's bytes; they must not escape it.
    func withBytes<T>(_ body: (UnsafePointer<UInt8>) throws -> T) rethrows -> T {
        try storage.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}

/// A passphrase the person typed or a script passed in a file, as UTF-8 bytes, wiped when released. Never
/// printed and never stored.
public final class Passphrase: @unchecked Sendable {
    private var storage: [UInt8]

    /// The passphrase `text` (taken as typed: no trimming, no normalisation). Throws `emptyPassphrase`.
    public init(_ text: String) throws {
        storage = Array(text.utf8)
        guard !storage.isEmpty else { throw EncryptionError.emptyPassphrase }
    }

    deinit { Sodium.wipe(&storage) }

    /// Its length in characters.
    public var characterCount: Int { String(decoding: storage, as: UTF8.self).count }

    /// Whether two passphrases are the same (constant time for equal lengths).
    public func matches(_ other: Passphrase) -> Bool {
        guard storage.count == other.storage.count else { return false }
        return sodium_memcmp(storage, other.storage, storage.count) == 0
    }

    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try storage.withUnsafeBufferPointer(body)
    }
}

extension SecretKey {
    /// `count` random bytes that are not a key (an identifier, a salt), from the same source as keys.
    public static func randomBytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }
}
