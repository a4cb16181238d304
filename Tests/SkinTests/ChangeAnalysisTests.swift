import CairnCore
import Foundation
import Testing
@testable import Skin

/// A 128 x 128 plane of seeded band-limited texture (L units, 0...100 scale like the crops).
private func texturePlane(seed: UInt64, side: Int = 128) -> Plane {
    var rng = SeededGenerator(seed: seed)
    var p = Plane(width: side, height: side, data: (0..<(side * side)).map { _ in Float(50 + 8 * (rng.unit() - 0.5)) })
    p = p.boxBlurred(radius: 1)
    return p
}

@Test func identicalCropsShowNoLocalDisplacement() {
    let p = texturePlane(seed: 11)
    let valid = [Bool](repeating: true, count: p.data.count)
    #expect(BlockTerms.displacement(base: p, probe: p, valid: valid) == 0)
}

@Test func aLocallyShiftedRegionRaisesTheDisplacementTerm() {
    let base = texturePlane(seed: 12)
    var probe = base
    // Shift a 40 x 40 region by 3 px to the right (its content comes from 3 px to the left).
    for y in 44..<84 { for x in 44..<84 { probe.data[y * 128 + x] = base.data[y * 128 + x - 3] } }
    let valid = [Bool](repeating: true, count: base.data.count)
    let moved = BlockTerms.displacement(base: base, probe: probe, valid: valid)
    #expect(moved > 0.3)
    // The same shift everywhere is global (alignment's job), not local: far smaller.
    var global = base
    for y in 0..<128 { for x in 3..<128 { global.data[y * 128 + x] = base.data[y * 128 + x - 3] } }
    #expect(BlockTerms.displacement(base: base, probe: global, valid: valid) < moved / 2)
}

@Test func cropsWithoutEnoughValidBlocksGiveNoDisplacement() {
    let base = texturePlane(seed: 13)
    let none = [Bool](repeating: false, count: base.data.count)
    #expect(BlockTerms.displacement(base: base, probe: texturePlane(seed: 14), valid: none) == 0)
    let tiny = texturePlane(seed: 15, side: 16)
    #expect(BlockTerms.displacement(base: tiny, probe: tiny, valid: [Bool](repeating: true, count: 256)) == 0)
}

@Test func aPhotoTurnedFifteenDegreesAndZoomedFifteenPercentStillLinesUp() throws {
    let scene = TestImages.scene(seed: 31)
    let base = TestImages.photo(scene)
    // Blurred as a sloppy hand-held photo is. (On these clean test scenes keypoints or the normal path already line
    // it up; the wide grid's own reach is checked by the coarse-search test below.)
    let probe = TestImages.blurred(TestImages.photo(scene, shiftX: 0.02, shiftY: -0.02, rotation: 15, scale: 1.15, gain: 1.05), radius: 2)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(r.reasonNotComparable == nil)
    #expect(abs(r.alignment.rotationDegrees + 15) < 1.5)
    #expect(abs(r.alignment.scale - 1.15) < 0.04)
    #expect(r.alignment.correlation >= Double(Calibration.minimumCorrelation))
}

@Test func theWideSearchDoesNotMakeADifferentSubjectComparable() throws {
    let base = TestImages.photo(TestImages.scene(seed: 31))
    let other = TestImages.blurred(TestImages.photo(TestImages.scene(seed: 32), rotation: 15, scale: 1.15), radius: 2)
    let r = try SkinComparator.compare(baseline: base, probe: other)
    #expect(!r.comparable)
    #expect(r.reasonNotComparable == .alignmentFailed)
    #expect(r.similarityPercent == nil)
}

@Test func theWideCoarseSearchReachesATurnAndZoomTheNormalGridDoesNot() {
    let scene = TestImages.scene(seed: 33)
    func coarse(_ image: RGBImage) -> Plane {
        SkinComparator.prepare(color: ColorPlanes.resampled(image, shortSide: SkinComparator.workingSide)).pyramid.levels[2]
    }
    let base = coarse(TestImages.photo(scene)), probe = coarse(TestImages.photo(scene, rotation: 17, scale: 1.2))
    let c = Float(base.width - 1) / 2
    let grid = IntensityAlignment.wideGrid
    let wide = IntensityAlignment.coarseSearch(base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c,
                                               scales: grid.scales, degrees: grid.degrees, keep: 3)
    let normal = IntensityAlignment.coarseSearch(base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c)
    #expect(wide.count == 3 && normal.count == 1)
    // The best wide seed lies within half a grid step of the true turn (-17 degrees) and zoom (1.2).
    #expect(abs(wide[0].rotationDegrees + 17) <= 2.5 && abs(wide[0].scale - 1.2) <= 0.05)
    #expect(abs(normal[0].rotationDegrees + 17) > 2.5 || abs(normal[0].scale - 1.2) > 0.05)
    #expect(IntensityAlignment.coarseSearch(base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c, keep: 0).count == 1)
}

@Test func theRawScoreIsWeighedAgainstThePairsOwnNoise() {
    let reference = ChangeAnalysis.Tuning.noiseReference
    // A pair as noisy as the bench's typical no-change pair keeps its score.
    #expect(abs(ChangeAnalysis.Tuning.noiseFactor(spread: reference) - 1) < 1e-12)
    // Quieter pairs weigh a change more, noisier ones less, by the square root of the relative noise.
    var last = Double.infinity
    for i in 0...20 {
        let f = ChangeAnalysis.Tuning.noiseFactor(spread: reference * Double(i) / 4)
        #expect(f < last)
        last = f
    }
    #expect(abs(ChangeAnalysis.Tuning.noiseFactor(spread: 4 * reference) / ChangeAnalysis.Tuning.noiseFactor(spread: 16 * reference)
                - ((ChangeAnalysis.Tuning.noiseConstant + 16) / (ChangeAnalysis.Tuning.noiseConstant + 4)).squareRoot()) < 1e-9)
    // A noiseless pair (an identical photo) is bounded, and a spread below 0 cannot occur in effect.
    let quiet = ChangeAnalysis.Tuning.noiseFactor(spread: 0)
    #expect(quiet.isFinite && quiet < 4)
    #expect(ChangeAnalysis.Tuning.noiseFactor(spread: -1) == quiet)
}
