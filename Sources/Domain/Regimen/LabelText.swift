import Foundation

/// One line of text read from a label, with where it sits, so the parser can tell blend members
/// (indented) from rows and point back at the words it came from. Pure data: no OCR types.
public struct LabelLine: Hashable, Sendable {
    /// The line's text, words separated by single spaces.
    public let text: String
    /// The left edge of the line's first word (pixels for OCR lines; leading spaces for typed text).
    public let leftEdge: Double
    /// The line's height in the same unit as `leftEdge` (1 for typed text).
    public let height: Double
    /// The lowest word confidence on the line, 0...1; nil for typed text.
    public let confidence: Double?
    /// Indices of the line's words in the recogniser's word list (empty for typed text).
    public let wordIndices: [Int]

    /// A line read by OCR.
    public init(text: String, leftEdge: Double, height: Double, confidence: Double?, wordIndices: [Int]) {
        self.text = text
        self.leftEdge = leftEdge
        self.height = max(height, 1)
        self.confidence = confidence
        self.wordIndices = wordIndices
    }

    /// A typed line: leading spaces count as indentation (one space = one unit).
    public init(text: String) {
        let leading = text.prefix { $0 == " " || $0 == "\t" }.count
        self.init(
            text: text.trimmingCharacters(in: .whitespaces), leftEdge: Double(leading), height: 1,
            confidence: nil, wordIndices: [])
    }

    /// Typed lines from a multi-line text (empty lines dropped).
    public static func lines(from text: String) -> [LabelLine] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { LabelLine(text: String($0)) }
            .filter { !$0.text.isEmpty }
    }
}
