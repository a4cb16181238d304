import CairnApp
import CairnTestSupport
import Foundation
import Testing

@Test func readsASmallFileWhole() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    try Data("hello".utf8).write(to: scratch.file("a.txt"))
    #expect(try InputFile.read(scratch.file("a.txt").path) == Data("hello".utf8))
}

@Test func refusesMissingFilesFoldersAndFilesOverTheLimitWithoutNamingThem() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    try Data(count: 2048).write(to: scratch.file("big.bin"))
    #expect(throws: InputFileError.missing) { try InputFile.read(scratch.file("nope.jpg").path) }
    #expect(throws: InputFileError.isDirectory) { try InputFile.read(scratch.url.path) }
    #expect(throws: InputFileError.tooLarge(limit: 1024)) { try InputFile.read(scratch.file("big.bin").path, maximumBytes: 1024) }
    #expect(!InputFileError.missing.userMessage.contains(scratch.url.path))
}
