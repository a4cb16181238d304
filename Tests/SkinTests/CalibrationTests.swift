import Testing

@testable import Skin

@Test func theSimilarityMappingIsMonotoneWithDocumentedPoints() {
    #expect(Calibration.similarityPercent(rawScore: 0) == 100)
    #expect(abs(Calibration.similarityPercent(rawScore: Calibration.noiseFloor) - 90) < 1e-9)
    #expect(abs(Calibration.similarityPercent(rawScore: 2 * Calibration.noiseFloor) - 50) < 1e-9)
    var last = 101.0
    for i in 0...400 {
        let s = Calibration.similarityPercent(rawScore: Double(i) * 0.05)
        #expect(s < last)
        last = s
    }
    #expect(Calibration.similarityPercent(rawScore: -1) == 100)
}

@Test func aStrongChangeFallsOffGraduallyInsteadOfReadingZero() {
    let tenTimes = Calibration.similarityPercent(rawScore: 10 * Calibration.noiseFloor)
    let twentyTimes = Calibration.similarityPercent(rawScore: 20 * Calibration.noiseFloor)
    #expect(tenTimes > 5 && tenTimes < 20)
    #expect(twentyTimes > 2 && twentyTimes < tenTimes)
}

@Test func theRawScoreIsTheLargestChangeFigureInUnitsOfItsNoise() {
    let s = Calibration.termScales
    #expect(Calibration.rawScore(map: s.map, displacement: 0, colour: 0, texture: 0) == 1)
    #expect(abs(Calibration.rawScore(map: 0, displacement: 0, colour: 3 * s.colour, texture: s.texture) - 3) < 1e-9)
}
