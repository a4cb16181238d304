import Foundation
import Regimen

/// One outcome series as plain values: a metric and its daily values (already aggregated per day).
public struct MetricSeriesInput: Sendable {
    /// A stable id: "sleep_quality", "steps", "hrv_sdnn".
    public let id: String
    /// The name shown to the person: "Sleep quality".
    public let name: String
    /// The unit: "1-5", "steps", "ms".
    public let unit: String
    /// One value per local day that has one.
    public let values: [LocalDay: Double]

    /// A series.
    public init(id: String, name: String, unit: String, values: [LocalDay: Double]) {
        self.id = id
        self.name = name
        self.unit = unit
        self.values = values
    }
}

/// What a whole series says about its own rhythm, fitted once per metric and reused for every change:
/// the weekday pattern and the day-to-day (lag-1) autocorrelation.
public struct SeriesProfile: Hashable, Sendable {
    /// Fewer valid days than this and the weekday pattern is not removed (too few values per weekday).
    public static let minimumDaysForWeekdayPattern = 28
    /// Fewer valid day pairs than this and the autocorrelation is not trusted: `shortSeriesAutocorrelation`
    /// is used as a floor instead (a cautious value: wider intervals rather than false findings).
    public static let minimumPairsForAutocorrelation = 56
    /// The floor on the autocorrelation of a short series.
    public static let shortSeriesAutocorrelation = 0.5
    /// The autocorrelation is estimated within blocks of this many days, each demeaned on its own.
    public static let autocorrelationBlockDays = 28
    /// How many standard errors are added to the estimated autocorrelation.
    public static let cautionStandardErrors = 1.0
    /// The largest autocorrelation used (keeps the variance factor finite).
    public static let maximumAutocorrelation = 0.95

    /// Per ISO weekday (index 0 = Monday): the mean of that weekday minus the overall mean.
    public let weekdayEffect: [Double]
    /// The lag-1 autocorrelation of the weekday-adjusted series, bias-corrected, in 0...0.95.
    public let autocorrelation: Double

    /// A profile with given values (tests, simulations).
    public init(weekdayEffect: [Double], autocorrelation: Double) {
        precondition(weekdayEffect.count == 7)
        self.weekdayEffect = weekdayEffect
        self.autocorrelation = autocorrelation
    }

    /// Fits a profile to a dense series (`values[i]` is day `firstDay + i`, NaN when missing).
    ///
    /// The weekday pattern is the mean per weekday minus the overall mean. The autocorrelation is the lag-1
    /// correlation of adjacent valid days after removing it, each block of `autocorrelationBlockDays` days
    /// demeaned on its own (so true level shifts barely raise it), corrected for the bias of demeaning
    /// (E[r] ≈ φ − (1 + 3φ)/n for n values a block), plus `cautionStandardErrors` standard errors
    /// √((1 − r²)/pairs), clipped to 0...0.95.
    public init(dense values: [Double], firstDay: Int) {
        var sum = 0.0, count = 0
        var weekdaySum = [Double](repeating: 0, count: 7), weekdayCount = [Int](repeating: 0, count: 7)
        for (i, v) in values.enumerated() where !v.isNaN {
            let w = Self.weekdayIndex(firstDay + i)
            sum += v; count += 1
            weekdaySum[w] += v; weekdayCount[w] += 1
        }
        let mean = count > 0 ? sum / Double(count) : 0
        var effect = [Double](repeating: 0, count: 7)
        if count >= Self.minimumDaysForWeekdayPattern {
            for w in 0..<7 where weekdayCount[w] > 0 { effect[w] = weekdaySum[w] / Double(weekdayCount[w]) - mean }
        }
        // Lag-1 products of values demeaned within blocks of `autocorrelationBlockDays`: a level shift (a true
        // change) then only touches the block it falls in instead of raising the whole estimate.
        var num = 0.0, den = 0.0, pairs = 0, blocks = 0, valuesInBlocks = 0
        var blockStart = 0
        while blockStart < values.count {
            let range = blockStart..<min(values.count, blockStart + Self.autocorrelationBlockDays)
            blockStart = range.upperBound
            var z: [Double] = range.map { i in values[i].isNaN ? .nan : values[i] - effect[Self.weekdayIndex(firstDay + i)] }
            let valid = z.filter { !$0.isNaN }
            guard valid.count >= 2 else { continue }
            let blockMean = valid.reduce(0, +) / Double(valid.count)
            for k in z.indices where !z[k].isNaN { z[k] -= blockMean }
            blocks += 1
            valuesInBlocks += valid.count
            for k in z.indices where !z[k].isNaN {
                den += z[k] * z[k]
                if k > 0, !z[k - 1].isNaN { num += z[k - 1] * z[k]; pairs += 1 }
            }
        }
        var r = den > 0 ? num / den : 0
        if pairs > 0 {
            // Demeaning within a block of n values biases r by about −(1 + 3φ)/n (Kendall); solved for φ.
            let n = Double(valuesInBlocks) / Double(max(blocks, 1))
            r = n > 3 ? (r * n + 1) / (n - 3) : r
            // One standard error up: an underestimated φ narrows the interval far more than an overestimated one
            // widens it, so the cautious side is taken.
            r += Self.cautionStandardErrors * (max(0, 1 - r * r) / Double(pairs)).squareRoot()
        }
        if pairs < Self.minimumPairsForAutocorrelation { r = max(r, Self.shortSeriesAutocorrelation) }
        weekdayEffect = effect
        autocorrelation = min(Self.maximumAutocorrelation, max(0, r))
    }

