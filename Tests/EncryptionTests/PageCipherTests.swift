import Encryption
import Foundation
import Testing

/// The page docs/ENCRYPTION.md's vectors seal: bytes `i mod 251`, then 40 reserved bytes.
private func vectorPage() -> [UInt8] {
    (0..<4056).map { UInt8($0 % 251) } + [UInt8](repeating: 0, count: PageCipher.reservedByteCount)
}

@Test func aDatabasePageMatchesTheDocumentsVectors() throws {
    let v = try Vectors()
    let cipher = PageCipher(key: try #require(SecretKey(bytes: try v.bytes("page-key"))))
    for (associatedData, tag, digest) in [
        ("page-associated-data", "page-tag", "page-sha256"),
        ("wal-associated-data", "wal-tag", "wal-sha256"),
    ] {
        let sealed = cipher.sealedForTest(vectorPage(), nonce: try v.bytes("page-nonce"), associatedData: try v.bytes(associatedData))
        #expect(Array(sealed[0..<32]) == (try v.bytes("page-first-bytes")))
        #expect(Array(sealed[4056..<4080]) == (try v.bytes("page-nonce")))
        #expect(Array(sealed[4080...]) == (try v.bytes(tag)), "\(tag)")
        #expect(SHA256.hexDigest(Data(sealed)) == Hex.encode(try v.bytes(digest)), "\(digest)")
        // And it opens back, in place, only with its own associated data.
        var page = sealed
        let opened = page.withUnsafeMutableBufferPointer { buffer in
            (try? v.bytes(associatedData))!.withUnsafeBufferPointer {
                cipher.open(page: buffer.baseAddress!, count: 4096, associatedData: $0.baseAddress!, associatedDataCount: 16)
            }
        }
        #expect(opened)
        #expect(Array(page[0..<4056]) == Array(vectorPage()[0..<4056]))
    }
    // The two associated data differ only as documented: kind, page number, salts.
    #expect(try v.bytes("page-associated-data") == [1, 0, 0, 0, 0, 0, 0, UInt8(try v.number("page-number"))] + [UInt8](repeating: 0, count: 8))
    #expect(try v.bytes("wal-associated-data") == [2, 0, 0, 0, 0, 0, 0, 3] + (try v.bytes("wal-salts")))
}

@Test func aPageSealedTwiceNeverRepeatsItsNonceAndFailsWithAnotherKeyOrPlace() throws {
    let key = SecretKey.random()
    let cipher = PageCipher(key: key)
    var associatedData = [UInt8](repeating: 0, count: 16)
    associatedData[7] = 9
    func sealed() -> [UInt8] {
        var page = vectorPage()
        page.withUnsafeMutableBufferPointer { buffer in
            associatedData.withUnsafeBufferPointer {
                cipher.seal(page: buffer.baseAddress!, count: 4096, associatedData: $0.baseAddress!, associatedDataCount: 16)
            }
        }
        return page
    }
    let first = sealed()
    let second = sealed()
    #expect(first[4056..<4080] != second[4056..<4080])
    #expect(first[0..<4056] != vectorPage()[0..<4056])
    func opens(_ page: [UInt8], with cipher: PageCipher, pageNumber: UInt8) -> Bool {
        var copy = page
        var ad = [UInt8](repeating: 0, count: 16)
        ad[7] = pageNumber
        return copy.withUnsafeMutableBufferPointer { buffer in
            ad.withUnsafeBufferPointer {
                cipher.open(page: buffer.baseAddress!, count: 4096, associatedData: $0.baseAddress!, associatedDataCount: 16)
            }
        }
    }
    #expect(opens(first, with: cipher, pageNumber: 9))
    #expect(!opens(first, with: cipher, pageNumber: 8))
    #expect(!opens(first, with: PageCipher(key: SecretKey.random()), pageNumber: 9))
    var flipped = first
    flipped[100] ^= 0x20
    #expect(!opens(flipped, with: cipher, pageNumber: 9))
}
