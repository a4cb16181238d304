import Foundation
import Testing

@testable import Regimen

@Test func keepsDecimalValuesExact() throws {
    let a = try Amount("0.1", .mg)
    #expect(a.value == Decimal(string: "0.1"))
    #expect(a.description == "0.1 mg")
}

@Test func acceptsZero() throws {
    #expect(try Amount("0", .mcg).isZero)
}

@Test func rejectsNegativeAmountsAtConstruction() {
    #expect(throws: RegimenError.negativeAmount) { try Amount(-1, .mg) }
    #expect(throws: RegimenError.negativeAmount) { try Amount("-0.5", .iu) }
}

@Test func rejectsNotANumber() {
    #expect(throws: RegimenError.notANumber) { try Amount(Decimal.nan, .mg) }
}

@Test func rejectsAbsurdAmountsPerDimension() throws {
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try Amount(5000, .g) }
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try Amount(5_000_000, .mg) }
    #expect(throws: RegimenError.absurdAmount(limit: "10 million IU")) { try Amount(20_000_000, .iu) }
    #expect(throws: RegimenError.absurdAmount(limit: "10 trillion CFU")) { try Amount(Decimal(string: "1e14")!, .cfu) }
    #expect(throws: RegimenError.absurdAmount(limit: "1 L")) { try Amount(1500, .mL) }
    #expect(throws: RegimenError.absurdAmount(limit: "1000")) { try Amount(1001, .count) }
    // The bounds themselves are accepted.
    #expect(try Amount(1000, .g).value == 1000)
    #expect(try Amount(50000, .iu).unit == .iu)
}

@Test func rejectsLiteralsThatAreNotPlainNumbers() {
    #expect(throws: RegimenError.unreadableNumber) { try Amount("1,5", .mg) }
    #expect(throws: RegimenError.unreadableNumber) { try Amount("", .mg) }
    #expect(throws: RegimenError.unreadableNumber) { try Amount("five", .mg) }
}

@Test func convertsBetweenMassUnitsExactly() throws {
    #expect(try Amount("1.5", .mg).converted(to: .mcg) == Amount(1500, .mcg))
    #expect(try Amount(250, .mcg).converted(to: .mg) == Amount("0.25", .mg))
    #expect(try Amount(2, .g).converted(to: .mg) == Amount(2000, .mg))
    #expect(try Amount(7, .ng).converted(to: .mcg) == Amount("0.007", .mcg))
    #expect(try Amount(3, .mg).converted(to: .mg) == Amount(3, .mg))
}

@Test func convertsVitaminDBothWays() throws {
    #expect(try Amount(1000, .iu).converted(to: .mcg, context: .vitaminD) == Amount(25, .mcg))
    #expect(try Amount(400, .iu).converted(to: .mg, context: .vitaminD) == Amount("0.01", .mg))
    #expect(try Amount(50, .mcg).converted(to: .iu, context: .vitaminD) == Amount(2000, .iu))
}

@Test func convertsVitaminAIUOnlyWhenTheFormIsKnown() throws {
    #expect(try Amount(10000, .iu).converted(to: .mcgRAE, context: .vitaminA(form: .retinol)) == Amount(3000, .mcgRAE))
    #expect(try Amount(5000, .iu).converted(to: .mcgRAE, context: .vitaminA(form: .betaCarotene)) == Amount(750, .mcgRAE))
    let refused = RegimenError.conversionRefused(.vitaminAFormUnknown)
    #expect(throws: refused) { try Amount(5000, .iu).converted(to: .mcgRAE, context: .vitaminA(form: nil)) }
    #expect(refused.userMessage == "IU of vitamin A can only be converted when the form (retinol or beta-carotene) is known.")
}

@Test func convertsVitaminEIUOnlyWhenTheFormIsKnown() throws {
    #expect(try Amount(100, .iu).converted(to: .mgAlphaTocopherol, context: .vitaminE(form: .natural)) == Amount(67, .mgAlphaTocopherol))
    #expect(try Amount(100, .iu).converted(to: .mgAlphaTocopherol, context: .vitaminE(form: .synthetic)) == Amount(45, .mgAlphaTocopherol))
    #expect(throws: RegimenError.conversionRefused(.vitaminEFormUnknown)) {
        try Amount(400, .iu).converted(to: .mgAlphaTocopherol, context: .vitaminE(form: nil))
    }
}

@Test func convertsFolicAcidToDietaryFolateEquivalents() throws {
    #expect(try Amount(400, .mcg).converted(to: .mcgDFE, context: .folicAcid) == Amount(680, .mcgDFE))
    #expect(try Amount("0.4", .mg).converted(to: .mcgDFE, context: .folicAcid) == Amount(680, .mcgDFE))
    #expect(throws: RegimenError.conversionRefused(.dietaryFolateEquivalentsNeedFolicAcid)) {
        try Amount(400, .mcg).converted(to: .mcgDFE)
    }
}

@Test func refusesIUWithoutAnIngredient() {
    #expect(throws: RegimenError.conversionRefused(.internationalUnitsNeedAnIngredient)) {
        try Amount(400, .iu).converted(to: .mcg)
    }
}

@Test func neverConvertsEquivalentsBack() {
    #expect(throws: RegimenError.conversionRefused(.equivalentsDoNotConvertBack(.retinolActivityEquivalents))) {
        try Amount(900, .mcgRAE).converted(to: .iu, context: .vitaminA(form: .retinol))
    }
    #expect(throws: RegimenError.conversionRefused(.equivalentsDoNotConvertBack(.dietaryFolateEquivalents))) {
        try Amount(680, .mcgDFE).converted(to: .mcg, context: .folicAcid)
    }
}

@Test func refusesUnrelatedDimensions() {
    #expect(throws: RegimenError.conversionRefused(.differentDimensions(from: .colonyFormingUnits, to: .mass))) {
        try Amount(1000, .cfu).converted(to: .mg)
    }
    #expect(throws: RegimenError.conversionRefused(.differentDimensions(from: .internationalUnits, to: .alphaTocopherol))) {
        try Amount(400, .iu).converted(to: .mgAlphaTocopherol, context: .vitaminD)
    }
}

@Test func conversionResultsStillRespectTheBounds() {
    #expect(throws: RegimenError.absurdAmount(limit: "10 million IU")) {
        try Amount(1, .g).converted(to: .iu, context: .vitaminD)
    }
}

@Test func roundTripsThroughJSONAsExactStrings() throws {
    let a = try Amount("0.025", .mcg)
    let data = try JSONEncoder().encode(a)
    #expect(String(decoding: data, as: UTF8.self).contains("\"0.025\""))
    #expect(try JSONDecoder().decode(Amount.self, from: data) == a)
    let negative = Data(#"{"value":"-3","unit":"mg"}"#.utf8)
    #expect(throws: RegimenError.negativeAmount) { try JSONDecoder().decode(Amount.self, from: negative) }
}

@Test func everyRefusalExplainsItselfWithoutBannedWords() {
    let refusals: [ConversionRefusal] = [
        .internationalUnitsNeedAnIngredient, .vitaminAFormUnknown, .vitaminEFormUnknown,
        .dietaryFolateEquivalentsNeedFolicAcid, .equivalentsDoNotConvertBack(.alphaTocopherol),
        .differentDimensions(from: .volume, to: .count),
    ]
    for r in refusals {
        #expect(!r.reason.isEmpty)
        #expect(ProductWordingCheck.banned(in: r.reason).isEmpty)
    }
}
