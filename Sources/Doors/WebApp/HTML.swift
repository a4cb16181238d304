/// Markup safe to send, escaped by type: the literals of a page are Cairn's own, and every `String` interpolated
/// into one is text, escaped (`& < > " '`) whatever it holds, so a name, a note or a message cannot break out of
/// an element or a quoted attribute. Markup goes into markup only as `HTML`:
///
/// ```swift
/// let row: HTML = "<li>\(area.name)</li>"            // the name is escaped
/// let list: HTML = "<ul>\(rows)</ul>"                // `rows: [HTML]` is joined as markup
/// ```
///
/// Every page group is built this way; `HTML(trusted:)` is left for markup made outside WebApp with no text
/// from the person in it (the QR code's SVG from PhoneLink on the Use your phone page, with a constant label).
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    public let rendered: String

    /// A literal of our own.
    public init(stringLiteral value: String) { rendered = value }

    public init(stringInterpolation: Interpolation) { rendered = stringInterpolation.output }

    /// Markup built elsewhere with every value escaped (`HTML.escape`): a page group not yet built as `HTML`.
    public init(trusted markup: String) { rendered = markup }

    /// No markup.
    public static let empty: HTML = ""

    public var description: String { rendered }

    /// `pieces` one after the other, with `separator` between (a named function rather than `joined()`, so an
    /// array of `String` literals never turns into markup by inference).
    public static func join(_ pieces: [HTML], separator: HTML = .empty) -> HTML {
        HTML(trusted: pieces.map(\.rendered).joined(separator: separator.rendered))
    }

    /// `a` followed by `b`.
    public static func + (a: HTML, b: HTML) -> HTML { HTML(trusted: a.rendered + b.rendered) }

    /// Appends `b` to `a`.
    public static func += (a: inout HTML, b: HTML) { a = a + b }

    /// Whether there is no markup.
    public var isEmpty: Bool { rendered.isEmpty }

    /// Builds the markup: literals as written, `HTML` as markup, text escaped.
    public struct Interpolation: StringInterpolationProtocol {
        var output = ""

        public init(literalCapacity: Int, interpolationCount: Int) { output.reserveCapacity(literalCapacity * 2) }

        public mutating func appendLiteral(_ literal: String) { output += literal }

        /// Markup, as it is.
        public mutating func appendInterpolation(_ markup: HTML) { output += markup.rendered }

        /// Pieces of markup, one after the other.
        public mutating func appendInterpolation(_ pieces: [HTML]) { for piece in pieces { output += piece.rendered } }

        /// Markup if there is some, else nothing.
        public mutating func appendInterpolation(_ markup: HTML?) { output += markup?.rendered ?? "" }

        /// Text, escaped.
        public mutating func appendInterpolation(_ text: String) { output += HTML.escape(text) }

        /// A number as Swift writes it ("8.0"): the coordinates of a chart.
        public mutating func appendInterpolation(_ number: Double) { output += String(number) }

        /// A whole number, as digits.
        public mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { output += String(number) }
    }

    /// Escapes `& < > " '` so `text` is safe both as element content and inside a quoted attribute.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
