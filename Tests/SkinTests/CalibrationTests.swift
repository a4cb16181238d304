import Testing
@testable import Skin

@Test func similarityMappingIsMonotoneAndAnchoredAtTheNoiseFloor() {
    #expect(Calibration.similarityPercent(rawScore: 0) == 100)
    #expect(abs(Calibration.similarityPercent(rawScore: Calibration.noiseFloor) - 90) < 1e-9)
    #expect(abs(Calibration.similarityPercent(rawScore: Calibration.halfPoint) - 50) < 1e-9)
    var previous = 101.0
    for i in 0...400 {
        let s = Calibration.similarityPercent(rawScore: Double(i) * 0.05)
        #expect(s < previous && s >= 0 && s <= 100)
        previous = s
    }
    #expect(Calibration.similarityPercent(rawScore: 1000) < 1)
    #expect(Calibration.similarityPercent(rawScore: -1) == 100)
}
