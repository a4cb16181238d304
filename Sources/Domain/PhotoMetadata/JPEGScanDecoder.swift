import Foundation

/// Decodes the Huffman-coded data of a baseline or extended sequential JPEG scan far enough to know where the
/// coded blocks end (no coefficients are kept, nothing is dequantised or transformed): every byte of entropy-coded
/// data the blocks do not use is padding, and every restart marker is checked against the restart interval.
/// Only this tells hidden bytes in a scan from real ones: any bytes can sit in entropy-coded data.
struct JPEGScanDecoder {
    /// One Huffman table in the form JPEG's decoding procedure uses (ITU T.81, F.2.2.3), plus a 9-bit lookup.
    struct HuffmanTable {
        /// For a code of `bits` <= 9 bits, the entry at its 9-bit prefix is (length << 8 | symbol); 0 when longer.
        var lookup = [UInt16](repeating: 0, count: 512)
        var maxCode = [Int32](repeating: -1, count: 18)
        var valueOffset = [Int32](repeating: 0, count: 18)
        var values: [UInt8] = []

        /// Builds the table from a DHT's 16 code counts and its symbols; nil when the counts over-subscribe the code space.
        init?(counts: [Int], values: [UInt8]) {
            self.values = values
            var code: Int32 = 0
            var index: Int32 = 0
            for length in 1...16 {
                let count = Int32(counts[length - 1])
                if code + count > (1 << length) || Int(index + count) > values.count { return nil }
                if count > 0 {
                    valueOffset[length] = index - code
                    for c in code..<code + count where length <= 9 {
                        let shift = 9 - length
                        let entry = UInt16(length) << 8 | UInt16(values[Int(index + c - code)])
                        for fill in 0..<(1 << shift) { lookup[Int(c) << shift | fill] = entry }
                    }
                    code += count
                    index += count
                    maxCode[length] = code - 1
                }
                code <<= 1
            }
            maxCode[17] = Int32.max
        }
    }

    /// A table's arrays as raw pointers, for the decoding loop (passing the arrays per symbol cost reference
    /// counting on every code: 12 MP took about 90 ms more).
    struct TablePointers {
        let lookup: UnsafeMutablePointer<UInt16>
        let maxCode: UnsafeMutablePointer<Int32>
        let valueOffset: UnsafeMutablePointer<Int32>
        let values: UnsafeMutablePointer<UInt8>
        let valueCount: Int
        /// For an AC table, by the next `skipBits` bits: how to skip what they start with in one step: every whole code
        /// with its magnitude bits that fits in those bits (up to and including an end of block, and moving past at
        /// most 63 coefficients), or the first code alone when its magnitude bits go past them. The bits to drop (low 5
        /// bits), the coefficients moved past (run + 1 a code, 16 a ZRL; the next 6 bits), 0x800 when it ends the
        /// block. 0 when no code of at most `skipBits` bits starts them or the first one's size is above
        /// `acMaxMagnitude - 1`: the slow path then reads it (and says why). Two bytes an entry, so that a scan's tables
        /// stay in the L1 cache.
        let skip: UnsafeMutablePointer<UInt16>

        static let skipBits = 12

