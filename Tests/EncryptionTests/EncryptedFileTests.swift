import Encryption
import Foundation
import Testing

/// The cheapest parameters a reader accepts, so the tests stay fast (what Cairn writes is `standard()`).
func cheapDerivation() -> KeyDerivation {
    KeyDerivation(operations: 1, memoryBytes: 8192, salt: (0..<16).map { _ in UInt8.random(in: 0...255) })!
}

let vaultID: [UInt8] = Array(0..<16)

/// Encrypts `plaintext`, handing it to the writer in pieces of `piece` bytes.
func encrypt(_ plaintext: [UInt8], passphrase: String = "correct horse", piece: Int = 10_000) throws -> [UInt8] {
    var file: [UInt8] = []
    let writer = try EncryptingWriter(
        passphrase: try Passphrase(passphrase), kind: .vaultBackup, vaultID: vaultID,
        keyDerivation: cheapDerivation()
    ) { file.append(contentsOf: $0) }
    var offset = 0
    while offset < plaintext.count {
        let end = min(plaintext.count, offset + piece)
        try plaintext[offset..<end].withUnsafeBytes { try writer.write($0) }
        offset = end
    }
    try writer.finish()
    return file
}

/// A source reading `bytes` in reads of at most `step` bytes (a slow pipe gives short reads).
func source(_ bytes: [UInt8], step: Int = 1 << 20) -> ByteSource {
    var offset = 0
    return { buffer in
        let n = min(buffer.count, bytes.count - offset, step)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
        offset += n
        return n
    }
}

/// Decrypts a whole file.
func decrypt(_ file: [UInt8], passphrase: String = "correct horse", step: Int = 1 << 20) throws -> [UInt8] {
    let input = source(file, step: step)
    let header = try DecryptingReader.readHeader(from: input)
    let reader = try DecryptingReader(header: header, passphrase: try Passphrase(passphrase), source: input)
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 7_777)
    while true {
        let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if n == 0 { return out }
        out += buffer[0..<n]
    }
}

private let chunk = encryptedChunkByteCount
private func content(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) } }

@Test(arguments: [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 12_345])
func contentOfAnyLengthComesBackExactly(length: Int) throws {
    let plaintext = content(length)
    let file = try encrypt(plaintext)
    let chunks = max(1, (length + chunk) / chunk)
    #expect(file.count == EncryptedFileHeader.byteCount + length + 17 * chunks)
    #expect(try decrypt(file) == plaintext)
    #expect(try decrypt(file, step: 1000) == plaintext)
}

@Test func theHeaderSaysWhatTheFileIsWithoutThePassphrase() throws {
    let file = try encrypt(content(10))
    let header = try DecryptingReader.readHeader(from: source(file))
    #expect(header.kind == EncryptedFileHeader.Kind.vaultBackup.rawValue)
    #expect(header.vaultID == vaultID)
    #expect(header.keyDerivation.operations == 1)
    #expect(Array(file[0..<8]) == Array("CAIRNENC".utf8))
}

@Test func aWrongPassphraseIsSaidAsSuch() throws {
    let file = try encrypt(content(100))
    #expect(throws: EncryptionError.wrongPassphrase) { try decrypt(file, passphrase: "correct horsE") }
}

@Test func aFlippedBitAnywhereIsAnErrorNeverGarbage() throws {
    let file = try encrypt(content(2 * chunk + 500))
    let body = EncryptedFileHeader.byteCount
    // In the header's checked fields, in the wrapped key, in each chunk, in the last byte.
    for (offset, expected) in [
        (20, EncryptionError.headerDamaged), (100, .headerDamaged), (body + 5, .damaged),
        (body + chunk + 17 + 99, .damaged), (file.count - 1, .truncated),
    ] {
        var altered = file
        altered[offset] ^= 0x10
        #expect(throws: expected, "offset \(offset)") { try decrypt(altered) }
    }
}

@Test func aFileCutShortIsIncompleteWhereverItIsCut() throws {
    let file = try encrypt(content(2 * chunk + 500))
    let boundary = EncryptedFileHeader.byteCount + 2 * (chunk + 17)
    for length in [boundary, boundary - (chunk + 17), boundary + 10, file.count - 1] {
        #expect(throws: EncryptionError.truncated, "length \(length)") { try decrypt(Array(file[0..<length])) }
    }
    #expect(throws: EncryptionError.notEncryptedFile) { try decrypt(Array(file[0..<100])) }
}

@Test func chunksInAnotherOrderOrBytesAfterTheEndAreRefused() throws {
    let file = try encrypt(content(3 * chunk))
    let body = EncryptedFileHeader.byteCount
    let piece = chunk + 17
    var swapped = Array(file[0..<body])
    swapped += file[body + piece..<body + 2 * piece]
    swapped += file[body..<body + piece]
    swapped += file[(body + 2 * piece)...]
    #expect(throws: EncryptionError.damaged) { try decrypt(swapped) }
    // Bytes appended after the final chunk are read with it, so it fails its check: refused as a damaged end.
    #expect(throws: EncryptionError.truncated) { try decrypt(file + [0]) }
    #expect(throws: EncryptionError.self) { try decrypt(file + [UInt8](repeating: 7, count: 70_000)) }
}

@Test func aHeaderFromAnotherFileDoesNotOpenThisStream() throws {
    let one = try encrypt(content(chunk + 1000))
    let two = try encrypt(content(chunk + 1000))
    let spliced = Array(one[0..<EncryptedFileHeader.byteCount]) + two[EncryptedFileHeader.byteCount...]
    #expect(throws: EncryptionError.damaged) { try decrypt(spliced) }
}

@Test func aFileFromANewerCairnOrNotFromCairnIsNamedSo() throws {
    var file = try encrypt(content(10))
    #expect(throws: EncryptionError.notEncryptedFile) { try decrypt(Array("PK\u{3}\u{4} not ours".utf8) + file) }
    file[8] = 2
    #expect(throws: EncryptionError.unsupportedVersion(2)) { try decrypt(file) }
}
