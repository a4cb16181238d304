import Foundation
@testable import PhotoMetadata
import Testing

@Suite struct JPEGScanDecoderTests {
    @Test func refusesHuffmanCountsThatOverfillTheCodeSpace() {
        #expect(JPEGScanDecoder.HuffmanTable(counts: [3] + [Int](repeating: 0, count: 15), values: [0, 1, 2]) == nil)
        #expect(JPEGScanDecoder.HuffmanTable(counts: [2] + [Int](repeating: 0, count: 15), values: [0, 1]) != nil)
    }

    @Test func decodesLongCodesBeyondTheLookupTable() throws {
        // Codes of length 1 ('0') and 12 ('100000000000'): the 12-bit symbol is found past the 9-bit lookup.
        var counts = [Int](repeating: 0, count: 16)
        counts[0] = 1; counts[11] = 1
        let table = try #require(JPEGScanDecoder.HuffmanTable(counts: counts, values: [7, 9]))
        let bytes: [UInt8] = [0b1000_0000, 0b0000_0000, 0x00, 0x00]
        let symbols = bytes.withUnsafeBytes { raw -> [Int?] in
            var reader = JPEGScanDecoder.BitReader(raw: raw, position: 0)
            return [reader.symbol(table), reader.symbol(table)]
        }
        #expect(symbols == [9, 7])
    }

    @Test func endsTheScanExactlyAtTheNextMarker() throws {
        let data = [UInt8](JPEGBuilder.jpeg())
        let start = data.count - 2 - JPEGBuilder.entropy.count
        let dc = try #require(JPEGScanDecoder.HuffmanTable(counts: [2] + [Int](repeating: 0, count: 15), values: [0, 1]))
        let ac = try #require(JPEGScanDecoder.HuffmanTable(counts: [2] + [Int](repeating: 0, count: 15), values: [0, 1]))
        let frame = JPEGScanDecoder.Frame(width: 16, height: 16, components: [.init(id: 1, h: 1, v: 1)])
        let outcome = data.withUnsafeBytes {
            JPEGScanDecoder.decode($0, from: start, frame: frame, scan: [.init(h: 1, v: 1, dc: dc, ac: ac)],
                                   restartInterval: 1, twelveBit: false)
        }
        #expect(outcome == JPEGScanDecoder.Outcome(end: data.count - 2))
    }
}
