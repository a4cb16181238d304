import Encryption
import Foundation
import Testing

/// The test vectors of docs/ENCRYPTION.md, read from the document itself so that it cannot drift from the code.
struct Vectors {
    let values: [String: String]
    let fileBytes: [UInt8]

    init() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/ENCRYPTION.md"), encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("- ") && line.contains(": `") {
            let parts = line.dropFirst(2).split(separator: ":", maxSplits: 1)
            // The value is what stands between the first two backticks.
            values[String(parts[0])] = parts[1].split(separator: "`", omittingEmptySubsequences: false).dropFirst().first.map(String.init)
        }
        self.values = values
        let block = try #require(text.components(separatedBy: "```file-bytes\n").last?.components(separatedBy: "```").first)
        fileBytes = try #require(Hex.decode(block))
    }

    func bytes(_ name: String) throws -> [UInt8] { try #require(values[name].flatMap(Hex.decode), "\(name)") }
    func number(_ name: String) throws -> UInt64 { try #require(values[name].flatMap { UInt64($0) }, "\(name)") }
}

@Test func argon2idMatchesTheReferenceProgramsVector() throws {
    let v = try Vectors()
    let kdf = try #require(
        KeyDerivation(
            operations: UInt32(try v.number("argon2id-operations")),
            memoryBytes: try v.number("argon2id-memory"), salt: try v.bytes("argon2id-salt")))
    let key = try kdf.deriveKey(from: Passphrase(String(decoding: try v.bytes("argon2id-password"), as: UTF8.self)))
    // The key never leaves SecretKey: compare what it seals with what the expected key seals.
    let expected = try #require(SecretKey(bytes: try v.bytes("argon2id-key")))
    let nonce = [UInt8](repeating: 0, count: AEAD.nonceByteCount)
    #expect(
        AEAD.seal([1, 2, 3], key: key, nonce: nonce, associatedData: []) == AEAD.seal([1, 2, 3], key: expected, nonce: nonce, associatedData: []))
}

@Test func theKeyWrapAEADMatchesTheXChaChaDraftsVector() throws {
    let v = try Vectors()
    let key = try #require(SecretKey(bytes: try v.bytes("aead-key")))
    let sealed = AEAD.seal(
        try v.bytes("aead-plaintext"), key: key, nonce: try v.bytes("aead-nonce"),
        associatedData: try v.bytes("aead-associated-data"))
    #expect(sealed == (try v.bytes("aead-sealed")))
    #expect(
        AEAD.open(sealed, key: key, nonce: try v.bytes("aead-nonce"), associatedData: try v.bytes("aead-associated-data"))
            == (try v.bytes("aead-plaintext")))
}

@Test func theDocumentsEncryptedFileWrittenByAnotherProgramOpens() throws {
    let v = try Vectors()
    let passphrase = String(decoding: try v.bytes("file-passphrase"), as: UTF8.self)
    #expect(try decrypt(v.fileBytes, passphrase: passphrase) == (try v.bytes("file-plaintext")))
    let header = try DecryptingReader.readHeader(from: source(v.fileBytes))
    #expect(header.vaultID == vaultID)
    #expect(header.bytes == Array(v.fileBytes[0..<EncryptedFileHeader.byteCount]))
}
