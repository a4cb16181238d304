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
    /// The Benjamini-Hochberg adjusted p-value across the metrics tested for this change.
    public let adjustedPValue: Double?
    /// One sentence in the allowed wording.
    public let summary: String
    /// What limits this insight: other changes in the windows, missing days, seasonality.
    public let limitations: [String]
    /// The daily values of both windows (for the chart).
    public let points: [InsightPoint]
    /// The insight disclaimer, verbatim.
    public var disclaimer: String { Disclaimer.insight.text }

    /// Every user-facing sentence of this insight (summary, limitations, disclaimer).
    public var texts: [String] { [change.description, summary] + limitations + [disclaimer] }

    /// An insight (normally made by `InsightEngine`).
    public init(change: ExposureChange, metricID: String, metricName: String, unit: String, status: InsightStatus,
                result: BeforeAfterResult, adjustedPValue: Double?, summary: String, limitations: [String], points: [InsightPoint]) {
        self.change = change
        self.metricID = metricID
        self.metricName = metricName
        self.unit = unit
        self.status = status
        self.result = result
        self.adjustedPValue = adjustedPValue
        self.summary = summary
        self.limitations = limitations
        self.points = points
    }

    private enum CodingKeys: String, CodingKey {
        case id, change, metricID, metricName, unit, status, windowDays, beforeFrom, beforeTo, afterFrom, afterTo, beforeCount,
             afterCount, minimumCount, enoughData, beforeMean, afterMean, difference, intervalLow, intervalHigh, hedgesG, pValue,
             adjustedPValue, summary, limitations, disclaimer, points
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
        try c.encodeIfPresent(adjustedPValue, forKey: .adjustedPValue)
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
        let interval: ClosedRange<Double>?
        if let low = try c.decodeIfPresent(Double.self, forKey: .intervalLow),
           let high = try c.decodeIfPresent(Double.self, forKey: .intervalHigh), low <= high {
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
            hedgesG: try c.decodeIfPresent(Double.self, forKey: .hedgesG), pValue: try c.decodeIfPresent(Double.self, forKey: .pValue))
        adjustedPValue = try c.decodeIfPresent(Double.self, forKey: .adjustedPValue)
        summary = try c.decode(String.self, forKey: .summary)
        limitations = try c.decode([String].self, forKey: .limitations)
        points = try c.decode([InsightPoint].self, forKey: .points)
    }
}

/// Turns confirmed intake and outcome series into insights.
///
/// Bars for a qualified finding (all must hold): both windows have enough values (10 of 14, 20 of 28), the
/// 95% interval excludes zero, |Hedges' g| ≥ `minimumEffectSize`, and the Benjamini-Hochberg adjusted
/// p-value across the metrics tested for the change (those with enough data) is ≤ `falseDiscoveryRate`.
public struct InsightEngine: Sendable {
    /// The smallest |Hedges' g| reported as a finding: a "medium" difference, half a standard deviation.
    public static let minimumEffectSize = 0.5
    /// The Benjamini-Hochberg false discovery rate across the metrics of one change.
    public static let falseDiscoveryRate = 0.05

    /// An engine.
    public init() {}

    /// Changes found in `entries` and analysed against every series, as of `asOf`, ordered: qualified
    /// findings first, then ongoing observations; newest change first; then by metric name.
    public func insights(entries: [LedgerEntry], schedules: [ScheduleHistory], series: [MetricSeriesInput],
                         asOf: LocalDay) -> [Insight] {
        let changes = ExposureChangeDetector().changes(in: entries, schedules: schedules, asOf: asOf)
        return insights(changes: changes, series: series, asOf: asOf)
    }

    /// `changes` analysed against every series (changes whose day is after `asOf` are ignored; of series
    /// sharing an id, only the first is used). A series with no value at all in either window of a change says
    /// nothing about it and gives no insight for that change (a metric logged once, or Health data from
    /// another year), so the list is not filled with empty "not enough data" entries.
    public func insights(changes: [ExposureChange], series: [MetricSeriesInput], asOf: LocalDay) -> [Insight] {
        var seen = Set<String>()
        let prepared = series.filter { seen.insert($0.id).inserted }.map { s -> (MetricSeriesInput, DenseSeries, SeriesProfile) in
            let dense = DenseSeries(s.values)
            return (s, dense, SeriesProfile(dense: dense.values, firstDay: dense.firstDay))
        }
        let analysis = BeforeAfterAnalysis()
        var all: [Insight] = []
        for change in changes where change.day <= asOf {
            let results = prepared.map { _, dense, profile in
                analysis.compare(dense: dense.values, firstDay: dense.firstDay, profile: profile, changeDay: change.day, asOf: asOf)
            }
            let adjusted = InsightStatistics.benjaminiHochberg(results.map { $0.enoughData ? $0.pValue : nil })
            for ((metric, dense, _), (result, adjustedP)) in zip(prepared, zip(results, adjusted))
                where result.beforeCount + result.afterCount > 0 {
                let qualified = Self.qualifies(result, adjustedPValue: adjustedP)
                let others = changes.filter { $0.id != change.id && $0.day >= result.before.lowerBound && $0.day <= result.after.upperBound }
                all.append(Insight(change: change, metricID: metric.id, metricName: metric.name, unit: metric.unit,
                                   status: qualified ? .qualifiedFinding : .ongoingObservation, result: result,
                                   adjustedPValue: adjustedP,
                                   summary: InsightWording.summary(change: change, metricName: metric.name, unit: metric.unit,
                                                                   result: result, qualified: qualified),
                                   limitations: InsightWording.limitations(result: result, otherChanges: others),
                                   points: Self.points(dense, result)))
            }
        }
        return Self.ordered(all)
    }

