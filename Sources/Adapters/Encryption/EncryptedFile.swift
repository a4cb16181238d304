internal import CSodium
import Foundation

/// The fixed header of every file Cairn encrypts (docs/ENCRYPTION.md, "Header"): what the file is, which vault
/// it belongs to, how the passphrase becomes a key, the wrapped file key and the stream's header, closed by a
/// checksum that tells a damaged header from a wrong passphrase.
public struct EncryptedFileHeader: Sendable, Equatable {
    /// The header's length on disk.
    public static let byteCount = 188
    /// The first eight bytes of every Cairn encrypted file.
    public static let magic: [UInt8] = Array("CAIRNENC".utf8)
    /// The format version this Cairn writes and reads.
    public static let version: UInt8 = 1
    /// The length of a vault identifier.
    public static let vaultIDByteCount = 16
    /// What the file holds.
    public enum Kind: UInt8, Sendable {
        /// A backup of a whole vault (docs/ENCRYPTION.md, "Backup content").
        case vaultBackup = 1
    }

    static let kdfArgon2id13: UInt8 = 1
    static let streamHeaderByteCount = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    /// Bytes 0..<60 are the wrapped key's associated data.
    static let wrappedKeyOffset = 60
    static let streamHeaderOffset = 132
    static let checksumOffset = 156

    /// What the file holds (kept as read: a kind this Cairn does not know is the caller's refusal).
    public let kind: UInt8
    /// The vault the content belongs to (zeros when none).
    public let vaultID: [UInt8]
    /// How the passphrase becomes the wrapping key.
    public let keyDerivation: KeyDerivation
    /// The file key, wrapped by the passphrase's key.
    public let wrappedKey: WrappedKey
    /// secretstream's 24-byte header.
    public let streamHeader: [UInt8]

    init(kind: UInt8, vaultID: [UInt8], keyDerivation: KeyDerivation, wrappedKey: WrappedKey, streamHeader: [UInt8]) {
        self.kind = kind
        self.vaultID = vaultID
        self.keyDerivation = keyDerivation
        self.wrappedKey = wrappedKey
        self.streamHeader = streamHeader
    }

    /// The bytes the wrapped key authenticates: magic to salt (offsets 0..<60).
    static func associatedData(kind: UInt8, vaultID: [UInt8], keyDerivation: KeyDerivation) -> [UInt8] {
        var out = magic
        out += [version, kind, 0, 0]
        out += vaultID
        out += [kdfArgon2id13, 0, 0, 0]
        out += bigEndian(keyDerivation.operations)
        out += bigEndian(keyDerivation.memoryBytes)
        out += keyDerivation.salt
        return out
    }

    /// The header as stored: the fields, then the SHA-256 of the first 156 bytes.
    public var bytes: [UInt8] {
        var out = Self.associatedData(kind: kind, vaultID: vaultID, keyDerivation: keyDerivation)
        out += wrappedKey.bytes
        out += streamHeader
        out += out.withUnsafeBytes { SHA256.digest($0) }
        return out
    }

    /// Reads a header. Throws `notEncryptedFile` (wrong magic or too short), `unsupportedVersion`, `headerDamaged`
    /// (checksum, reserved bytes or parameters out of their ranges). Does not judge the KDF's cost: that is
    /// `KeyDerivation.deriveKey`'s refusal, so a caller may still show what the header says.
    public static func parse(_ bytes: [UInt8]) throws -> EncryptedFileHeader {
        guard bytes.count >= byteCount, Array(bytes[0..<8]) == magic else { throw EncryptionError.notEncryptedFile }
        guard bytes[8] == version else { throw EncryptionError.unsupportedVersion(bytes[8]) }
        let checksum = bytes[0..<checksumOffset].withUnsafeBytes { SHA256.digest($0) }
        guard checksum == Array(bytes[checksumOffset..<byteCount]) else { throw EncryptionError.headerDamaged }
        guard bytes[10] == 0, bytes[11] == 0, bytes[28] == kdfArgon2id13, bytes[29...31].allSatisfy({ $0 == 0 }),
            let kdf = KeyDerivation(
                operations: UInt32(readBigEndian(bytes[32..<36])),
                memoryBytes: readBigEndian(bytes[36..<44]), salt: Array(bytes[44..<60])),
            let wrapped = WrappedKey(bytes: Array(bytes[wrappedKeyOffset..<streamHeaderOffset]))
        else {
            throw EncryptionError.headerDamaged
        }
        return EncryptedFileHeader(
            kind: bytes[9], vaultID: Array(bytes[12..<28]), keyDerivation: kdf,
            wrappedKey: wrapped, streamHeader: Array(bytes[streamHeaderOffset..<checksumOffset]))
    }

