import CairnCore
import Foundation
import Regimen

/// Whether an insight clears every bar, or is still only being watched.
public enum InsightStatus: String, Hashable, Codable, Sendable, CaseIterable {
    /// The interval excludes zero, the effect size clears the minimum, both windows have enough values, and the
    /// Benjamini-Hochberg adjusted p-value across the metrics of the change passes.
    case qualifiedFinding = "qualified-finding"
    /// Anything else, including not enough data yet.
    case ongoingObservation = "ongoing-observation"

    /// "qualified finding" / "ongoing observation".
    public var plainName: String { rawValue.replacingOccurrences(of: "-", with: " ") }
}

/// One day's value in an insight's windows (for its chart).
public struct InsightPoint: Hashable, Sendable, Codable {
    /// The day.
    public let day: LocalDay
    /// The value.
    public let value: Double

    /// A point.
    public init(day: LocalDay, value: Double) {
        self.day = day
        self.value = value
    }

    private enum CodingKeys: String, CodingKey { case day, value }
    /// Day as "2026-03-01".
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(day.description, forKey: .day)
        try c.encode(value, forKey: .value)
    }
    /// Reads what `encode(to:)` wrote.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        day = try LocalDay.decoded(c, .day)
        value = try c.decode(Double.self, forKey: .value)
    }
}

/// What Cairn noticed about one metric around one exposure change. Identity: (change id, metric id); when the
/// window matures from 14 to 28 days the same insight is updated.
public struct Insight: Hashable, Sendable, Codable {
    /// "<change id>#<metric id>".
    public var id: String { change.id + "#" + metricID }
    /// The change.
    public let change: ExposureChange
    /// The metric's id.
    public let metricID: String
    /// The metric's name.
    public let metricName: String
    /// The metric's unit.
    public let unit: String
    /// Qualified finding or ongoing observation.
    public let status: InsightStatus
    /// The before/after comparison behind this insight.
    public let result: BeforeAfterResult
    /// 14 or 28.
    public var windowDays: Int { result.windowDays }
    /// The days before the change.
    public var before: ClosedRange<LocalDay> { result.before }
    /// The days from the change on.
    public var after: ClosedRange<LocalDay> { result.after }
    /// Days with a value before.
    public var beforeCount: Int { result.beforeCount }
    /// Days with a value from the change on.
    public var afterCount: Int { result.afterCount }
    /// Values needed on each side.
    public var minimumCount: Int { BeforeAfterAnalysis.minimumValidDays(result.windowDays) }
    /// True when both sides have enough values.
    public var enoughData: Bool { result.enoughData }
    /// Plain mean before.
    public var beforeMean: Double? { result.beforeMean }
    /// Plain mean after.
    public var afterMean: Double? { result.afterMean }
    /// After minus before (weekday pattern removed).
    public var difference: Double? { result.difference }
    /// The 95% interval of the difference.
    public var interval: ClosedRange<Double>? { result.interval }
    /// Hedges' g.
    public var hedgesG: Double? { result.hedgesG }
    /// The p-value of the difference.
    public var pValue: Double? { result.pValue }
    /// The Benjamini-Hochberg adjusted p-value across the metrics tested for this change (of `lookPValue`).
    public let adjustedPValue: Double?
    /// The bar this look's p-values must clear (`InsightEngine.lookAlpha`: the 14- and 28-day looks share 5%).
    public let lookAlpha: Double
    /// How many series were compared for this change (the count the adjustment is over).
    public let seriesCompared: Int
    /// How many onsets were searched (1, or 8 for a metric with onset search: 0-7 days).
    public let onsetsSearched: Int
    /// The p-value with the onset search counted (`pValue` × `onsetsSearched`, at most 1).
    public var lookPValue: Double? { pValue.map { min(1, $0 * Double(onsetsSearched)) } }
    /// Which bar decided the status.
    public let verdict: InsightVerdict
    /// The same method run on this series at dates where nothing changed (nil when there were too few).
    public let placebo: PlaceboCheck?
    /// One sentence in the allowed wording.
    public let summary: String
    /// What limits this insight: other changes in the windows, missing days, seasonality.
    public let limitations: [String]
    /// The daily values of both windows (for the chart).
    public let points: [InsightPoint]
    /// The insight disclaimer, verbatim.
    public var disclaimer: String { Disclaimer.insight.text }

    /// Every user-facing sentence of this insight (summary, limitations, disclaimer).
    public var texts: [String] { [change.description, plainSummary, summary] + limitations + [disclaimer] }

    /// The insight in plain words, read before its figures (`InsightWording.plain`).
    public var plainSummary: String { InsightWording.plain(self) }

    /// Whether all it can say is that there is too little data yet (grouped into one line per change on the page).
    public var isTooLittleData: Bool { verdict == .tooLittleDataToTell || verdict == .notEnoughData }

    /// An insight (normally made by `InsightEngine`).
    public init(
        change: ExposureChange, metricID: String, metricName: String, unit: String, result: BeforeAfterResult,
        adjustedPValue: Double?, lookAlpha: Double, seriesCompared: Int, onsetsSearched: Int, placebo: PlaceboCheck?,
        summary: String, limitations: [String], points: [InsightPoint]
    ) {
        self.change = change
        self.metricID = metricID
        self.metricName = metricName
        self.unit = unit
        self.result = result
        self.adjustedPValue = adjustedPValue
        self.lookAlpha = lookAlpha
        self.seriesCompared = seriesCompared
        self.onsetsSearched = onsetsSearched
        self.placebo = placebo
        let verdict = InsightVerdict(
            result, lookPValue: result.pValue.map { min(1, $0 * Double(onsetsSearched)) },
            adjustedPValue: adjustedPValue, lookAlpha: lookAlpha)
        self.verdict = verdict
        self.status = verdict == .qualified ? .qualifiedFinding : .ongoingObservation
        self.summary = summary
        self.limitations = limitations
        self.points = points
    }

    private enum CodingKeys: String, CodingKey {
        case id, change, metricID, metricName, unit, status, windowDays, beforeFrom, beforeTo, afterFrom, afterTo, beforeCount,
            afterCount, minimumCount, enoughData, beforeMean, afterMean, difference, intervalLow, intervalHigh, hedgesG, pValue,
            adjustedPValue, summary, limitations, disclaimer, points, lookAlpha, seriesCompared, onsetsSearched, onsetDays,
            lookPValue, verdict, conditions, placebo, tStatistic, degreesOfFreedom, standardError, meaningfulDifference, daysNeeded
    }

