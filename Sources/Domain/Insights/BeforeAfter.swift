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
    /// Whether a later onset (0-7 days after a change) is searched for this metric; the search is counted in
    /// the p-value (`InsightEngine.onsetSearchDays`), never a free pick of the best onset.
    public let searchesOnset: Bool

    /// A series.
    public init(id: String, name: String, unit: String, values: [LocalDay: Double], searchesOnset: Bool = false) {
        self.id = id
        self.name = name
        self.unit = unit
        self.values = values
        self.searchesOnset = searchesOnset
    }
}

/// What a whole series says about its own rhythm, fitted once per metric and reused for every change (and every
/// placebo date): the weekday pattern, the day-to-day (lag-1) autocorrelation and the variance of the
/// weekday-adjusted values, each from the person's whole history rather than from the ~28 values of one window.
public struct SeriesProfile: Hashable, Sendable {
    /// Fewer valid days than this and the weekday pattern is not removed (too few values per weekday).
    public static let minimumDaysForWeekdayPattern = 28
    /// Fewer valid day pairs than this and the autocorrelation is not trusted: `shortSeriesAutocorrelation`
    /// is used as a floor instead (a cautious value: wider intervals rather than false findings).
    public static let minimumPairsForAutocorrelation = 56
    /// The floor on the autocorrelation of a short series.
    public static let shortSeriesAutocorrelation = 0.5
    /// The autocorrelation is estimated within equal blocks of at least this many days (a history shorter than
    /// twice this is one block), each demeaned on its own. Long enough that a slow carry-over is not taken away
    /// with the block mean: with 28-day blocks a φ 0.9 carry-over under day noise was fitted too short and gave
    /// 9.0% false findings at either look in `cairn-bench insights` (5.7% with 120-day blocks). Short enough that a true
    /// level shift or slow drift in a long history only raises the estimate of the blocks it falls in (a raised
    /// estimate widens intervals; it never makes a false finding).
    public static let autocorrelationBlockDays = 120
    /// How many standard errors are added to the estimated autocorrelation for the 28-day look (calibrated in
    /// `cairn-bench insights`: an underestimated φ narrows the interval more than an overestimated one widens it).
    /// The 14-day look adds none: its comparison is calibrated by simulating the whole fit and test under the
    /// fitted profile (`InsightEngine.simulatedFactor`), which allows for the fit's noise without paying for a
    /// fixed caution.
    public static let cautionStandardErrors = 0.25

    /// The caution for a look of `windowDays` days on each side: `cautionStandardErrors` at 28 days, 0 at 14.
    public static func caution(windowDays: Int) -> Double {
        windowDays >= BeforeAfterAnalysis.longWindowDays ? cautionStandardErrors : 0
    }
    /// The smallest carry-over share the caution is divided by (a φ seen through a share c of the variance is
    /// 1/c times less certain; below this share the carry-over barely moves the interval).
    public static let minimumShareForCaution = 0.25
    /// Blocks with fewer values than this are left out of the autocorrelation and variance.
    public static let minimumValuesPerBlock = 7
    /// The largest autocorrelation used (keeps the variance factor finite).
    public static let maximumAutocorrelation = 0.95

    /// Lags of the autocorrelation used to fit the carry-over (a day to a week).
    public static let fittedLags = 7

    /// Per ISO weekday (index 0 = Monday): the mean of that weekday minus the overall mean.
    public let weekdayEffect: [Double]
    /// φ: how much of the carried-over part of a day's value is left the next day, in 0...0.95.
    public let autocorrelation: Double
    /// c: the share of the variance that carries over from day to day (the rest is noise of the day alone), in
    /// 0...1. The correlation of days k ≥ 1 apart is c·φ^k: with c = 1 a plain AR(1), with c < 1 a slow
    /// carry-over under day-to-day noise (an ARMA(1,1)), whose correlation a plain AR(1) fitted at lag 1 misses.
    public let carryOverShare: Double
    /// The variance of the weekday-adjusted values around their local level (nil when not estimated).
    public let variance: Double?
    /// How many values' worth of information `variance` carries (its effective count, 0 when nil).
    public let varianceWeight: Double
    /// φ and c as fitted, before the caution and the short-series floor (the truth of `InsightEngine`'s simulations).
    public let fittedAutocorrelation: Double
    /// c as fitted.
    public let fittedShare: Double