        init(_ table: HuffmanTable, acMaxMagnitude: Int? = nil) {
            func copy<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
                let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(1, array.count))
                pointer.initialize(from: array, count: array.count)
                return pointer
            }
            lookup = copy(table.lookup)
            maxCode = copy(table.maxCode)
            valueOffset = copy(table.valueOffset)
            values = copy(table.values)
            valueCount = table.values.count
            var skip = [UInt16](repeating: 0, count: 1 << Self.skipBits)
            if let acMaxMagnitude {
                let width = Self.skipBits
                for prefix in 0..<skip.count {
                    var used = 0
                    var moved = 0
                    var unit: UInt16 = 0
                    while used < width {
                        // The code at `used`, of any length that fits in the rest of the bits.
                        let rest = prefix & ((1 << (width - used)) - 1)
                        var length = 0
                        var rs = 0
                        for l in 1...min(16, width - used) {
                            let code = Int32(rest >> (width - used - l))
                            if code <= table.maxCode[l] {
                                let index = Int(code + table.valueOffset[l])
                                if index >= 0, index < table.values.count {
                                    length = l
                                    rs = Int(table.values[index])
                                }
                                break
                            }
                        }
                        guard length > 0 else { break }
                        let run = rs >> 4
                        let size = rs & 0x0F
                        let ends = size == 0 && run != 15
                        let step = ends ? 0 : size == 0 ? 16 : run + 1
                        guard size <= acMaxMagnitude - 1, used == 0 || used + length + size <= width, moved + step <= 63
                        else { break }
                        used += length + size
                        moved += step
                        unit = UInt16(used) | UInt16(moved) << 5 | (ends ? 0x800 : 0)
                        if ends { break }
                    }
                    skip[prefix] = unit
                }
            }
            self.skip = copy(skip)
        }

        func deallocate() {
            lookup.deallocate()
            maxCode.deallocate()
            valueOffset.deallocate()
            values.deallocate()
            skip.deallocate()
        }
    }

    /// A frame component: its sampling factors (the quantisation table is not needed to skip blocks).
    struct Component {
        let id: UInt8
        let h: Int
        let v: Int
    }

    /// The frame the scan belongs to.
    struct Frame {
        let width: Int
        let height: Int
        let components: [Component]
        var maxH: Int { components.map(\.h).max() ?? 1 }
        var maxV: Int { components.map(\.v).max() ?? 1 }
    }

    /// A component of the scan with its tables.
    struct ScanComponent {
        let h: Int
        let v: Int
        let dc: HuffmanTable
        let ac: HuffmanTable
    }

    /// What the decoding found after the scan's header.
    struct Outcome: Equatable {
        /// Where the scan's data ends: the offset of the marker that follows it (EOI, DHT, the next SOS...).
        var end: Int
        /// Bytes of entropy-coded data that no coded block uses (before a restart marker or the next marker).
        var paddingBytes = 0
        /// Restart markers out of sequence, unexpected (no interval, mid-interval, after the last block) or missing.
        var restartProblems = 0
        /// Why the data could not be decoded to its end (an invalid code, a block of more than 64 coefficients,
        /// data cut short); nil when every block decoded.
        var undecodable: String?
    }

    /// Decodes the scan whose entropy-coded data starts at `start` in `raw`.
    /// `blocksAcross`/`blocksDown` come from the frame; `restartInterval` is the DRI in force (0: none). Without
    /// `skipTables`, every AC code is read on its own (the same outcome, slower: for tests to compare).
    static func decode(
        _ raw: UnsafeRawBufferPointer, from start: Int, frame: Frame, scan: [ScanComponent],
        restartInterval: Int, twelveBit: Bool, skipTables: Bool = true
    ) -> Outcome {
        var reader = BitReader(raw: raw, position: start)
        let maxMagnitude = twelveBit ? 15 : 11
        let dcTables = scan.map { TablePointers($0.dc) }
        let acTables = scan.map { TablePointers($0.ac, acMaxMagnitude: skipTables ? maxMagnitude : nil) }
        defer { for t in dcTables + acTables { t.deallocate() } }
        // MCU geometry (T.81 A.2): interleaved scans have H x V blocks per component per MCU; a scan of one
        // component has one block per MCU over that component's own block grid.
        let mcusAcross: Int
        let mcusDown: Int
        var blocksPerComponent: [Int]
        if scan.count == 1 {
            let c = scan[0]
            let componentWidth = (frame.width * c.h + frame.maxH - 1) / frame.maxH
            let componentHeight = (frame.height * c.v + frame.maxV - 1) / frame.maxV
            mcusAcross = (componentWidth + 7) / 8
            mcusDown = (componentHeight + 7) / 8
            blocksPerComponent = [1]
        } else {
            mcusAcross = (frame.width + 8 * frame.maxH - 1) / (8 * frame.maxH)
            mcusDown = (frame.height + 8 * frame.maxV - 1) / (8 * frame.maxV)
            blocksPerComponent = scan.map { $0.h * $0.v }
        }
        let totalMCUs = mcusAcross * mcusDown
        var outcome = Outcome(end: start)
        var expectedRestart = 0
        var mcu = 0
        while mcu < totalMCUs {
            for index in 0..<scan.count {
                for _ in 0..<blocksPerComponent[index] {
                    if let problem = reader.skipBlock(dc: dcTables[index], ac: acTables[index], maxMagnitude: maxMagnitude) {
                        outcome.undecodable = problem
                        outcome.end = reader.nextMarker(from: reader.position)
                        return outcome
                    }
                }
            }
            mcu += 1
            guard restartInterval > 0, mcu % restartInterval == 0, mcu < totalMCUs else { continue }
            // A restart interval ends: the data is byte-aligned, then RSTn with n counting 0...7.
            guard let aligned = reader.alignedPosition() else {
                outcome.undecodable = "scan data cut short"
                outcome.end = reader.nextMarker(from: reader.position)
                return outcome
            }
            let marker = reader.nextMarker(from: aligned)
            outcome.paddingBytes += marker - aligned
            guard marker + 1 < raw.count, (0xD0...0xD7).contains(raw[marker + 1]) else {
                outcome.restartProblems += 1  // a restart marker is missing: the scan ends early
                outcome.undecodable = "scan data cut short"
                outcome.end = marker
                return outcome
            }
            if Int(raw[marker + 1]) - 0xD0 != expectedRestart { outcome.restartProblems += 1 }
            expectedRestart = (Int(raw[marker + 1]) - 0xD0 + 1) & 7
            reader = BitReader(raw: raw, position: marker + 2)
        }
        guard let aligned = reader.alignedPosition() else {
            outcome.undecodable = "scan data cut short"
            outcome.end = reader.nextMarker(from: reader.position)
            return outcome
        }
        // After the last block: anything before the next marker other than restart markers is padding; a
        // restart marker there is odd (libjpeg never writes one).
        var position = aligned
        while true {
            let marker = reader.nextMarker(from: position)
            outcome.paddingBytes += marker - position
            if marker + 1 < raw.count, (0xD0...0xD7).contains(raw[marker + 1]) {
                outcome.restartProblems += 1
                position = marker + 2
                continue
            }
            outcome.end = marker
            return outcome
        }
    }

    /// Reads entropy-coded bits MSB first, removing 0xFF00 stuffing; stops at a marker and feeds zero bits past it
    /// (noting that it did, so running past real data is seen).
    struct BitReader {
        let raw: UnsafeRawBufferPointer
        /// The offset of the next byte to fetch.
        var position: Int
        var buffer: UInt64 = 0
        var bits = 0
        /// Zero bytes fed after a marker (or the end of the file) was reached.
        var phantomBytes = 0
        /// For the last fetched real bytes, one bit each (newest lowest): 1 when it was a stuffed 0xFF00 pair.
        var stuffedHistory: UInt64 = 0
        var realBytesInBuffer = 0

        init(raw: UnsafeRawBufferPointer, position: Int) {
            self.raw = raw
            self.position = position
        }

        /// Tops the buffer up to at least 57 bits. Called with fewer than 32 (so that at least four bytes fit).
        @inline(__always)
        mutating func fill() {
            // Eight bytes with no 0xFF among them (no stuffing, no marker): as many as fit, at once.
            if phantomBytes == 0, position &+ 8 <= raw.count, let base = raw.baseAddress {
                let chunk = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let inverted = ~chunk
                if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                    let count = (64 &- bits) &>> 3
                    buffer = buffer &<< UInt64(truncatingIfNeeded: 8 &* count) | chunk &>> UInt64(truncatingIfNeeded: 64 &- 8 &* count)
                    bits &+= 8 &* count
                    position &+= count
                    stuffedHistory &<<= UInt64(truncatingIfNeeded: count)
                    realBytesInBuffer &+= count
                    return
                }
            }
            fillByBytes()
        }

        /// `fill` one byte at a time, where the next eight bytes hold an 0xFF or the data ends.
        @inline(never)
        mutating func fillByBytes() {
            while bits <= 56 {
                var byte: UInt8 = 0
                if phantomBytes == 0, position < raw.count {
                    byte = raw[position]
                    if byte == 0xFF {
                        let next = position + 1 < raw.count ? raw[position + 1] : 0xD9
                        if next == 0x00 {
                            position += 2
                            stuffedHistory = stuffedHistory << 1 | 1
                            realBytesInBuffer += 1
                        } else {
                            byte = 0
                            phantomBytes += 1
                        }
                    } else {
                        position += 1
                        stuffedHistory <<= 1
                        realBytesInBuffer += 1
                    }
                } else {
                    phantomBytes += 1
                }
                buffer = buffer << 8 | UInt64(byte)
                bits += 8
            }
        }

        @inline(__always)
        mutating func take(_ count: Int) {
            bits -= count
        }

        @inline(__always)
        func peek(_ count: Int) -> Int {
            Int(truncatingIfNeeded: (buffer >> UInt64(bits - count)) & ((1 << UInt64(count)) - 1))
        }

        /// Decodes one Huffman symbol; nil for a code the table does not hold.
        @inline(__always)
        mutating func symbol(_ table: HuffmanTable) -> Int? {
            let pointers = TablePointers(table)
            defer { pointers.deallocate() }
            return symbol(pointers)
        }

        /// Decodes one Huffman symbol; nil for a code the table does not hold.
        @inline(__always)
        mutating func symbol(_ table: TablePointers) -> Int? {
            if bits < 32 { fill() }
            let entry = table.lookup[peek(9)]
            if entry != 0 {
                take(Int(entry >> 8))
                return Int(entry & 0xFF)
            }
            let code16 = peek(16)
            for length in 10...16 {
                let code = Int32(code16 >> (16 - length))
                if code <= table.maxCode[length] {
                    take(length)
                    let index = Int(code + table.valueOffset[length])
                    return index >= 0 && index < table.valueCount ? Int(table.values[index]) : nil
                }
            }
            return nil
        }

        /// Skips one 8x8 block's DC and AC codes; returns a reason when it cannot.
        @inline(__always)
        mutating func skipBlock(dc: TablePointers, ac: TablePointers, maxMagnitude: Int) -> String? {
            guard let s = symbol(dc), s <= maxMagnitude else { return "an invalid DC code" }
            take(s)  // symbol() left at least 16 bits: magnitudes are at most 15
            var k = 1
            // The buffer in locals (registers) while codes are skipped through `ac.skip`; back in the reader for the
            // slow path.
            var buffer = self.buffer
            var bits = self.bits
            while k < 64 {
                if bits < 32 {
                    self.buffer = buffer
                    self.bits = bits
                    fill()
                    buffer = self.buffer
                    bits = self.bits
                }
                let index = Int(truncatingIfNeeded: buffer &>> UInt64(truncatingIfNeeded: bits &- TablePointers.skipBits))
                let unit = Int(ac.skip[index & ((1 << TablePointers.skipBits) - 1)])
                // Unless the codes it covers would reach the block's end (64 coefficients): the slow path then reads
                // them one at a time.
                if unit != 0, k &+ (unit &>> 5) & 63 < 64 {
                    bits &-= unit & 31
                    if unit & 0x800 != 0 { break }  // end of block
                    k &+= (unit &>> 5) & 63
                    continue
                }
                self.buffer = buffer
                self.bits = bits
                defer {
                    buffer = self.buffer
                    bits = self.bits
                }
                guard let rs = symbol(ac) else { return "an invalid AC code" }
                let run = rs >> 4
                let size = rs & 15
                if size == 0 {
                    if run != 15 { break }  // end of block
                    k += 16
                    continue
                }
                k += run
                guard k < 64, size <= maxMagnitude - 1 else { return "a block with more than 64 coefficients" }
                take(size)
                k += 1
            }
            self.buffer = buffer
            self.bits = bits
            if k > 64 { return "a block with more than 64 coefficients" }
            if bits < phantomBytes * 8 { return "scan data cut short" }
            return nil
        }

        /// The offset of the first whole byte not yet used, after dropping the bits that pad the last used
        /// byte; nil when the blocks used bits past the real data.
        func alignedPosition() -> Int? {
            let unusedBytes = bits / 8
            guard unusedBytes >= phantomBytes else { return nil }
            let unusedReal = unusedBytes - phantomBytes
            guard unusedReal <= realBytesInBuffer else { return nil }
            let mask: UInt64 = unusedReal >= 64 ? ~0 : (1 << UInt64(unusedReal)) - 1
            let rawBytes = unusedReal + (stuffedHistory & mask).nonzeroBitCount
            return position - rawBytes
        }

        /// The offset of the first marker at or after `start` (0xFF not followed by 0x00), or the end of the data.
        /// A run of 0xFF fill bytes before a marker is part of it (T.81 B.1.1.2 allows them), not padding.
        func nextMarker(from start: Int) -> Int {
            var index = start
            let n = raw.count
            while index + 1 < n {
                if raw[index] == 0xFF {
                    var next = index + 1
                    while next < n, raw[next] == 0xFF { next += 1 }
                    if next < n, raw[next] != 0x00 { return index }
                    index = next + 1
                } else {
                    index += 1
                }
            }
            return n
        }
    }
}