    /// JSON with days as "2026-03-01" and the disclaimer included.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(change, forKey: .change)
        try c.encode(metricID, forKey: .metricID)
        try c.encode(metricName, forKey: .metricName)
        try c.encode(unit, forKey: .unit)
        try c.encode(status, forKey: .status)
        try c.encode(windowDays, forKey: .windowDays)
        try c.encode(before.lowerBound.description, forKey: .beforeFrom)
        try c.encode(before.upperBound.description, forKey: .beforeTo)
        try c.encode(after.lowerBound.description, forKey: .afterFrom)
        try c.encode(after.upperBound.description, forKey: .afterTo)
        try c.encode(beforeCount, forKey: .beforeCount)
        try c.encode(afterCount, forKey: .afterCount)
        try c.encode(minimumCount, forKey: .minimumCount)
        try c.encode(enoughData, forKey: .enoughData)
        try c.encodeIfPresent(beforeMean, forKey: .beforeMean)
        try c.encodeIfPresent(afterMean, forKey: .afterMean)
        try c.encodeIfPresent(difference, forKey: .difference)
        try c.encodeIfPresent(interval?.lowerBound, forKey: .intervalLow)
        try c.encodeIfPresent(interval?.upperBound, forKey: .intervalHigh)
        try c.encodeIfPresent(hedgesG.flatMap { $0.isFinite ? $0 : nil }, forKey: .hedgesG)
        try c.encodeIfPresent(pValue, forKey: .pValue)
        try c.encodeIfPresent(result.tStatistic, forKey: .tStatistic)
        try c.encodeIfPresent(result.degreesOfFreedom, forKey: .degreesOfFreedom)
        try c.encodeIfPresent(result.standardError, forKey: .standardError)
        try c.encodeIfPresent(result.meaningfulDifference, forKey: .meaningfulDifference)
        try c.encodeIfPresent(daysNeeded, forKey: .daysNeeded)
        try c.encodeIfPresent(adjustedPValue, forKey: .adjustedPValue)
        try c.encode(lookAlpha, forKey: .lookAlpha)
        try c.encode(seriesCompared, forKey: .seriesCompared)
        try c.encode(onsetsSearched, forKey: .onsetsSearched)
        try c.encode(result.onsetDays, forKey: .onsetDays)
        try c.encodeIfPresent(lookPValue, forKey: .lookPValue)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(conditions, forKey: .conditions)
        try c.encodeIfPresent(placebo, forKey: .placebo)
        try c.encode(summary, forKey: .summary)
        try c.encode(limitations, forKey: .limitations)
        try c.encode(disclaimer, forKey: .disclaimer)
        try c.encode(points, forKey: .points)
    }

    /// Reads what `encode(to:)` wrote.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        change = try c.decode(ExposureChange.self, forKey: .change)
        metricID = try c.decode(String.self, forKey: .metricID)
        metricName = try c.decode(String.self, forKey: .metricName)
        unit = try c.decode(String.self, forKey: .unit)
        status = try c.decode(InsightStatus.self, forKey: .status)
        lookAlpha = try c.decode(Double.self, forKey: .lookAlpha)
        seriesCompared = try c.decode(Int.self, forKey: .seriesCompared)
        onsetsSearched = try c.decode(Int.self, forKey: .onsetsSearched)
        verdict = try c.decode(InsightVerdict.self, forKey: .verdict)
        placebo = try c.decodeIfPresent(PlaceboCheck.self, forKey: .placebo)
        let interval: ClosedRange<Double>?
        if let low = try c.decodeIfPresent(Double.self, forKey: .intervalLow),
            let high = try c.decodeIfPresent(Double.self, forKey: .intervalHigh), low <= high
        {
            interval = low...high
        } else {
            interval = nil
        }
        result = BeforeAfterResult(
            windowDays: try c.decode(Int.self, forKey: .windowDays),
            before: try LocalDay.decoded(c, .beforeFrom)...LocalDay.decoded(c, .beforeTo),
            after: try LocalDay.decoded(c, .afterFrom)...LocalDay.decoded(c, .afterTo),
            beforeCount: try c.decode(Int.self, forKey: .beforeCount), afterCount: try c.decode(Int.self, forKey: .afterCount),
            enoughData: try c.decode(Bool.self, forKey: .enoughData),
            beforeMean: try c.decodeIfPresent(Double.self, forKey: .beforeMean),
            afterMean: try c.decodeIfPresent(Double.self, forKey: .afterMean),
            difference: try c.decodeIfPresent(Double.self, forKey: .difference), interval: interval,
            hedgesG: try c.decodeIfPresent(Double.self, forKey: .hedgesG), pValue: try c.decodeIfPresent(Double.self, forKey: .pValue),
            onsetDays: try c.decode(Int.self, forKey: .onsetDays),
            tStatistic: try c.decodeIfPresent(Double.self, forKey: .tStatistic),
            degreesOfFreedom: try c.decodeIfPresent(Double.self, forKey: .degreesOfFreedom),
            standardError: try c.decodeIfPresent(Double.self, forKey: .standardError),
            meaningfulDifference: try c.decodeIfPresent(Double.self, forKey: .meaningfulDifference))
        adjustedPValue = try c.decodeIfPresent(Double.self, forKey: .adjustedPValue)
        summary = try c.decode(String.self, forKey: .summary)
        limitations = try c.decode([String].self, forKey: .limitations)
        points = try c.decode([InsightPoint].self, forKey: .points)
    }
}

/// Which bar decided an insight's status: the first that did not hold, or `qualified` when all held.
public enum InsightVerdict: String, Hashable, Codable, Sendable {
    /// Too few days with a value on a side.
    case notEnoughData = "not-enough-data"
    /// The 95% interval includes zero and lies within ± the smallest difference that counts
    /// (`InsightEngine.minimumEffectSize` standard deviations): a difference of that size is ruled out.
    case noClearDifference = "no-clear-difference"
    /// The 95% interval includes zero but still reaches a difference that would count: the data cannot tell
    /// yet, and the card says how many days would be needed.
    case tooLittleDataToTell = "too-little-data-to-tell"
    /// The interval excludes zero but |g| is below `InsightEngine.minimumEffectSize`.
    case smallEffect = "small-effect"
    /// The interval excludes zero but the p-value (with any onset search counted) is above this look's share of 5%.
    case notStrongEnoughForThisLook = "not-strong-enough-for-this-look"
    /// Everything held except the Benjamini-Hochberg step across the series compared for the change.
    case didNotHoldUpAcrossSeries = "did-not-hold-up-across-series"
    /// Every bar held.
    case qualified

