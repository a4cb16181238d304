import Foundation

/// The vault header, `vault.header` in the vault folder (docs/ENCRYPTION.md, "Vault header"): whether the person
/// turned the lock on, turned it off or said "Not now", and while it is on, how the passphrase becomes the key
/// that wraps the vault key (the key of the database's page cipher). No file at all means the lock was never set.
public struct VaultHeader: Sendable, Equatable {
    /// The header's length on disk.
    public static let byteCount = 164
    /// The first eight bytes of every vault header.
    public static let magic: [UInt8] = Array("CAIRNVLT".utf8)
    /// The format version this Cairn writes and reads.
    public static let version: UInt8 = 1

    /// What the person chose. Never-set has no header at all.
    public enum LockState: UInt8, Sendable {
        /// The lock is on: the database is encrypted with the vault key this header wraps.
        case on = 1
        /// The lock was on and the person turned it off (the database was decrypted).
        case turnedOff = 2
        /// Asked to choose a passphrase, the person said "Not now" (remembered, so Cairn does not ask again).
        case declined = 3
    }

    static let kdfArgon2id13: UInt8 = 1
    /// Bytes 0..<60 are the wrapped key's associated data.
    static let wrappedKeyOffset = 60
    static let checksumOffset = 132

    /// What the person chose.
    public let state: LockState
    /// The vault the header belongs to (its `vault.id`).
    public let vaultID: [UInt8]
    /// How the passphrase becomes the wrapping key (nil unless the lock is on).
    public let keyDerivation: KeyDerivation?
    /// The vault key, wrapped by the passphrase's key (nil unless the lock is on).
    public let wrappedKey: WrappedKey?

    private init(state: LockState, vaultID: [UInt8], keyDerivation: KeyDerivation?, wrappedKey: WrappedKey?) {
        precondition(vaultID.count == EncryptedFileHeader.vaultIDByteCount)
        self.state = state
        self.vaultID = vaultID
        self.keyDerivation = keyDerivation
        self.wrappedKey = wrappedKey
    }

    /// A header with the lock on: `vaultKey` wrapped under the key `passphrase` gives with `keyDerivation` (a
    /// fresh salt and `KeyDerivation.standard()` cost in use).
    public static func locked(
        vaultKey: SecretKey, passphrase: Passphrase, vaultID: [UInt8],
        keyDerivation: KeyDerivation = .standard()
    ) throws -> VaultHeader {
        let wrappingKey = try keyDerivation.deriveKey(from: passphrase)
        let associated = associatedData(state: .on, vaultID: vaultID, keyDerivation: keyDerivation)
        return VaultHeader(
            state: .on, vaultID: vaultID, keyDerivation: keyDerivation,
            wrappedKey: WrappedKey(wrapping: vaultKey, with: wrappingKey, associatedData: associated))
    }

    /// `locked` with a given wrap nonce (for known-answer tests; real headers draw a random one).
    public static func lockedForTest(
        vaultKey: SecretKey, passphrase: Passphrase, vaultID: [UInt8],
        keyDerivation: KeyDerivation, nonce: [UInt8]
    ) throws -> VaultHeader {
        let wrappingKey = try keyDerivation.deriveKey(from: passphrase)
        let associated = associatedData(state: .on, vaultID: vaultID, keyDerivation: keyDerivation)
        let sealed = vaultKey.withBytes {
            AEAD.seal(
                Array(UnsafeBufferPointer(start: $0, count: SecretKey.byteCount)), key: wrappingKey, nonce: nonce,
                associatedData: associated)
        }
        return VaultHeader(
            state: .on, vaultID: vaultID, keyDerivation: keyDerivation,
            wrappedKey: WrappedKey(bytes: nonce + sealed)!)
    }

    /// A header with the lock off (`turnedOff` or `declined`): no key derivation, no key.
    public static func unlocked(_ state: LockState, vaultID: [UInt8]) -> VaultHeader {
        precondition(state != .on)
        return VaultHeader(state: state, vaultID: vaultID, keyDerivation: nil, wrappedKey: nil)
    }