    /// A profile with given values (tests, simulations); without a variance, each window's own is used.
    public init(
        weekdayEffect: [Double], autocorrelation: Double, carryOverShare: Double = 1, variance: Double? = nil,
        varianceWeight: Double = 0
    ) {
        precondition(weekdayEffect.count == 7)
        self.weekdayEffect = weekdayEffect
        self.autocorrelation = autocorrelation
        self.carryOverShare = carryOverShare
        self.variance = variance
        self.varianceWeight = variance == nil ? 0 : varianceWeight
        fittedAutocorrelation = autocorrelation
        fittedShare = carryOverShare
    }

    /// The correlation of two days `lag` days apart.
    public func correlation(lag: Int) -> Double {
        lag == 0 ? 1 : carryOverShare * pow(autocorrelation, Double(abs(lag)))
    }

    /// φ^k of the fit's grid (φ = 0.00 ... 0.95, k = 0 ... `fittedLags`), worked out once.
    static let gridPowers: [[Double]] = (0...95).map { step in (0...fittedLags).map { pow(Double(step) / 100, Double($0)) } }

    /// Fits a profile to a dense series (`values[i]` is day `firstDay + i`, NaN when missing).
    ///
    /// The weekday pattern is the mean per weekday minus the overall mean. The correlation of days k apart
    /// (k = 1...`fittedLags`) is measured after removing it, in equal blocks of at least `autocorrelationBlockDays`
    /// days each demeaned on its own (so true level shifts and slow drift only raise it locally), corrected for the bias of
    /// demeaning (a block mean takes away the variance of the mean, (1 + 2Σ(1 − j/n)ρ_j)/n of γ₀, from every
    /// lag), and c·φ^k is fitted to it by least squares; then `caution` standard errors
    /// √((1 − φ²)/pairs) / max(c, `minimumShareForCaution`) are added to φ, clipped to 0...0.95. The variance is the within-block sum of squares
    /// divided by its expectation under that correlation, Σ(n_b − ΣΣρ/n_b) (demeaning removes less on
    /// autocorrelated data).
    ///
    /// `breaks` are day numbers where a level may shift (the change a comparison is about and every other
    /// confirmed change, from `InsightEngine.PreparedSeries.profile(around:windowDays:)`): blocks start anew
    /// there, so the days after a change are not demeaned together with the days before it and its true effect
    /// never passes for carry-over. (Shorter blocks take more of a slow carry-over away with their means; the
    /// simulation of `InsightEngine.simulatedFactor` fits with the same breaks and allows for it.)
    public init(dense values: [Double], firstDay: Int, breaks: [Int] = [], caution: Double = SeriesProfile.cautionStandardErrors) {
        let lags = Self.fittedLags
        // Segments between breaks, each cut into equal blocks of at least `autocorrelationBlockDays` (a short
        // segment is one block; no short remainder).
        var ranges: [Range<Int>] = []
        var cuts = breaks.map { $0 - firstDay }.filter { $0 > 0 && $0 < values.count }.sorted()
        cuts.append(values.count)
        var segmentStart = 0
        for cut in cuts where cut > segmentStart {
            let length = cut - segmentStart
            let count = max(1, length / Self.autocorrelationBlockDays)
            let blockLength = (length + count - 1) / count
            var start = segmentStart
            while start < cut {
                ranges.append(start..<min(cut, start + blockLength))
                start += blockLength
            }
            segmentStart = cut
        }
        var sum = 0.0
        var count = 0
        var weekdaySum = [Double](repeating: 0, count: 7)
        var weekdayCount = [Int](repeating: 0, count: 7)
        for (i, v) in values.enumerated() where !v.isNaN {
            let w = Self.weekdayIndex(firstDay + i)
            sum += v
            count += 1
            weekdaySum[w] += v
            weekdayCount[w] += 1
        }
        let mean = count > 0 ? sum / Double(count) : 0
        var effect = [Double](repeating: 0, count: 7)
        if count >= Self.minimumDaysForWeekdayPattern {
            for w in 0..<7 where weekdayCount[w] > 0 { effect[w] = weekdaySum[w] / Double(weekdayCount[w]) - mean }
        }
        // Lagged products of values demeaned within blocks: a level shift (a true change) then only touches the
        // block it falls in instead of raising the whole estimate.
        var num = [Double](repeating: 0, count: lags + 1)
        var pairCount = [Int](repeating: 0, count: lags + 1)
        var den = 0.0
        var blocks = 0
        var valuesInBlocks = 0
        var blockDays: [[Int]] = []
        for range in ranges {
            var z: [Double] = range.map { i in values[i].isNaN ? .nan : values[i] - effect[Self.weekdayIndex(firstDay + i)] }
            let valid = z.filter { !$0.isNaN }
            // A block of a few values (cut short by a masked change window or the series' end) says little and
            // costs a whole mean: left out.
            guard valid.count >= Self.minimumValuesPerBlock else { continue }
            let blockMean = valid.reduce(0, +) / Double(valid.count)
            for k in z.indices where !z[k].isNaN { z[k] -= blockMean }
            blocks += 1
            valuesInBlocks += valid.count
            blockDays.append(z.indices.filter { !z[$0].isNaN })
            for k in z.indices where !z[k].isNaN {
                den += z[k] * z[k]
                for lag in 1...lags where k >= lag && !z[k - lag].isNaN {
                    num[lag] += z[k - lag] * z[k]
                    pairCount[lag] += 1
                }
            }
        }
        let pairs = pairCount[1]
        let n = Double(valuesInBlocks) / Double(max(blocks, 1))
        // Sample correlations per lag (normalised by the lag-0 sum, scaled for the pairs present).
        let r: [Double] = (0...lags).map { k in
            k == 0 ? 1 : (den > 0 && pairCount[k] > 0 ? (num[k] / Double(pairCount[k])) / (den / Double(valuesInBlocks)) : 0)
        }
        var phi = 0.0
        var c = 1.0
        var raw = (phi: 0.0, c: 1.0)
        if pairs > 0, den > 0, n > 3 {
            // Fit c·φ^k to the demeaning-corrected correlations, correcting again with each fit (3 rounds).
            var fitted = (phi: max(0, r[1]), c: 1.0)
            for _ in 0..<3 {
                var v = 1.0
                for j in 1..<max(2, Int(n)) { v += 2 * (1 - Double(j) / n) * fitted.c * pow(fitted.phi, Double(j)) }
                v = min(0.9, v / n)
                let corrected = r.map { $0 * (1 - v) + v }
                var best = (sse: Double.infinity, phi: 0.0, c: 1.0)
                for step in 0...95 {
                    let f = Double(step) / 100
                    let power = Self.gridPowers[step]
                    var sxy = 0.0
                    var sxx = 0.0
                    for k in 1...lags where pairCount[k] > 0 {
                        let x = power[k]
                        sxy += x * corrected[k]
                        sxx += x * x
                    }
                    let share = sxx > 0 ? min(1, max(0, sxy / sxx)) : 0
                    var sse = 0.0
                    for k in 1...lags where pairCount[k] > 0 {
                        let e = corrected[k] - share * power[k]
                        sse += e * e
                    }
                    if sse < best.sse - 1e-12 { best = (sse, f, share) }
                }
                fitted = (best.phi, best.c)
            }
            phi = fitted.phi
            c = fitted.c
            if c * phi <= 1e-9 {
                phi = 0
                c = 1
            }
            raw = (phi, c)
            // A carry-over under day noise is seen through its share c of the variance: its φ is that much less certain.
            phi += caution * (max(0, 1 - phi * phi) / Double(pairs)).squareRoot() / max(c, Self.minimumShareForCaution)
        }
        if pairs < Self.minimumPairsForAutocorrelation {
            // Too few pairs to tell a slow carry-over from noise: a plain AR(1) with at least the cautious floor.
            phi = max(c * phi, Self.shortSeriesAutocorrelation)
            c = 1
        }
        phi = min(Self.maximumAutocorrelation, max(0, phi))
        // E[within-block SS] = γ₀ Σ_b (n_b − ΣΣ_b ρ / n_b) over the days present. With ρ = c·φ^k, the sum over the
        // later days of each day, Σ_{j>i} φ^(d_j − d_i), runs backwards in one pass: S_i = φ^(d_{i+1} − d_i)(1 + S_{i+1}).
        var weight = 0.0
        for days in blockDays {
            var s = Double(days.count)
            var later = 0.0
            for a in stride(from: days.count - 2, through: 0, by: -1) {
                let gap = days[a + 1] - days[a]
                later = (gap == 1 ? phi : pow(phi, Double(gap))) * (1 + later)
                s += 2 * c * later
            }
            weight += Double(days.count) - s / Double(days.count)
        }
        weekdayEffect = effect
        autocorrelation = phi
        carryOverShare = c
        fittedAutocorrelation = raw.phi
        fittedShare = raw.c
        variance = weight >= 2 && den > 0 ? den / weight : nil
        varianceWeight = variance == nil ? 0 : weight
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
    /// The shift in level from before to after (weekday pattern removed, day-to-day carry-over allowed for;
    /// nil when a side has fewer than 2 values).
    public let difference: Double?
    /// The 95% interval of `difference`.
    public let interval: ClosedRange<Double>?
    /// Hedges' g of the weekday-adjusted values.
    public let hedgesG: Double?
    /// The two-sided p-value of `difference` (same model as the interval).
    public let pValue: Double?
    /// Days from the change to the start of the compared after-window (0 = from the change day on).
    public let onsetDays: Int
    /// `difference` divided by its standard error (nil without figures).
    public let tStatistic: Double?
    /// The degrees of freedom of `tStatistic` (nil without figures).
    public let degreesOfFreedom: Double?
    /// The standard error of `difference` (nil without figures).
    public let standardError: Double?
    /// The smallest difference that counts: `InsightEngine.minimumEffectSize` standard deviations of the
    /// weekday-adjusted daily values (the same bar as the effect size of a finding); nil without figures.
    public let meaningfulDifference: Double?

    /// A result.
    public init(
        windowDays: Int, before: ClosedRange<LocalDay>, after: ClosedRange<LocalDay>, beforeCount: Int, afterCount: Int,
        enoughData: Bool, beforeMean: Double?, afterMean: Double?, difference: Double?, interval: ClosedRange<Double>?,
        hedgesG: Double?, pValue: Double?, onsetDays: Int = 0, tStatistic: Double? = nil, degreesOfFreedom: Double? = nil,
        standardError: Double? = nil, meaningfulDifference: Double? = nil
    ) {
        self.windowDays = windowDays
        self.before = before
        self.after = after
        self.beforeCount = beforeCount
        self.afterCount = afterCount
        self.enoughData = enoughData
        self.beforeMean = beforeMean
        self.afterMean = afterMean
        self.difference = difference
        self.interval = interval
        self.hedgesG = hedgesG
        self.pValue = pValue
        self.onsetDays = onsetDays
        self.tStatistic = tStatistic
        self.degreesOfFreedom = degreesOfFreedom
        self.standardError = standardError
        self.meaningfulDifference = meaningfulDifference
    }
}

/// The before/after analysis of a metric around a change day.
///
/// Method (chosen because it holds the false-finding rate at or below 5% in the simulation of `cairn-bench
/// insights` with day-to-day autocorrelation up to 0.7, a weekly rhythm and missing days, where a Welch test
/// does not, while finding most of what a test that knew the true autocorrelation would):
/// 1. The weekday pattern of the whole series is removed (`SeriesProfile`).
/// 2. The values are an AR(1) process with the autocorrelation φ of the whole series. The level shift at the
///    change is estimated by generalised least squares on the prewhitened window values (a "prewhitened
///    contrast"): each present day after the first becomes z_t − φ^k z_{t−k} (k days since the previous present
///    day), divided by √(1 − φ^2k), regressed on a level and a step. With φ = 0 this is the plain difference of
///    means; with carry-over it weighs the days where the level changes most and is far tighter than a
///    difference of means (at φ = 0.7, 14-day windows: a standard error 0.79 times as large).
/// 3. The variance γ₀ pools the window's own residuals with the variance of the whole history
///    (`SeriesProfile.variance`, weighted by its effective count), so the ~28 values of a window do not carry
///    it alone; Student's t with the pooled effective degrees of freedom.
/// 4. The variance of the step is scaled by the calibration of `InsightEngine.varianceFactor`: the whole fit and
///    test simulated under the fitted profile, then the series' own placebo dates.
public struct BeforeAfterAnalysis: Sendable {
    /// The first window, in days on each side.
    public static let shortWindowDays = 14
    /// The matured window, in days on each side, used once that many days have passed since the change.
    public static let longWindowDays = 28
    /// The confidence of the interval shown.
    public static let confidence = 0.95

