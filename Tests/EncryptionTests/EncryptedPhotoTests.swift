import Foundation
import Testing

@testable import Encryption

private let photoID = "3f2c9a10-5b7e-4c1d-9e8f-0a1b2c3d4e5f"
private let key = SecretKey(bytes: Array(160..<192))!
private let chunk = encryptedChunkByteCount
private func photo(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 10) }) }
private func seal(_ bytes: Data) throws -> Data { try EncryptedPhoto.seal(bytes, photoID: photoID, vaultID: vaultID, vaultKey: key) }
private func open(_ file: Data, id: String = photoID, vault: [UInt8] = vaultID, with k: SecretKey = key) throws -> Data {
    try EncryptedPhoto.open(file, photoID: id, vaultID: vault, vaultKey: k)
}

@Test(arguments: [1, 1_000, chunk - 1, chunk, chunk + 1, 3 * chunk + 4_321])
func aSealedPhotoOfAnySizeOpensToTheSameBytes(size: Int) throws {
    let bytes = photo(size)
    let file = try seal(bytes)
    #expect(file.count == EncryptedPhoto.sealedByteCount(plaintext: size))
    #expect(EncryptedPhoto.isEncrypted(file))
    #expect(!EncryptedPhoto.isEncrypted(bytes))
    #expect(try open(file) == bytes)
}

@Test func theFileHoldsNoneOfThePhotosBytesAndTwoSealsDiffer() throws {
    let bytes = Data("\u{FF}\u{D8}JFIF a recognisable run of text in the photo".utf8) + photo(20_000)
    let first = try seal(bytes)
    #expect(first.range(of: Data("a recognisable run".utf8)) == nil)
    #expect(try seal(bytes) != first)
}

@Test func aFileOfAnotherPhotoOrVaultOrUnderAnotherKeyDoesNotOpen() throws {
    let file = try seal(photo(5_000))
    #expect(throws: EncryptionError.self) { try open(file, id: "3f2c9a10-5b7e-4c1d-9e8f-0a1b2c3d4e50") }
    #expect(throws: EncryptionError.damaged) { try open(file, vault: Array(repeating: 9, count: 16)) }
    #expect(throws: EncryptionError.self) { try open(file, with: SecretKey.random()) }
}

@Test func aFlippedBitAnywhereIsAnErrorNeverOtherBytes() throws {
    let file = try seal(photo(2 * chunk + 700))
    // Every byte of the header, and bytes spread over the chunks (first, middle, last, the final tag).
    let positions = Array(0..<EncryptedPhoto.headerByteCount) + Array(stride(from: 60, to: file.count, by: 9_973)) + [file.count - 1]
    for position in positions {
        var altered = file
        altered[position] ^= 0x10
        #expect(throws: EncryptionError.self, "bit flipped at \(position)") { try open(altered) }
    }
}

@Test func aFileCutShortOrWithBytesAppendedIsRefused() throws {
    let file = try seal(photo(chunk + 3_000))
    for length in [
        0, 8, EncryptedPhoto.headerByteCount - 1, EncryptedPhoto.headerByteCount, EncryptedPhoto.headerByteCount + 16,
        EncryptedPhoto.headerByteCount + chunk + 17, file.count - 1,
    ] {
        #expect(throws: EncryptionError.self, "cut to \(length)") { try open(file.prefix(length)) }
    }
    #expect(throws: EncryptionError.truncated) { try open(file.prefix(EncryptedPhoto.headerByteCount + chunk + 17)) }
    #expect(throws: EncryptionError.self) { try open(file + Data([0])) }
    #expect(throws: EncryptionError.notEncryptedFile) { try open(photo(500)) }
}

@Test func aNewerFormatVersionIsSaid() throws {
    var file = try seal(photo(100))
    file[8] = 2
    #expect(throws: EncryptionError.unsupportedVersion(2)) { try open(file) }
}

@Test func theDocumentsPhotoFileWrittenByAnotherProgramOpensAndItsKeyIsTheDocumentsDerivation() throws {
    let v = try Vectors()
    let vaultKey = try #require(SecretKey(bytes: try v.bytes("photo-vault-key")))
    let id = String(decoding: try v.bytes("photo-id"), as: UTF8.self)
    let file = Data(try v.bytes("photo-file"))
    let plaintext = try v.bytes("photo-plaintext")
    #expect(try EncryptedPhoto.open(file, photoID: id, vaultID: try v.bytes("photo-vault-id"), vaultKey: vaultKey) == Data(plaintext))
    #expect(file.count == EncryptedPhoto.sealedByteCount(plaintext: plaintext.count))
    #expect(EncryptedPhoto.headerPrefix(vaultID: try v.bytes("photo-vault-id")) + Array(id.utf8) == (try v.bytes("photo-associated-data")))
    // The key never leaves SecretKey: compare what it seals with what the document's key seals.
    let expected = try #require(SecretKey(bytes: try v.bytes("photo-key")))
    let nonce = [UInt8](repeating: 0, count: AEAD.nonceByteCount)
    #expect(
        AEAD.seal([1, 2, 3], key: EncryptedPhoto.photoKey(from: vaultKey), nonce: nonce, associatedData: [])
            == AEAD.seal([1, 2, 3], key: expected, nonce: nonce, associatedData: []))
    // And what Cairn writes for the same photo, the document's reader opens.
    let ours = try EncryptedPhoto.seal(Data(plaintext), photoID: id, vaultID: try v.bytes("photo-vault-id"), vaultKey: vaultKey)
    #expect(ours.prefix(28) == file.prefix(28) && ours.count == file.count)
}
