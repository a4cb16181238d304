import CairnCore
import CairnTestSupport
import Foundation
import Testing

@testable import PhotoMetadata

@Suite struct JPEGScanDecoderTests {
    @Test func refusesHuffmanCountsThatOverfillTheCodeSpace() {
        #expect(JPEGScanDecoder.HuffmanTable(counts: [3] + [Int](repeating: 0, count: 15), values: [0, 1, 2]) == nil)
        #expect(JPEGScanDecoder.HuffmanTable(counts: [2] + [Int](repeating: 0, count: 15), values: [0, 1]) != nil)
    }

    @Test func decodesLongCodesBeyondTheLookupTable() throws {
        // Codes of length 1 ('0') and 12 ('100000000000'): the 12-bit symbol is found past the 9-bit lookup.
        var counts = [Int](repeating: 0, count: 16)
        counts[0] = 1
        counts[11] = 1
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
            JPEGScanDecoder.decode(
                $0, from: start, frame: frame, scan: [.init(h: 1, v: 1, dc: dc, ac: ac)],
                restartInterval: 1, twelveBit: false)
        }
        #expect(outcome == JPEGScanDecoder.Outcome(end: data.count - 2))
    }

    /// Codes of 10 to 12 bits (past the 9-bit lookup, inside a skip step) and blocks whose coefficients run to the
    /// 64th without an end of block (a step of several codes there would read into the next block) decode as they
    /// do code by code.
    @Test func theSkipTablesTakeLongCodesAndBlocksThatEndWithoutAnEndOfBlock() throws {
        // DC: '0' is size 0. AC: run 0 size 1 '00', end of block '010', run 0 size 2 '0110000000' (10 bits), ZRL
        // '011000000100' (12 bits).
        let dc = try #require(JPEGScanDecoder.HuffmanTable(counts: [1] + [Int](repeating: 0, count: 15), values: [0x00]))
        let ac = try #require(
            JPEGScanDecoder.HuffmanTable(
                counts: [0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0],
                values: [0x01, 0x00, 0x02, 0xF0]))
        let one = "00"
        let endOfBlock = "010"
        let two = "0110000000"
        let zrl = "011000000100"
        func outcomes(_ blocks: [String]) -> [JPEGScanDecoder.Outcome] {
            var bits = blocks.joined()
            bits += String(repeating: "1", count: (8 - bits.count % 8) % 8)
            var data: [UInt8] = []
            for i in stride(from: 0, to: bits.count, by: 8) {
                data.append(UInt8(bits.dropFirst(i).prefix(8), radix: 2)!)
                if data.last == 0xFF { data.append(0x00) }  // stuffing
            }
            data += [0xFF, 0xD9]
            let frame = JPEGScanDecoder.Frame(width: 8 * blocks.count, height: 8, components: [.init(id: 1, h: 1, v: 1)])
            return [true, false].map { skipTables in
                data.withUnsafeBytes {
                    JPEGScanDecoder.decode(
                        $0, from: 0, frame: frame, scan: [.init(h: 1, v: 1, dc: dc, ac: ac)],
                        restartInterval: 0, twelveBit: false, skipTables: skipTables)
                }
            }
        }
        let full = "0" + String(repeating: one + "1", count: 63)
        let zeros = "0" + String(repeating: zrl, count: 3) + two + "01" + one + "0" + endOfBlock
        for blocks in [[full, full], [zeros, full, full, zeros], [zeros, zeros], [full, zeros, full]] {
            let found = outcomes(blocks)
            #expect(found[0] == found[1])
            #expect(found[0] == JPEGScanDecoder.Outcome(end: found[0].end))
        }
        // A ZRL past the 64th coefficient is refused alike; a code after the 64th is read alike, as the next block's.
        let past = outcomes(["0" + String(repeating: zrl, count: 4) + endOfBlock, zeros])
        #expect(past[0] == past[1])
        #expect(past[0].undecodable == "a block with more than 64 coefficients")
        let after = outcomes([full + one + "1", zeros])
        #expect(after[0] == after[1])
        #expect(after[0].undecodable != nil || after[0].paddingBytes > 0)
    }

    /// The skip tables (several codes and their magnitude bits at a time) find what reading code by code finds, on
    /// real photos (one with restart markers) and on hundreds of copies with bytes of their scans changed or cut.
    @Test func theSkipTablesFindWhatReadingCodeByCodeFinds() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let restarts = scratch.file("restarts.jpg")
        try Tools.run(tool: "vips", ["copy", SharedData.photo.path, restarts.path + "[Q=93,restart-interval=3]"])
        var random = SeededGenerator(seed: 1_234)
        let withRestarts = try Data(contentsOf: restarts)
        #expect(withRestarts.range(of: Data([0xFF, 0xDD, 0x00, 0x04, 0x00, 0x03])) != nil)  // DRI: every 3 MCUs
        for file in [try Data(contentsOf: SharedData.photo), withRestarts] {
            func same(_ bytes: [UInt8]) -> Bool {
                bytes.withUnsafeBytes { raw in
                    let view = ByteView(raw: raw)
                    let fast = try? JPEGInspector.items(view)
                    let slow = try? JPEGInspector.items(view, skipTables: false)
                    return fast == slow
                }
            }
            #expect(same([UInt8](file)))
            for round in 0..<300 {
                var bytes = [UInt8](file)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: file.count / 4..<file.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                if round % 10 == 0 { bytes.removeLast(Int.random(in: 1..<file.count / 2, using: &random)) }
                #expect(same(bytes), "round \(round)")
            }
        }
    }
}
