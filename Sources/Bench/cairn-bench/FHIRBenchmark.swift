import CairnApp
import CairnCore
import Foundation
import Outcomes

/// `cairn-bench fhir [--days N] [--runs N]`: the FHIR export of ten years (`RegimenBenchmark.fill`: 5 products, 3
/// doses a day, about 55,000 records; and 8 outcome series, a value every day: the four ratings and four metrics of
/// the person's own, imported as one CSV), written to a file, median of N runs after one warm-up, against the
/// target of 2 s; beside, in the same run, the ledger's JSON export of the same ten years (`cairn regimen export
/// --format json`), the nearest whole-history export Cairn already had.
enum FHIRBenchmark {
    static let targetSeconds = 2.0

    static func run(arguments: [String]) throws -> Bool {
        var days = 3_650
        var runs = 5
        if let i = arguments.firstIndex(of: "--days"), i + 1 < arguments.count { days = max(30, Int(arguments[i + 1]) ?? days) }
        if let i = arguments.firstIndex(of: "--runs"), i + 1 < arguments.count { runs = max(1, Int(arguments[i + 1]) ?? runs) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-fhir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let lastDay = LocalDay(year: 2026, month: 11, day: 30)!
        let firstDay = lastDay.adding(days: -(days - 1))
        let clock = FixedClock(WallClock.instant(of: lastDay, at: TimeSlot(hour: 21, minute: 30)!, in: zone), timeZone: zone)
        let app = try CairnApplication.open(dataDirectory: directory.appendingPathComponent("vault").path, environment: [:], clock: clock)
        defer { app.database.close() }
        let setup = ContinuousClock.now
        try RegimenBenchmark.fill(app.regimen, days: days, firstDay: firstDay, zone: zone)
        var own: [String] = []
        for name in ["headache", "focus", "water", "walks"] {
            own.append(try app.outcomes.defineMetric(try MetricDefinition.custom(id: name, name: name.capitalized)).id)
        }
        var csv = "date,metric,value\n"
        for d in firstDay.dayNumber...lastDay.dayNumber {
            for (i, metric) in (["sleep_quality", "energy", "skin", "mood"] + own).enumerated() {
                csv += "\(LocalDay(dayNumber: d)),\(metric),\(1 + (d + i) % 5)\n"
            }
        }
        let imported = try app.outcomes.importCSV(Data(csv.utf8))
        let records = try app.regimen.exportableLedgerCount()
        print(
            "fhir: \(days) days: \(records) ledger records of 5 products, \(imported.added) outcome values in 8 series (set up in \(String(format: "%.0f", IngestBenchmark.milliseconds(ContinuousClock.now - setup) / 1000)) s)"
        )
        let out = directory.appendingPathComponent("cairn.fhir.json").path
        let request = try FHIRExportRequest()
        func once(_ body: () throws -> Void) throws -> (wall: Double, cpu: Double) {
            let start = ContinuousClock.now
            let cpu = RegimenBenchmark.threadCPUMilliseconds()
            try body()
            return (IngestBenchmark.milliseconds(ContinuousClock.now - start) / 1000, (RegimenBenchmark.threadCPUMilliseconds() - cpu) / 1000)
        }
        let export = { try app.fhir.write(request, to: out) }
        let cold = try once(export).wall
        var times: [Double] = []
        var cpus: [Double] = []
        var baseline: [Double] = []
        var baselineCPU: [Double] = []
        for _ in 0..<runs {
            let run = try once(export)
            times.append(run.wall)
            cpus.append(run.cpu)
            let ledger = try once {
                try OutputFile.write(Data(try app.regimen.exportLedger(as: .json).utf8), to: out + ".ledger.json", replace: true)
            }
            baseline.append(ledger.wall)
            baselineCPU.append(ledger.cpu)
        }
        let median = IngestBenchmark.percentile(times, 0.5)
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        print(
            String(
                format:
                    "  FHIR document of the whole history: median %.2f s (CPU %.2f s) of %d (first %.2f s), %.1f MB | baseline, the ledger's JSON export: median %.2f s (CPU %.2f s)   (load %@)",
                median, IngestBenchmark.percentile(cpus, 0.5), runs, cold, Double(size) / 1_000_000, IngestBenchmark.percentile(baseline, 0.5),
                IngestBenchmark.percentile(baselineCPU, 0.5), HealthBenchmark.loadAverage() as NSString))
        let met = median <= targetSeconds
        print("  target <= \(targetSeconds) s: \(met ? "met" : "NOT met")")
        return met
    }
}
