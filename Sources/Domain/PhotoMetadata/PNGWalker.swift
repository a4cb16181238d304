import Foundation

/// Walks a PNG's chunks from the signature to IEND, checking each chunk's length, type and CRC.
enum PNGWalker {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk.
    struct Chunk {
        /// The four-letter type, e.g. "tEXt".
        let type: String
        let data: ByteView
    }

    /// Calls `visit` for each chunk, in order; `visit` returns false to stop early. Returns the offset just past
    /// IEND's CRC, or nil when stopped early.
    @discardableResult
    static func walk(_ view: ByteView, visit: (Chunk) throws -> Bool) throws -> Int? {
        guard view.hasBytes(signature, at: 0) else { throw MetadataError.notAnImage }
        var position = 8
        var isFirst = true
        while true {
            guard let length = view.u32(position), view.contains(position + 4, length: 4) else {
                throw MetadataError.truncated("no IEND chunk")
            }
            guard length <= 0x7FFF_FFFF else { throw MetadataError.malformed("chunk length") }
            var typeBytes: [UInt8] = []
            for index in position + 4..<position + 8 {
                let byte = view.raw[index]
                guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else {
                    throw MetadataError.malformed("chunk type")
                }
                typeBytes.append(byte)
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard let data = view.slice(position + 8, length: length),
                let storedCRC = view.u32(position + 8 + length),
                let crcRange = view.slice(position + 4, length: length + 4)
            else {
                throw MetadataError.truncated("chunk runs past the end")
            }
            guard crc32(crcRange) == UInt32(storedCRC) else { throw MetadataError.malformed("chunk checksum") }
            if isFirst && type != "IHDR" { throw MetadataError.malformed("first chunk is not IHDR") }
            isFirst = false
            guard try visit(Chunk(type: type, data: data)) else { return nil }
            position += 12 + length
            if type == "IEND" { return position }
        }
    }

    /// The CRC-32 (ISO 3309, as PNG uses it) of the bytes.
    static func crc32(_ bytes: ByteView) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { table in
            for byte in bytes.raw {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
