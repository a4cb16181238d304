import Foundation

/// Reads amounts and units as Supplement Facts labels and OCR write them ("1,5 mg", "400 1U",
/// "10 billion CFU", "667 mcg DFE").
///
/// Number rule (US labels are the reference; DSLD and FDA write "1,000 mg"):
/// - a comma followed by exactly three digits, after a non-zero integer part, groups thousands:
///   "1,000 mg" = 1000 mg, "12,500 IU" = 12500 IU, "1,000,000" = 1000000;
/// - any other single comma is a decimal comma: "1,5 mg" = 1.5 mg, "0,500 mg" = 0.5 mg, "2,25 g" = 2.25 g;
/// - with both separators, the last one is the decimal mark: "1,000.5" and "1.000,5" are both 1000.5;
/// - a single dot is always a decimal point ("1.000 mg" = 1 mg); several dots group thousands
///   ("1.000.000"); a space (or no-break/thin space) followed by exactly three digits groups thousands
///   ("10 000 IU").
/// "1,500 mg" is therefore read as 1500 mg, never 1.5 mg: the label-reading screen shows every row for
/// checking (Disclaimer.labelReading).
public enum LabelUnitParser {
    /// A parsed unit: the unit plus a multiplier carried by the words ("billion CFU" = CFU x 10^9,
    /// "kg" = g x 1000).
    public struct ParsedUnit: Hashable, Sendable {
        /// The unit.
        public let unit: DoseUnit
        /// The factor the number is multiplied by.
        public let multiplier: Decimal
    }

    /// The unit written in `text`; throws `RegimenError.unknownUnit`.
    ///
    /// Case, dots, hyphens and spacing are ignored; µ and μ read as "u"; α reads as "alpha";
    /// OCR misreads "1U", "lU" (IU) and "meg" (mcg) are accepted; count words ("capsule(s)",
    /// "tablets", "drops", ...) read as `.count`.
    public static func unit(_ text: String) throws -> ParsedUnit {
        let key = normalisedUnitKey(text)
        if let exact = unitTable[key] { return ParsedUnit(unit: exact.0, multiplier: exact.1) }
        for (word, factor) in scaleWords where key.hasPrefix(word + " ") {
            let rest = String(key.dropFirst(word.count + 1))
            if let base = unitTable[rest], base.1 == 1, base.0 == .cfu || base.0 == .iu {
                return ParsedUnit(unit: base.0, multiplier: factor)
            }
        }
        throw RegimenError.unknownUnit
    }

    /// True when `word` alone is a unit ("mg", "IU", "mcg", "1U", "CFU").
    public static func isUnitWord(_ word: String) -> Bool { unitTable[normalisedUnitKey(word)] != nil }

    /// The amount written in `text` (a number followed by a unit); throws `RegimenError.unreadableNumber`,
    /// `.unknownUnit`, or the construction errors of `Amount` (negative, absurd: "5 kg").
    public static func amount(_ text: String) throws -> Amount {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-") || trimmed.hasPrefix("\u{2212}") { throw RegimenError.negativeAmount }
        let (numberText, rest) = splitLeadingNumber(trimmed)
        guard !numberText.isEmpty else { throw RegimenError.unreadableNumber }
        let value = try number(numberText)
        let parsed = try unit(rest)
        return try Amount(value * parsed.multiplier, parsed.unit)
    }

    /// The number in `text` under the rule above; throws `RegimenError.unreadableNumber`.
    public static func number(_ text: String) throws -> Decimal {
        let spaces: Set<Character> = [" ", "\u{00A0}", "\u{2009}", "\u{202F}"]
        let chars = Array(text.trimmingCharacters(in: .whitespaces))
        var cleaned: [Character] = []
        for (i, c) in chars.enumerated() {
            if spaces.contains(c) {
                // A space groups thousands only when exactly three digits follow.
                let after = chars[(i + 1)...].prefix { $0.isASCII && $0.isNumber }
                guard after.count == 3, i + 4 == chars.count || !(chars[i + 4].isNumber) else {
                    throw RegimenError.unreadableNumber
                }
                continue
            }
            guard c.isASCII, c.isNumber || c == "," || c == "." else { throw RegimenError.unreadableNumber }
            cleaned.append(c)
        }
        let s = String(cleaned)
        guard let first = s.first, first.isNumber, let last = s.last, last.isNumber else {
            throw RegimenError.unreadableNumber
        }
        let commas = s.filter { $0 == "," }.count
        let dots = s.filter { $0 == "." }.count
        let plain: String
        if commas > 0 && dots > 0 {
            let decimalMark: Character = s.lastIndex(of: ",")! > s.lastIndex(of: ".")! ? "," : "."
            let groupMark: Character = decimalMark == "," ? "." : ","
            let parts = s.split(separator: decimalMark, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw RegimenError.unreadableNumber }
            plain = try ungroup(String(parts[0]), by: groupMark) + "." + parts[1]
        } else if commas == 1 {
            let parts = s.split(separator: ",")
            let isThousands = parts[1].count == 3 && parts[0] != "0" && parts[0].count <= 3
            plain = isThousands ? String(parts[0] + parts[1]) : String(parts[0] + "." + parts[1])
        } else if commas > 1 {
            plain = try ungroup(s, by: ",")
        } else if dots > 1 {
            plain = try ungroup(s, by: ".")
        } else {
            plain = s
        }
        guard let value = Decimal(string: plain, locale: Locale(identifier: "en_US_POSIX")) else {
            throw RegimenError.unreadableNumber
        }
        return value
    }