    /// Values needed on each side: 10 of 14, 20 of 28 (five sevenths).
    public static func minimumValidDays(_ windowDays: Int) -> Int { (windowDays * 5 + 6) / 7 }

    /// The window in force as of `asOf` for a change on `changeDay`: 28 once 28 days have passed, else 14.
    public static func windowDays(changeDay: LocalDay, asOf: LocalDay) -> Int {
        asOf.dayNumber >= changeDay.dayNumber + longWindowDays - 1 ? longWindowDays : shortWindowDays
    }

    /// An analysis.
    public init() {}

    /// Compares the values before and after `changeDay`. `values[i]` is day `firstDay + i` (NaN when
    /// missing); the window is 28 days once `asOf` is 27 days past the change, else 14.
    public func compare(
        dense values: [Double], firstDay: Int, profile: SeriesProfile, changeDay: LocalDay,
        asOf: LocalDay
    ) -> BeforeAfterResult {
        compare(
            dense: values, firstDay: firstDay, profile: profile, changeDay: changeDay, asOf: asOf,
            windowDays: Self.windowDays(changeDay: changeDay, asOf: asOf), onsetDays: 0)
    }

    /// Compares `windowDays` days before `changeDay` with `windowDays` days from `onsetDays` after it on (the
    /// days between the change and the onset are left out); no day after `asOf` is used. `varianceFactor` scales
    /// the variance of the step: the calibration of the method by simulation and on the person's own records
    /// (`InsightEngine.varianceFactor`).
    public func compare(
        dense values: [Double], firstDay: Int, profile: SeriesProfile, changeDay: LocalDay,
        asOf: LocalDay, windowDays w: Int, onsetDays: Int, varianceFactor: Double = 1
    ) -> BeforeAfterResult {
        let c = changeDay.dayNumber
        let onset = c + onsetDays
        let lastAfter = min(onset + w - 1, asOf.dayNumber)
        typealias Day = (day: Int, raw: Double, adjusted: Double)
        func present(_ range: ClosedRange<Int>) -> [Day] {
            guard range.lowerBound <= range.upperBound else { return [] }
            return range.compactMap { d in
                let i = d - firstDay
                guard i >= 0, i < values.count, !values[i].isNaN else { return nil }
                return (d, values[i], values[i] - profile.weekdayEffect[SeriesProfile.weekdayIndex(d)])
            }
        }
        let b = present((c - w)...(c - 1))
        let a = lastAfter >= onset ? present(onset...lastAfter) : []
        let minimum = Self.minimumValidDays(w)
        let enough = b.count >= minimum && a.count >= minimum
        let rawMean: ([Day]) -> Double? = { $0.isEmpty ? nil : $0.map(\.raw).reduce(0, +) / Double($0.count) }
        var difference: Double?
        var interval: ClosedRange<Double>?
        var g: Double?
        var p: Double?
        var t: Double?
        var dfOut: Double?
        var seOut: Double?
        var meaningful: Double?
        if b.count >= 2 && a.count >= 2 {
            let points = b.map { (day: $0.day, value: $0.adjusted) } + a.map { (day: $0.day, value: $0.adjusted) }
            let estimate = Self.step(points, firstAfter: onset, profile: profile)
            let fit = estimate.fit
            let gamma0 = estimate.gamma0
            let df = estimate.df
            let nB = Double(b.count)
            let nA = Double(a.count)
            let mB = b.map(\.adjusted).reduce(0, +) / nB
            let mA = a.map(\.adjusted).reduce(0, +) / nA
            let ssB = b.reduce(0) { $0 + ($1.adjusted - mB) * ($1.adjusted - mB) }
            let ssA = a.reduce(0) { $0 + ($1.adjusted - mA) * ($1.adjusted - mA) }
            let se = (gamma0 * fit.stepVarianceFactor * varianceFactor).squareRoot()
            let diff = fit.step
            difference = diff
            meaningful = InsightEngine.minimumEffectSize * gamma0.squareRoot()
            if se > 0 && se.isFinite {
                let q = InsightStatistics.tQuantile(1 - (1 - Self.confidence) / 2, df: df)
                interval = (diff - q * se)...(diff + q * se)
                p = InsightStatistics.twoSidedP(t: diff / se, df: df)
                t = diff / se
                dfOut = df
                seOut = se
            } else {
                interval = diff...diff
                p = diff == 0 ? 1 : 0
            }
            let pooled = ((ssA + ssB) / max(nA + nB - 2, 1)).squareRoot()
            let meanDiff = mA - mB
            if pooled > 0 {
                g = meanDiff / pooled * (1 - 3 / (4 * (nA + nB) - 9))
            } else {
                g = meanDiff == 0 ? 0 : (meanDiff > 0 ? .infinity : -.infinity)
            }
        }
        return BeforeAfterResult(
            windowDays: w, before: LocalDay(dayNumber: c - w)...LocalDay(dayNumber: c - 1),
            after: LocalDay(dayNumber: onset)...LocalDay(dayNumber: onset + w - 1), beforeCount: b.count,
            afterCount: a.count, enoughData: enough, beforeMean: rawMean(b), afterMean: rawMean(a),
            difference: difference, interval: interval, hedgesG: g, pValue: p, onsetDays: onsetDays,
            tStatistic: t, degreesOfFreedom: dfOut, standardError: seOut, meaningfulDifference: meaningful)
    }

