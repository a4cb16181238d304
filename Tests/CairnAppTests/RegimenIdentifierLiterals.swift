import CairnCore

/// Lets tests write typed ids as string literals.
extension Identifier: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
{
    public init(stringLiteral value: String) { self.init(value) }
}
