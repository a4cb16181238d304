import Foundation
import Testing

@testable import CairnCore

@Suite struct JSONRecordStreamTests {
    /// Feeds `text` in pieces of `piece` bytes and returns the records' texts.
    static func records(_ text: String, piece: Int) throws -> [String] {
        var stream = JSONRecordStream()
        var found: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            try bytes[start..<end].withUnsafeBytes { chunk in
                try stream.feed(chunk) { found.append(String(decoding: $0, as: UTF8.self)) }
            }
            start = end
        }
        try stream.finish()
        return found
    }

    @Test func eachObjectOfATopLevelArrayIsOneRecordWhateverTheChunks() throws {
        let text = #"[ {"a": 1, "b": {"c": [1, 2]}}, {"s": "a } brace, a \" quote and a \\"}, {} ]"#
        for piece in [1, 2, 3, 7, 1000] {
            let found = try Self.records(text, piece: piece)
            #expect(found == [#"{"a": 1, "b": {"c": [1, 2]}}"#, #"{"s": "a } brace, a \" quote and a \\"}"#, "{}"])
        }
    }

    @Test func aTopLevelObjectIsOneRecord() throws {
        #expect(try Self.records("\u{FEFF}\n {\"id\": 3}\n", piece: 2) == [#"{"id": 3}"#])
    }

    @Test func anArrayCutOffIsRefused() {
        #expect(throws: JSONRecordStreamError.cutOff) { try Self.records(#"[{"a": 1}, {"b": "#, piece: 4) }
        #expect(throws: JSONRecordStreamError.cutOff) { try Self.records(#"[{"a": 1}"#, piece: 4) }
    }

    @Test func textThatIsNotRecordsIsRefused() {
        #expect(throws: JSONRecordStreamError.notRecords) { try Self.records("[1, 2]", piece: 10) }
        #expect(throws: JSONRecordStreamError.notRecords) { try Self.records("<xml/>", piece: 10) }
        #expect(throws: JSONRecordStreamError.notRecords) { try Self.records(#"{"a": 1} {"b": 2}"#, piece: 10) }
    }

    @Test func aRecordLargerThanTheLimitIsRefusedWithoutHoldingIt() {
        var stream = JSONRecordStream(maximumRecordBytes: 64)
        let text = Array(("[{\"a\": \"" + String(repeating: "x", count: 200) + "\"}]").utf8)
        #expect(throws: JSONRecordStreamError.recordTooLarge) {
            try text.withUnsafeBytes { try stream.feed($0) { _ in } }
        }
    }
}
