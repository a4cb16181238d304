import CairnCore
import Foundation
import Testing

@testable import Skin

/// The grown-spot case of issue 18: a 40 px dark spot on smooth skin-toned texture that grows by 20-60% in radius,
/// photographed from the same distance, must read clearly lower than unchanged retakes of the same spot (or be
/// "not comparable"), never be explained away by a scale change.
@Test func aGrownSpotReadsClearlyLowerThanUnchangedRetakesOfTheSameSpot() throws {
    let baseline = try SkinComparator.prepare(SpotSample.photo(spotRadius: 40, retake: 0))
    var lowestUnchanged = 100.0
    for retake in UInt64(1)...3 {
        let r = try SkinComparator.compare(baseline: baseline, probe: SkinComparator.prepare(SpotSample.photo(spotRadius: 40, retake: retake)))
        #expect(r.comparable)
        lowestUnchanged = min(lowestUnchanged, r.similarityPercent ?? 0)
    }
    #expect(lowestUnchanged >= 90)
    for radius in [48.0, 52, 64] {
        let r = try SkinComparator.compare(baseline: baseline, probe: SkinComparator.prepare(SpotSample.photo(spotRadius: radius, retake: 1)))
        if let s = r.similarityPercent, r.comparable {
            #expect(s <= lowestUnchanged - 30, "spot of \(radius) px read \(s)%")
            // Same distance: the transform keeps the scale instead of absorbing the growth.
            #expect(abs(r.alignment.scale - 1) < 0.05, "scale \(r.alignment.scale) for a spot of \(radius) px")
        }
    }
}

@Test func theSpotSampleIsReproducible() {
    #expect(SpotSample.photo(spotRadius: 52, retake: 2) == SpotSample.photo(spotRadius: 52, retake: 2))
    #expect(SpotSample.photo(spotRadius: 52, retake: 2) != SpotSample.photo(spotRadius: 52, retake: 3))
}