    /// The file key: derives the passphrase's key (refusing parameters above the read limit) and unwraps.
    func fileKey(passphrase: Passphrase) throws -> SecretKey {
        let wrappingKey = try keyDerivation.deriveKey(from: passphrase)
        return try wrappedKey.unwrap(
            with: wrappingKey,
            associatedData: Self.associatedData(
                kind: kind, vaultID: vaultID, keyDerivation: keyDerivation))
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Where encrypted bytes go (a file being written): called with each piece in order; throws to stop.
public typealias ByteSink = (UnsafeRawBufferPointer) throws -> Void
/// Where encrypted bytes come from (a file being read): fills up to the buffer's size, returns how many bytes it
/// put there, 0 only at the end.
public typealias ByteSource = (UnsafeMutableRawBufferPointer) throws -> Int

/// A `ByteSource` that gives the bytes of `data` in order, then 0.
public func byteSource(_ data: Data) -> ByteSource {
    var offset = data.startIndex
    return { buffer in
        let take = min(buffer.count, data.endIndex - offset)
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: offset..<offset + take)
        offset += take
        return take
    }
}

/// The plaintext chunk size of Cairn's streams (64 KiB): every chunk but the last holds exactly this much.
public let encryptedChunkByteCount = 64 * 1024
let chunkOverhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

/// Encrypts a stream of bytes of any length into Cairn's encrypted-file format in constant memory: the header,
/// then secretstream (XChaCha20-Poly1305) chunks of 64 KiB, the last one tagged final, so a reader can tell a
/// file cut short from a complete one.
public final class EncryptingWriter {
    private var state = crypto_secretstream_xchacha20poly1305_state()
    private let sink: ByteSink
    private let associatedData: [UInt8]
    private var buffer: [UInt8] = []
    private var output: [UInt8]
    private var finished = false

    /// Derives the passphrase's key (`keyDerivation`, `KeyDerivation.standard()` in use), makes a random file key,
    /// writes the header to `sink`. Bytes then go in through `write`; `finish` writes the final chunk.
    public convenience init(
        passphrase: Passphrase, kind: EncryptedFileHeader.Kind, vaultID: [UInt8],
        keyDerivation: KeyDerivation = .standard(), sink: @escaping ByteSink
    ) throws {
        precondition(vaultID.count == EncryptedFileHeader.vaultIDByteCount)
        let wrappingKey = try keyDerivation.deriveKey(from: passphrase)
        let fileKey = SecretKey.random()
        let associated = EncryptedFileHeader.associatedData(kind: kind.rawValue, vaultID: vaultID, keyDerivation: keyDerivation)
        let wrapped = WrappedKey(wrapping: fileKey, with: wrappingKey, associatedData: associated)
        try self.init(key: fileKey, associatedData: [], sink: sink) { streamHeader in
            EncryptedFileHeader(
                kind: kind.rawValue, vaultID: vaultID, keyDerivation: keyDerivation, wrappedKey: wrapped,
                streamHeader: streamHeader
            ).bytes
        }
    }

    /// A stream keyed with `key` whose every chunk also authenticates `associatedData`: `header` turns
    /// secretstream's 24-byte header into the bytes written to `sink` before the first chunk.
    init(key: SecretKey, associatedData: [UInt8], sink: @escaping ByteSink, header: ([UInt8]) -> [UInt8]) throws {
        Sodium.ready()
        self.sink = sink
        self.associatedData = associatedData
        var streamHeader = [UInt8](repeating: 0, count: EncryptedFileHeader.streamHeaderByteCount)
        var pushState = crypto_secretstream_xchacha20poly1305_state()
        _ = key.withBytes { crypto_secretstream_xchacha20poly1305_init_push(&pushState, &streamHeader, $0) }
        output = [UInt8](repeating: 0, count: encryptedChunkByteCount + chunkOverhead)
        state = pushState
        sodium_memzero(&pushState, MemoryLayout.size(ofValue: pushState))
        buffer.reserveCapacity(encryptedChunkByteCount)
        try header(streamHeader).withUnsafeBytes { try sink($0) }
    }

    deinit { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }

    /// Adds `bytes` to the stream; full chunks are encrypted and passed to the sink as they fill.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "write after finish")
        var offset = 0
        while offset < bytes.count {
            let take = min(encryptedChunkByteCount - buffer.count, bytes.count - offset)
            buffer.append(contentsOf: bytes[offset..<offset + take])
            offset += take
            if buffer.count == encryptedChunkByteCount { try push(final: false) }
        }
    }

    /// Adds `data` to the stream.
    public func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// Encrypts what is left as the final chunk (possibly empty). Nothing may be written afterwards.
    public func finish() throws {
        precondition(!finished, "finish called twice")
        try push(final: true)
        finished = true
    }

    private func push(final: Bool) throws {
        var written: UInt64 = 0
        let tag = final ? crypto_secretstream_xchacha20poly1305_tag_final() : crypto_secretstream_xchacha20poly1305_tag_message()
        _ = crypto_secretstream_xchacha20poly1305_push(
            &state, &output, &written, buffer, UInt64(buffer.count),
            associatedData, UInt64(associatedData.count), tag)
        buffer.removeAll(keepingCapacity: true)
        try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<Int(written)])) }
    }
}

