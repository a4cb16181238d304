import Foundation

/// Text normalisation and similarity used to match label text to the catalogue.
public enum CatalogueText {
    /// Lowercased, diacritics folded, Greek letters spelled out (α -> alpha), apostrophes dropped,
    /// any other punctuation as one space: "St. John's Wort" -> "st johns wort", "Magnésium" -> "magnesium".
    public static func normalised(_ text: String) -> String {
        normalisedASCII(text) ?? normalisedFolding(text)
    }

    /// `normalised(text)` through Foundation's folding: any text.
    static func normalisedFolding(_ text: String) -> String {
        var s = text
        for (greek, latin) in [("α", "alpha"), ("β", "beta"), ("γ", "gamma"), ("µ", "u"), ("μ", "u")] {
            s = s.replacingOccurrences(of: greek, with: latin)
        }
        s = s.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var out = ""
        var pendingSpace = false
        for ch in s {
            if ch == "'" || ch == "\u{2019}" || ch == "\u{02BC}" { continue }
            if ch.isLetter || ch.isNumber {
                if pendingSpace && !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.append(ch)
            } else {
                pendingSpace = true
            }
        }
        return out
    }

    /// `normalised(text)` for plain ASCII text (nil otherwise), byte by byte: for ASCII, folding is lowercasing, and
    /// letters and digits are the only letters and numbers. Every catalogue name is normalised when a scan starts,
    /// and nearly all are ASCII; Foundation's folding costs most of that.
    static func normalisedASCII(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            switch byte {
            case 0x80...: return nil
            case UInt8(ascii: "'"): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace && !out.isEmpty { out.append(UInt8(ascii: " ")) }
                pendingSpace = false
                out.append(byte | (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? 0x20 : 0))
            default:
                pendingSpace = true
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `normalised(text)` with characters OCR commonly confuses mapped to one symbol
    /// ("rn" -> "m", "vv" -> "w", I/1/| -> l, 0 -> o between letters). Applied to both sides of a comparison.
    public static func ocrFolded(_ normalisedText: String) -> String {
        var s = normalisedText.replacingOccurrences(of: "rn", with: "m").replacingOccurrences(of: "vv", with: "w")
        s = String(
            s.map { ch -> Character in
                switch ch {
                case "i", "1", "|": "l"
                default: ch
                }
            })
        let chars = Array(s)
        return String(
            chars.enumerated().map { i, ch in
                if ch == "0", i > 0, i < chars.count - 1, chars[i - 1].isLetter, chars[i + 1].isLetter { return "o" }
                return ch
            })
    }

    /// Optimal-string-alignment Damerau-Levenshtein distance (insertions, deletions, substitutions and
    /// adjacent transpositions). - Complexity: O(n*m).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    /// `editDistance` over prepared scalar arrays (no allocation per character).
    /// With `limit`, stops early and returns `limit + 1` once the distance must exceed `limit`.
    static func editDistance(_ x: [Unicode.Scalar], _ y: [Unicode.Scalar], limit: Int = .max) -> Int {
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var prev2 = [Int](repeating: 0, count: y.count + 1)
        var prev = Array(0...y.count)
        var cur = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            cur[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    cur[j] = min(cur[j], prev2[j - 2] + 1)
                }
            }
            if limit != .max, cur.min()! > limit { return limit + 1 }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[y.count]
    }

    /// Similarity in 0...1: 1 - distance / longer length, the better of the plain and OCR-folded forms.
    public static func similarity(_ a: String, _ b: String) -> Double {
        similarity(Prepared(a), Prepared(b))
    }

    /// A normalised text prepared for repeated similarity computations.
    struct Prepared: Sendable {
        let plain: [Unicode.Scalar]
        let folded: [Unicode.Scalar]
        init(_ normalisedText: String) {
            plain = Array(normalisedText.unicodeScalars)
            folded = Array(ocrFolded(normalisedText).unicodeScalars)
        }
    }

    /// Similarity of prepared texts; scores below `floor` may be reported as any value below `floor`.
    static func similarity(_ a: Prepared, _ b: Prepared, floor: Double = 0) -> Double {
        func score(_ p: [Unicode.Scalar], _ q: [Unicode.Scalar]) -> Double {
            let longest = max(p.count, q.count)
            guard longest > 0 else { return 1 }
            let limit = floor > 0 ? Int((1 - floor) * Double(longest) + 1e-9) : .max
            return 1 - Double(editDistance(p, q, limit: limit)) / Double(longest)
        }
        return max(score(a.plain, b.plain), score(a.folded, b.folded))
    }
}
