import CairnCore
import Foundation

extension InsightEngine {
    /// Series simulated per comparison by `simulatedFactor`.
    public static let simulatedSeries = 50
    /// The most days of history before the change a simulation holds; it ends with the change's 28-day window
    /// (more days before or after would only make the fit steadier; fewer are cautious and keep ten years of
    /// data fast).
    public static let simulatedHistoryDays = 180

    /// The variance factor of one comparison: the simulated one (`simulatedFactor`), calibrated further on the
    /// series' own placebo dates (`PlaceboCheck.varianceFactor(windowDays:simulated:)`) when it has any.
    public func varianceFactor(
        _ series: PreparedSeries, changeDay: LocalDay, asOf: LocalDay, windowDays: Int,
        placebo: PlaceboCheck?
    ) -> Double {
        let simulated = simulatedFactor(series, changeDay: changeDay, asOf: asOf, windowDays: windowDays)
        return placebo?.varianceFactor(windowDays: windowDays, simulated: simulated) ?? simulated
    }

    /// How far the whole fit and test strays from its own model, measured by simulating it (a parametric
    /// bootstrap): `simulatedSeries` series are drawn from the profile fitted around `changeDay` (its carry-over
    /// c·φ^k as fitted, before any caution; unit variance; the series' own missing days; at most
    /// `simulatedHistoryDays` of history), and each is put through the same fit (blocks, breaks, masked window)
    /// and comparison as the real one. The factor is the draws' mean squared t-statistic relative to t's
    /// df/(df − 2): what the method's t² really averages where nothing changed, over what it assumes. A plain mean
    /// of 50 squared t-statistics is too rough, so each draw's t² = x·r is split into r, the true variance of its
    /// step (its GLS weights under the simulated correlation) over the variance the method assumed, and x, the
    /// draw's squared step over that true variance (mean 1): the factor is mean(x·r) − mean(r)·(mean(x) − 1), x
    /// being a control variate. This keeps most of mean(r)'s steadiness (mean(r) was the factor up to method
    /// revision 6) without its bias: a draw's step and the variance the method assumes for it are not independent
    /// (a large step comes with a larger assumed variance), so mean(r) put the 14-day t² 5-7% above what it really
    /// averaged on the simulated AR(1) series of `cairn-bench insights`, a caution paid in power for nothing;
    /// this factor is 2-4% above it. Above 1 when the fit reads the carry-over
    /// short (the method would be too sure), below 1 when it is more careful than it needs to be; never below half
    /// of mean(r) (a guard against a freak draw). At the 28-day look it is at least 1. The draws are seeded from the
    /// series' values and the change, so the same records always give the same figure.
    public func simulatedFactor(_ series: PreparedSeries, changeDay: LocalDay, asOf: LocalDay, windowDays w: Int) -> Double {
        let floor = w >= BeforeAfterAnalysis.longWindowDays ? 1.0 : 0
        let profile = series.profile(around: changeDay, windowDays: w)
        let share = profile.fittedShare
        let phi = min(SeriesProfile.maximumAutocorrelation, profile.fittedAutocorrelation)
        let dense = series.dense
        let change = changeDay.dayNumber
        let startIndex = max(0, change - Self.simulatedHistoryDays - dense.firstDay)
        let endIndex = min(dense.values.count, asOf.dayNumber - dense.firstDay + 1, change + BeforeAfterAnalysis.longWindowDays - dense.firstDay)
        let lastAfter = min(change + w - 1, asOf.dayNumber)
        guard endIndex > startIndex, lastAfter >= change else { return max(floor, 1) }
        let missing = dense.values[startIndex..<endIndex].map(\.isNaN)
        let first = dense.firstDay + startIndex
        let days = ((change - w)...lastAfter).filter { d in
            let i = d - dense.firstDay
            return i >= 0 && i < dense.values.count && !dense.values[i].isNaN
        }
        guard days.filter({ $0 < change }).count >= 2, days.filter({ $0 >= change }).count >= 2 else { return max(floor, 1) }
        let truth = (0...(days.last! - days.first!)).map { $0 == 0 ? 1 : share * pow(phi, Double($0)) }
        var seed = UInt64(bitPattern: Int64(change)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(w)
        for v in dense.values where !v.isNaN { seed = (seed ^ v.bitPattern) &* 0x0000_0100_0000_01B3 }
        var generator = SeededGenerator(seed: seed)
        var spare: Double?
        func normal() -> Double {  // Marsaglia's polar method: two values per accepted pair
            if let s = spare {
                spare = nil
                return s
            }
            while true {
                let u = 2 * generator.unit() - 1
                let v = 2 * generator.unit() - 1
                let q = u * u + v * v
                guard q > 0, q < 1 else { continue }
                let scale = (-2 * log(q) / q).squareRoot()
                spare = v * scale
                return u * scale
            }
        }
        let innovation = (1 - phi * phi).squareRoot()
        let carried = share.squareRoot()
        let own = (1 - share).squareRoot()
        var simulated = [Double](repeating: .nan, count: missing.count)
        var draws: [(r: Double, x: Double)] = []
        for _ in 0..<Self.simulatedSeries {
            var level = normal()
            for i in missing.indices {
                if i > 0 { level = phi * level + innovation * normal() }
                let value = carried * level + own * normal()
                simulated[i] = missing[i] ? .nan : value
            }
            let fitted = PreparedSeries.profile(simulated, firstDay: first, around: changeDay, breaks: series.changeDays, windowDays: w)
            let points = days.map { d in (day: d, value: simulated[d - first] - fitted.weekdayEffect[SeriesProfile.weekdayIndex(d)]) }
            let estimate = BeforeAfterAnalysis.step(points, firstAfter: change, profile: fitted)
            let assumed = estimate.gamma0 * estimate.fit.stepVarianceFactor
            let df = estimate.df
            guard assumed > 0, assumed.isFinite else { continue }
            let weights = BeforeAfterAnalysis.stepWeights(days: days, firstAfter: change, profile: fitted)
            var variance = 0.0
            for i in days.indices {
                variance += weights[i] * weights[i]
                for j in 0..<i { variance += 2 * weights[i] * weights[j] * truth[days[i] - days[j]] }
            }
            draws.append(
                (
                    r: variance / assumed / (df > 2.5 ? df / (df - 2) : 5),
                    x: variance > 0 ? estimate.fit.step * estimate.fit.step / variance : 1
                ))
        }
        return draws.isEmpty ? max(floor, 1) : max(floor, Self.meanSquaredT(draws))
    }

    /// The mean t² of simulated draws relative to t's df/(df − 2), each draw's being x·r (r: the true variance of its
    /// step over the variance the method assumed; x: its squared step over that true variance, mean 1), with x as a
    /// control variate: mean(x·r) − mean(r)·(mean(x) − 1), never below half of mean(r).
    public static func meanSquaredT(_ draws: [(r: Double, x: Double)]) -> Double {
        let n = Double(draws.count)
        let meanR = draws.map(\.r).reduce(0, +) / n
        let meanX = draws.map(\.x).reduce(0, +) / n
        let meanXR = draws.map { $0.x * $0.r }.reduce(0, +) / n
        return max(0.5 * meanR, meanXR - meanR * (meanX - 1))
    }
}