    /// 0 = Monday ... 6 = Sunday for a day number (days since 1970-01-01, a Thursday).
    static func weekdayIndex(_ dayNumber: Int) -> Int { ((dayNumber % 7) + 7 + 3) % 7 }
}

/// The before/after comparison of one metric around one change.
public struct BeforeAfterResult: Hashable, Sendable {
    /// 14, or 28 once 28 days have passed since the change.
    public let windowDays: Int
    /// The days before the change.
    public let before: ClosedRange<LocalDay>
    /// The days from the change on (may reach past today while the window is still filling).
    public let after: ClosedRange<LocalDay>
    /// Days with a value before and after.
    public let beforeCount: Int
    /// Days with a value from the change on.
    public let afterCount: Int
    /// True when both sides have at least `BeforeAfterAnalysis.minimumValidDays(windowDays)` values.
    public let enoughData: Bool
    /// The plain means of the values (nil without values).
    public let beforeMean: Double?
    /// The plain mean after.
    public let afterMean: Double?
    /// After minus before, with the weekday pattern removed (nil when a side has fewer than 2 values).
    public let difference: Double?
    /// The 95% interval of `difference`, allowing for day-to-day autocorrelation.
    public let interval: ClosedRange<Double>?
    /// Hedges' g of the weekday-adjusted values.
    public let hedgesG: Double?
    /// The two-sided p-value of `difference` (same model as the interval).
    public let pValue: Double?
}

/// The before/after analysis of a metric around a change day.
///
/// Method (chosen because it holds the false-finding rate at or below 5% in the simulation of `cairn-bench
/// insights` with day-to-day autocorrelation up to 0.7, a weekly rhythm and missing days, where a Welch test
/// does not):
/// 1. The weekday pattern of the whole series is removed (`SeriesProfile`).
/// 2. The values are treated as an AR(1) process with the autocorrelation φ of the whole series. The
///    variance of the difference of the two window means is computed exactly for the days that have values:
///    Var = γ₀ · (ΣΣ_A ρ/n_A² + ΣΣ_B ρ/n_B² − 2 ΣΣ_AB ρ/(n_A n_B)) with ρ(k) = φ^|k|.
/// 3. γ₀ comes from the within-window sums of squares, corrected for autocorrelation
///    (E[SS] = γ₀ (n − ΣΣ ρ / n)), so it is not understated on autocorrelated data.
/// 4. The interval uses Student's t with the effective degrees of freedom (k_A + k_B)(1 − φ)/(1 + φ).
public struct BeforeAfterAnalysis: Sendable {
    /// The first window, in days on each side.
    public static let shortWindowDays = 14
    /// The matured window, in days on each side, used once that many days have passed since the change.
    public static let longWindowDays = 28
    /// The confidence of the interval.
    public static let confidence = 0.95

    /// Values needed on each side: 10 of 14, 20 of 28 (five sevenths).
    public static func minimumValidDays(_ windowDays: Int) -> Int { (windowDays * 5 + 6) / 7 }

    /// An analysis.
    public init() {}