/// Reads Cairn's encrypted-file format in constant memory: every chunk is authenticated before a byte of it is
/// returned, a file that ends before its final chunk is `truncated`, an altered chunk is `damaged`, bytes after
/// the final chunk are `trailingData`.
public final class DecryptingReader {
    private var state = crypto_secretstream_xchacha20poly1305_state()
    private let source: ByteSource
    private let associatedData: [UInt8]
    private var piece: [UInt8]
    private var plain: [UInt8]
    private var plainOffset = 0
    private var sawFinal = false

    /// Reads and parses the header from `source` (no passphrase needed: it says what the file is and whose).
    public static func readHeader(from source: ByteSource) throws -> EncryptedFileHeader {
        var bytes = [UInt8](repeating: 0, count: EncryptedFileHeader.byteCount)
        let count = try bytes.withUnsafeMutableBytes { try fill($0, from: source) }
        guard count == bytes.count else { throw EncryptionError.notEncryptedFile }
        return try EncryptedFileHeader.parse(bytes)
    }

    /// Opens the stream after `header` (already read from `source`) with `passphrase`. Throws
    /// `keyDerivationTooCostly`, `keyDerivationFailed`, `wrongPassphrase`.
    public convenience init(header: EncryptedFileHeader, passphrase: Passphrase, source: @escaping ByteSource) throws {
        try self.init(
            streamHeader: header.streamHeader, key: header.fileKey(passphrase: passphrase), associatedData: [],
            source: source)
    }

    /// Opens the stream that follows secretstream's `streamHeader` in `source`, keyed with `key`, every chunk
    /// authenticating `associatedData` too (a chunk written with other associated data is `damaged`).
    init(streamHeader: [UInt8], key: SecretKey, associatedData: [UInt8], source: @escaping ByteSource) throws {
        Sodium.ready()
        self.source = source
        self.associatedData = associatedData
        piece = [UInt8](repeating: 0, count: encryptedChunkByteCount + chunkOverhead)
        plain = []
        var pullState = crypto_secretstream_xchacha20poly1305_state()
        let ok = key.withBytes { crypto_secretstream_xchacha20poly1305_init_pull(&pullState, streamHeader, $0) }
        guard ok == 0 else { throw EncryptionError.headerDamaged }
        state = pullState
        sodium_memzero(&pullState, MemoryLayout.size(ofValue: pullState))
    }

    deinit { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }

    /// Fills `buffer` with the next plaintext bytes and returns how many; 0 only at the authenticated end of the
    /// stream (after the final chunk, with nothing after it).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            if plainOffset == plain.count {
                if sawFinal { break }
                try pull()
                continue
            }
            let take = min(buffer.count - filled, plain.count - plainOffset)
            plain.withUnsafeBytes { raw in
                (buffer.baseAddress! + filled).copyMemory(from: raw.baseAddress! + plainOffset, byteCount: take)
            }
            plainOffset += take
            filled += take
        }
        return filled
    }

    /// Exactly `count` bytes; nil when the stream ends first (the caller's format decides what that means).
    public func read(count: Int) throws -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        let got = try out.withUnsafeMutableBytes { try read(into: $0) }
        return got == count ? out : nil
    }

    /// Whether the stream has no more plaintext (reading on to check the final chunk and the end of the file).
    public func isAtEnd() throws -> Bool {
        while plainOffset == plain.count {
            if sawFinal { return true }
            try pull()
        }
        return false
    }

    private func pull() throws {
        let count = try piece.withUnsafeMutableBytes { try Self.fill($0, from: source) }
        // Ending exactly between chunks, before the final one: cut short at a chunk boundary.
        if count < chunkOverhead { throw EncryptionError.truncated }
        var written: UInt64 = 0
        var tag: UInt8 = 0
        plain = [UInt8](repeating: 0, count: count - chunkOverhead)
        let result = crypto_secretstream_xchacha20poly1305_pull(
            &state, &plain, &written, &tag, piece, UInt64(count),
            associatedData, UInt64(associatedData.count))
        guard result == 0 else {
            // A short piece is the end of the file: either a final chunk that was damaged or one cut mid-way.
            throw count < piece.count ? EncryptionError.truncated : EncryptionError.damaged
        }
        plainOffset = 0
        if tag == crypto_secretstream_xchacha20poly1305_tag_final() {
            sawFinal = true
            var probe: UInt8 = 0
            guard try withUnsafeMutableBytes(of: &probe, { try source($0) }) == 0 else { throw EncryptionError.trailingData }
        } else if count < piece.count {
            // A short chunk that is not final was not written by Cairn (every other chunk is full).
            throw EncryptionError.damaged
        }
    }

    static func fill(_ buffer: UnsafeMutableRawBufferPointer, from source: ByteSource) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try source(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
