import CairnCore
import Foundation
import Insights
import Regimen

/// Builds ledgers and schedules for the tests.
enum Fixture {
    static let utc = TimeZone(identifier: "UTC")!
    static let product = ProductID("p-magnesium")

    static func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

    /// A taken (or other status) record at `hour` UTC on `day`.
    static func entry(
        _ day: LocalDay, hour: Int = 8, servings: Decimal = 1, status: IntakeStatus = .taken,
        product: ProductID = product, name: String = "Magnesium", zone: TimeZone = utc,
        supersededBy: IntakeRecordID? = nil
    ) -> LedgerEntry {
        let instant = Date(
            timeIntervalSince1970: Double(day.dayNumber) * 86_400 + Double(hour) * 3_600
                - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(day.dayNumber) * 86_400))))
        return LedgerEntry(
            id: .random(), kind: .extra, status: status, productID: product, productRevisionID: ProductRevisionID("r1"),
            productName: name, scheduleRevisionID: nil, occurrence: nil, servings: servings, takenAt: instant,
            timeZone: zone, localDay: LocalDay(instant, in: zone), recordedAt: instant, supersedes: nil,
            supersededBy: supersededBy)
    }

    /// Taken records on every day of `from...to` (every `step` days).
    static func daily(
        _ from: String, _ to: String, step: Int = 1, hour: Int = 8, servings: Decimal = 1,
        product: ProductID = product, name: String = "Magnesium", zone: TimeZone = utc
    ) -> [LedgerEntry] {
        stride(from: day(from).dayNumber, through: day(to).dayNumber, by: step).map {
            entry(LocalDay(dayNumber: $0), hour: hour, servings: servings, product: product, name: name, zone: zone)
        }
    }

    /// A daily 08:00 schedule of `product` from `start` (optionally stopped from `stop`).
    static func schedule(_ start: String, stoppedFrom stop: String? = nil, product: ProductID = product) -> ScheduleHistory {
        let plan = try! SchedulePlan(productID: product, times: [TimeSlot(hour: 8, minute: 0)!], recurrence: .daily, startDay: day(start))
        var revisions = [
            ScheduleRevision(
                id: ScheduleRevisionID("s1r1"), scheduleID: ScheduleID("s1"), number: 1, effectiveFrom: day(start),
                state: .active, plan: plan, recordedAt: Date(timeIntervalSince1970: 0))
        ]
        if let stop {
            revisions.append(
                ScheduleRevision(
                    id: ScheduleRevisionID("s1r2"), scheduleID: ScheduleID("s1"), number: 2, effectiveFrom: day(stop),
                    state: .stopped, plan: plan, recordedAt: Date(timeIntervalSince1970: 0)))
        }
        return ScheduleHistory(revisions: revisions)
    }

    /// A series of `value(dayIndex)` on every day of `from...to`.
    static func series(
        _ from: String, _ to: String, id: String = "sleep_quality", name: String = "Sleep quality", unit: String = "1-5",
        skip: Set<Int> = [], value: (Int) -> Double
    ) -> MetricSeriesInput {
        var values: [LocalDay: Double] = [:]
        let start = day(from).dayNumber
        for d in start...day(to).dayNumber where !skip.contains(d - start) { values[LocalDay(dayNumber: d)] = value(d - start) }
        return MetricSeriesInput(id: id, name: name, unit: unit, values: values)
    }

    /// Gaussian noise from a seeded generator (Box-Muller).
    static func normal(_ g: inout SeededGenerator) -> Double {
        let u1 = max(g.unit(), 1e-12)
        let u2 = g.unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