    /// The verdict of `result` with its look p-value (onset search counted) and its adjusted p-value.
    public init(_ result: BeforeAfterResult, lookPValue: Double?, adjustedPValue: Double?, lookAlpha: Double) {
        guard result.enoughData, let interval = result.interval else {
            self = .notEnoughData
            return
        }
        if interval.contains(0) && (lookPValue ?? 1) > lookAlpha {
            // "No clear difference" only when the interval rules out a difference that would count; an interval
            // wide enough to hold one says the data cannot tell (a real effect must never read as reassurance).
            if let m = result.meaningfulDifference, interval.lowerBound > -m, interval.upperBound < m {
                self = .noClearDifference
            } else {
                self = .tooLittleDataToTell
            }
            return
        }
        if (lookPValue ?? 1) > lookAlpha {
            self = .notStrongEnoughForThisLook
            return
        }
        if abs(result.hedgesG ?? 0) < InsightEngine.minimumEffectSize {
            self = .smallEffect
            return
        }
        if (adjustedPValue ?? 1) > lookAlpha {
            self = .didNotHoldUpAcrossSeries
            return
        }
        self = .qualified
    }
}

/// One bar of a qualified finding, and whether it held.
public struct InsightCondition: Hashable, Sendable, Codable {
    /// "days", "interval", "effect-size", "look", "correction".
    public let id: String
    /// Whether it held.
    public let held: Bool
    /// What was needed and what there was, in plain words.
    public let text: String
}

/// The method run at dates of one series where nothing changed: how often it would have called a finding, and
/// the calibration those dates give the method on this series.
public struct PlaceboCheck: Hashable, Sendable, Codable {
    /// Dates tried (no change of any product within their windows, enough values on both sides).
    public let dates: Int
    /// Of which the calibrated method would have called a qualified finding (each date judged with the placebo
    /// calibration of the OTHER dates, so a date does not excuse itself; without the simulated calibration).
    public let flagged: Int
    /// How much wider than the model says the differences at these dates actually spread (the mean squared
    /// t-statistic, shrunk toward 1 with `InsightEngine.calibrationPriorDates` dates' weight, at least 1): the
    /// variance of every 14-day comparison of this series is multiplied by it.
    public let varianceFactor: Double
    /// The same from placebo windows of 28 days on each side, for the 28-day look, and at least
    /// `varianceFactor`: a carry-over slower than the model's spreads a longer window's difference more, never
    /// less, and with a short history the few 28-day dates alone would mostly say "the model is right".
    public let longVarianceFactor: Double
    /// The 14-day dates' squared t-statistics (relative to their expectation, winsorised), summed: the
    /// calibration again against a model that allows for a simulated factor (nil in checks stored before).
    public let squares: Double?
    /// The same for the 28-day dates.
    public let longSquares: Double?
    /// The number of 28-day dates.
    public let longDates: Int?

    /// A check.
    public init(
        dates: Int, flagged: Int, varianceFactor: Double = 1, longVarianceFactor: Double? = nil, squares: Double? = nil,
        longSquares: Double? = nil, longDates: Int? = nil
    ) {
        self.dates = dates
        self.flagged = flagged
        self.varianceFactor = varianceFactor
        self.longVarianceFactor = max(varianceFactor, longVarianceFactor ?? varianceFactor)
        self.squares = squares
        self.longSquares = longSquares
        self.longDates = longDates
    }

    /// The factor for a comparison of `windowDays` days on each side.
    public func varianceFactor(windowDays: Int) -> Double {
        windowDays >= BeforeAfterAnalysis.longWindowDays ? longVarianceFactor : varianceFactor
    }

    /// The factor for a comparison of `windowDays` days on each side whose model already allows for `simulated`
    /// (`InsightEngine.simulatedFactor`): the placebo dates' t² measured against that model, so the calibration
    /// shrinks toward `simulated` rather than 1 and is at least `simulated`. With `simulated` 1 it is
    /// `varianceFactor(windowDays:)`.
    public func varianceFactor(windowDays w: Int, simulated: Double) -> Double {
        let short = BeforeAfterAnalysis.shortWindowDays
        let long = BeforeAfterAnalysis.longWindowDays
        guard let squares else { return max(simulated, varianceFactor(windowDays: w)) }
        let shortFactor = simulated * InsightEngine.calibration(squares / simulated, dates: Double(dates), windowDays: short)
        guard w >= long else { return shortFactor }
        let longFactor = simulated * InsightEngine.calibration((longSquares ?? 0) / simulated, dates: Double(longDates ?? 0), windowDays: long)
        return max(shortFactor, longFactor)
    }

    private enum CodingKeys: String, CodingKey { case dates, flagged, varianceFactor, longVarianceFactor, squares, longSquares, longDates }

    /// Reads what `encode(to:)` wrote (a check stored before calibration existed has factor 1).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dates = try c.decode(Int.self, forKey: .dates)
        flagged = try c.decode(Int.self, forKey: .flagged)
        varianceFactor = try c.decodeIfPresent(Double.self, forKey: .varianceFactor) ?? 1
        longVarianceFactor = max(varianceFactor, try c.decodeIfPresent(Double.self, forKey: .longVarianceFactor) ?? varianceFactor)
        squares = try c.decodeIfPresent(Double.self, forKey: .squares)
        longSquares = try c.decodeIfPresent(Double.self, forKey: .longSquares)
        longDates = try c.decodeIfPresent(Int.self, forKey: .longDates)
    }
}

extension Insight {
    /// Every bar of a qualified finding with whether it held, in the order they are checked.
    public var conditions: [InsightCondition] {
        let w = windowDays
        let needed = minimumCount
        var list = [
            InsightCondition(
                id: "days", held: enoughData,
                text: "Days with a value: \(beforeCount) of \(w) before and \(afterCount) of \(w) after (\(needed) needed on each side)")
        ]
        guard let interval, let difference else { return list }
        list.append(
            InsightCondition(
                id: "interval", held: !interval.contains(0),
                text:
                    "95% interval \(InsightWording.signed(interval.lowerBound)) to \(InsightWording.signed(interval.upperBound))\(InsightWording.unitText(unit)) around \(InsightWording.signed(difference)): \(interval.contains(0) ? "includes" : "excludes") zero"
            ))
        let g = hedgesG ?? 0
        list.append(
            InsightCondition(
                id: "effect-size", held: abs(g) >= InsightEngine.minimumEffectSize,
                text:
                    "Effect size g = \(InsightWording.number(g)) (at least \(InsightWording.number(InsightEngine.minimumEffectSize)) either way needed)"
            ))
        let p = lookPValue ?? 1
        let search = onsetsSearched > 1 ? ", counting the search over \(onsetsSearched) onsets (0-\(onsetsSearched - 1) days)" : ""
        list.append(
            InsightCondition(
                id: "look", held: p <= lookAlpha,
                text:
                    "p = \(InsightWording.pText(p))\(search); at most \(InsightWording.pText(lookAlpha)) needed at the \(w)-day look (the 14- and 28-day looks share one 5% error rate)"
            ))
        if let adjusted = adjustedPValue {
            list.append(
                InsightCondition(
                    id: "correction", held: adjusted <= lookAlpha,
                    text:
                        "Adjusted across the \(seriesCompared) series compared for this change (Benjamini-Hochberg): p = \(InsightWording.pText(adjusted)), at most \(InsightWording.pText(lookAlpha)) needed"
                ))
        }
        return list
    }

