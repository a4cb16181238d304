internal import CSodium
import Foundation

/// Argon2id (version 1.3) parameters as an encrypted file's header stores them: the cost and the salt that turn
/// a passphrase into the key that wraps the file key.
public struct KeyDerivation: Sendable, Equatable {
    /// Passes over memory (Argon2's t).
    public let operations: UInt32
    /// Memory in bytes (Argon2's m, times 1024).
    public let memoryBytes: UInt64
    /// 16 random bytes, new for every file.
    public let salt: [UInt8]

    /// The salt length (16 bytes).
    public static let saltByteCount = Int(crypto_pwhash_SALTBYTES)

    /// What Cairn writes: 128 MiB and 3 passes, about 0.5 s on the 2-core reference machine (0.27 s for
    /// 64 MiB x 3 passes, 0.49 s for 128 MiB x 3, 1.3 s for 256 MiB x 3, measured with the machine busy). The
    /// issue asks for at least 64 MiB; more memory costs an attacker with many cores more than more passes do.
    public static func standard() -> KeyDerivation {
        KeyDerivation(operations: 3, memoryBytes: 128 << 20, salt: Sodium.randomBytes(saltByteCount))!
    }

    /// The most a header may ask for before Cairn refuses to read it: 1 GiB and 16 passes. A file with a
    /// header asking for more (a 64 GiB derivation would exhaust the machine) is refused before any memory
    /// is allocated (`EncryptionError.keyDerivationTooCostly`).
    public static let readLimit = (operations: UInt32(16), memoryBytes: UInt64(1) << 30)

    /// Parameters as read or chosen; nil when they are below Argon2id's minimum (1 pass, 8 KiB) or the salt is
    /// not 16 bytes. Values above `readLimit` are representable (a header may say anything) and refused by
    /// `deriveKey`.
    public init?(operations: UInt32, memoryBytes: UInt64, salt: [UInt8]) {
        guard operations >= UInt32(crypto_pwhash_OPSLIMIT_MIN), memoryBytes >= UInt64(crypto_pwhash_MEMLIMIT_MIN),
            salt.count == Self.saltByteCount
        else { return nil }
        self.operations = operations
        self.memoryBytes = memoryBytes
        self.salt = salt
    }

    /// Whether the parameters stay within `readLimit`.
    public var isWithinReadLimit: Bool {
        operations <= Self.readLimit.operations && memoryBytes <= Self.readLimit.memoryBytes
    }

    /// The 32-byte key `passphrase` gives under these parameters. Throws `keyDerivationTooCostly` above
    /// `readLimit` (checked first) and `keyDerivationFailed` when libsodium cannot get the memory.
    public func deriveKey(from passphrase: Passphrase) throws -> SecretKey {
        guard isWithinReadLimit else { throw EncryptionError.keyDerivationTooCostly }
        Sodium.ready()
        var key = [UInt8](repeating: 0, count: SecretKey.byteCount)
        let result = passphrase.withBytes { pass in
            pass.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash(
                    &key, UInt64(key.count), chars.baseAddress!, UInt64(chars.count), salt,
                    UInt64(operations), Int(memoryBytes), crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard result == 0 else {
            Sodium.wipe(&key)
            throw EncryptionError.keyDerivationFailed
        }
        return SecretKey(taking: key)
    }
}