    /// The step of `points` (weekday-adjusted, sorted by day) under `profile`, with the variance γ₀ it is judged
    /// by (the window's own residuals pooled with the variance of the whole history, `SeriesProfile.variance`,
    /// weighted by its effective count) and the effective degrees of freedom: 1 / (1 + 2Σρ_k²) of the values
    /// ((1 − φ²)/(1 + φ²) for an AR(1)).
    static func step(_ points: [(day: Int, value: Double)], firstAfter: Int, profile: SeriesProfile) -> (fit: StepFit, gamma0: Double, df: Double) {
        let fit =
            profile.carryOverShare >= 0.999
            ? prewhitenedStep(points, firstAfter: firstAfter, phi: profile.autocorrelation)
            : generalisedStep(points, firstAfter: firstAfter, profile: profile)
        let localDF = Double(points.count) - 2
        let weight = profile.variance == nil ? 0 : profile.varianceWeight
        let gamma0 = (fit.residualSquares + weight * (profile.variance ?? 0)) / max(localDF + weight, 1e-9)
        var squares = 0.0
        for k in 1..<200 {
            let rho = profile.correlation(lag: k)
            squares += rho * rho
            if rho * rho < 1e-9 { break }
        }
        return (fit, gamma0, max(2, (localDF + weight) / (1 + 2 * squares)))
    }

