import CairnCore
import Foundation
import Regimen

/// What kind of change in what a person actually took.
public enum ExposureChangeKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// The first taken dose of a product, or the first after a long stretch without any.
    case start
    /// Several scheduled doses in a row with no taken dose.
    case interruption
    /// No taken dose for a long stretch, with nothing scheduled: the product was set aside.
    case deactivation
    /// A lasting change in the servings taken on a dose day.
    case doseChange = "dose-change"
    /// A lasting change in how many days a week a dose is taken.
    case frequencyChange = "frequency-change"
    /// A lasting change in the usual time of day of the doses.
    case timingChange = "timing-change"

    /// Plain words for pages: "start", "dose change", ...
    public var plainName: String { rawValue.replacingOccurrences(of: "-", with: " ") }
}

/// One confirmed change in what was taken, found in current taken ledger records.
///
/// Identity: `id` is "<product id>|<kind>|<day>", stable as long as the records behind it do not change, so an
/// insight about it keeps its identity when it matures.
public struct ExposureChange: Hashable, Sendable, Codable {
    /// "<product id>|<kind>|<day>".
    public let id: String
    /// The product.
    public let productID: ProductID
    /// The product's name (as last recorded in the ledger).
    public let productName: String
    /// The main kind (the first by `ExposureChangeKind` order among the collapsed candidates).
    public let kind: ExposureChangeKind
    /// Every kind that collapsed into this transition (within `ExposureChangeDetector.collapseDays`).
    public let kinds: [ExposureChangeKind]
    /// The first day of the new state.
    public let day: LocalDay
    /// A plain sentence fragment: "starting Magnesium", "the dose of Magnesium going from 1 to 2 servings".
    public let description: String

    /// A change (normally made by `ExposureChangeDetector`).
    public init(
        productID: ProductID, productName: String, kind: ExposureChangeKind, kinds: [ExposureChangeKind],
        day: LocalDay, description: String
    ) {
        self.id = "\(productID.rawValue)|\(kind.rawValue)|\(day)"
        self.productID = productID
        self.productName = productName
        self.kind = kind
        self.kinds = kinds
        self.day = day
        self.description = description
    }

    private enum CodingKeys: String, CodingKey { case id, productID, productName, kind, kinds, day, description }

    /// Days as "2026-03-01".
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(productID, forKey: .productID)
        try c.encode(productName, forKey: .productName)
        try c.encode(kind, forKey: .kind)
        try c.encode(kinds, forKey: .kinds)
        try c.encode(day.description, forKey: .day)
        try c.encode(description, forKey: .description)
    }

    /// Reads what `encode(to:)` wrote.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        productID = try c.decode(ProductID.self, forKey: .productID)
        productName = try c.decode(String.self, forKey: .productName)
        kind = try c.decode(ExposureChangeKind.self, forKey: .kind)
        kinds = try c.decode([ExposureChangeKind].self, forKey: .kinds)
        day = try LocalDay.decoded(c, .day)
        description = try c.decode(String.self, forKey: .description)
        id = try c.decode(String.self, forKey: .id)
    }
}

extension LocalDay {
    /// Decodes a "2026-03-01" string.
    static func decoded<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> LocalDay {
        let text = try c.decode(String.self, forKey: key)
        guard let day = LocalDay(parsing: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a day")
        }
        return day
    }
}

