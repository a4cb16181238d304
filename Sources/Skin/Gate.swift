import Foundation

/// The "not comparable" gate and the figures behind it.
enum Gate {
    /// Why two aligned photos are not comparable, nil when they are, in this order: the alignment correlation below
    /// `Calibration.minimumCorrelation` or under half the crop inside the probe (alignment failed); under
    /// `Calibration.minimumUnclippedFraction` of the crop left once pixels at white are set aside (too bright); and,
    /// only while the photos line up weakly (below `Calibration.sameContentCorrelation`), a median change above
    /// `Calibration.maximumMedianChange` (different content) or a grey-world histogram distance above
    /// `Calibration.maximumHistogramDistance` (colour mismatch). Once the detail lines up clearly the photos show the
    /// same area, and a large colour difference is exposure or a real change: the figure shows it instead of hiding it.
    static func reason(correlation: Float, validFraction: Float, unclippedFraction: Float = 1, medianChange: Double,
                       histogramDistance: Double) -> NotComparableReason? {
        if correlation < Calibration.minimumCorrelation || validFraction < 0.5 { return .alignmentFailed }
        if unclippedFraction < Calibration.minimumUnclippedFraction { return .tooBright }
        guard correlation < Calibration.sameContentCorrelation else { return nil }
        if medianChange > Calibration.maximumMedianChange { return .differentContent }
        if histogramDistance > Calibration.maximumHistogramDistance { return .colourMismatch }
        return nil
    }

    /// `x` minus its 3x3-box-smoothed-three-times self (sigma about 1.4 pixels): shading and colour-cast gradients
    /// removed, so that a coarse search follows detail rather than lighting.
    static func detrended(_ x: Plane) -> Plane {
        let lo = x.boxBlurred(radius: 1).boxBlurred(radius: 1).boxBlurred(radius: 1)
        var o = x
        for i in o.data.indices { o.data[i] -= lo.data[i] }
        return o
    }

    /// Normalised cross-correlation of `base` and the warped `probe` in each of the `parts` x `parts` tiles of the
    /// central crop (side `fraction` of the shorter side), sampled every `stride` pixels; tiles with too few
    /// samples inside the probe give -1.
    static func tileCorrelations(base: Plane, probe: Plane, warp: Similarity, fraction: Float, stride: Int, parts: Int) -> [Float] {
        let side = Float(min(base.width, base.height)) * fraction
        let x0 = Int((Float(base.width) - side) / 2), y0 = Int((Float(base.height) - side) / 2)
        let n = Int(side)
        let tiles = parts * parts
        var sb = [Double](repeating: 0, count: tiles), sp = sb, sbb = sb, spp = sb, sbp = sb, cnt = sb
        base.data.withUnsafeBufferPointer { b in
            probe.data.withUnsafeBufferPointer { p in
                var y = y0
                while y < y0 + n {
                    let ty = min(parts - 1, (y - y0) * parts / n)
                    var x = x0
                    while x < x0 + n {
                        let (u, v) = warp.apply(Float(x), Float(y))
                        if u >= 0 && v >= 0 && u <= Float(probe.width - 1) && v <= Float(probe.height - 1) {
                            let t = ty * parts + min(parts - 1, (x - x0) * parts / n)
                            let bv = Double(b[y * base.width + x])
                            let pv = Double(Plane.sample(p, probe.width, probe.height, u, v))
                            sb[t] += bv; sp[t] += pv; sbb[t] += bv * bv; spp[t] += pv * pv; sbp[t] += bv * pv; cnt[t] += 1
                        }
                        x += stride
                    }
                    y += stride
                }
            }
        }
        let full = Double((n / parts + stride - 1) / stride * ((n / parts + stride - 1) / stride))
        return (0..<tiles).map { t in
            guard cnt[t] > 0.5 * full, cnt[t] > 16 else { return -1 }
            let c = cnt[t]
            let cov = sbp[t] / c - sb[t] / c * sp[t] / c
            let vb = sbb[t] / c - (sb[t] / c) * (sb[t] / c), vp = spp[t] / c - (sp[t] / c) * (sp[t] / c)
            guard vb > 1e-12, vp > 1e-12 else { return 0 }
            return Float(cov / (vb * vp).squareRoot())
        }
    }
}
