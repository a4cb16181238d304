import Foundation

/// Thresholds and the raw-score-to-similarity mapping of revision 1, calibrated on `cairn-bench skin`.
enum Calibration {
    /// Raw score at the 95th percentile of typical-capture no-change pairs (the noise floor); maps to 90%.
    static let noiseFloor = 1.0
    /// Raw score that maps to 50%.
    static let halfPoint = 3.0
    /// Raw score shown as full intensity in the heat map.
    static let displayCeiling = 3.0
    /// Below this aligned correlation the photos are "not comparable" (alignment failed).
    static let minimumCorrelation: Float = 0.2
    /// Above this median change the photos differ everywhere: "not comparable".
    static let maximumMedianChange = 2.0
    /// Above this grey-world histogram distance: "not comparable".
    static let maximumHistogramDistance = 0.5

    /// Monotone mapping: 0 -> 100%, noiseFloor -> 90% (linear in between), then exponential decay with
    /// 50% at halfPoint, tending to 0.
    static func similarityPercent(rawScore s: Double) -> Double {
        if s <= noiseFloor { return 100 - 10 * max(0, s) / noiseFloor }
        let k = log(90.0 / 50.0) / (halfPoint - noiseFloor)
        return 90 * exp(-k * (s - noiseFloor))
    }
}