    /// Days with a value on each side at which a difference of `meaningfulDifference` would be found 80% of the
    /// time at this look's bar (the standard error shrinks with the square root of the days); nil without figures.
    public var daysNeeded: Int? {
        guard let se = result.standardError, let m = result.meaningfulDifference, m > 0, se.isFinite,
            let df = result.degreesOfFreedom
        else { return nil }
        let z = InsightStatistics.tQuantile(1 - lookAlpha / 2, df: df) + 0.8416  // 80% power
        let now = Double(min(beforeCount, afterCount))
        let needed = now * (z * se / m) * (z * se / m)
        return needed.isFinite ? Int(needed.rounded(.up)) : nil
    }

    /// The card's label, the same on the page, in the CLI and in the PDF: "Qualified finding", "Too little data
    /// to tell" (the data could not have shown a difference that counts), or "Ongoing observation".
    public var label: String {
        switch verdict {
        case .qualified: "Qualified finding"
        case .tooLittleDataToTell: "Too little data to tell"
        default: "Ongoing observation"
        }
    }

    /// How strong the insight is, for ordering: the smaller its adjusted p-value, the stronger.
    var strength: Double { -(adjustedPValue ?? lookPValue ?? 1) }
}

/// Turns confirmed intake and outcome series into insights.
///
/// Bars for a qualified finding (all must hold): both windows have enough values (10 of 14, 20 of 28), the
/// 95% interval excludes zero, |Hedges' g| ≥ `minimumEffectSize`, the p-value (times the number of onsets
/// searched, for a metric with onset search) is at most this look's `lookAlpha`, and so is the
/// Benjamini-Hochberg adjusted p-value across the metrics tested for the change (those with enough data).
///
/// Two looks, one error rate: the person sees the 14-day version of an insight and later the 28-day one, two
/// looks at one question; each look gets `lookAlpha`: 0.04 at 14 days, 0.01 at 28 days (the 14-day look is the one
/// the person reads first, so it gets most of the 5%; the two looks' statistics correlate by about √(14/28), which
/// puts the chance of a false qualified finding at EITHER look at 4.5% for normal statistics; `cairn-bench
/// insights` measures it on simulated and realistic series).
public struct InsightEngine: Sendable {
    /// The smallest |Hedges' g| reported as a finding: a "medium" difference, half a standard deviation.
    public static let minimumEffectSize = 0.5
    /// The error rate both looks share.
    public static let falseDiscoveryRate = 0.05
    /// The share of `falseDiscoveryRate` each look may spend (14 days, then 28 days): 0.04 + 0.01, which with the looks'
    /// correlation keeps either look at 4.5% (0.035 + 0.02 gave 4.7% with less at the look read first).
    public static func lookAlpha(windowDays: Int) -> Double { windowDays >= BeforeAfterAnalysis.longWindowDays ? 0.01 : 0.04 }
    /// Onsets tried for a metric with onset search: the after-window starts 0 to 7 days after the change.
    public static let onsetSearchDays = 0...7
    /// Placebo dates tried per series, at most.
    public static let maximumPlaceboDates = 40
    /// Fewer dates where nothing changed than this and no placebo figure is given (the calibration still uses them).
    public static let minimumPlaceboDates = 10
    /// The weight, in independent dates, of the prior "the model is right" (factor 1) in the calibration.
    public static let calibrationPriorDates = 10.0
    /// The largest t² (relative to its expectation) one placebo date adds to the calibration: the 99% point of χ²₁.
    static let calibrationCap = 6.63
    /// Placebo dates one week apart per independent date, for windows of `w` days on each side: 1 + 2Σρ(7k)²,
    /// with ρ(δ) the correlation of the step contrasts at dates δ days apart (independent days): 1 − 3δ/2w up
    /// to w, then −(2w − δ)/2w, 0 from 2w on. 1.75 for 14 days (ρ 0.25, −0.5, −0.25), 2.88 for 28.
    public static func overlapFactor(windowDays w: Int) -> Double {
        var sum = 1.0
        for delta in stride(from: 7, to: 2 * w, by: 7) {
            let d = Double(delta)
            let width = Double(w)
            let rho = delta <= w ? 1 - 1.5 * d / width : -(2 * width - d) / (2 * width)
            sum += 2 * rho * rho
        }
        return sum
    }

    /// An engine.
    public init() {}

    /// Changes found in `entries` and analysed against every series, as of `asOf`, ordered by
    /// `InsightEngine.ordered`.
    public func insights(
        entries: [LedgerEntry], schedules: [ScheduleHistory], series: [MetricSeriesInput],
        asOf: LocalDay
    ) -> [Insight] {
        let changes = ExposureChangeDetector().changes(in: entries, schedules: schedules, asOf: asOf)
        return insights(changes: changes, series: series, asOf: asOf)
    }

    /// One series ready for analysis: its dense values and the days of the confirmed changes its profiles break at.
    public struct PreparedSeries: Sendable {
        /// The series.
        public let input: MetricSeriesInput
        /// Its dense values.
        public let dense: DenseSeries
        /// The day numbers of every confirmed change (of any product): the profile's blocks start anew at each.
        public let changeDays: [Int]

        /// Packs `input`; `changeDays` are the days of every confirmed change.
        public init(_ input: MetricSeriesInput, changeDays: [LocalDay] = []) {
            self.init(input, dense: DenseSeries(input.values), changeDays: changeDays)
        }

        /// `dense` as the values of `input` (simulations pass the dense values directly).
        public init(_ input: MetricSeriesInput, dense: DenseSeries, changeDays: [LocalDay] = []) {
            self.input = input
            self.dense = dense
            self.changeDays = changeDays.map(\.dayNumber)
        }

        /// The profile for the look of `windowDays` days at `changeDay` (`SeriesProfile.caution(windowDays:)`),
        /// fitted without the days `changeDay ..< changeDay + 28`, with its blocks starting anew at `changeDay` (the
        /// days after the masked ones are not demeaned together with the days before), so a true shift after a
        /// change does not raise the carry-over and variance it is judged by, and at every other confirmed change,
        /// so an earlier change's own shift never passes for carry-over either (with one block across a start and
        /// a stop months before, a 1 SD shift of their own took detection at 1 SD down to 47-68% of the known-φ
        /// test's in `cairn-bench insights`, history section).
        public func profile(around changeDay: LocalDay, windowDays: Int = BeforeAfterAnalysis.shortWindowDays) -> SeriesProfile {
            Self.profile(dense.values, firstDay: dense.firstDay, around: changeDay, breaks: changeDays, windowDays: windowDays)
        }

