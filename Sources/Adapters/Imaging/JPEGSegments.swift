import Foundation

/// A walk over a JPEG's marker segments: the pipeline's own check on what libjpeg produced, independent of the
/// metadata inspector that `verify` brings (which also decodes the scans to find padding in them). Allowed:
/// a bare JFIF APP0 header and the segments libjpeg writes for a sequential Huffman JPEG (DQT, DHT, SOF0/1,
/// DRI, SOS with its RSTn markers); anything else, DNL included, is refused.
enum JPEGSegments {
    /// Describes the first thing in `data` that is not image coding or a JFIF APP0 header, or nil when clean.
    static func firstNonCodingSegment(in data: Data) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.count
            guard n >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return "no start-of-image marker" }
            var i = 2
            var inScan = false
            while i < n {
                if inScan {
                    // Entropy-coded data: skip until a marker other than a stuffed 0xFF00 or a restart marker.
                    // (memchr finds the next 0xFF: a byte-by-byte walk cost 3 ms on a 3 MB file.)
                    guard let base = raw.baseAddress,
                        let found = memchr(base + i, 0xFF, n - i)
                    else { return "no end-of-image marker" }
                    i = base.distance(to: UnsafeRawPointer(found))
                    guard i + 1 < n else {
                        i += 1
                        continue
                    }
                    let next = b[i + 1]
                    if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                        i += 1
                        continue
                    }
                    inScan = false
                    continue
                }
                guard b[i] == 0xFF, i + 1 < n else { return "bytes outside any segment" }
                let marker = b[i + 1]
                if marker == 0xFF {
                    i += 1
                    continue
                }  // fill byte
                if marker == 0xD9 { return i + 2 == n ? nil : "data after the end-of-image marker" }
                guard i + 3 < n else { return "a segment cut short" }
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                guard length >= 2, i + 2 + length <= n else { return "a segment cut short" }
                switch marker {
                case 0xE0:
                    let isJFIF =
                        length == 16 && b[i + 4] == 0x4A && b[i + 5] == 0x46 && b[i + 6] == 0x49
                        && b[i + 7] == 0x46 && b[i + 8] == 0x00
                    if !isJFIF { return "an APP0 segment that is not a bare JFIF header" }
                case 0xE1...0xEF: return "an APP\(marker - 0xE0) segment"
                case 0xFE: return "a comment segment"
                case 0xDA: inScan = true
                case 0xDB, 0xC4, 0xC0, 0xC1, 0xDD: break
                default: return "a segment with marker 0x" + String(marker, radix: 16, uppercase: true)
                }
                i += 2 + length
            }
            return "no end-of-image marker"
        }
    }

    /// Whether an ICC profile describes sRGB (an RGB profile whose description names sRGB).
    static func isSRGBProfile(_ icc: Data) -> Bool {
        let p = [UInt8](icc)
        guard p.count >= 132, p[16] == 0x52, p[17] == 0x47, p[18] == 0x42 else { return false }  // "RGB "
        func u32(_ o: Int) -> Int { Int(p[o]) << 24 | Int(p[o + 1]) << 16 | Int(p[o + 2]) << 8 | Int(p[o + 3]) }
        let count = u32(128)
        guard count < 1000, 132 + count * 12 <= p.count else { return false }
        for t in 0..<count {
            let e = 132 + t * 12
            guard p[e] == 0x64, p[e + 1] == 0x65, p[e + 2] == 0x73, p[e + 3] == 0x63 else { continue }  // "desc"
            let offset = u32(e + 4)
            let size = u32(e + 8)
            guard offset >= 0, size > 0, offset + size <= p.count else { return false }
            let tag = Array(p[offset..<(offset + size)])
            let ascii: [UInt8] = Array("sRGB".utf8)
            let utf16: [UInt8] = ascii.flatMap { [UInt8(0), $0] }
            return contains(tag, ascii) || contains(tag, utf16)
        }
        return false
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