    /// The bar for a qualified finding: enough values on both sides, an interval that excludes zero, |g| at
    /// least `minimumEffectSize`, and an adjusted p-value at most `falseDiscoveryRate`.
    public static func qualifies(_ result: BeforeAfterResult, adjustedPValue: Double?) -> Bool {
        result.enoughData && (result.interval.map { !$0.contains(0) } ?? false)
            && abs(result.hedgesG ?? 0) >= minimumEffectSize && (adjustedPValue ?? 1) <= falseDiscoveryRate
    }

    /// Qualified findings first, then ongoing observations; newest change first; then metric name, then id.
    public static func ordered(_ insights: [Insight]) -> [Insight] {
        insights.sorted {
            ($0.status == .qualifiedFinding ? 0 : 1, -$0.change.day.dayNumber, $0.metricName.lowercased(), $0.id)
                < ($1.status == .qualifiedFinding ? 0 : 1, -$1.change.day.dayNumber, $1.metricName.lowercased(), $1.id)
        }
    }

    private static func points(_ dense: DenseSeries, _ result: BeforeAfterResult) -> [InsightPoint] {
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
    public static let forbiddenWords = ["caused", "causes", "cause", "improved", "improves", "worsened", "helped", "helps",
                                        "better", "worse", "because", "effective", "works"]

    /// The forbidden or banned words in `text` (whole words, case-insensitive). The disclaimer's own "caused"
    /// is the one allowed use, so the disclaimer is removed before checking.
    public static func violations(in text: String) -> [String] {
        let stripped = text.replacingOccurrences(of: Disclaimer.insight.text, with: "")
        let words = Set(stripped.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init))
        var found = forbiddenWords.filter(words.contains)
        for word in ProductWording.bannedWords(in: stripped) where !found.contains(word) { found.append(word) }
        return found
    }

    /// The one-sentence summary.
    static func summary(change: ExposureChange, metricName: String, unit: String, result: BeforeAfterResult, qualified: Bool) -> String {
        let w = result.windowDays
        let what = change.description
        let on = "\(what) on \(change.day)"
        guard result.enoughData, let diff = result.difference, let interval = result.interval else {
            return "Not enough data yet to compare \(metricName) around the time of \(on): \(result.beforeCount) of \(w) days before and \(result.afterCount) of \(w) days after have a value (\(BeforeAfterAnalysis.minimumValidDays(w)) needed on each side)."
        }
        let figures = "mean \(number(result.beforeMean!)) in the \(w) days before, \(number(result.afterMean!)) in the \(w) days after; difference \(signed(diff))\(unitText(unit)), 95% interval \(signed(interval.lowerBound)) to \(signed(interval.upperBound)), effect size g = \(number(result.hedgesG ?? 0))"
        if qualified {
            let direction = diff > 0 ? "higher" : "lower"
            return "\(capitalised(on)) was associated with \(direction) \(metricName) values (\(figures))."
        }
        return "No clear difference in \(metricName) around the time of \(on) so far (\(figures))."
    }

    /// The limitations: other changes in the windows, missing days, seasonality.
    static func limitations(result: BeforeAfterResult, otherChanges: [ExposureChange]) -> [String] {
        var lines: [String] = []
        if !otherChanges.isEmpty {
            let listed = otherChanges.prefix(5).map { "\($0.description) on \($0.day)" }.joined(separator: "; ")
            let more = otherChanges.count > 5 ? " and \(otherChanges.count - 5) more" : ""
            lines.append("Other changes fall inside these windows, so their share cannot be told apart: \(listed)\(more).")
        }
        let w = result.windowDays
        let missingBefore = w - result.beforeCount, missingAfter = w - result.afterCount
        if missingBefore + missingAfter > 0 {
            lines.append("Days without a value: \(missingBefore) of \(w) before and \(missingAfter) of \(w) after.")
        }
        let seasonBefore = season(result.before.lowerBound), seasonAfter = season(result.after.upperBound)
        if seasonBefore != seasonAfter {
            lines.append("The windows span two seasons (\(seasonBefore), then \(seasonAfter)); seasonal shifts in daylight, weather and routine can move values too.")
        } else {
            lines.append("Both windows fall in one season (\(seasonBefore)); slower seasonal drift can still move values.")
        }
        if result.windowDays < BeforeAfterAnalysis.longWindowDays {
            lines.append("Based on \(w) days on each side; this is updated when \(BeforeAfterAnalysis.longWindowDays) days have passed.")
        }
        return lines
    }

    /// Meteorological season names by month (northern hemisphere wording avoided: month ranges instead).
    static func season(_ day: LocalDay) -> String {
        switch day.month {
        case 12, 1, 2: "December to February"
        case 3, 4, 5: "March to May"
        case 6, 7, 8: "June to August"
        default: "September to November"
        }
    }

    static func number(_ v: Double) -> String {
        guard v.isFinite else { return v > 0 ? "very large" : "very small" }
        let magnitude = abs(v)
        let digits = magnitude >= 100 ? 0 : (magnitude >= 10 ? 1 : 2)
        return String(format: "%.\(digits)f", v)
    }

    static func signed(_ v: Double) -> String { (v > 0 ? "+" : (v < 0 ? "−" : "")) + number(abs(v)) }

    /// The unit after a figure: a rating scale such as "1-5" reads "points on the 1-5 scale", a plain count
    /// needs no word, anything else is written as it is.
    static func unitText(_ unit: String) -> String {
        if unit.isEmpty || unit == "count" { return "" }
        if unit.range(of: #"^\d+(\.\d+)?\s*[-–]\s*\d+(\.\d+)?$"#, options: .regularExpression) != nil {
            return " points on the \(unit) scale"
        }
        return " " + unit
    }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