        /// `profile(around:windowDays:)` of any values (the simulations of `InsightEngine.simulatedFactor`).
        static func profile(_ values: [Double], firstDay: Int, around changeDay: LocalDay, breaks: [Int], windowDays: Int) -> SeriesProfile {
            var masked = values
            let start = changeDay.dayNumber - firstDay
            let from = min(max(0, start), masked.count)
            let to = min(max(from, start + BeforeAfterAnalysis.longWindowDays), masked.count)
            for i in from..<to { masked[i] = .nan }
            return SeriesProfile(
                dense: masked, firstDay: firstDay, breaks: [changeDay.dayNumber] + breaks,
                caution: SeriesProfile.caution(windowDays: windowDays))
        }
    }

    /// The result for one (change, series) pair before the adjustment across series: the comparison at the
    /// look in force (at the best onset when the metric searches onsets).
    public func analyse(_ series: PreparedSeries, changeDay: LocalDay, asOf: LocalDay, varianceFactor: Double = 1) -> BeforeAfterResult {
        analyse(
            series, changeDay: changeDay, asOf: asOf, windowDays: BeforeAfterAnalysis.windowDays(changeDay: changeDay, asOf: asOf),
            varianceFactor: varianceFactor)
    }

    /// As `analyse(_:changeDay:asOf:)` at a given window (`searchOnset: false` tries the change day only).
    public func analyse(
        _ series: PreparedSeries, changeDay: LocalDay, asOf: LocalDay, windowDays: Int, varianceFactor: Double = 1,
        searchOnset: Bool = true
    ) -> BeforeAfterResult {
        let analysis = BeforeAfterAnalysis()
        let onsets = series.input.searchesOnset && searchOnset ? Self.onsetSearchDays : 0...0
        let profile = series.profile(around: changeDay, windowDays: windowDays)
        var best: BeforeAfterResult?
        for onset in onsets {
            let r = analysis.compare(
                dense: series.dense.values, firstDay: series.dense.firstDay, profile: profile,
                changeDay: changeDay, asOf: asOf, windowDays: windowDays, onsetDays: onset,
                varianceFactor: varianceFactor)
            guard let current = best else {
                best = r
                continue
            }
            // The smallest p among onsets with enough data (an onset without enough data never wins).
            let key = { (x: BeforeAfterResult) in (x.enoughData ? 0 : 1, x.pValue ?? 2) }
            if key(r) < key(current) { best = r }
        }
        return best!
    }

    /// The placebo check of a series: the same analysis (14-day look, one series) at up to `maximumPlaceboDates`
    /// dates spread over the history, each with no change of any product within 28 days either side and enough
    /// values in both windows. Their t-statistics (change day as onset) give the calibration: if differences
    /// where nothing changed spread wider than the model says (carry-over that outlasts a day, rounding, drift),
    /// every comparison of the series is widened by that much. Each date is then judged by the full method
    /// (onset search included) with the calibration of the other dates. The 28-day look is calibrated the same
    /// way on placebo windows of 28 days (`PlaceboCheck.longVarianceFactor`). Nil without any 14-day date.
    public func placebo(_ series: PreparedSeries, changeDays: [LocalDay], asOf: LocalDay) -> PlaceboCheck? {
        let w = BeforeAfterAnalysis.shortWindowDays
        let short = placeboDates(series, changeDays: changeDays, asOf: asOf, windowDays: w)
        guard !short.dates.isEmpty else { return nil }
        let total = short.squares.reduce(0, +)
        let n = Double(short.dates.count)
        let alpha = Self.lookAlpha(windowDays: w)
        let onsets = series.input.searchesOnset ? Self.onsetSearchDays.count : 1
        var flagged = 0
        for (d, square) in zip(short.dates, short.squares) {
            let factor = Self.calibration(total - square, dates: n - 1, windowDays: w)
            let r = analyse(series, changeDay: d, asOf: asOf, windowDays: w, varianceFactor: factor)
            let p = r.pValue.map { min(1, $0 * Double(onsets)) }
            if InsightVerdict(r, lookPValue: p, adjustedPValue: p, lookAlpha: alpha) == .qualified { flagged += 1 }
        }
        let long = placeboDates(series, changeDays: changeDays, asOf: asOf, windowDays: BeforeAfterAnalysis.longWindowDays)
        let longTotal = long.squares.reduce(0, +)
        return PlaceboCheck(
            dates: short.dates.count, flagged: flagged,
            varianceFactor: Self.calibration(total, dates: n, windowDays: w),
            longVarianceFactor: Self.calibration(
                longTotal, dates: Double(long.dates.count),
                windowDays: BeforeAfterAnalysis.longWindowDays),
            squares: total, longSquares: longTotal, longDates: long.dates.count)
    }

    /// The calibration from placebo dates whose t² (relative to its expectation) sum to `sum`: their mean,
    /// counted as `dates / overlapFactor` independent dates and shrunk toward 1 with `calibrationPriorDates`
    /// dates' weight, at least 1.
    public static func calibration(_ sum: Double, dates: Double, windowDays: Int) -> Double {
        let overlap = overlapFactor(windowDays: windowDays)
        let prior = calibrationPriorDates
        return max(1, (sum / overlap + prior) / (dates / overlap + prior))
    }

    /// Up to `maximumPlaceboDates` dates a week apart, spread over the history, whose windows of `w` days on each
    /// side hold no change (ending before it, or starting 28 days after it, so a real change's own effect, even one
    /// that builds up over weeks, never spreads them) and enough values, with each date's t² relative to its
    /// expectation under the model (df/(df − 2), not 1), winsorised at the 99% point of χ²₁ so one wild date (an
    /// illness, a night shift) counts at most as much as a 1-in-100 date (the capped χ²₁ has mean 0.981).
    func placeboDates(_ series: PreparedSeries, changeDays: [LocalDay], asOf: LocalDay, windowDays w: Int)
        -> (dates: [LocalDay], squares: [Double])
    {
        let guardDays = BeforeAfterAnalysis.longWindowDays
        let first = series.dense.firstDay + w
        let last = min(series.dense.firstDay + series.dense.values.count, asOf.dayNumber + 1) - w
        guard last > first else { return ([], []) }
        let changes = changeDays.map(\.dayNumber).sorted()
        var candidates: [Int] = []
        var day = first
        while day <= last {
            if changes.allSatisfy({ day + w <= $0 || day - w >= $0 + guardDays }) { candidates.append(day) }
            day += 7
        }
        let step = max(1, Double(candidates.count) / Double(Self.maximumPlaceboDates))
        var dates: [LocalDay] = []
        var squares: [Double] = []
        var index = 0.0
        while Int(index) < candidates.count, dates.count < Self.maximumPlaceboDates {
            let d = LocalDay(dayNumber: candidates[Int(index)])
            index += step
            let r = analyse(series, changeDay: d, asOf: asOf, windowDays: w, searchOnset: false)
            guard r.enoughData, let t = r.tStatistic, let df = r.degreesOfFreedom else { continue }
            dates.append(d)
            let expected = df > 2.5 ? df / (df - 2) : 5
            squares.append(min(t * t / expected, Self.calibrationCap) / 0.981)
        }
        return (dates, squares)
    }

