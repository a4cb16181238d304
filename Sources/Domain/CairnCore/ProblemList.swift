/// The one rule for a message that lists problems (bad lines of an import, columns of a header, rows of a label,
/// fields of a form): at most the first `shown` of them, then one entry saying how many more there are
/// ("… and 4,999,980 more."). A file with millions of bad columns or lines then gives a message of a few
/// kilobytes, never one as long as the file; the person fixes the first ones and sees the next ones on the next try.
public enum ProblemList {
    /// The most problems a message lists.
    public static let shown = 20

    /// The entry that follows the listed problems when `total` is more than `shown`: "… and 4,999,980 more."; nil
    /// when every problem is listed.
    public static func more(_ total: Int) -> String? {
        total > shown ? "… and \(CountText.grouped(total - shown)) more." : nil
    }

    /// The texts of the first `shown` problems (`text` is asked only for those), then the `more(_:)` entry when
    /// some are left out.
    public static func entries<C: Collection>(_ problems: C, _ text: (C.Element) -> String) -> [String] {
        var entries = problems.prefix(shown).map(text)
        if let more = more(problems.count) { entries.append(more) }
        return entries
    }

    /// The same entries for texts already made.
    public static func entries(_ texts: [String]) -> [String] { entries(texts) { $0 } }

    /// The entries joined with `separator` (", " for a list inside a sentence).
    public static func joined<C: Collection>(_ problems: C, separator: String, _ text: (C.Element) -> String) -> String {
        let entries = entries(problems, text)
        guard problems.count > shown, let last = entries.last else { return entries.joined(separator: separator) }
        // The "more" entry ends the list without its own full stop inside a sentence.
        return entries.dropLast().joined(separator: separator) + " " + String(last.dropLast())
    }
}
