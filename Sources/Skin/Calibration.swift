import Foundation

/// Thresholds and the raw-score-to-similarity mapping of revision 3, calibrated on `cairn-bench skin`
/// (33 subjects: 19 real skin patches, 14 procedural; 320 px photos; fixed seeds; bench replay of 2026-11-30 with the
/// noise-normalised raw score of issue 5).
///
/// Raw score = (99.5th percentile of the 7x7-smoothed change map minus its median, plus twice the 99th-minus-50th
/// percentile spread of the map averaged over 15x15 windows, plus 4/3 of the local-displacement block term
/// (`BlockTerms`)) times `ChangeAnalysis.Tuning.noiseFactor`, which divides by the square root of the pair's own
/// relative noise level. Pixels with a channel at white keep their detail terms but not their ΔE. Bench figures of
/// the final run (seed set 0; seed set 1, never tuned on, in brackets):
/// - no-change pairs, raw score p50 / p95 / p99: careful 0.139 / 0.219 / 0.270; typical 0.197 / 0.319 / 0.479
///   [0.204 / 0.343 / 0.440]; sloppy 0.267 / 0.719 / 1.424 (before the noise normalisation: typical
///   0.248 / 0.446 / 0.745).
/// - change pairs, raw score p50: careful 1.23, typical 0.93 [0.94], sloppy 0.72.
/// - gate figures, same subject (careful + typical) p1 / p50 / p99 against different subjects p1 / p50 / p99:
///   aligned band-pass correlation (clipped) 0.437 / 0.960 / 0.997 (0.494 / 0.961 / 0.997 with the fallback of the
///   gate change below) against -0.043 / 0.017 / 0.097; median change 0.024 / 0.072 / 0.135 against
///   0.061 / 0.355 / 1.441 (5x5 map of the former weights: 0.052 / 0.087 / 0.232 against 0.031 / 0.448 / 1.562);
///   grey-world histogram distance
///   0.000 / 0.001 / 0.027 against 0.001 / 0.130 / 0.949. (Revision 1: correlation 0.241 / 0.967 / 0.997 against
///   -0.020 / 0.025 / 0.127; the thresholds below are unchanged from it.)
enum Calibration {
    /// The noise floor: 95th percentile of the raw score on typical-capture no-change pairs (0.319, rounded).
    /// "Within session noise" therefore shows at least 90% (for 95% of typical no-change pairs; on seed set 1, never
    /// tuned on, the 95th percentile is 0.343, so about 93% of its typical no-change pairs show 90% or more).
    static let noiseFloor = 0.32
    /// Raw score shown as 50%: the median raw score of typical-capture change pairs (0.933, rounded).
    static let halfPoint = 0.93
    /// Change-map level (7x7-smoothed map, before the noise normalisation) drawn at full intensity in the heat map
    /// (a raw score of 1.5 would show about 29%).
    static let displayCeiling = 1.5
    /// Below this aligned band-pass correlation the photos are "not comparable" (alignment failed): just under
    /// the same-subject 1st percentile (0.437), above the different-subject 99th percentile (0.097).
    /// The wide fallback alignment (run only below this threshold) must reach it too, on band-pass planes smoothed by
    /// two 3x3 box passes, and in each quadrant of the crop reach `minimumQuadrantCorrelation`. Bench replay of
    /// 2026-11-30 (2,178 pairs), same-subject pairs "not comparable" before / after the detrended wide search, the
    /// band-pass refinement, the quadrant check and `sameContentCorrelation`: careful 0.3% / 0.0%, typical 0.4% / 0.1%,
    /// sloppy 2.2% / 0.4% (15 / 3 of 693); different subjects 100% / 100% (99 of 99).
    static let minimumCorrelation: Float = 0.2
    /// Above this median change the photos differ everywhere (over 5x the same-subject 99th percentile, 0.191), unless
    /// they line up clearly (`sameContentCorrelation`).
    static let maximumMedianChange = 1.0
    /// At or above this aligned correlation the photos show the same detail, so a large median change is not taken as
    /// "different content": it comes from the capture (an over-exposed probe whose highlights are compressed, or a
    /// large change). Twice `minimumCorrelation`. On the bench it keeps 4 sloppy same-subject pairs comparable
    /// (correlation 0.41, 0.89, 0.90, 0.96 with median change 1.0-2.3); a different-subject pair would first have to pass
    /// the alignment gate, which none of the 99 does (highest final correlation 0.12).
    static let sameContentCorrelation: Float = 0.4
    /// The wide fallback alignment is taken only when the correlation of each quadrant of the crop reaches this. On the
    /// bench the 297 refined fallback seeds of the 99 different-subject pairs reached a whole-crop correlation up to
    /// 0.42 (7 of them 0.2 or more) but a lowest quadrant of at most 0.149; the sloppy same-subject pairs the fallback
    /// recovers had a lowest quadrant of 0.31 or more (measured with 6 seeds per pair, a superset of the final 3).
    static let minimumQuadrantCorrelation: Float = 0.25
    /// Below this share of the crop left once pixels at white in every channel (either photo) are set aside, the photos
    /// are "not comparable" (too bright): the map would stand on too few pixels. On the bench the lowest share of a
    /// same-subject pair is 0.53 (1st percentile 0.99), so only a photo washed out far beyond its session noise gets
    /// there. (Setting aside pixels with any one channel at white instead left under 25% of the crop in 6% of
    /// same-subject pairs: bright skin a little over-exposed clips its red channel first.)
    static let minimumUnclippedFraction: Float = 0.25
    /// Above this grey-world histogram distance the colours do not match (over 10x the same-subject 99th percentile).
    static let maximumHistogramDistance = 0.35

    /// Monotone mapping of the raw score to a 0-100% visual similarity: 0 -> 100%, linear down to 90% at
    /// `noiseFloor`, then exponential decay through 50% at `halfPoint` (about 29% at 1.5, 18% at 2.0, 7% at 3.0), tending to 0.
    static func similarityPercent(rawScore s: Double) -> Double {
        if s <= noiseFloor { return 100 - 10 * max(0, s) / noiseFloor }
        let k = log(90.0 / 50.0) / (halfPoint - noiseFloor)
        return 90 * exp(-k * (s - noiseFloor))
    }
}