    /// The GLS fit of a level and a step (0 before `firstAfter`, 1 from it on) to AR(1) values with gaps.
    struct StepFit {
        /// The estimated step.
        let step: Double
        /// Var(step) / γ₀.
        let stepVarianceFactor: Double
        /// The prewhitened residual sum of squares (in units of γ₀: its expectation is (n − 2) γ₀).
        let residualSquares: Double
    }

    /// The GLS fit of a level and a step under the correlation c·φ^k of `profile` (an AR(1) under day noise):
    /// the Cholesky factor of the points' correlation matrix whitens them, gaps included.
    static func generalisedStep(_ points: [(day: Int, value: Double)], firstAfter: Int, profile: SeriesProfile) -> StepFit {
        let n = points.count
        let l = correlationFactor(days: points.map(\.day), profile: profile)
        // The three columns (level, step, values), whitened.
        let x1 = whitened([Double](repeating: 1, count: n), factor: l)
        let x2 = whitened(points.map { $0.day >= firstAfter ? 1 : 0 }, factor: l)
        let y = whitened(points.map(\.value), factor: l)
        var s11 = 0.0
        var s12 = 0.0
        var s22 = 0.0
        var s1y = 0.0
        var s2y = 0.0
        var syy = 0.0
        for i in 0..<n {
            s11 += x1[i] * x1[i]
            s12 += x1[i] * x2[i]
            s22 += x2[i] * x2[i]
            s1y += x1[i] * y[i]
            s2y += x2[i] * y[i]
            syy += y[i] * y[i]
        }
        let det = s11 * s22 - s12 * s12
        guard det > 1e-12 else { return StepFit(step: 0, stepVarianceFactor: .infinity, residualSquares: 0) }
        let b1 = (s22 * s1y - s12 * s2y) / det
        let b2 = (s11 * s2y - s12 * s1y) / det
        return StepFit(step: b2, stepVarianceFactor: s11 / det, residualSquares: max(0, syy - b1 * s1y - b2 * s2y))
    }

