import CairnTestSupport
import Foundation

/// Hand-built JPEG, PNG and TIFF bytes for precise structural tests.
enum Bytes {
    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
}

enum JPEGBuilder {
    /// A marker segment with its length.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + Bytes.be16(payload.count + 2) + payload
    }
    static let jfif = segment(0xE0, Bytes.ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
    /// Two-code Huffman tables: DC '0' = size 0, '1' = size 1; AC '0' = end of block, '1' = run 0 size 1.
    static let huffmanTables = segment(
        0xC4,
        [0x00, 2] + [UInt8](repeating: 0, count: 15) + [0, 1]
            + [0x10, 2] + [UInt8](repeating: 0, count: 15) + [0x00, 0x01])
    /// A 16 x 16 grey frame (four blocks, one per MCU) with its tables and a restart after every block.
    static let frame =
        segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + huffmanTables
        + segment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0]) + segment(0xDD, [0, 1])
    static let scanHeader = segment(0xDA, [1, 1, 0x00, 0, 63, 0])
    /// Four blocks: the first with every coefficient (128 one-bits: sixteen stuffed 0xFF00), the others with a
    /// zero DC and an end of block (two zero-bits, padded with ones: 0x3F), RST0-RST2 between them.
    static let entropy: [UInt8] =
        [UInt8]((0..<16).flatMap { _ in [UInt8(0xFF), 0x00] })
        + [0xFF, 0xD0, 0x3F, 0xFF, 0xD1, 0x3F, 0xFF, 0xD2, 0x3F]

    /// SOI, JFIF, `segments`, one scan, EOI, then `trailer`.
    static func jpeg(_ segments: [[UInt8]] = [], trailer: [UInt8] = []) -> Data {
        Data([0xFF, 0xD8] + jfif + segments.flatMap { $0 } + frame + scanHeader + entropy + [0xFF, 0xD9] + trailer)
    }

    /// A TIFF wrapped as an APP1 Exif segment.
    static func exifSegment(_ tiff: Data) -> [UInt8] {
        segment(0xE1, Bytes.ascii("Exif") + [0, 0] + [UInt8](tiff))
    }
}

enum PNGBuilder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Bytes.ascii(type) + data
        return Bytes.be32(data.count) + body + Bytes.be32(Int(crc(body)))
    }

    static let header = chunk("IHDR", Bytes.be32(1) + Bytes.be32(1) + [8, 2, 0, 0, 0])
    static let pixels = chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01])
    static let end = chunk("IEND", [])

    /// Signature, IHDR, `chunks`, IDAT, IEND, then `trailer`.
    static func png(_ chunks: [[UInt8]] = [], trailer: [UInt8] = []) -> Data {
        Data(signature + header + chunks.flatMap { $0 } + pixels + end + trailer)
    }
}

/// Lays out a TIFF structure: IFDs in order after the 8-byte header, then their out-of-line values.
struct TIFFBuilder {
    enum Value {
        case short(Int)
        case long(Int)
        case ascii(String)
        case undefined([UInt8])
        /// A LONG holding the offset of IFD number `index` of this builder.
        case pointer(Int)
        /// A LONG holding a raw offset (for out-of-range tests).
        case rawOffset(Int)
    }
    struct Entry {
        let tag: Int
        let value: Value
    }

    var littleEndian = true
    var ifds: [[Entry]] = [[]]
    /// IFD index -> the IFD its "next" field points at (IFD0 -> 1 makes IFD1 the thumbnail IFD).
    var next: [Int: Int] = [:]
    /// A raw "next" offset for IFD0 (overrides `next`).
    var rawNextOfIFD0: Int?

    func u16(_ v: Int) -> [UInt8] { littleEndian ? Bytes.be16(v).reversed() : Bytes.be16(v) }
    func u32(_ v: Int) -> [UInt8] { littleEndian ? Bytes.be32(v).reversed() : Bytes.be32(v) }

    func build() -> Data {
        var offsets: [Int] = []
        var cursor = 8
        for ifd in ifds {
            offsets.append(cursor)
            cursor += 2 + 12 * ifd.count + 4
        }
        var tables: [UInt8] = []
        var dataArea: [UInt8] = []
        for (index, ifd) in ifds.enumerated() {
            tables += u16(ifd.count)
            for entry in ifd.sorted(by: { $0.tag < $1.tag }) {
                let (type, count, bytes): (Int, Int, [UInt8])
                switch entry.value {
                case .short(let v): (type, count, bytes) = (3, 1, u16(v))
                case .long(let v): (type, count, bytes) = (4, 1, u32(v))
                case .pointer(let i): (type, count, bytes) = (4, 1, u32(offsets[i]))
                case .rawOffset(let v): (type, count, bytes) = (4, 1, u32(v))
                case .ascii(let s): (type, count, bytes) = (2, s.utf8.count + 1, Bytes.ascii(s) + [0])
                case .undefined(let b): (type, count, bytes) = (7, b.count, b)
                }
                tables += u16(entry.tag) + u16(type) + u32(count)
                if bytes.count <= 4 {
                    tables += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    tables += u32(cursor + dataArea.count)
                    dataArea += bytes
                    if dataArea.count % 2 == 1 { dataArea.append(0) }
                }
            }
            let nextOffset = index == 0 && rawNextOfIFD0 != nil ? rawNextOfIFD0! : next[index].map { offsets[$0] } ?? 0
            tables += u32(nextOffset)
        }
        let header: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] + u32(8) : [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        return Data(header + tables + dataArea)
    }

    /// IFD0 -> ExifIFD with the given entries; optional GPS IFD, maker note and thumbnail IFD.
    static func camera(
        littleEndian: Bool = true, orientation: Int? = 6, exif: [Entry],
        gps: Bool = false, thumbnail: Bool = false
    ) -> TIFFBuilder {
        var builder = TIFFBuilder(littleEndian: littleEndian)
        var ifd0: [Entry] = [Entry(tag: 0x8769, value: .pointer(1))]
        if let orientation { ifd0.append(Entry(tag: 0x0112, value: .short(orientation))) }
        builder.ifds = [ifd0, exif]
        if gps {
            builder.ifds[0].append(Entry(tag: 0x8825, value: .pointer(builder.ifds.count)))
            builder.ifds.append([Entry(tag: 0x0001, value: .ascii("N"))])
        }
        if thumbnail {
            builder.next[0] = builder.ifds.count
            builder.ifds.append([Entry(tag: 0x0201, value: .long(0)), Entry(tag: 0x0202, value: .long(1234))])
        }
        return builder
    }
}
