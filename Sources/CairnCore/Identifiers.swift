import Foundation

/// A typed identifier: a random UUID string tagged with what it identifies, so an `AreaID` can never be
/// passed where a `ProductID` is expected.
public struct Identifier<Tag>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A fresh random identifier.
    public static func random() -> Identifier { Identifier(UUID().uuidString.lowercased()) }
    public var description: String { rawValue }
    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(rawValue) }
}

/// Tag for photo files kept in the vault.
public enum PhotoTag {}
/// The identifier of a photo file kept in the vault.
public typealias PhotoID = Identifier<PhotoTag>
