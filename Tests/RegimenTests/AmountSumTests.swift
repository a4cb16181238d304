import Foundation
import Testing

@testable import Regimen

@Test func anEmptySumHasNoRows() {
    let sum = AmountSum()
    #expect(sum.isEmpty)
    #expect(sum.rows.isEmpty)
    #expect(sum.row(compatibleWith: .mg) == nil)
}

@Test func sumsMassUnitsInTheLargestUnitSeen() throws {
    let sum = try AmountSum([(Amount(1, .mg), .unspecified), (Amount(500, .mcg), .unspecified)])
    #expect(sum.rows == [try Amount("1.5", .mg)])
    let reversed = try AmountSum([(Amount(500, .mcg), .unspecified), (Amount(1, .mg), .unspecified)])
    #expect(reversed == sum)
}

@Test func keepsIncompatibleUnitsInSeparateRows() throws {
    let sum = try AmountSum([
        (Amount(25, .mcg), .unspecified), (Amount(1000, .iu), .unspecified), (Amount(10, .mcg), .unspecified),
        (Amount(Decimal(1_000_000_000), .cfu), .unspecified),
    ])
    #expect(sum.rows == [try Amount(35, .mcg), try Amount(1000, .iu), try Amount(Decimal(1_000_000_000), .cfu)])
}

@Test func convertsThroughTheIngredientContextBeforeSumming() throws {
    let d = try AmountSum([(Amount(1000, .iu), .vitaminD), (Amount(25, .mcg), .vitaminD)])
    #expect(d.rows == [try Amount(50, .mcg)])
    let a = try AmountSum([
        (Amount(5000, .iu), .vitaminA(form: .retinol)), (Amount(900, .mcgRAE), .vitaminA(form: nil)),
        (Amount(5000, .iu), .vitaminA(form: nil)),
    ])
    #expect(a.rows == [try Amount(5000, .iu), try Amount(2400, .mcgRAE)])
    let folate = try AmountSum([(Amount(400, .mcg), .folicAcid), (Amount(400, .mcgDFE), .folicAcid)])
    #expect(folate.rows == [try Amount(1080, .mcgDFE)])
}

@Test func refusesATotalBeyondTheBounds() throws {
    var sum = AmountSum()
    try sum.add(Amount(600, .g))
    #expect(throws: RegimenError.absurdAmount(limit: "1 kg")) { try sum.add(Amount(600, .g)) }
    #expect(sum.rows == [try Amount(600, .g)])
}
