import CairnApp
import CairnCore
import Foundation
import Regimen

/// `cairn-bench import [LINES]`: `cairn regimen import` of an intake history CSV (54,780 lines by default: 15
/// products, one dose a day each for ten years) as a whole process, beside its anchor in the same run: Python's
/// csv and sqlite3 modules importing the same file into the same tables with the same indexes
/// (`scripts/bench/intake_import_anchor.py`, into a copy of the vault's own database, one transaction, fsynced). Each side runs three times into a fresh
/// copy of the same prepared database, under GNU time (wall time, peak RSS); the medians are compared. Target (issue 17): Cairn's rows per second at
/// least the anchor's (ratio >= 1.0). Needs the release `cairn` beside this binary and python3.
enum ImportBenchmark {
    static let products = 15

    static func run(arguments: [String]) throws -> Bool {
        let lines = arguments.first.flatMap(Int.init) ?? 54_780
        // --cairn PATH times another build (an earlier one, for figures before a change) against the same anchor.
        let given = arguments.firstIndex(of: "--cairn").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let cairn =
            given.map { URL(fileURLWithPath: $0) }
            ?? ProcessBench.cairnBeside
        guard FileManager.default.isExecutableFile(atPath: cairn.path) else {
            throw IngestBenchmark.BenchError(message: "no cairn binary at \(cairn.path) (\(ProcessBench.buildCairn))")
        }
        let anchor = BenchPaths.repositoryRoot.appendingPathComponent("scripts/bench/intake_import_anchor.py")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-import-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        print("import: intake history CSV as processes (\(cairn.path)); load average \(loadAverage()) at start")

        // The vault is made by the binary under test (its own schema); the anchor's database by this build.
        let prepared = work.appendingPathComponent("prepared")
        for n in 1...products {
            let made = try InputMemoryBenchmark.measure(
                cairn.path,
                [
                    "--data-dir", prepared.path, "regimen", "products", "add", "Product \(n)",
                    "Vitamin C=100 mg", "--form", "capsule",
                ])
            guard made.status == 0 else { throw IngestBenchmark.BenchError(message: "cairn regimen products add failed: \(made.output)") }
        }
        let anchorVault = work.appendingPathComponent("anchor-vault")
        let app = try CairnApplication.open(dataDirectory: anchorVault.path, environment: [:])
        for n in 1...products {
            _ = try app.regimen.addProduct(
                Product(
                    name: "Product \(n)", form: .capsule, servingSize: try Amount("1", .count),
                    ingredients: [
                        ProductIngredient(catalogueID: "vitamin-c", nameOnLabel: "Vitamin C", amount: try Amount("100", .mg), form: nil)
                    ]))
        }
        app.database.close()
        let csv = work.appendingPathComponent("intake.csv")
        try writeCSV(lines: lines, products: products, to: csv)
        print("  \(lines) lines, \(products) products, one dose a day each from 2016-01-01 (zones Europe/Berlin, UTC, America/New_York)")

        // The interpreter itself, not a version manager's shim in front of it (a shim's start-up is not Python's).
        let which = try InputMemoryBenchmark.measure("/usr/bin/env", ["python3", "-c", "import sys; print(sys.executable)"])
        guard which.status == 0, let python = which.output.split(separator: "\n").last.map(String.init), !python.isEmpty else {
            throw IngestBenchmark.BenchError(message: "python3 is needed for the anchor")
        }
        // The anchor imports into a copy of the prepared vault's own database: the same tables and indexes.
        let preparedDB = URL(fileURLWithPath: app.database.path)
        var cairnRuns: [Double] = []
        var anchorRuns: [Double] = []
        var said = ""
        var anchorSaid = ""
        var cairnPeak = 0.0
        var anchorPeak = 0.0
        for round in 0..<3 {
            let vault = work.appendingPathComponent("vault-\(round)")
            try FileManager.default.copyItem(at: prepared, to: vault)
            let run = try InputMemoryBenchmark.measure(cairn.path, ["--data-dir", vault.path, "regimen", "import", csv.path])
            guard run.status == 0 else { throw IngestBenchmark.BenchError(message: "cairn regimen import failed: \(run.output)") }
            cairnRuns.append(run.seconds)
            cairnPeak = max(cairnPeak, run.peakMB)
            said = run.output
            let db = work.appendingPathComponent("anchor-\(round).db")
            try FileManager.default.copyItem(at: preparedDB, to: db)
            let anchored = try InputMemoryBenchmark.measure(python, [anchor.path, db.path, csv.path])
            guard anchored.status == 0 else { throw IngestBenchmark.BenchError(message: "the Python anchor failed: \(anchored.output)") }
            anchorRuns.append(anchored.seconds)
            anchorPeak = max(anchorPeak, anchored.peakMB)
            anchorSaid = anchored.output
        }
        let again = try InputMemoryBenchmark.measure(
            cairn.path, ["--data-dir", work.appendingPathComponent("vault-0").path, "regimen", "import", csv.path])
        let cairnRate = Double(lines) / median(cairnRuns)
        let anchorRate = Double(lines) / median(anchorRuns)
        let ratio = cairnRate / anchorRate
        print(
            String(
                format: "  cairn regimen import: median %.2f s of %@ = %.0f rows/s, peak RSS %.0f MB (%@)", median(cairnRuns),
                cairnRuns.map { String(format: "%.2f", $0) }.joined(separator: ", "), cairnRate, cairnPeak,
                said.trimmingCharacters(in: .whitespacesAndNewlines)))
        print(
            String(
                format: "  anchor, Python csv + sqlite3: median %.2f s of %@ = %.0f rows/s, peak RSS %.0f MB (%@)", median(anchorRuns),
                anchorRuns.map { String(format: "%.2f", $0) }.joined(separator: ", "), anchorRate, anchorPeak,
                anchorSaid.trimmingCharacters(in: .whitespacesAndNewlines)))
        print(
            String(
                format: "  ratio %.2fx the anchor's rows/s (target >= 1.0) %@; the same file again (0 new): %.2f s; load average %@",
                ratio, ratio >= 1 ? "met" : "NOT met", again.seconds, loadAverage()))
        return ratio >= 1
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// `lines` doses, one a day for each of `products` products ("Product 1", ...) from 2016-01-01.
    static func writeCSV(lines: Int, products: Int, to url: URL) throws {
        var text = "date,time,time zone,product,amount,unit,status\n"
        let zones = ["Europe/Berlin", "UTC", "America/New_York"]
        let first = LocalDay(year: 2016, month: 1, day: 1)!
        for i in 0..<lines {
            let product = i % products
            let day = first.adding(days: i / products)
            let minute = 7 * 60 + product * 17 + i % 3
            text +=
                "\(day),\(String(format: "%02d:%02d", minute / 60, minute % 60)),\(zones[product % 3]),Product \(product + 1),1,,\(i % 10 == 9 ? "skipped" : "taken")\n"
        }
        try Data(text.utf8).write(to: url)
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