    /// The weights w of the GLS step under `profile`'s correlation (step = Σ wᵢ yᵢ) for values on `days` (sorted),
    /// the step being 0 before `firstAfter` and 1 from it on.
    static func stepWeights(days: [Int], firstAfter: Int, profile: SeriesProfile) -> [Double] {
        let n = days.count
        let l = correlationFactor(days: days, profile: profile)
        let x1 = whitened([Double](repeating: 1, count: n), factor: l)
        let x2 = whitened(days.map { $0 >= firstAfter ? 1 : 0 }, factor: l)
        var s11 = 0.0
        var s12 = 0.0
        var s22 = 0.0
        for i in 0..<n {
            s11 += x1[i] * x1[i]
            s12 += x1[i] * x2[i]
            s22 += x2[i] * x2[i]
        }
        let det = s11 * s22 - s12 * s12
        guard det > 1e-12 else { return [Double](repeating: 0, count: n) }
        var w = (0..<n).map { (s11 * x2[$0] - s12 * x1[$0]) / det }
        // Back substitution: Lᵀ w = u.
        for i in stride(from: n - 1, through: 0, by: -1) {
            var v = w[i]
            for k in (i + 1)..<max(i + 1, n) { v -= l[k * n + i] * w[k] }
            w[i] = v / l[i * n + i]
        }
        return w
    }