    /// `changes` analysed against every series (changes whose day is after `asOf` are ignored; of series
    /// sharing an id, only the first is used). A series with no value at all in either window of a change says
    /// nothing about it and gives no insight for that change (a metric logged once, or Health data from
    /// another year), so the list is not filled with empty "not enough data" entries.
    public func insights(changes: [ExposureChange], series: [MetricSeriesInput], asOf: LocalDay) -> [Insight] {
        var seen = Set<String>()
        let prepared = series.filter { seen.insert($0.id).inserted }.map { PreparedSeries($0, changeDays: changes.map(\.day)) }
        let placebos = prepared.map { placebo($0, changeDays: changes.map(\.day), asOf: asOf) }
        var all: [Insight] = []
        for change in changes where change.day <= asOf {
            let w = BeforeAfterAnalysis.windowDays(changeDay: change.day, asOf: asOf)
            let results = prepared.indices.map { i in
                analyse(
                    prepared[i], changeDay: change.day, asOf: asOf,
                    varianceFactor: varianceFactor(prepared[i], changeDay: change.day, asOf: asOf, windowDays: w, placebo: placebos[i]))
            }
            all += assemble(
                change: change, series: prepared.map(\.input), results: results, placebos: placebos,
                allChanges: changes, dense: prepared.map(\.dense))
        }
        return Self.ordered(all)
    }

    /// The insights of one change from its per-series results: the adjustment across the series with enough
    /// data, then the verdict, wording and chart points of each.
    public func assemble(
        change: ExposureChange, series: [MetricSeriesInput], results: [BeforeAfterResult], placebos: [PlaceboCheck?],
        allChanges: [ExposureChange], dense: [DenseSeries]
    ) -> [Insight] {
        let onsets = series.map { $0.searchesOnset ? Self.onsetSearchDays.count : 1 }
        let lookP = zip(results, onsets).map { r, n in r.enoughData ? r.pValue.map { min(1, $0 * Double(n)) } : nil }
        let adjusted = InsightStatistics.benjaminiHochberg(lookP)
        let compared = lookP.compactMap { $0 }.count
        var out: [Insight] = []
        for i in series.indices where results[i].beforeCount + results[i].afterCount > 0 {
            let result = results[i]
            let metric = series[i]
            let others = allChanges.filter { $0.id != change.id && $0.day >= result.before.lowerBound && $0.day <= result.after.upperBound }
            let draft = Insight(
                change: change, metricID: metric.id, metricName: metric.name, unit: metric.unit, result: result,
                adjustedPValue: adjusted[i], lookAlpha: Self.lookAlpha(windowDays: result.windowDays),
                seriesCompared: compared, onsetsSearched: onsets[i], placebo: placebos[i], summary: "", limitations: [],
                points: [])
            out.append(
                Insight(
                    change: change, metricID: metric.id, metricName: metric.name, unit: metric.unit, result: result,
                    adjustedPValue: adjusted[i], lookAlpha: draft.lookAlpha, seriesCompared: compared,
                    onsetsSearched: onsets[i], placebo: placebos[i], summary: InsightWording.summary(draft),
                    limitations: InsightWording.limitations(result: result, otherChanges: others),
                    points: Self.points(dense[i], result)))
        }
        return out
    }

    /// The bar for a qualified finding of one series alone (no other series compared, no onset search): every
    /// condition of `InsightVerdict` at the look's `lookAlpha`.
    public static func qualifies(_ result: BeforeAfterResult, adjustedPValue: Double?) -> Bool {
        InsightVerdict(
            result, lookPValue: result.pValue, adjustedPValue: adjustedPValue,
            lookAlpha: lookAlpha(windowDays: result.windowDays)) == .qualified
    }

    /// Grouped by change: changes with a qualified finding first, then by their strongest insight, then newest
    /// first; within a change, qualified findings first, then by strength, then metric name.
    public static func ordered(_ insights: [Insight]) -> [Insight] {
        var best: [String: (Int, Double)] = [:]
        for i in insights {
            let key = (i.status == .qualifiedFinding ? 0 : 1, -i.strength)
            if let current = best[i.change.id], current <= key { continue }
            best[i.change.id] = key
        }
        return insights.sorted { a, b in
            let ga = best[a.change.id]!
            let gb = best[b.change.id]!
            if a.change.id != b.change.id {
                if ga != gb { return ga < gb }
                if a.change.day != b.change.day { return a.change.day > b.change.day }
                return a.change.id < b.change.id
            }
            return (a.status == .qualifiedFinding ? 0 : 1, -a.strength, a.metricName.lowercased(), a.id)
                < (b.status == .qualifiedFinding ? 0 : 1, -b.strength, b.metricName.lowercased(), b.id)
        }
    }

    static func points(_ dense: DenseSeries, _ result: BeforeAfterResult) -> [InsightPoint] {
        (result.before.lowerBound.dayNumber...result.after.upperBound.dayNumber).compactMap { d in
            let i = d - dense.firstDay
            guard i >= 0, i < dense.values.count, !dense.values[i].isNaN else { return nil }
            return InsightPoint(day: LocalDay(dayNumber: d), value: dense.values[i])
        }
    }
}

/// The only place insight sentences are written. Allowed phrasing: "was associated with", "around the time
/// of"; values are "higher" or "lower", never better or worse; no causal verbs.
public enum InsightWording {
    /// Verbs and judgements that never appear in insight text (besides `ProductWording.bannedWords`).
    public static let forbiddenWords = [
        "caused", "causes", "cause", "improved", "improves", "worsened", "helped", "helps",
        "better", "worse", "because", "effective", "works",
    ]

