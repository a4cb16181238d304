import Foundation

/// Walks a JPEG's marker segments from SOI to EOI, skipping entropy-coded scan data (with 0xFF00 stuffing and
/// RSTn markers), including the several scans of a progressive JPEG.
enum JPEGWalker {
    /// One length-prefixed marker segment.
    struct Segment {
        /// The marker's second byte (0xE0 for APP0, 0xDA for SOS, ...).
        let marker: UInt8
        /// The segment's bytes after its two length bytes.
        let payload: ByteView
        /// The offset just past the segment (for SOS: where its entropy-coded data starts).
        let end: Int
    }

    /// Calls `visit` for each length-prefixed segment, in order; `visit` returns false to stop early.
    /// Returns the offset just past EOI (so the caller can measure trailing data), or nil when stopped early.
    /// With `stopAtFirstScan`, returns nil at the first SOS without reading the scan.
    ///
    /// `scan` finds where a scan's entropy-coded data ends (default: the next marker that is not stuffing or RSTn).
    /// `stray` is told of bytes where a marker should start (offset, count); without it they throw `.malformed`.
    /// `standalone` is told of RSTn and TEM markers found outside entropy-coded data.
    @discardableResult
    static func walk(
        _ view: ByteView, stopAtFirstScan: Bool = false,
        scan: ((Segment) -> Int)? = nil,
        stray: ((Int, Int) -> Void)? = nil,
        standalone: ((UInt8) -> Void)? = nil,
        visit: (Segment) throws -> Bool
    ) throws -> Int? {
        guard view.u8(0) == 0xFF, view.u8(1) == 0xD8 else { throw MetadataError.notAnImage }
        var position = 2
        while true {
            guard let first = view.u8(position) else { throw MetadataError.truncated("no end-of-image marker") }
            guard first == 0xFF else {
                guard let stray else { throw MetadataError.malformed("bytes between markers") }
                let next = try endOfScan(view, from: position)
                stray(position, next - position)
                position = next
                continue
            }
            // Any number of 0xFF fill bytes may precede a marker.
            var markerIndex = position + 1
            while view.u8(markerIndex) == 0xFF { markerIndex += 1 }
            guard let marker = view.u8(markerIndex) else { throw MetadataError.truncated("no end-of-image marker") }
            switch marker {
            case 0xD9:
                return markerIndex + 1
            case 0xD0...0xD7, 0x01:
                standalone?(marker)
                position = markerIndex + 1  // standalone RSTn / TEM
                continue
            case 0x00, 0xD8:
                throw MetadataError.malformed("unexpected marker")
            default:
                break
            }
            guard let length = view.u16(markerIndex + 1) else { throw MetadataError.truncated("segment header") }
            guard length >= 2 else { throw MetadataError.malformed("segment length") }
            let payloadStart = markerIndex + 3
            guard let payload = view.slice(payloadStart, length: length - 2) else {
                throw MetadataError.truncated("segment runs past the end")
            }
            if marker == 0xDA && stopAtFirstScan { return nil }
            let segment = Segment(marker: marker, payload: payload, end: payloadStart + length - 2)
            guard try visit(segment) else { return nil }
            position = segment.end
            if marker == 0xDA {
                position = try scan.map { $0(segment) } ?? endOfScan(view, from: position)
                guard position < view.count else { throw MetadataError.truncated("no end-of-image marker") }
            }
        }
    }

    /// The offset of the first marker after entropy-coded data starting at `start` (stuffed 0xFF00 and RSTn
    /// markers belong to the scan).
    static func endOfScan(_ view: ByteView, from start: Int) throws -> Int {
        let raw = view.raw
        let end = raw.count
        var index = max(0, start)
        while index < end {
            // Skip eight bytes at a time while none of them is 0xFF (a word of ~bytes with no zero byte).
            while index + 8 <= end {
                let inverted = ~raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < end else { break }
            if raw[index] != 0xFF {
                index += 1
                continue
            }
            guard index + 1 < end else { break }
            let next = raw[index + 1]
            if next == 0x00 || (next >= 0xD0 && next <= 0xD7) {
                index += 2
            } else if next == 0xFF {
                index += 1
            } else {
                return index
            }
        }
        throw MetadataError.truncated("no end-of-image marker")
    }
}