    /// Compares the values before and after `changeDay`. `values[i]` is day `firstDay + i` (NaN when
    /// missing); the window is 28 days once `asOf` is 27 days past the change, else 14.
    public func compare(dense values: [Double], firstDay: Int, profile: SeriesProfile, changeDay: LocalDay,
                        asOf: LocalDay) -> BeforeAfterResult {
        let c = changeDay.dayNumber
        let w = asOf.dayNumber >= c + Self.longWindowDays - 1 ? Self.longWindowDays : Self.shortWindowDays
        let lastAfter = min(c + w - 1, asOf.dayNumber)
        func present(_ range: ClosedRange<Int>) -> [(day: Int, raw: Double, adjusted: Double)] {
            guard range.lowerBound <= range.upperBound else { return [] }
            return range.compactMap { d in
                let i = d - firstDay
                guard i >= 0, i < values.count, !values[i].isNaN else { return nil }
                return (d, values[i], values[i] - profile.weekdayEffect[SeriesProfile.weekdayIndex(d)])
            }
        }
        let b = present((c - w)...(c - 1))
        let a = lastAfter >= c ? present(c...lastAfter) : []
        let minimum = Self.minimumValidDays(w)
        let enough = b.count >= minimum && a.count >= minimum
        let rawMean: ([(day: Int, raw: Double, adjusted: Double)]) -> Double? = { $0.isEmpty ? nil : $0.map(\.raw).reduce(0, +) / Double($0.count) }
        var difference: Double?, interval: ClosedRange<Double>?, g: Double?, p: Double?
        if b.count >= 2 && a.count >= 2 {
            let phi = profile.autocorrelation
            var powers = [Double](repeating: 1, count: 2 * w + 1)
            for k in 1..<powers.count { powers[k] = powers[k - 1] * phi }
            func rhoSum(_ x: [(day: Int, raw: Double, adjusted: Double)], _ y: [(day: Int, raw: Double, adjusted: Double)]) -> Double {
                var s = 0.0
                for i in x { for j in y { s += powers[abs(i.day - j.day)] } }
                return s
            }
            let nB = Double(b.count), nA = Double(a.count)
            let mB = b.map(\.adjusted).reduce(0, +) / nB, mA = a.map(\.adjusted).reduce(0, +) / nA
            let ssB = b.reduce(0) { $0 + ($1.adjusted - mB) * ($1.adjusted - mB) }
            let ssA = a.reduce(0) { $0 + ($1.adjusted - mA) * ($1.adjusted - mA) }
            let sBB = rhoSum(b, b), sAA = rhoSum(a, a), sAB = rhoSum(a, b)
            let kB = nB - sBB / nB, kA = nA - sAA / nA
            let gamma0 = (ssA + ssB) / max(kA + kB, 1e-9)
            let v = sBB / (nB * nB) + sAA / (nA * nA) - 2 * sAB / (nA * nB)
            let se = (gamma0 * max(v, 0)).squareRoot()
            let df = max(2, (kA + kB) * (1 - phi) / (1 + phi))
            let diff = mA - mB
            difference = diff
            if se > 0 {
                let q = InsightStatistics.tQuantile(1 - (1 - Self.confidence) / 2, df: df)
                interval = (diff - q * se)...(diff + q * se)
                p = InsightStatistics.twoSidedP(t: diff / se, df: df)
            } else {
                interval = diff...diff
                p = diff == 0 ? 1 : 0
            }
            let pooled = ((ssA + ssB) / max(nA + nB - 2, 1)).squareRoot()
            if pooled > 0 {
                g = diff / pooled * (1 - 3 / (4 * (nA + nB) - 9))
            } else {
                g = diff == 0 ? 0 : (diff > 0 ? .infinity : -.infinity)
            }
        }
        return BeforeAfterResult(windowDays: w, before: LocalDay(dayNumber: c - w)...LocalDay(dayNumber: c - 1),
                                 after: changeDay...LocalDay(dayNumber: c + w - 1), beforeCount: b.count, afterCount: a.count,
                                 enoughData: enough, beforeMean: rawMean(b), afterMean: rawMean(a), difference: difference,
                                 interval: interval, hedgesG: g, pValue: p)
    }
}

/// A series as a dense array (NaN for missing days) from its first to its last day with a value.
public struct DenseSeries: Sendable {
    /// The day number of `values[0]`.
    public let firstDay: Int
    /// One value per day, NaN when missing.
    public let values: [Double]

    /// Packs `values` (non-finite values count as missing).
    public init(_ values: [LocalDay: Double]) {
        guard let first = values.keys.min(), let last = values.keys.max() else { firstDay = 0; self.values = []; return }
        firstDay = first.dayNumber
        var dense = [Double](repeating: .nan, count: last.dayNumber - first.dayNumber + 1)
        for (day, v) in values where v.isFinite { dense[day.dayNumber - firstDay] = v }
        self.values = dense
    }

    /// A series from a dense array.
    public init(firstDay: Int, values: [Double]) {
        self.firstDay = firstDay
        self.values = values
    }
}
