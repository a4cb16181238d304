import Foundation

/// The "not comparable" gate and the figures behind it.
enum Gate {
    /// Why two aligned photos are not comparable, nil when they are, in this order: the alignment correlation below
    /// `Calibration.minimumCorrelation` or under half the crop inside the probe (alignment failed); under
    /// `Calibration.minimumUnclippedFraction` of the crop left once pixels at white are set aside (too bright); a correlation
    /// below `Calibration.minimumConfidentCorrelation` (weak alignment: no figure rather than a confident one); and,
    /// only while the photos line up weakly (below `Calibration.sameContentCorrelation`), a median change above
    /// `Calibration.maximumMedianChange` (different content) or a grey-world histogram distance above
    /// `Calibration.maximumHistogramDistance` (colour mismatch). Once the detail lines up clearly the photos show the
    /// same area, and a large colour difference is exposure or a real change: the figure shows it instead of hiding it.
    static func reason(
        correlation: Float, validFraction: Float, unclippedFraction: Float = 1, medianChange: Double,
        histogramDistance: Double
    ) -> NotComparableReason? {
        if correlation < Calibration.minimumCorrelation || validFraction < 0.5 { return .alignmentFailed }
        if unclippedFraction < Calibration.minimumUnclippedFraction { return .tooBright }
        if correlation < Calibration.minimumConfidentCorrelation { return .weakAlignment }
        guard correlation < Calibration.sameContentCorrelation else { return nil }
        if medianChange > Calibration.maximumMedianChange { return .differentContent }
        if histogramDistance > Calibration.maximumHistogramDistance { return .colourMismatch }
        return nil
    }

    /// `x` minus its 3x3-box-smoothed-three-times self (sigma about 1.4 pixels): shading and colour-cast gradients
    /// removed, so that a coarse search follows detail rather than lighting.
    static func detrended(_ x: Plane) -> Plane { x.highPassed(radius: 1, passes: 3) }

    /// Normalised cross-correlation of `base` and the warped `probe` in each of the `parts` x `parts` tiles of the
    /// central crop (side `fraction` of the shorter side), sampled every `stride` pixels; tiles with too few
    /// samples inside the probe give -1.
    static func tileCorrelations(base: Plane, probe: Plane, warp: Warp, fraction: Float, stride: Int, parts: Int) -> [Float] {
        let (tiles, full) = CorrelationSums.collect(base: base, probe: probe, warp: warp, fraction: fraction, stride: stride, parts: parts)
        return tiles.map { t in
            guard t.count > 0.5 * full, t.count > 16 else { return -1 }
            return t.correlation.map { Float($0) } ?? 0
        }
    }
}
