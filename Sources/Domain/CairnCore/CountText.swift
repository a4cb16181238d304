/// How Cairn writes a count in words, on every page and at the command line: thousands grouped, the noun
/// singular for one.
public enum CountText {
    /// A whole number with its thousands grouped: 150000 -> "150,000".
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A count with its noun: "1 record", "2,500 records" (`plural` when adding "s" is wrong).
    public static func counted(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        "\(grouped(n)) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// Items in a sentence: "a", "a and b", "a, b and c".
    public static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
