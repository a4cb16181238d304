import CairnApp
import CairnCore
import Foundation
import Regimen
import Storage

/// `cairn-bench regimen [--days N] [--runs N]`: ten years of Regimen data (5 products, 3 doses a day, about
/// 55,000 intake records) written through `RegimenService` into a temporary vault, then the median server time
/// of Today, a Ledger page and a year of exposure against the 50 ms target.
enum RegimenBenchmark {
    /// `--days N` (default ten years, at least 2) and `--runs N` (default 25, at least `minimumRuns`), as the
    /// sections over a Regimen history read them.
    static func daysAndRuns(_ arguments: [String], minimumRuns: Int) -> (days: Int, runs: Int) {
        var days = 3_650
        var runs = 25
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
            switch arguments[index] {
            case "--days":
                days = max(2, value ?? days)
                index += 2
            case "--runs":
                runs = max(minimumRuns, value ?? runs)
                index += 2
            default: index += 1
            }
        }
        return (days, runs)
    }

    /// The target for each measured call.
    static let targetMilliseconds = 50.0

    /// Runs the benchmark and prints its figures.
    static func run(arguments: [String]) throws -> Bool {
        let (days, runs) = daysAndRuns(arguments, minimumRuns: 1)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-regimen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let lastDay = LocalDay(year: 2026, month: 11, day: 30)!
        let firstDay = lastDay.adding(days: -(days - 1))
        // "Now" is late on the last day, so every generated dose is in the past.
        let clock = FixedClock(WallClock.instant(of: lastDay, at: TimeSlot(hour: 21, minute: 30)!, in: zone), timeZone: zone)
        let vault = try Vault(directory: directory)
        let database = try vault.openDatabase(clock: clock)
        defer { database.close() }
        let service = RegimenService(database: database, clock: clock)

        let generationStart = ContinuousClock.now
        let products = try fill(service, days: days, firstDay: firstDay, zone: zone)
        let generation = ContinuousClock.now - generationStart
        let recordCount: Int = try database.read { try $0.scalar("SELECT count(*) FROM regimen_intake") ?? 0 }
        print(
            "regimen: \(recordCount) intake records (\(products.count) products, 3 doses a day, \(days) days) "
                + "generated through RegimenService in \(format(generation)) (check-ins in one transaction)")

        // Sanity: the measured calls return what they should, so the timings are of real work.
        let today = try service.todayView()
        let page = try service.ledger(LedgerQuery(productID: products[2].product.id, limit: 50))
        let yearRange = lastDay.adding(days: -364)...lastDay
        let exposure = try service.exposure(in: yearRange)
        guard today.doses.count == 15, page.entries.count == 50, exposure.products.count >= 5 * 360 else {
            throw BenchmarkFailure(
                message: "unexpected results: \(today.doses.count) doses today, \(page.entries.count) ledger rows, "
                    + "\(exposure.products.count) product-days")
        }

        var rows: [(String, (wall: Double, cpu: Double, fastest: Double))] = []
        rows.append(("Today (15 doses, batch and next)", try median(runs) { _ = try service.todayView() }))
        rows.append(
            (
                "Ledger page: 50 newest, one product",
                try median(runs) {
                    _ = try service.ledger(LedgerQuery(productID: products[2].product.id, limit: 50))
                }
            ))
        rows.append(
            (
                "Ledger page: 50 newest, last 30 days",
                try median(runs) {
                    _ = try service.ledger(LedgerQuery(from: lastDay.adding(days: -29), to: lastDay, limit: 50))
                }
            ))
        rows.append(
            (
                "Ledger page: 50, one product, 5 years back",
                try median(runs) {
                    _ = try service.ledger(LedgerQuery(productID: products[2].product.id, limit: 50, offset: min(5_400, days * 3 / 2)))
                }
            ))
        rows.append(("Exposure: one year, all products", try median(runs) { _ = try service.exposure(in: yearRange) }))
        var load = [Double](repeating: 0, count: 3)
        _ = getloadavg(&load, 3)
        print(String(format: "  (medians over %d runs; the wall-clock median decides pass/fail; load average %.1f)", runs, load[0]))
        for (name, time) in rows {
            let verdict = time.wall < targetMilliseconds ? "pass" : "FAIL"
            print(
                "  " + name.padding(toLength: 44, withPad: " ", startingAt: 0)
                    + String(
                        format: "%7.2f ms wall  %7.2f ms CPU  (fastest %6.2f ms)   target < %.0f ms   %@", time.wall, time.cpu,
                        time.fastest, targetMilliseconds, verdict))
        }
        return rows.allSatisfy { $0.1.wall < targetMilliseconds }
    }

    /// Median wall-clock and CPU milliseconds of `body` over `runs` runs, after one warm-up run. The CPU time
    /// is this thread's, so it shows the work itself when other processes share the cores.

    /// Ten years (or `days`) of a regimen through `service`: five products with three daily doses each (one schedule
    /// revised half-way), every dose checked in at once (1 in 20 skipped), some corrections and extra doses.
    /// Returns the products. Shared with the reports benchmark.
    @discardableResult
    static func fill(_ service: RegimenService, days: Int, firstDay: LocalDay, zone: TimeZone) throws -> [StoredProduct] {
        // Products and schedules through the service; one schedule gets a second revision half-way.
        let products = try sampleProducts().map { try service.addProduct($0, decisions: .acceptingEveryRow(of: $0)) }
        let times = [
            ["08:00", "13:00", "21:00"], ["07:30", "12:30", "20:00"], ["08:00", "14:00", "19:00"],
            ["09:00", "15:00", "21:00"], ["06:45", "12:00", "18:30"],
        ]
        var schedules: [ScheduleHistory] = []
        for (product, slots) in zip(products, times) {
            let plan = try SchedulePlan(
                productID: product.product.id, times: slots.map { TimeSlot(parsing: $0)! }, recurrence: .daily,
                startDay: firstDay)
            let first = try service.addSchedule(plan)
            if product.product.name.hasPrefix("Magnesium") {
                try service.editSchedule(
                    first.scheduleID,
                    plan: SchedulePlan(
                        productID: product.product.id,
                        times: ["08:15", "13:15", "21:15"].map { TimeSlot(parsing: $0)! }, recurrence: .daily, startDay: firstDay),
                    effectiveFrom: firstDay.adding(days: days / 2))
            }
            schedules.append(try service.scheduleHistory(first.scheduleID))
        }
        try service.setSupply(products[1].product.id, count: 1_000_000)

        // Every dose of every day in ONE transaction (the batch check-in); 1 in 20 skipped.
        var requests: [CheckInRequest] = []
        requests.reserveCapacity(days * 15)
        for offset in 0..<days {
            let day = firstDay.adding(days: offset)
            for history in schedules {
                for occurrence in history.occurrences(on: day) {
                    let minutes = Double((requests.count * 7) % 40 - 10)
                    let at = WallClock.instant(of: day, at: occurrence.slot, in: zone).addingTimeInterval(minutes * 60)
                    requests.append(CheckInRequest(doseID: occurrence.doseID, status: requests.count % 20 == 7 ? .skipped : .taken, at: at))
                }
            }
        }
        let results = try service.checkIn(requests)
        // A few corrections and extra doses, each in its own transaction, as a person would make them.
        for result in stride(from: 0, to: min(results.count, 2_000), by: 50).map({ results[$0] }) where result.entry.status == .taken {
            try service.correct(result.entry.id, status: .skipped)
        }
        for offset in stride(from: 0, to: days, by: 30) {
            try service.logExtra(
                products[0].product.id,
                at: WallClock.instant(
                    of: firstDay.adding(days: offset),
                    at: TimeSlot(hour: 16, minute: 0)!, in: zone))
        }
        return products
    }

    static func median(_ runs: Int, _ body: () throws -> Void) throws -> (wall: Double, cpu: Double, fastest: Double) {
        try body()
        var wall: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<runs {
            let cpuStart = threadCPUMilliseconds()
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            cpu.append(threadCPUMilliseconds() - cpuStart)
            wall.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return (wall.sorted()[runs / 2], cpu.sorted()[runs / 2], wall.min()!)
    }

    static func threadCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    private static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", seconds)
    }

    private static func sampleProducts() throws -> [Product] {
        func row(_ id: String?, _ name: String, _ value: String, _ unit: DoseUnit, form: String? = nil) throws -> ProductIngredient {
            try ProductIngredient(catalogueID: id, nameOnLabel: name, amount: Amount(value, unit), form: form)
        }
        return [
            try Product(
                name: "Vitamin D3 1000 IU", form: .softgel, servingSize: Amount("1", .count),
                ingredients: [row("vitamin-d", "Vitamin D3", "1000", .iu, form: "Vitamin D3")]),
            try Product(
                name: "Magnesium glycinate", form: .capsule, servingSize: Amount("2", .count),
                ingredients: [row("magnesium", "Magnesium", "200", .mg, form: "Magnesium glycinate")]),
            try Product(
                name: "Multivitamin", form: .tablet, servingSize: Amount("1", .count),
                ingredients: [
                    row("vitamin-c", "Vitamin C", "90", .mg), row("vitamin-d", "Vitamin D", "20", .mcg),
                    row("zinc", "Zinc", "11", .mg), row("vitamin-b12", "Vitamin B12", "2.4", .mcg),
                    row("folate", "Folate", "400", .mcgDFE),
                ]),
            try Product(
                name: "Fish oil", form: .softgel, servingSize: Amount("2", .count),
                ingredients: [row(nil, "EPA", "360", .mg), row(nil, "DHA", "240", .mg)]),
            try Product(
                name: "Probiotic", form: .capsule, servingSize: Amount("1", .count),
                ingredients: [row(nil, "Lactobacillus blend", "10000000000", .cfu)]),
        ]
    }
}

/// The benchmark's own data did not come back as generated.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
