import Foundation

/// A bounds-checked, read-only window on raw bytes. Every read returns nil instead of reading past the end,
/// so the parsers built on it cannot trap on hostile or truncated input.
struct ByteView {
    let raw: UnsafeRawBufferPointer

    var count: Int { raw.count }

    /// The byte at `index`, or nil when out of range.
    @inline(__always)
    func u8(_ index: Int) -> UInt8? {
        guard index >= 0, index < raw.count else { return nil }
        return raw[index]
    }

    /// A big- or little-endian 16-bit value at `index`, or nil when it does not fit.
    @inline(__always)
    func u16(_ index: Int, littleEndian: Bool = false) -> Int? {
        guard index >= 0, index <= raw.count - 2 else { return nil }
        let a = Int(raw[index])
        let b = Int(raw[index + 1])
        return littleEndian ? (b << 8 | a) : (a << 8 | b)
    }

    /// A big- or little-endian unsigned 32-bit value at `index`, or nil when it does not fit.
    @inline(__always)
    func u32(_ index: Int, littleEndian: Bool = false) -> Int? {
        guard index >= 0, index <= raw.count - 4 else { return nil }
        let a = Int(raw[index])
        let b = Int(raw[index + 1])
        let c = Int(raw[index + 2])
        let d = Int(raw[index + 3])
        return littleEndian ? (d << 24 | c << 16 | b << 8 | a) : (a << 24 | b << 16 | c << 8 | d)
    }

    /// True when `range` lies inside the view.
    @inline(__always)
    func contains(_ start: Int, length: Int) -> Bool {
        start >= 0 && length >= 0 && start <= raw.count && length <= raw.count - start
    }

    /// A sub-view, or nil when the range does not fit.
    func slice(_ start: Int, length: Int) -> ByteView? {
        guard contains(start, length: length) else { return nil }
        return ByteView(raw: UnsafeRawBufferPointer(rebasing: raw[start..<start + length]))
    }

    /// True when the bytes at `index` equal `prefix`.
    func hasBytes(_ prefix: [UInt8], at index: Int) -> Bool {
        guard contains(index, length: prefix.count) else { return false }
        for (offset, byte) in prefix.enumerated() where raw[index + offset] != byte { return false }
        return true
    }

    /// The bytes from `start` up to (not including) the first NUL at or after it, within `limit` bytes.
    func nulTerminated(from start: Int, limit: Int) -> [UInt8]? {
        guard start >= 0, start <= raw.count else { return nil }
        let end = min(raw.count, start + max(0, limit))
        var index = start
        while index < end {
            if raw[index] == 0 { return Array(raw[start..<index]) }
            index += 1
        }
        return nil
    }

    /// A copy of the bytes in the range (which must fit).
    func data(_ start: Int, length: Int) -> Data? {
        guard contains(start, length: length) else { return nil }
        return Data(raw[start..<start + length])
    }
}

extension Data {
    /// Runs `body` over a bounds-checked view of the bytes.
    func withByteView<R>(_ body: (ByteView) throws -> R) rethrows -> R {
        try withUnsafeBytes { try body(ByteView(raw: $0)) }
    }
}

/// ASCII bytes of a string literal (for signature comparisons).
@inline(__always)
func ascii(_ text: StaticString) -> [UInt8] {
    Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
}
