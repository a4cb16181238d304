import CairnApp
import CairnCore
import Foundation
import Skin
import Storage
import WebApp

/// `cairn-bench skin-scale [--entries N] [--runs N]`: one Skin area with 1,000 entries (two logged demo photos,
/// then stored copies of the second with their comparison rows: `SkinDemo.generateStoredCopies`) in a temporary
/// vault, served by the real `WebApplication` in process. Times GET of the area's timeline page and of its trend
/// page (server time: security checks, routing, reading the stored rows, rendering), median and p90 of N
/// requests after one warm-up each, against the 100 ms target (issue 5, "Scale"; the median decides). Also
/// checks that serving the pages left every comparison row as it was (views never recompute comparison data).
enum SkinScaleBenchmark {
    /// The target for each page.
    static let targetMilliseconds = 100.0

    /// Runs the benchmark and prints its figures.
    static func run(arguments: [String]) throws -> Bool {
        var entries = 1_000
        var runs = 20
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
            switch arguments[index] {
            case "--entries":
                entries = max(2, value ?? entries)
                index += 2
            case "--runs":
                runs = max(1, value ?? runs)
                index += 2
            default: index += 1
            }
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-skin-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try CairnApplication.open(dataDirectory: directory.path, environment: [:])
        defer { app.database.close() }
        let area = try app.skin.addArea(name: "Arm")
        let generationStart = ContinuousClock.now
        try SkinDemo.generateStoredCopies(
            count: entries, seed: 4, into: area.id, service: app.skin, database: app.database,
            now: Date(timeIntervalSince1970: 1_700_000_000))
        let generation = IngestBenchmark.milliseconds(ContinuousClock.now - generationStart)

        let configuration = try WebConfiguration(
            port: WebConfiguration.defaultPort, secret: WebConfiguration.randomToken(),
            csrfToken: WebConfiguration.randomToken())
        let web = buildApplication(configuration: configuration, services: WebServices(app))
        let headers = ["Host": "127.0.0.1:\(web.port)", "Cookie": "\(SecurityPolicy.cookieName)=\(configuration.secret)"]
        let areaPath = "/skin/areas/\(area.id.rawValue)"

        // Sanity: both pages answer 200 and show every entry, so the timings are of real work.
        let items = try app.skin.timeline(of: area.id).items
        let timelinePage = web.handle(Request(method: .get, target: areaPath, headers: headers))
        let trendPage = web.handle(Request(method: .get, target: areaPath + "/trend", headers: headers))
        let points = String(decoding: trendPage.body, as: UTF8.self).components(separatedBy: "class=\"skin-point\"").count - 1
        let compared = items.filter { $0.comparison?.similarityPercent != nil }.count
        guard items.count == entries, compared == entries - 1, timelinePage.status == 200, trendPage.status == 200,
            points == entries
        else {
            throw BenchmarkFailure(
                message: "unexpected pages: \(items.count) entries (\(compared) compared), timeline \(timelinePage.status), "
                    + "trend \(trendPage.status) with \(points) points")
        }
        print(
            String(
                format: "skin-scale: one area with %d entries (%d with a stored comparison) made in %.0f ms; "
                    + "timeline page %d KiB, trend page %d KiB",
                entries, compared, generation, timelinePage.body.count / 1024, trendPage.body.count / 1024))

        let before = try comparisonRows(app.database)
        let rows = [("Timeline (GET /skin/areas/ID)", areaPath), ("Trend (GET /skin/areas/ID/trend)", areaPath + "/trend")]
            .map { name, target in (name, measure(runs) { web.handle(Request(method: .get, target: target, headers: headers)) }) }
        let unchanged = try comparisonRows(app.database) == before

        var load = [Double](repeating: 0, count: 3)
        _ = getloadavg(&load, 3)
        print(
            String(
                format: "  (%d requests each after one warm-up, in process; the wall-clock median decides; load average %.1f)",
                runs, load[0]))
        for (name, time) in rows {
            print(
                "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(
                        format: "median %6.1f ms  p90 %6.1f ms  CPU median %6.1f ms   target < %.0f ms   %@", time.median,
                        time.p90, time.cpu, targetMilliseconds, time.median < targetMilliseconds ? "met" : "NOT met"))
        }
        print(
            "  comparison rows after \(2 * (runs + 1)) page views: "
                + (unchanged ? "unchanged (views read stored rows only)" : "CHANGED (a view recomputed or rewrote comparison data)"))
        return unchanged && rows.allSatisfy { $0.1.median < targetMilliseconds }
    }

    /// Wall-clock median and p90 and this thread's median CPU time, in milliseconds, of `runs` requests after
    /// one warm-up request.
    private static func measure(_ runs: Int, _ request: () -> Response) -> (median: Double, p90: Double, cpu: Double) {
        _ = request()
        var wall: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<runs {
            let cpuStart = RegimenBenchmark.threadCPUMilliseconds()
            let start = ContinuousClock.now
            _ = request()
            wall.append(IngestBenchmark.milliseconds(ContinuousClock.now - start))
            cpu.append(RegimenBenchmark.threadCPUMilliseconds() - cpuStart)
        }
        return (IngestBenchmark.percentile(wall, 0.5), IngestBenchmark.percentile(wall, 0.9), IngestBenchmark.percentile(cpu, 0.5))
    }

    /// Every comparison row, rowid included: equal before and after means nothing was recomputed, replaced or
    /// added.
    private static func comparisonRows(_ database: Database) throws -> [Row] {
        try database.read { try $0.query("SELECT rowid, * FROM skin_comparisons ORDER BY rowid") }
    }
}
