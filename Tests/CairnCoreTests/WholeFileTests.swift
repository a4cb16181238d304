import CairnCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `WholeFile.read`, its typed error as any error (for `#expect`).
private func readWhole(_ descriptor: Int32, limit: Int = Int.max / 2) throws -> Data {
    try WholeFile.read(descriptor: descriptor, limit: limit)
}

/// A file of `bytes` in a fresh temporary directory, opened for reading; closed and removed after `body`.
private func withOpenFile(_ bytes: Data, _ body: (Int32) throws -> Void) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wholefile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("f")
    try bytes.write(to: file)
    let descriptor = open(file.path, O_RDONLY)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    try body(descriptor)
}

@Test func aWholeFileIsReadAsItIs() throws {
    let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    try withOpenFile(bytes) { descriptor throws in #expect(try readWhole(descriptor) == bytes) }
    try withOpenFile(Data()) { descriptor throws in #expect(try readWhole(descriptor).isEmpty) }
}

@Test func aFileOverTheLimitGivesOneByteMoreThanTheLimit() throws {
    let bytes = Data(repeating: 9, count: 5000)
    try withOpenFile(bytes) { descriptor throws in #expect(try readWhole(descriptor, limit: 1024) == bytes.prefix(1025)) }
    try withOpenFile(bytes) { descriptor throws in #expect(try readWhole(descriptor, limit: 5000) == bytes) }
}

@Test func whatIsLeftAfterTheOffsetIsRead() throws {
    try withOpenFile(Data("header,body".utf8)) { descriptor throws in
        _ = lseek(descriptor, 7, SEEK_SET)
        #expect(try readWhole(descriptor) == Data("body".utf8))
    }
}

@Test func aPipeOfUnknownSizeIsReadToItsEnd() throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    let readEnd = ends[0]
    let writeEnd = ends[1]
    let writer = Thread {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(writeEnd, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
        close(writeEnd)
    }
    writer.start()
    defer { close(readEnd) }
    #expect(try readWhole(readEnd) == bytes)
}

@Test func aFailedReadSaysItsErrno() throws {
    #expect(throws: WholeFile.ReadFailure(code: EBADF)) { try readWhole(-1) }
}
