import CairnCore
import Foundation

/// A product's barcode number as a GTIN-14: the one form in which barcodes are compared, whatever wrote them. DSLD
/// writes "0 33984 00140 4" (a UPC-A with spaces), a scanner may report the same bars as the EAN-13
/// "0033984001404", and a UPC-E is the short form of a UPC-A: all are the same 14 digits once padded with zeros on
/// the left (GS1's rule) and, for a UPC-E, expanded first.
public struct GTIN: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Fourteen digits.
    public let digits: String

    /// The GTIN of an EAN-8, UPC-A, EAN-13 or GTIN-14 number (8, 12, 13 or 14 digits; spaces and hyphens are
    /// ignored); nil for anything else. The check digit is not required to be right: DSLD holds a few numbers
    /// with a wrong one, and they are still the number printed on that label (`hasValidCheckDigit` says).
    public init?(_ text: String) {
        var digits = ""
        for character in text {
            if character == " " || character == "-" || character == "\u{00A0}" { continue }
            guard character.isASCII, character.isNumber else { return nil }
            digits.append(character)
        }
        guard [8, 12, 13, 14].contains(digits.count) else { return nil }
        self.digits = String(repeating: "0", count: 14 - digits.count) + digits
    }

    /// The GTIN of a UPC-E number (8 digits: number system 0 or 1, six digits, check digit), expanded to its UPC-A;
    /// nil for anything else.
    public init?(upcE text: String) {
        let d = Array(text.filter { $0.isASCII && $0.isNumber })
        guard d.count == 8, text.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == " " }), d[0] == "0" || d[0] == "1" else { return nil }
        let m = String(d[1...6])
        let s = Array(m)
        let body: String
        switch s[5] {
        case "0", "1", "2": body = "\(s[0])\(s[1])\(s[5])0000\(s[2])\(s[3])\(s[4])"
        case "3": body = "\(s[0])\(s[1])\(s[2])00000\(s[3])\(s[4])"
        case "4": body = "\(s[0])\(s[1])\(s[2])\(s[3])00000\(s[4])"
        default: body = "\(s[0])\(s[1])\(s[2])\(s[3])\(s[4])0000\(s[5])"
        }
        self.init("\(d[0])\(body)\(d[7])")
    }

    /// Every GTIN written in a DSLD `upcSku` field: one number, or several separated by commas, semicolons or
    /// slashes; what is not a barcode number ("#15585", "0") is left out.
    public static func all(in text: String) -> [GTIN] {
        var found: [GTIN] = []
        for part in text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "/" || $0 == "\n" }) {
            if let gtin = GTIN(String(part)), gtin.digits != String(repeating: "0", count: 14), !found.contains(gtin) {
                found.append(gtin)
            }
        }
        return found
    }

    /// Whether the last digit is the GS1 check digit of the others.
    public var hasValidCheckDigit: Bool {
        let values = digits.compactMap { $0.wholeNumberValue }
        var sum = 0
        for (index, value) in values.dropLast().enumerated() { sum += value * (index % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == values.last
    }

    /// The number as printed under the bars: without the padding zeros (12 digits for a UPC-A, 13 for an EAN-13).
    public var printed: String {
        if digits.hasPrefix("00") { return String(digits.dropFirst(2)) }
        if digits.hasPrefix("0") { return String(digits.dropFirst()) }
        return digits
    }

    public var description: String { printed }

    public static func < (a: GTIN, b: GTIN) -> Bool { a.digits < b.digits }
}

extension GTIN: TextParsable {
    /// A barcode number a person types (8, 12, 13 or 14 digits, spaces and hyphens allowed).
    public static func parse(_ text: String) throws -> GTIN {
        guard let gtin = GTIN(text.trimmingCharacters(in: .whitespaces)) else { throw LabelDatabaseError.unreadableBarcode }
        return gtin
    }
}
