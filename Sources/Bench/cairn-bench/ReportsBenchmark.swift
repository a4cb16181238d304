import CairnApp
import CairnCore
import Foundation
import Imaging
import Regimen
import Skin

/// `cairn-bench reports [--photos 25,50,100] [--days N] [--runs N]`:
///
/// 1. The Skin photo log of areas with 25, 50 and 100 entries of 12 MP photos: wall time and peak RSS of the whole
///    `cairn skin report AREA --out FILE` process (GNU time), against the target of 3 s and 300 MB at 100 photos,
///    beside `img2pdf` embedding the same JPEG files in a bare PDF (no layout, no text) in the same run. Each area
///    logs two 12 MP photos through the ordinary path (a real comparison); the other entries are stored copies of
///    the second (`SkinDemo.storeCopies`), sharing its file, which the PDF still embeds once per entry.
/// 2. The Regimen summary of the last year of ten years of data (`RegimenBenchmark.fill`: 5 products, 3 doses a
///    day, about 55,000 records), gathered and written to a file in process, median of N runs after one warm-up
///    (the first run also recomputes insights), against 2 s, beside a year of exposure alone (the largest read).
enum ReportsBenchmark {
    static let skinSecondsTarget = 3.0
    static let skinMegabytesTarget = 300.0
    static let regimenSecondsTarget = 2.0

