import Foundation

/// A typed identifier: a random UUID string tagged with what it identifies, so an `AreaID` can never be
/// passed where a `ProductID` is expected.
public struct Identifier<Tag>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A fresh random identifier.
    public static func random() -> Identifier { Identifier(UUID().uuidString.lowercased()) }
    /// The `index`-th of a run of identifiers made together (an import's records): an RFC 9562 version 7 UUID
    /// whose time is `start` (milliseconds) and whose other bits are `seed` (61 random bits, one per run) plus
    /// `index`, so a run's identifiers are unique, in increasing order, and land side by side in an index instead
    /// of on random pages.
    public static func ordered(start: Date, seed: UInt64, index: Int) -> Identifier {
        let millis = UInt64(max(0, start.timeIntervalSince1970 * 1000)) & 0xFFFF_FFFF_FFFF
        let counter = ((seed & 0x1FFF_FFFF_FFFF_FFFF) &+ UInt64(index)) & 0x3FFF_FFFF_FFFF_FFFF
        let high = millis << 16 | 0x7000 | (seed >> 49 & 0x0FFF)
        let low = 0x8000_0000_0000_0000 | counter
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: digits - text.count) + text
        }
        let h = hex(high, 16)
        let l = hex(low, 16)
        return Identifier("\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))")
    }
    public var description: String { rawValue }
    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Tag for photo files kept in the vault.
public enum PhotoTag {}
/// The identifier of a photo file kept in the vault.
public typealias PhotoID = Identifier<PhotoTag>