    /// The Cholesky factor L (n × n, row by row) of the correlation matrix of values on `days` (sorted) under
    /// `profile`: L⁻¹ whitens them, gaps included.
    private static func correlationFactor(days: [Int], profile: SeriesProfile) -> [Double] {
        let n = days.count
        let table = (0...max(0, (days.last ?? 0) - (days.first ?? 0))).map { profile.correlation(lag: $0) }
        var l = [Double](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0...i {
                var v = table[days[i] - days[j]]
                for k in 0..<j { v -= l[i * n + k] * l[j * n + k] }
                if i == j {
                    l[i * n + i] = max(v, 1e-12).squareRoot()
                } else {
                    l[i * n + j] = v / l[j * n + j]
                }
            }
        }
        return l
    }

    /// L⁻¹ `column` by forward substitution (`l` from `correlationFactor`).
    private static func whitened(_ column: [Double], factor l: [Double]) -> [Double] {
        let n = column.count
        var x = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var a = column[i]
            for k in 0..<i { a -= l[i * n + k] * x[k] }
            x[i] = a / l[i * n + i]
        }
        return x
    }

    /// Prewhitens `points` (sorted by day) with `phi`, gaps included, and solves the 2×2 normal equations.
    static func prewhitenedStep(_ points: [(day: Int, value: Double)], firstAfter: Int, phi: Double) -> StepFit {
        var s11 = 0.0
        var s12 = 0.0
        var s22 = 0.0
        var s1y = 0.0
        var s2y = 0.0
        var syy = 0.0
        var previous: (day: Int, value: Double, step: Double)?
        for point in points {
            let step = point.day >= firstAfter ? 1.0 : 0.0
            var x1 = 1.0
            var x2 = step
            var y = point.value
            if let p = previous {
                let a = pow(phi, Double(point.day - p.day))
                let scale = 1 / max(1 - a * a, 1e-12).squareRoot()
                x1 = (1 - a) * scale
                x2 = (step - a * p.step) * scale
                y = (point.value - a * p.value) * scale
            }
            s11 += x1 * x1
            s12 += x1 * x2
            s22 += x2 * x2
            s1y += x1 * y
            s2y += x2 * y
            syy += y * y
            previous = (point.day, point.value, step)
        }
        let det = s11 * s22 - s12 * s12
        guard det > 1e-12 else { return StepFit(step: 0, stepVarianceFactor: .infinity, residualSquares: 0) }
        let b1 = (s22 * s1y - s12 * s2y) / det
        let b2 = (s11 * s2y - s12 * s1y) / det
        let rss = max(0, syy - b1 * s1y - b2 * s2y)
        return StepFit(step: b2, stepVarianceFactor: s11 / det, residualSquares: rss)
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
        guard let first = values.keys.min(), let last = values.keys.max() else {
            firstDay = 0
            self.values = []
            return
        }
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