/// Finds exposure changes in confirmed intake: current ledger records with status taken. Plans are never
/// used as evidence of intake; schedules only say on which days a dose was scheduled (for interruptions).
///
/// Per product, the days with a taken dose are summarised (servings, dose count, usual time-of-day bucket,
/// UTC offset), then candidates are found and filtered. Thresholds, each a documented constant:
/// - start: the first taken day, and the first taken day after `restartGapDays` or more days without any, when
///   doses follow on at least `minimumEstablishedDoseDays` of its first `comparisonDays` days (a single
///   as-needed dose is not a start; a new start is recognised once its fourth dose day is logged);
/// - interruption: `interruptionScheduledDays` or more scheduled days in a row (counting only days with a
///   scheduled dose of that product) without a taken dose;
/// - deactivation: `deactivationGapDays` or more days without a taken dose and without an interruption,
///   dated the day after the last taken dose; an interruption or deactivation needs `minimumEstablishedDoseDays`
///   dose days among the `comparisonDays` before it (occasional use that ends is not a stop);
/// - dose change: the mean servings per dose day over the `comparisonDays` before and after a day differ
///   by at least `minimumDoseChange` (relative), so small drift (0.9 vs 1 serving) is suppressed;
/// - frequency change: dose days among the `comparisonDays` before and after a day differ by at least
///   `minimumFrequencyChangeDays` AND the median spacing of dose days differs (daily 1, every other day 2,
///   weekly 7), so a cluster of scattered missed doses is not a new frequency;
/// - timing change: the strict-majority time-of-day bucket of the dose days before and after a day differs,
///   unless the usual UTC offset also differs (a trip or a daylight-saving shift, not a new habit);
/// - dose, frequency and timing candidates need both comparison windows complete and free of interruption
///   or deactivation gaps (the gap itself is the change), and each run of qualifying days yields one
///   candidate at its strongest day;
/// - candidates of one product within `collapseDays` of each other collapse into one transition; a
///   transition of the same main kind within `duplicateDays` of a kept one is a duplicate and is dropped.
public struct ExposureChangeDetector: Sendable {
    /// Scheduled days in a row without a taken dose that make an interruption.
    public static let interruptionScheduledDays = 3
    /// Days without any taken dose (and no interruption) that make a deactivation.
    public static let deactivationGapDays = 14
    /// Days without any taken dose after which the next dose is a new start.
    public static let restartGapDays = 14
    /// Days on each side compared for dose, frequency and timing changes.
    public static let comparisonDays = 14
    /// Smallest relative change of the mean servings per dose day that counts (20%).
    public static let minimumDoseChange = 0.2
    /// Smallest change in dose days out of `comparisonDays` that counts (4 of 14: about two days a week).
    public static let minimumFrequencyChangeDays = 4
    /// Candidates of one product this close (in days) collapse into one transition.
    public static let collapseDays = 3
    /// A transition of the same kind this close (in days) to a kept one is a duplicate.
    public static let duplicateDays = 7
    /// Dose days a start needs among its first `comparisonDays` days, and a pause or stop among the
    /// `comparisonDays` before it: a single as-needed dose is neither a start nor, 14 days later, a stop.
    public static let minimumEstablishedDoseDays = 4

    /// A detector.
    public init() {}

    /// The changes in `entries` (only current taken records count) up to and including `asOf`, oldest first
    /// (then by product id). `schedules` say on which days doses were scheduled.
    public func changes(in entries: [LedgerEntry], schedules: [ScheduleHistory], asOf: LocalDay) -> [ExposureChange] {
        var byProduct: [ProductID: [LedgerEntry]] = [:]
        for entry in entries where entry.countsAsIntake && entry.localDay <= asOf {
            byProduct[entry.productID, default: []].append(entry)
        }
        var schedulesByProduct: [ProductID: [ScheduleHistory]] = [:]
        for history in schedules {
            guard let product = history.latest?.plan.productID else { continue }
            schedulesByProduct[product, default: []].append(history)
        }
        var all: [ExposureChange] = []
        for (product, records) in byProduct {
            all += changes(of: product, records: records, schedules: schedulesByProduct[product] ?? [], asOf: asOf)
        }
        return all.sorted { ($0.day, $0.productID.rawValue, $0.kind.order) < ($1.day, $1.productID.rawValue, $1.kind.order) }
    }

    private struct Day {
        var servings = 0.0
        var count = 0
        var buckets = [0, 0, 0, 0]
        var offsets: [Int: Int] = [:]
    }

    private struct Candidate {
        let kind: ExposureChangeKind
        let day: Int
        let strength: Double
        let text: String
    }

