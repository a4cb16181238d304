import Foundation
import Testing

@testable import Regimen

@Test func readsTheUnitsLabelsAndOCRWrite() throws {
    let cases: [(String, DoseUnit)] = [
        ("mcg", .mcg), ("µg", .mcg), ("μg", .mcg), ("ug", .mcg), ("MCG", .mcg), ("IU", .iu), ("1U", .iu),
        ("I.U.", .iu), ("mg NE", .mgNE), ("mcg RAE", .mcgRAE), ("µg RAE", .mcgRAE), ("mcg DFE", .mcgDFE),
        ("mg alpha-tocopherol", .mgAlphaTocopherol), ("mg α-TE", .mgAlphaTocopherol), ("CFU", .cfu),
        ("mL", .mL), ("ml", .mL), ("Gram(s)", .g), ("mg", .mg), ("ng", .ng), ("Capsule(s)", .count),
    ]
    for (text, unit) in cases {
        let parsed = try LabelUnitParser.unit(text)
        #expect(parsed.unit == unit, "\(text)")
        #expect(parsed.multiplier == 1, "\(text)")
    }
    #expect(try LabelUnitParser.unit("billion CFU") == .init(unit: .cfu, multiplier: 1_000_000_000))
    #expect(try LabelUnitParser.unit("kg") == .init(unit: .g, multiplier: 1000))
}

@Test func rejectsUnknownUnits() {
    for text in ["", "furlongs", "billion", "billion mg", "mmol", "%"] {
        #expect(throws: RegimenError.unknownUnit, "\(text)") { try LabelUnitParser.unit(text) }
    }
}

@Test func readsDecimalCommasAndThousandsSeparatorsByTheDocumentedRule() throws {
    let cases: [(String, String)] = [
        ("1,5", "1.5"), ("1,000", "1000"), ("12,500", "12500"), ("1,000,000", "1000000"), ("0,500", "0.5"),
        ("2,25", "2.25"), ("1,0000", "1.0000"), ("1,000.5", "1000.5"), ("1.000,5", "1000.5"), ("1.000", "1"),
        ("1.000.000", "1000000"), ("10 000", "10000"), ("0.025", "0.025"), ("7", "7"),
    ]
    for (text, expected) in cases {
        #expect(try LabelUnitParser.number(text) == Decimal(string: expected)!, "\(text)")
    }
}

@Test func rejectsUnreadableNumbers() {
    for text in ["", ",5", "5,", "1,00,000", "1.2.3", "1,2,3", "1.000,000,5", "abc", "1 00", "1,000.000,5"] {
        #expect(throws: RegimenError.unreadableNumber, "\(text)") { try LabelUnitParser.number(text) }
    }
}

@Test func readsWholeAmounts() throws {
    #expect(try LabelUnitParser.amount("1,5 mg") == Amount("1.5", .mg))
    #expect(try LabelUnitParser.amount("1,000 mg") == Amount(1000, .mg))
    #expect(try LabelUnitParser.amount("120mg") == Amount(120, .mg))
    #expect(try LabelUnitParser.amount("400 1U") == Amount(400, .iu))
    #expect(try LabelUnitParser.amount("10 000 IU") == Amount(10000, .iu))
    #expect(try LabelUnitParser.amount("10 billion CFU") == Amount(Decimal(10_000_000_000), .cfu))
    #expect(try LabelUnitParser.amount("2.5 billion CFU") == Amount(Decimal(2_500_000_000), .cfu))
    #expect(try LabelUnitParser.amount("667 mcg DFE") == Amount(667, .mcgDFE))
    #expect(try LabelUnitParser.amount(" 15 mg α-TE ") == Amount(15, .mgAlphaTocopherol))
    #expect(try LabelUnitParser.amount("2 capsules") == Amount(2, .count))
}

@Test func reportsEachKindOfBadAmount() {
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try LabelUnitParser.amount("5 kg") }
    #expect(throws: RegimenError.negativeAmount) { try LabelUnitParser.amount("-5 mg") }
    #expect(throws: RegimenError.unknownUnit) { try LabelUnitParser.amount("5 furlongs") }
    #expect(throws: RegimenError.unknownUnit) { try LabelUnitParser.amount("5") }
    #expect(throws: RegimenError.unreadableNumber) { try LabelUnitParser.amount("mg") }
    #expect(throws: RegimenError.unreadableNumber) { try LabelUnitParser.amount("") }
}

@Test func errorMessagesDoNotRepeatTheInput() {
    do {
        _ = try LabelUnitParser.amount("5 secretword")
        Issue.record("expected a throw")
    } catch let error as RegimenError {
        #expect(!error.userMessage.contains("secretword"))
    } catch {
        Issue.record("unexpected error type")
    }
}