    /// The same vault key wrapped under `newPassphrase` (a new salt and nonce): what changing the passphrase
    /// writes. Nothing else changes. Throws `wrongVaultPassphrase` when `passphrase` is not the current one.
    public func rewrapped(
        passphrase: Passphrase, newPassphrase: Passphrase,
        keyDerivation: KeyDerivation = .standard()
    ) throws -> VaultHeader {
        let key = try vaultKey(passphrase: passphrase)
        return try Self.locked(vaultKey: key, passphrase: newPassphrase, vaultID: vaultID, keyDerivation: keyDerivation)
    }

    /// The vault key: derives the passphrase's key (refusing a cost above `KeyDerivation.readLimit` before
    /// allocating anything) and unwraps. Throws `wrongVaultPassphrase` for a passphrase that does not unwrap it
    /// (the message says nothing of how it differs), `keyDerivationTooCostly`, `keyDerivationFailed`.
    public func vaultKey(passphrase: Passphrase) throws -> SecretKey {
        guard state == .on, let keyDerivation, let wrappedKey else { throw EncryptionError.vaultNotLocked }
        let wrappingKey = try keyDerivation.deriveKey(from: passphrase)
        do {
            return try wrappedKey.unwrap(
                with: wrappingKey,
                associatedData: Self.associatedData(
                    state: state, vaultID: vaultID, keyDerivation: keyDerivation))
        } catch EncryptionError.wrongPassphrase {
            throw EncryptionError.wrongVaultPassphrase
        }
    }

    /// The bytes the wrapped key authenticates: magic to salt (offsets 0..<60).
    static func associatedData(state: LockState, vaultID: [UInt8], keyDerivation: KeyDerivation?) -> [UInt8] {
        var out = magic
        out += [version, state.rawValue, 0, 0]
        out += vaultID
        if let keyDerivation {
            out += [kdfArgon2id13, 0, 0, 0]
            out += bigEndian(keyDerivation.operations)
            out += bigEndian(keyDerivation.memoryBytes)
            out += keyDerivation.salt
        } else {
            out += [UInt8](repeating: 0, count: 32)
        }
        return out
    }

    /// The header as stored: the fields, then the SHA-256 of the first 132 bytes.
    public var bytes: [UInt8] {
        var out = Self.associatedData(state: state, vaultID: vaultID, keyDerivation: keyDerivation)
        out += wrappedKey?.bytes ?? [UInt8](repeating: 0, count: WrappedKey.byteCount)
        out += out.withUnsafeBytes { SHA256.digest($0) }
        return out
    }

    /// Reads a header. Throws `notVaultHeader` (wrong magic or length), `unsupportedVersion`, `vaultHeaderDamaged`
    /// (checksum, reserved bytes, state or parameters out of range). The cost is judged when the key is derived
    /// (`vaultKey`), so a header asking for 64 GiB parses and then refuses to be used.
    public static func parse(_ bytes: [UInt8]) throws -> VaultHeader {
        guard bytes.count == byteCount, Array(bytes[0..<8]) == magic else { throw EncryptionError.notVaultHeader }
        guard bytes[8] == version else { throw EncryptionError.unsupportedVersion(bytes[8]) }
        let checksum = bytes[0..<checksumOffset].withUnsafeBytes { SHA256.digest($0) }
        guard checksum == Array(bytes[checksumOffset..<byteCount]), bytes[10] == 0, bytes[11] == 0,
            let state = LockState(rawValue: bytes[9])
        else { throw EncryptionError.vaultHeaderDamaged }
        let vaultID = Array(bytes[12..<28])
        guard state == .on else {
            guard bytes[28..<checksumOffset].allSatisfy({ $0 == 0 }) else { throw EncryptionError.vaultHeaderDamaged }
            return unlocked(state, vaultID: vaultID)
        }
        guard bytes[28] == kdfArgon2id13, bytes[29...31].allSatisfy({ $0 == 0 }),
            let kdf = KeyDerivation(
                operations: UInt32(readBigEndian(bytes[32..<36])),
                memoryBytes: readBigEndian(bytes[36..<44]), salt: Array(bytes[44..<60])),
            let wrapped = WrappedKey(bytes: Array(bytes[wrappedKeyOffset..<checksumOffset]))
        else {
            throw EncryptionError.vaultHeaderDamaged
        }
        return VaultHeader(state: .on, vaultID: vaultID, keyDerivation: kdf, wrappedKey: wrapped)
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