    private func changes(of product: ProductID, records: [LedgerEntry], schedules: [ScheduleHistory], asOf: LocalDay) -> [ExposureChange] {
        let sorted = records.sorted { $0.takenAt < $1.takenAt }
        let name = sorted.last!.productName
        let first = sorted.map(\.localDay.dayNumber).min()!
        let last = asOf.dayNumber
        let span = last - first + 1
        var days = [Day?](repeating: nil, count: span)
        for r in sorted {
            let i = r.localDay.dayNumber - first
            var d = days[i] ?? Day()
            d.servings += NSDecimalNumber(decimal: r.servings).doubleValue
            d.count += 1
            d.buckets[TimeOfDayBucket(r.takenAt, in: r.timeZone).index] += 1
            d.offsets[r.timeZone.secondsFromGMT(for: r.takenAt), default: 0] += 1
            days[i] = d
        }
        let scheduled: [Bool] = (0..<span).map { i in
            let day = LocalDay(dayNumber: first + i)
            return schedules.contains { !$0.occurrences(on: day).isEmpty }
        }
        var candidates: [Candidate] = [Candidate(kind: .start, day: first, strength: .infinity, text: "starting \(name)")]
        // Gaps: stretches without a taken dose, after a taken day.
        var blocked = [Bool](repeating: false, count: span)
        var i = 0
        while i < span {
            guard days[i] != nil else {
                i += 1
                continue
            }
            var j = i + 1
            while j < span && days[j] == nil { j += 1 }
            let gapStart = i + 1
            let gapEnd = j  // [gapStart, gapEnd)
            let gap = gapEnd - gapStart
            if gap > 0 {
                var run = 0
                var longest = 0
                for k in gapStart..<gapEnd where scheduled[k] {
                    run += 1
                    longest = max(longest, run)
                }
                // Days without a schedule do not break a run: only scheduled days are counted.
                if longest >= Self.interruptionScheduledDays {
                    candidates.append(
                        Candidate(
                            kind: .interruption, day: first + gapStart, strength: .infinity,
                            text: "a pause in \(name) (no dose on \(longest) scheduled days)"))
                    for k in gapStart..<gapEnd { blocked[k] = true }
                } else if gap >= Self.deactivationGapDays {
                    candidates.append(
                        Candidate(
                            kind: .deactivation, day: first + gapStart, strength: .infinity,
                            text: "stopping \(name)"))
                    for k in gapStart..<gapEnd { blocked[k] = true }
                }
                if gapEnd < span && gap >= Self.restartGapDays {
                    candidates.append(
                        Candidate(
                            kind: .start, day: first + gapEnd, strength: .infinity,
                            text: "starting \(name) again"))
                }
            }
            i = j
        }
        candidates += windowCandidates(days: days, blocked: blocked, first: first, name: name)
        let w = Self.comparisonDays
        func doseDays(_ range: Range<Int>) -> Int { range.clamped(to: 0..<span).filter { days[$0] != nil }.count }
        candidates = candidates.filter { c in
            let i = c.day - first
            switch c.kind {
            case .start: return doseDays(i..<(i + w)) >= Self.minimumEstablishedDoseDays
            case .interruption, .deactivation: return doseDays((i - w)..<i) >= Self.minimumEstablishedDoseDays
            default: return true
            }
        }
        return filtered(candidates, product: product, name: name)
    }

    /// Dose, frequency and timing candidates from the comparison windows around every day.
    private func windowCandidates(days: [Day?], blocked: [Bool], first: Int, name: String) -> [Candidate] {
        let w = Self.comparisonDays
        let span = days.count
        guard span >= 2 * w else { return [] }
        // Prefix sums: dose days, servings, blocked days.
        var doseDays = [0]
        var servings = [0.0]
        var blockedDays = [0]
        var buckets = [[0, 0, 0, 0]]
        for d in 0..<span {
            doseDays.append(doseDays[d] + (days[d] == nil ? 0 : 1))
            servings.append(servings[d] + (days[d]?.servings ?? 0))
            blockedDays.append(blockedDays[d] + (blocked[d] ? 1 : 0))
            var b = buckets[d]
            if let day = days[d], let dominant = Self.dominant(day.buckets) { b[dominant] += 1 }
            buckets.append(b)
        }
        var dose: [Candidate] = []
        var frequency: [Candidate] = []
        var timing: [Candidate] = []
        for c in w...(span - w) {
            guard blockedDays[c + w] - blockedDays[c - w] == 0 else { continue }
            let nBefore = doseDays[c] - doseDays[c - w]
            let nAfter = doseDays[c + w] - doseDays[c]
            if abs(nAfter - nBefore) >= Self.minimumFrequencyChangeDays,
                let gapBefore = medianGap(days, (c - w)..<c), let gapAfter = medianGap(days, c..<(c + w)), gapBefore != gapAfter
            {
                frequency.append(
                    Candidate(
                        kind: .frequencyChange, day: first + c, strength: Double(abs(nAfter - nBefore)),
                        text: "\(name) going from \(nBefore) to \(nAfter) dose days in \(w)"))
            }
            guard nBefore > 0, nAfter > 0 else { continue }
            let mBefore = (servings[c] - servings[c - w]) / Double(nBefore)
            let mAfter = (servings[c + w] - servings[c]) / Double(nAfter)
            let relative = abs(mAfter - mBefore) / max(mBefore, mAfter)
            if relative >= Self.minimumDoseChange {
                dose.append(
                    Candidate(
                        kind: .doseChange, day: first + c, strength: relative,
                        text: "the dose of \(name) going from \(Self.servingsText(mBefore)) to \(Self.servingsText(mAfter)) servings a dose day"))
            }
            let bBefore = (0..<4).map { buckets[c][$0] - buckets[c - w][$0] }
            let bAfter = (0..<4).map { buckets[c + w][$0] - buckets[c][$0] }
            if let from = Self.strictMajority(bBefore, of: nBefore), let to = Self.strictMajority(bAfter, of: nAfter), from != to,
                usualOffset(days, (c - w)..<c) == usualOffset(days, c..<(c + w))
            {
                let share = Double(bBefore[from]) / Double(nBefore) + Double(bAfter[to]) / Double(nAfter)
                timing.append(
                    Candidate(
                        kind: .timingChange, day: first + c, strength: share,
                        text: "\(name) moving from the \(TimeOfDayBucket.allCases[from].rawValue) to the \(TimeOfDayBucket.allCases[to].rawValue)"))
            }
        }
        return strongestPerRun(dose) + strongestPerRun(frequency) + strongestPerRun(timing)
    }

