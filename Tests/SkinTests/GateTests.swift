import CairnCore
import Foundation
import Testing

@testable import Skin

/// A plane of seeded band-limited texture.
private func texture(seed: UInt64, side: Int = 96) -> Plane {
    var rng = SeededGenerator(seed: seed)
    return Plane(width: side, height: side, data: (0..<(side * side)).map { _ in Float(rng.unit() - 0.5) }).boxBlurred(radius: 1)
}

private func identity(_ p: Plane) -> Warp {
    let c = Float(p.width - 1) / 2
    return Warp.identity(cx: c, cy: c, probeCX: c, probeCY: c)
}

@Test func theGatePassesAlignedPhotosAndNamesEachReason() {
    let ok = Calibration.minimumCorrelation + 0.5
    #expect(Gate.reason(correlation: ok, validFraction: 1, medianChange: 0.1, histogramDistance: 0) == nil)
    #expect(
        Gate.reason(correlation: Calibration.minimumCorrelation - 0.01, validFraction: 1, medianChange: 0.1, histogramDistance: 0) == .alignmentFailed
    )
    #expect(Gate.reason(correlation: ok, validFraction: 0.4, medianChange: 0.1, histogramDistance: 0) == .alignmentFailed)
    let weak = (Calibration.minimumCorrelation + Calibration.sameContentCorrelation) / 2
    #expect(
        Gate.reason(
            correlation: weak, validFraction: 1, medianChange: 0.1,
            histogramDistance: Calibration.maximumHistogramDistance + 0.1) == .colourMismatch)
    #expect(
        Gate.reason(
            correlation: ok, validFraction: 1, unclippedFraction: Calibration.minimumUnclippedFraction - 0.01,
            medianChange: 0.1, histogramDistance: 0) == .tooBright)
}

@Test func aColourDifferenceBetweenPhotosThatLineUpClearlyIsShownNotHidden() {
    // Same detail, other colours: exposure, or a real change the figure should show.
    #expect(
        Gate.reason(
            correlation: Calibration.sameContentCorrelation, validFraction: 1, medianChange: 0.1,
            histogramDistance: 1) == nil)
    // Alignment and white come first.
    #expect(
        Gate.reason(
            correlation: Calibration.minimumCorrelation - 0.01, validFraction: 1, unclippedFraction: 0,
            medianChange: 5, histogramDistance: 1) == .alignmentFailed)
    #expect(Gate.reason(correlation: 0.9, validFraction: 1, unclippedFraction: 0, medianChange: 5, histogramDistance: 1) == .tooBright)
}

@Test func aLargeMedianChangeIsDifferentContentOnlyWhenThePhotosLineUpWeakly() {
    let big = Calibration.maximumMedianChange * 2
    let weak = (Calibration.minimumCorrelation + Calibration.sameContentCorrelation) / 2
    #expect(Gate.reason(correlation: weak, validFraction: 1, medianChange: big, histogramDistance: 0) == .differentContent)
    // An over-exposed probe of the same area: the detail lines up clearly, the colours are compressed everywhere.
    #expect(Gate.reason(correlation: Calibration.sameContentCorrelation, validFraction: 1, medianChange: big, histogramDistance: 0) == nil)
    #expect(Gate.reason(correlation: 0.95, validFraction: 1, medianChange: big, histogramDistance: 0) == nil)
}

@Test func quadrantCorrelationsAreHighForTheSameDetailAndLowWhereItDiffers() {
    let base = texture(seed: 41)
    let same = Gate.tileCorrelations(base: base, probe: base, warp: identity(base), fraction: 0.6, stride: 1, parts: 2)
    #expect(same.count == 4)
    #expect(same.allSatisfy { $0 > 0.99 })
    // Replace the lower right quarter of the frame with other detail: that quadrant of the crop no longer agrees.
    var probe = base
    let other = texture(seed: 42)
    for y in 48..<96 { for x in 48..<96 { probe.data[y * 96 + x] = other.data[y * 96 + x] } }
    let mixed = Gate.tileCorrelations(base: base, probe: probe, warp: identity(base), fraction: 0.6, stride: 1, parts: 2)
    #expect(mixed[0] > 0.99 && mixed[1] > 0.99 && mixed[2] > 0.99)
    #expect(mixed[3] < Calibration.minimumQuadrantCorrelation)
    // The whole-crop correlation still looks good: that is why the wide search also asks every quadrant.
    #expect(IntensityAlignment.correlation(base: base, probe: probe, warp: identity(base), fraction: 0.6, stride: 1) > 0.6)
}

@Test func quadrantsOutsideTheProbeCountAsNoMatch() {
    let base = texture(seed: 43)
    var warp = identity(base)
    warp.tx += 60
    let q = Gate.tileCorrelations(base: base, probe: base, warp: warp, fraction: 0.6, stride: 1, parts: 2)
    #expect(q[1] == -1 && q[3] == -1)
}

@Test func detrendingRemovesShadingButKeepsDetail() {
    let side = 64
    let ramp = Plane(width: side, height: side, data: (0..<(side * side)).map { Float($0 % side) / Float(side) })
    let flat = Gate.detrended(ramp)
    for y in 4..<(side - 4) { for x in 4..<(side - 4) { #expect(abs(flat[x, y]) < 1e-4) } }
    let detail = texture(seed: 44, side: side)
    var shaded = detail
    for i in shaded.data.indices { shaded.data[i] += ramp.data[i] }
    let a = Gate.detrended(detail)
    let b = Gate.detrended(shaded)
    var worst: Float = 0
    for y in 4..<(side - 4) { for x in 4..<(side - 4) { worst = max(worst, abs(a[x, y] - b[x, y])) } }
    #expect(worst < 1e-4)
}
