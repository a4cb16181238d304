/// The one owner of user-facing wording for figures (ARCHITECTURE principle 7, DESIGN.md "Words").
///
/// Every similarity figure, trend and insight is rendered together with its disclaimer, verbatim, on the
/// page, in CLI text and JSON, and in PDFs. Nothing else in the code base spells these sentences.
public enum Disclaimer: String, CaseIterable, Sendable {
    case similarity = "A rough visual comparison of two photos, not a medical measurement."
    case trend = "Shows how much photos differ from the first one, not whether a change is good or bad."
    case insight = "An association in your own records. It does not show that anything caused a change."
    case labelReading = "Read from the photo on this device. Check every row before saving."

    /// The exact sentence.
    public var text: String { rawValue }
}

/// Plain statements the product makes about itself.
public enum ProductWording {
    /// What Cairn says about privacy, everywhere it says it.
    public static let privacy =
        "Everything stays on this computer. Cairn makes no network connections; the page you are looking at is served by Cairn itself, only to this computer."
    /// Words never used in user-facing text (DESIGN.md): clinical or directional verbs.
    public static let bannedWords: [String] = [
        "diagnose", "diagnosis", "diagnostic", "detect", "detects", "detected", "detection", "screen for",
        "screening", "treat", "treatment", "cure", "risk", "melanoma", "cancer", "malignant",
        "improve", "improved", "improves", "worsen", "worsened", "worsens", "healing",
    ]

    /// The banned words found in `text` (case-insensitive, whole words). Empty means the text is clean.
    public static func bannedWords(in text: String) -> [String] {
        let lower = text.lowercased()
        return bannedWords.filter { word in
            var searchRange = lower.startIndex..<lower.endIndex
            while let r = lower.range(of: word, range: searchRange) {
                let before = r.lowerBound == lower.startIndex ? nil : lower[lower.index(before: r.lowerBound)]
                let after = r.upperBound == lower.endIndex ? nil : lower[r.upperBound]
                let isBoundary: (Character?) -> Bool = { c in c.map { !($0.isLetter || $0.isNumber) } ?? true }
                if isBoundary(before) && isBoundary(after) { return true }
                searchRange = r.upperBound..<lower.endIndex
            }
            return false
        }
    }
}