    /// The median number of days between consecutive dose days within `range` (the lower median); nil with
    /// fewer than two dose days. Scattered missed doses leave it unchanged (daily stays 1), a new rhythm moves it.
    private func medianGap(_ days: [Day?], _ range: Range<Int>) -> Int? {
        var gaps: [Int] = []
        var previous: Int?
        for d in range where days[d] != nil {
            if let p = previous { gaps.append(d - p) }
            previous = d
        }
        guard !gaps.isEmpty else { return nil }
        gaps.sort()
        return gaps[(gaps.count - 1) / 2]
    }

    /// One candidate per run of consecutive days: the strongest (the earliest on a tie).
    private func strongestPerRun(_ candidates: [Candidate]) -> [Candidate] {
        var result: [Candidate] = []
        var best: Candidate?
        var previousDay = Int.min
        for c in candidates {
            if c.day != previousDay + 1, let b = best {
                result.append(b)
                best = nil
            }
            if best == nil || c.strength > best!.strength { best = c }
            previousDay = c.day
        }
        if let b = best { result.append(b) }
        return result
    }

    /// Collapses candidates within `collapseDays` into one transition and drops same-kind duplicates within
    /// `duplicateDays`.
    private func filtered(_ candidates: [Candidate], product: ProductID, name: String) -> [ExposureChange] {
        let sorted = candidates.sorted { ($0.day, $0.kind.order) < ($1.day, $1.kind.order) }
        var groups: [[Candidate]] = []
        for c in sorted {
            if let last = groups.last?.first, c.day - last.day <= Self.collapseDays {
                groups[groups.count - 1].append(c)
            } else {
                groups.append([c])
            }
        }
        var kept: [ExposureChange] = []
        for group in groups {
            let main = group.min { $0.kind.order < $1.kind.order }!
            if kept.contains(where: { $0.kind == main.kind && main.day - $0.day.dayNumber <= Self.duplicateDays }) { continue }
            var kinds: [ExposureChangeKind] = []
            for c in group where !kinds.contains(c.kind) { kinds.append(c.kind) }
            kept.append(
                ExposureChange(
                    productID: product, productName: name, kind: main.kind, kinds: kinds.sorted { $0.order < $1.order },
                    day: LocalDay(dayNumber: main.day), description: main.text))
        }
        return kept
    }

    private func usualOffset(_ days: [Day?], _ range: Range<Int>) -> Int? {
        var counts: [Int: Int] = [:]
        for d in range { for (offset, n) in days[d]?.offsets ?? [:] { counts[offset, default: 0] += n } }
        return counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key
    }

    private static func dominant(_ counts: [Int]) -> Int? { strictMajority(counts, of: counts.reduce(0, +)) }

    private static func strictMajority(_ counts: [Int], of total: Int) -> Int? {
        counts.indices.first { 2 * counts[$0] > total }
    }

    static func servingsText(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}

extension ExposureChangeKind {
    /// Priority when candidates collapse: start, interruption, deactivation, dose, frequency, timing.
    var order: Int { Self.allCases.firstIndex(of: self)! }
}

extension TimeOfDayBucket {
    var index: Int { Self.allCases.firstIndex(of: self)! }
}
