internal import CSodium
import Foundation

/// A photo file of a locked vault (docs/ENCRYPTION.md, "Photo files"): a 52-byte header, then the photo as a
/// libsodium secretstream (XChaCha20-Poly1305, 64 KiB chunks, the last tagged final) under a key derived from the
/// vault key. Every chunk authenticates the header's first 28 bytes (magic, version, the vault identifier) and the
/// photo's identifier, so a file moved under another photo's name, or taken from another vault, does not open.
public enum EncryptedPhoto {
    /// The first eight bytes of every encrypted photo file.
    public static let magic: [UInt8] = Array("CAIRNPHO".utf8)
    /// The format version this Cairn writes and reads.
    public static let version: UInt8 = 1
    /// The header's length: magic, version, 3 reserved bytes, the vault identifier, secretstream's header.
    public static let headerByteCount = 28 + EncryptedFileHeader.streamHeaderByteCount
    /// `crypto_kdf_derive_from_key`'s context and subkey number for the photo key.
    static let keyContext = "cairnpht"
    static let keyNumber: UInt64 = 1

    /// Whether `file` starts like an encrypted photo (a JPEG, PNG, HEIC or WebP never does).
    public static func isEncrypted(_ file: Data) -> Bool { file.starts(with: magic) }

    /// `photo` encrypted for the photo `photoID` of the vault `vaultID` whose key is `vaultKey`.
    public static func seal(_ photo: Data, photoID: String, vaultID: [UInt8], vaultKey: SecretKey) throws -> Data {
        precondition(vaultID.count == EncryptedFileHeader.vaultIDByteCount)
        var out = Data()
        out.reserveCapacity(sealedByteCount(plaintext: photo.count))
        let prefix = headerPrefix(vaultID: vaultID)
        let writer = try EncryptingWriter(
            key: photoKey(from: vaultKey), associatedData: prefix + Array(photoID.utf8),
            sink: { piece in
                if let base = piece.baseAddress { out.append(base.assumingMemoryBound(to: UInt8.self), count: piece.count) }
            }, header: { prefix + $0 })
        try writer.write(photo)
        try writer.finish()
        return out
    }

    /// The photo in `file`, which must be the photo `photoID` of the vault `vaultID` under `vaultKey`. Throws
    /// `notEncryptedFile` (no header), `unsupportedVersion`, `damaged` (another vault's or photo's file, a changed
    /// byte), `truncated` (cut short, or its last chunk altered), `trailingData`. Nothing is returned unchecked.
    public static func open(_ file: Data, photoID: String, vaultID: [UInt8], vaultKey: SecretKey) throws -> Data {
        guard file.count >= headerByteCount, isEncrypted(file) else { throw EncryptionError.notEncryptedFile }
        let header = [UInt8](file.prefix(headerByteCount))
        guard header[8] == version else { throw EncryptionError.unsupportedVersion(header[8]) }
        let prefix = headerPrefix(vaultID: vaultID)
        guard Array(header[0..<prefix.count]) == prefix else { throw EncryptionError.damaged }
        let reader = try DecryptingReader(
            streamHeader: Array(header[prefix.count...]), key: photoKey(from: vaultKey),
            associatedData: prefix + Array(photoID.utf8),
            source: byteSource(file.dropFirst(headerByteCount)))
        // The plaintext is always shorter than the stream that carries it.
        var plain = [UInt8](repeating: 0, count: file.count - headerByteCount)
        let count = try plain.withUnsafeMutableBytes { try reader.read(into: $0) }
        guard try reader.isAtEnd() else { throw EncryptionError.trailingData }
        return Data(plain[0..<count])
    }

    /// The size of the file `seal` writes for a photo of `plaintext` bytes.
    public static func sealedByteCount(plaintext: Int) -> Int {
        headerByteCount + plaintext + (plaintext / encryptedChunkByteCount + 1) * chunkOverhead
    }

    /// The photo key: `crypto_kdf_derive_from_key(32, 1, "cairnpht", vault key)`, so the photos' cipher never
    /// shares a key with the database pages'.
    static func photoKey(from vaultKey: SecretKey) -> SecretKey {
        Sodium.ready()
        var bytes = [UInt8](repeating: 0, count: SecretKey.byteCount)
        _ = vaultKey.withBytes { crypto_kdf_derive_from_key(&bytes, bytes.count, keyNumber, keyContext, $0) }
        return SecretKey(taking: bytes)
    }

    /// Bytes 0..<28 of the header: the magic, the version, three zero bytes, the vault identifier.
    static func headerPrefix(vaultID: [UInt8]) -> [UInt8] { magic + [version, 0, 0, 0] + vaultID }
}