    /// The forbidden or banned words in `text` (whole words, case-insensitive). The disclaimer's own "caused"
    /// is the one allowed use, so the disclaimer is removed before checking.
    public static func violations(in text: String) -> [String] {
        let stripped = text.replacingOccurrences(of: Disclaimer.insight.text, with: "")
        let words = Set(stripped.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init))
        var found = forbiddenWords.filter(words.contains)
        for word in ProductWording.bannedWords(in: stripped) where !found.contains(word) { found.append(word) }
        return found
    }

    /// The one-sentence summary: what the figures show and, when it is not a finding, which bar did not hold.
    static func summary(_ insight: Insight) -> String {
        let result = insight.result
        let change = insight.change
        let metricName = insight.metricName
        let w = result.windowDays
        let on = "\(change.description) on \(change.day)"
        guard result.enoughData, let diff = result.difference, let interval = result.interval else {
            let needed = BeforeAfterAnalysis.minimumValidDays(w)
            let counts =
                "\(result.beforeCount) of \(w) days before and \(result.afterCount) of \(w) days after have a value (\(needed) needed on each side)"
            // The days before a change are all in the past: only logging earlier days can fill them.
            if result.beforeCount < needed {
                return
                    "Too little data to compare \(metricName) around the time of \(on): \(counts). The days before it are past, so this stays so unless values for them are added."
            }
            return "Not enough data yet to compare \(metricName) around the time of \(on): \(counts)."
        }
        let onset = result.onsetDays > 0 ? " from \(result.onsetDays) day\(result.onsetDays == 1 ? "" : "s") after it on" : ""
        let figures =
            "mean \(number(result.beforeMean!)) in the \(w) days before, \(number(result.afterMean!)) in the \(w) days after\(onset); difference \(signed(diff))\(unitText(insight.unit)), 95% interval \(signed(interval.lowerBound)) to \(signed(interval.upperBound)), effect size g = \(number(result.hedgesG ?? 0))"
        let direction = diff > 0 ? "higher" : "lower"
        switch insight.verdict {
        case .qualified:
            return "\(capitalised(on)) was associated with \(direction) \(metricName) values (\(figures))."
        case .didNotHoldUpAcrossSeries:
            return
                "\(capitalised(direction)) \(metricName) values around the time of \(on), a difference that did not hold up once \(insight.seriesCompared) series were compared (adjusted p = \(pText(insight.adjustedPValue ?? 1)), at most \(pText(insight.lookAlpha)) needed; \(figures))."
        case .notStrongEnoughForThisLook:
            let search = insight.onsetsSearched > 1 ? " with the search over \(insight.onsetsSearched) onsets counted" : ""
            return
                "\(capitalised(direction)) \(metricName) values around the time of \(on), a difference not yet strong enough for the \(w)-day look (p = \(pText(insight.lookPValue ?? 1))\(search), at most \(pText(insight.lookAlpha)) needed; \(figures))."
        case .smallEffect:
            return
                "\(capitalised(direction)) \(metricName) values around the time of \(on), a difference smaller than the effect size a finding needs (g = \(number(result.hedgesG ?? 0)), at least \(number(InsightEngine.minimumEffectSize)) needed; \(figures))."
        case .noClearDifference:
            let m = result.meaningfulDifference ?? 0
            return
                "No clear difference in \(metricName) around the time of \(on): the 95% interval rules out a shift of \(number(m))\(unitText(insight.unit)) or more either way (half the usual day-to-day spread, the smallest difference that counts here; \(figures))."
        case .tooLittleDataToTell, .notEnoughData:
            let m = result.meaningfulDifference ?? 0
            var days = ""
            if let needed = insight.daysNeeded, needed > min(result.beforeCount, result.afterCount) {
                let cap =
                    needed > BeforeAfterAnalysis.longWindowDays
                    ? "; these comparisons use at most \(BeforeAfterAnalysis.longWindowDays) days on each side, so a shift of that size may stay out of reach for this series"
                    : (w < BeforeAfterAnalysis.longWindowDays
                        ? "; the comparison grows to \(BeforeAfterAnalysis.longWindowDays) days on each side once they have passed" : "")
                days =
                    " To tell a shift of that size, about \(needed) days with a value on each side would be needed (there are \(result.beforeCount) and \(result.afterCount))\(cap)."
            }
            return
                "Too little data to tell whether \(metricName) differed around the time of \(on): the 95% interval \(signed(interval.lowerBound)) to \(signed(interval.upperBound)) still includes shifts of \(number(m))\(unitText(insight.unit)) or more (half the usual day-to-day spread, the smallest difference that counts here), so this is not a sign of no difference (\(figures)).\(days)"
        }
    }

    /// The insight in plain words, read first (the figures and the bars stay in `summary`, folded under it):
    /// "Sleep quality was about 0.6 points higher in the 28 days after starting Vitamin D3 than in the 28 days
    /// before. A difference this size is unusual in your own records." Never causal, never evaluative; "too little
    /// data" says only that.
    static func plain(_ insight: Insight) -> String {
        let result = insight.result
        let w = result.windowDays
        let name = capitalised(insight.metricName)
        let after = result.onsetDays > 0 ? "from \(result.onsetDays) day\(result.onsetDays == 1 ? "" : "s") after" : "in the \(w) days after"
        guard result.enoughData, let diff = result.difference else {
            return "Too little data yet to compare \(insight.metricName) before and after \(insight.change.description)."
        }
        let size = "about \(roughly(abs(diff)))\(unitText(insight.unit))"
        let shift = "\(name) was \(size) \(diff > 0 ? "higher" : "lower") \(after) \(insight.change.description) than in the \(w) days before."
        switch insight.verdict {
        case .qualified:
            return shift + " A difference this size is unusual in your own records."
        case .didNotHoldUpAcrossSeries, .notStrongEnoughForThisLook:
            return shift + " Differences like this are common in your own records, so it is not a finding."
        case .smallEffect:
            return shift + " That is small next to how much it varies from day to day, so it is not a finding."
        case .noClearDifference:
            return "\(name) was about the same in the \(w) days before and \(after) \(insight.change.description)."
        case .tooLittleDataToTell, .notEnoughData:
            return "Too little data yet to tell whether \(insight.metricName) differed before and after \(insight.change.description)."
        }
    }

    /// A p-value as text: three decimals, "< 0.001" below that.
    public static func pText(_ p: Double) -> String { p < 0.001 ? "< 0.001" : String(format: "%.3f", p) }

    /// The limitations: other changes in the windows, missing days, seasonality.
    static func limitations(result: BeforeAfterResult, otherChanges: [ExposureChange]) -> [String] {
        var lines: [String] = []
        if !otherChanges.isEmpty {
            let listed = otherChanges.prefix(5).map { "\($0.description) on \($0.day)" }.joined(separator: "; ")
            let more = otherChanges.count > 5 ? " and \(otherChanges.count - 5) more" : ""
            lines.append("Other changes fall inside these windows, so their share cannot be told apart: \(listed)\(more).")
        }
        let w = result.windowDays
        let missingBefore = w - result.beforeCount
        let missingAfter = w - result.afterCount
        if missingBefore + missingAfter > 0 {
            lines.append("Days without a value: \(missingBefore) of \(w) before and \(missingAfter) of \(w) after.")
        }
        let first = monthName(result.before.lowerBound)
        let last = monthName(result.after.upperBound)
        lines.append(
            first == last
                ? "Both windows fall in \(first); slower changes over the year (daylight, weather, routine) can still move values."
                : "The windows run from \(first) into \(last); changes over those weeks in daylight, weather and routine can move values too.")
        if result.windowDays < BeforeAfterAnalysis.longWindowDays {
            lines.append("Based on \(w) days on each side; this is updated when \(BeforeAfterAnalysis.longWindowDays) days have passed.")
        }
        return lines
    }

    /// The month of a day, by name ("November").
    static func monthName(_ day: LocalDay) -> String {
        [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
        ][day.month - 1]
    }

    static func number(_ v: Double) -> String {
        guard v.isFinite else { return v > 0 ? "very large" : "very small" }
        let magnitude = abs(v)
        let digits = magnitude >= 100 ? 0 : (magnitude >= 10 ? 1 : 2)
        return (v < 0 ? "−" : "") + String(format: "%.\(digits)f", magnitude)
    }

    /// A figure as plain words give it: one decimal from 1 on, two below, none from 100 ("0.6", "12.4", "8412").
    static func roughly(_ v: Double) -> String {
        guard v.isFinite else { return number(v) }
        let digits = abs(v) >= 100 ? 0 : (abs(v) >= 1 ? 1 : 2)
        return String(format: "%.\(digits)f", v)
    }

    static func signed(_ v: Double) -> String { (v > 0 ? "+" : (v < 0 ? "−" : "")) + number(abs(v)) }

    /// The unit after a figure: a rating scale such as "1-5" reads "points on the 1-5 scale", a plain count
    /// needs no word, anything else is written as it is.
    public static func unitText(_ unit: String) -> String {
        if unit.isEmpty || unit == "count" { return "" }
        if unit.range(of: #"^\d+(\.\d+)?\s*[-–]\s*\d+(\.\d+)?$"#, options: .regularExpression) != nil {
            return " points on the \(unit) scale"
        }
        return " " + unit
    }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

