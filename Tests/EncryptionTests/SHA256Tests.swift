import Encryption
import Foundation
import Testing

@Test func hashesTheFIPSExamplesAndPaddingBoundaries() {
    #expect(SHA256.hexDigest(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hexDigest(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
        SHA256.hexDigest(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
}

@Test func matchesTheSystemSha256sumOnARealPhoto() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../../shared/data/faces/2008_001322.jpg").standardizedFileURL
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(SHA256.hexDigest(try Data(contentsOf: url)) == String(output.prefix(64)))
}

@Test func hashesEveryLengthAroundTheBlockBoundaryLikeSha256sum() throws {
    let dir = try TemporaryFolder()
    defer { dir.remove() }
    for length in [55, 56, 63, 64, 65, 119, 120, 128, 1000] {
        let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let file = dir.url.appendingPathComponent("b\(length)")
        try bytes.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(SHA256.hexDigest(bytes) == String(output.prefix(64)), "length \(length)")
    }
}

@Test func hashesPiecesLikeTheWhole() {
    let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    var hasher = SHA256Hasher()
    var offset = 0
    for size in [0, 1, 63, 64, 65, 4096, 100_000] where offset < bytes.count {
        let end = min(bytes.count, offset + size)
        bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
        offset = end
    }
    bytes[offset...].withUnsafeBytes { hasher.update($0) }
    #expect(hasher.finalizeHex() == SHA256.hexDigest(bytes))
}