    static func run(arguments: [String]) throws -> Bool {
        var sizes = [25, 50, 100]
        var days = 3_650
        var runs = 5
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--photos":
                sizes = value.split(separator: ",").compactMap { Int($0) }.filter { $0 >= 2 }
                index += 2
            case "--days":
                days = max(400, Int(value) ?? days)
                index += 2
            case "--runs":
                runs = max(1, Int(value) ?? runs)
                index += 2
            default: index += 1
            }
        }
        let skinMet = try skinLog(sizes: sizes.isEmpty ? [25, 50, 100] : sizes)
        let regimenMet = try regimenSummary(days: days, runs: runs)
        return skinMet && regimenMet
    }

    // MARK: Skin photo log

    static func skinLog(sizes: [Int]) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let vaultPath = directory.appendingPathComponent("vault").path
        let app = try CairnApplication.open(dataDirectory: vaultPath, environment: [:])
        let pipeline = ImagePipeline()
        var areas: [(Int, TrackingArea)] = []
        var storedFile = ""
        let setupStart = ContinuousClock.now
        for (n, size) in sizes.enumerated() {
            let area = try app.skin.addArea(name: "Area \(size)")
            var logged: [TrackingEntry] = []
            for i in 0..<2 {
                let jpeg = try pipeline.encodeJPEG(twelveMegapixel(index: i, seed: UInt64(n + 1)), quality: 90)
                logged.append(
                    try app.skin.log(
                        photo: jpeg, in: area.id, note: i == 0 ? "First photo" : "",
                        capturedAt: Date(timeIntervalSince1970: 1_770_000_000 + Double(i) * 86_400)))
            }
            try SkinDemo.storeCopies(of: logged[1], count: size - 2, seed: 7, database: app.database)
            storedFile = try app.photoStore.fileURL(for: logged[1].photoID).path
            areas.append((size, area))
        }
        app.database.close()
        let setup = IngestBenchmark.milliseconds(ContinuousClock.now - setupStart) / 1000
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: storedFile)[.size] as? Int) ?? 0
        print(
            String(
                format: "reports: Skin photo log; %d areas of 12 MP photos (stored file %.1f MB) made in %.1f s",
                areas.count, Double(fileBytes) / 1e6, setup))

        let cairn = ProcessBench.cairnBeside.path
        guard FileManager.default.isExecutableFile(atPath: cairn) else {
            throw BenchmarkFailure(message: "no cairn executable beside cairn-bench (\(ProcessBench.buildCairn))")
        }
        let hasBaseline = FileManager.default.isExecutableFile(atPath: "/usr/bin/img2pdf")
        var met = true
        print("  photos   cairn skin report: wall   peak RSS   pages   PDF size | img2pdf, same files: wall   peak RSS   (load)")
        for (size, area) in areas {
            let out = directory.appendingPathComponent("log-\(size).pdf").path
            let ours = try timed(cairn, ["skin", "report", area.id.rawValue, "--out", out, "--data-dir", vaultPath])
            let pdfBytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
            let pages = pageCount(out)
            var baseline = "not installed"
            if hasBaseline {
                let bare = directory.appendingPathComponent("bare-\(size).pdf").path
                // The same bytes as the log embeds: the first photo and the second one size - 1 times.
                let first = try CairnApplication.open(dataDirectory: vaultPath, environment: [:])
                let files = try first.skin.timeline(of: area.id).items.map { try first.photoStore.fileURL(for: $0.entry.photoID).path }
                first.database.close()
                let theirs = try timed("/usr/bin/img2pdf", files + ["-o", bare])
                baseline = String(format: "%6.2f s  %7.1f MB", theirs.seconds, theirs.megabytes)
                try? FileManager.default.removeItem(atPath: bare)
            }
            print(
                String(
                    format: "  %6d   %27.2f s %8.1f MB %7d %8.0f MB | %@   (%@)", size, ours.seconds, ours.megabytes, pages,
                    Double(pdfBytes) / 1e6, baseline as NSString, loadAverage() as NSString))
            if size == 100 { met = ours.seconds <= skinSecondsTarget && ours.megabytes <= skinMegabytesTarget }
            try? FileManager.default.removeItem(atPath: out)
        }
        if areas.contains(where: { $0.0 == 100 }) {
            print("  target at 100 photos: <= \(skinSecondsTarget) s and <= \(Int(skinMegabytesTarget)) MB: \(met ? "met" : "NOT met")")
        }
        return met
    }

    /// A 4000 x 3000 photo: a demo skin photo scaled up with fine sensor-like noise, so the JPEG is as large as a
    /// phone's (a few MB).
    static func twelveMegapixel(index: Int, seed: UInt64) -> RGBImage {
        let small = SkinDemo.photo(index: index, count: 2, seed: seed)
        let width = 4000
        let height = 3000
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var g = SeededGenerator(seed: seed &+ UInt64(index))
        var noise = [Int](repeating: 0, count: 4096)
        for i in 0..<noise.count { noise[i] = Int(g.unit() * 9) - 4 }
        pixels.withUnsafeMutableBufferPointer { out in
            small.pixels.withUnsafeBufferPointer { src in
                for y in 0..<height {
                    let sy = y * small.height / height
                    for x in 0..<width {
                        let sx = x * small.width / width
                        let s = (sy * small.width + sx) * 3
                        let o = (y * width + x) * 3
                        let n = noise[(x &* 31 &+ y &* 17) & 4095]
                        for c in 0..<3 { out[o + c] = UInt8(clamping: Int(src[s + c]) + n) }
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Runs `executable` under GNU time: wall seconds and the process's own peak RSS in MB (a child's rusage seen
    /// from here would count pages it shared with this process before exec). Shared with the ingest benchmark.
    static func timed(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, megabytes: Double) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-time-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%e %M", "-o", report.path, executable] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure(message: "\((executable as NSString).lastPathComponent) exited with status \(process.terminationStatus)")
        }
        let last = ((try? String(contentsOf: report, encoding: .utf8)) ?? "").split(separator: "\n").last ?? ""
        let fields = last.split(separator: " ").compactMap { Double($0) }
        guard fields.count == 2 else { throw BenchmarkFailure(message: "GNU time gave no figures") }
        return (fields[0], fields[1] / 1024)
    }

    static func pageCount(_ path: String) -> Int {
        // Cheap and tool-free: cairo writes one "/Type /Page" object per page (and "/Type /Pages" for the tree).
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        let needle = Array("/Type /Page\n".utf8)
        let alt = Array("/Type /Page ".utf8)
        var count = 0
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i + needle.count <= bytes.count {
                if bytes[i] == 0x2F, bytes[i + 1] == 0x54,
                    Array(bytes[i..<(i + needle.count)]) == needle || Array(bytes[i..<(i + alt.count)]) == alt
                {
                    count += 1
                }
                i += 1
            }
        }
        return count
    }

    static func loadAverage() -> String {
        var load = [Double](repeating: 0, count: 3)
        return getloadavg(&load, 3) == 3 ? String(format: "%.2f %.2f %.2f", load[0], load[1], load[2]) : "?"
    }

    // MARK: Regimen summary

    static func regimenSummary(days: Int, runs: Int) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-reports-regimen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let lastDay = LocalDay(year: 2026, month: 11, day: 30)!
        let firstDay = lastDay.adding(days: -(days - 1))
        let clock = FixedClock(WallClock.instant(of: lastDay, at: TimeSlot(hour: 21, minute: 30)!, in: zone), timeZone: zone)
        let app = try CairnApplication.open(dataDirectory: directory.appendingPathComponent("vault").path, environment: [:], clock: clock)
        defer { app.database.close() }
        try RegimenBenchmark.fill(app.regimen, days: days, firstDay: firstDay, zone: zone)
        for d in stride(from: lastDay.adding(days: -729).dayNumber, through: lastDay.dayNumber, by: 1) {
            _ = try app.outcomes.add(metricID: "sleep_quality", value: Double(3 + d % 3), on: LocalDay(dayNumber: d))
        }
        let from = lastDay.adding(days: -364)
        let out = directory.appendingPathComponent("summary.pdf").path
        func once() throws -> (Double, Int) {
            let start = ContinuousClock.now
            let report = try app.reports.regimenSummary(ReportPeriod(from: from, to: lastDay), paper: .a4)
            let pages = try app.reports.write(report, to: out, replace: true)
            return (IngestBenchmark.milliseconds(ContinuousClock.now - start) / 1000, pages)
        }
        let (cold, pages) = try once()
        var times: [Double] = []
        for _ in 0..<runs { times.append(try once().0) }
        var exposure: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            _ = try app.regimen.exposure(in: from...lastDay)
            exposure.append(IngestBenchmark.milliseconds(ContinuousClock.now - start) / 1000)
        }
        let median = IngestBenchmark.percentile(times, 0.5)
        let met = median <= regimenSecondsTarget
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        print("reports: Regimen summary of \(from) to \(lastDay) from \(days) days of data (\(pages) pages, \(size / 1000) KB)")
        print(
            String(
                format: "  gather + write: median %.3f s of %d (first run with the insight recomputation %.3f s) | baseline, "
                    + "a year of exposure alone: median %.3f s   (load %@)", median, runs, cold, IngestBenchmark.percentile(exposure, 0.5),
                loadAverage() as NSString))
        print("  target <= \(regimenSecondsTarget) s: \(met ? "met" : "NOT met")")
        return met
    }
}