/// The sentences above and around a list of insights, the same on the page and in the CLI.
public struct InsightsOverview: Sendable {
    /// The insights, in `InsightEngine.ordered` order.
    public let insights: [Insight]

    /// An overview of `insights`.
    public init(_ insights: [Insight]) { self.insights = insights }

    /// The changes, in the order of the insights (each once).
    public var changes: [ExposureChange] {
        var seen = Set<String>()
        return insights.map(\.change).filter { seen.insert($0.id).inserted }
    }

    /// "3 changes compared with 6 series: 1 qualified finding, 2 differences that did not hold up once the
    /// series were compared, 10 with no clear difference, 5 waiting for more days."
    public var summary: String {
        let counts = Dictionary(grouping: insights, by: \.verdict).mapValues(\.count)
        func n(_ v: InsightVerdict) -> Int { counts[v] ?? 0 }
        let changeCount = changes.count
        let seriesCount = Set(insights.map(\.metricID)).count
        var parts = ["\(n(.qualified)) qualified finding\(n(.qualified) == 1 ? "" : "s")"]
        if n(.didNotHoldUpAcrossSeries) > 0 {
            parts.append(
                "\(n(.didNotHoldUpAcrossSeries)) difference\(n(.didNotHoldUpAcrossSeries) == 1 ? "" : "s") that did not hold up once the series were compared"
            )
        }
        if n(.notStrongEnoughForThisLook) > 0 {
            parts.append(
                "\(n(.notStrongEnoughForThisLook)) difference\(n(.notStrongEnoughForThisLook) == 1 ? "" : "s") not yet strong enough for their look")
        }
        if n(.smallEffect) > 0 { parts.append("\(n(.smallEffect)) smaller than the effect size a finding needs") }
        if n(.noClearDifference) > 0 { parts.append("\(n(.noClearDifference)) with no clear difference") }
        if n(.tooLittleDataToTell) > 0 {
            parts.append("\(n(.tooLittleDataToTell)) where the data cannot tell yet (too little data to rule a difference in or out)")
        }
        // Days before a change are past: a comparison short of them is not waiting for anything.
        let shortBefore = insights.filter { $0.verdict == .notEnoughData && $0.beforeCount < $0.minimumCount }.count
        if n(.notEnoughData) - shortBefore > 0 { parts.append("\(n(.notEnoughData) - shortBefore) waiting for more days with a value") }
        if shortBefore > 0 { parts.append("\(shortBefore) with too few days with a value before the change to compare") }
        return "\(changeCount) change\(changeCount == 1 ? "" : "s") compared with \(seriesCount) series: " + parts.joined(separator: ", ") + "."
    }

    /// Why there is no insight at all: no change found yet, or no series with values around the changes.
    public static func emptyReason(changes: [ExposureChange]) -> String {
        guard let latest = changes.last else {
            return
                "No change in what you logged as taken has been found yet. A change is a start (doses on at least 4 of its first 14 days), a pause of 3 or more scheduled days, stopping, a new dose, a new frequency or a new time of day; a single as-needed dose is not one."
        }
        return
            "\(changes.count) change\(changes.count == 1 ? "" : "s") found (the latest: \(latest.description) on \(latest.day)), but no outcome series has a value in the 14 days before or after \(changes.count == 1 ? "it" : "any of them"). A comparison needs at least 10 days with a value on each side."
    }

    /// "On your own records, this method flagged 1 of 40 dates where nothing changed."
    public static func placeboText(_ insight: Insight) -> String {
        guard let p = insight.placebo, p.dates >= InsightEngine.minimumPlaceboDates else {
            return
                "Too few stretches of \(insight.metricName) without any change yet to check this method on your own records (\(InsightEngine.minimumPlaceboDates) dates needed)."
        }
        let factor = p.varianceFactor(windowDays: insight.windowDays)
        let widened =
            factor > 1.005
            ? String(
                format: " Differences there spread wider than the model expects, so every %d-day comparison of this series is widened by %.2f times.",
                insight.windowDays, factor.squareRoot())
            : ""
        return "On your own records, this method flagged \(p.flagged) of \(p.dates) dates of \(insight.metricName) where nothing changed.\(widened)"
    }
}