    /// Removes thousands separators, requiring groups of three after a first group of one to three digits.
    private static func ungroup(_ s: String, by mark: Character) throws -> String {
        let groups = s.split(separator: mark, omittingEmptySubsequences: false)
        guard let head = groups.first, (1...3).contains(head.count),
            groups.dropFirst().allSatisfy({ $0.count == 3 })
        else { throw RegimenError.unreadableNumber }
        return groups.joined()
    }

    /// Splits "1,000mg" into ("1,000", "mg"), keeping space-grouped thousands ("10 000 IU").
    private static func splitLeadingNumber(_ text: String) -> (String, String) {
        let chars = Array(text)
        var end = 0
        while end < chars.count {
            let c = chars[end]
            if c.isASCII && (c.isNumber || c == "," || c == ".") {
                end += 1
                continue
            }
            if [" ", "\u{00A0}", "\u{2009}", "\u{202F}"].contains(c), end > 0 {
                let digits = chars[(end + 1)...].prefix { $0.isASCII && $0.isNumber }
                let next = end + 1 + digits.count
                if digits.count == 3, next == chars.count || !(chars[next].isASCII && chars[next].isNumber) {
                    end = next
                    continue
                }
            }
            break
        }
        return (String(chars[..<end]), String(chars[end...]))
    }

    /// Lowercased, µ/μ as "u", α as "alpha", dots removed, hyphens and runs of spaces as one space,
    /// a trailing "(s)" removed.
    static func normalisedUnitKey(_ text: String) -> String {
        var s = text.lowercased()
        s = s.replacingOccurrences(of: "\u{00B5}", with: "u").replacingOccurrences(of: "\u{03BC}", with: "u")
        s = s.replacingOccurrences(of: "\u{03B1}", with: "alpha ")
        s = s.replacingOccurrences(of: "(s)", with: "")
        s = s.replacingOccurrences(of: ".", with: "")
        s = s.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " ")
        return s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private static let scaleWords: [(String, Decimal)] = [
        ("thousand", 1_000), ("million", 1_000_000), ("billion", 1_000_000_000), ("trillion", 1_000_000_000_000),
    ]

    private static let unitTable: [String: (DoseUnit, Decimal)] = {
        var t: [String: (DoseUnit, Decimal)] = [:]
        func add(_ unit: DoseUnit, _ factor: Decimal = 1, _ keys: String...) { for k in keys { t[k] = (unit, factor) } }
        add(.g, 1, "g", "gram", "grams", "gr", "gm")
        add(.g, 1000, "kg", "kilogram", "kilograms")
        add(.mg, 1, "mg", "milligram", "milligrams")
        add(.mcg, 1, "mcg", "ug", "microgram", "micrograms", "meg")
        add(.ng, 1, "ng", "nanogram", "nanograms")
        add(.iu, 1, "iu", "1u", "lu", "i u", "international unit", "international units")
        add(.mcgRAE, 1, "mcg rae", "ug rae", "meg rae")
        add(.mcgDFE, 1, "mcg dfe", "ug dfe", "meg dfe")
        add(.mgNE, 1, "mg ne", "mg niacin equivalents")
        add(.mgAlphaTocopherol, 1, "mg alpha tocopherol", "mg alpha te", "mg ate", "mg a te", "mg at")
        add(.cfu, 1, "cfu", "colony forming units")
        add(.mL, 1, "ml", "milliliter", "milliliters", "millilitre", "millilitres")
        add(
            .count, 1, "count", "capsule", "capsules", "tablet", "tablets", "softgel", "softgels", "lozenge",
            "lozenges", "gummy", "gummies", "drop", "drops", "piece", "pieces", "scoop", "scoops", "serving",
            "servings", "packet", "packets", "chewable", "chewables", "caplet", "caplets", "vegcap", "vegcaps")
        return t
    }()
}
