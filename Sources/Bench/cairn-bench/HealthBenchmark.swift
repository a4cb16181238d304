import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Regimen
import Storage

/// `cairn-bench health [--mb N] [--no-zip]`: writes a synthetic Apple Health export of about N MB (1024 by
/// default) into a temp folder, with the record mix of a real one (mostly types Cairn skips, a Watch and an
/// iPhone counting the same steps, sleep stages under InBed, MetadataEntry children, HRV beat lists, workouts),
/// imports it through `HealthService` into a temp vault in a child process, and prints the throughput (target
/// >= 50 MB/s) and the child's peak RSS (target <= 100 MB). Then the same for the file zipped (if `zip` is
/// installed), and the time `dailyValues()` takes over everything imported.
enum HealthBenchmark {
    static let targetMBPerSecond = 50.0
    static let targetPeakMB = 100.0

    static func run(arguments: [String]) throws -> Bool {
        if arguments.first == "--child-import", arguments.count == 3 {
            try childImport(file: arguments[1], vault: arguments[2])
            exit(0)
        }
        var megabytes = 1024
        var zip = true
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--mb":
                megabytes = max(1, Int(index + 1 < arguments.count ? arguments[index + 1] : "") ?? megabytes)
                index += 2
            case "--no-zip":
                zip = false
                index += 1
            default: index += 1
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("health: synthetic Apple Health export, \(megabytes) MB target")
        let exportFolder = directory.appendingPathComponent("apple_health_export")
        try FileManager.default.createDirectory(at: exportFolder, withIntermediateDirectories: true)
        let xml = exportFolder.appendingPathComponent("export.xml")
        let generated = ContinuousClock.now
        let stats = try SyntheticExport.write(to: xml, bytes: Int64(megabytes) << 20)
        print(
            String(
                format: "  generated %.0f MB, %d records (%d of kept types), %d days in %.1f s",
                Double(stats.bytes) / 1_048_576, stats.records, stats.kept, stats.days, seconds(ContinuousClock.now - generated)))

        var met = true
        let plain = try measure(file: xml, vault: directory.appendingPathComponent("vault-xml"), label: "export.xml", bytes: stats.bytes)
        met = met && plain
        if zip {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") else {
                print("  export.zip: skipped (the zip tool is not installed)")
                return met
            }
            let archive = directory.appendingPathComponent("export.zip")
            let zipping = Process()
            zipping.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
            zipping.currentDirectoryURL = directory
            zipping.arguments = ["-q", "-1", archive.path, "apple_health_export/export.xml"]
            try zipping.run()
            zipping.waitUntilExit()
            let zipBytes = (try? FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? NSNumber)??.int64Value ?? 0
            print(String(format: "  zipped to %.0f MB", Double(zipBytes) / 1_048_576))
            // Throughput of a zip is counted in the XML bytes it holds: the work is parsing them.
            met =
                try measure(
                    file: archive, vault: directory.appendingPathComponent("vault-zip"), label: "export.zip",
                    bytes: stats.bytes) && met
        }

        // Daily values over what was imported (in this process: a read, not the import).
        let vault = try Vault(directory: directory.appendingPathComponent("vault-xml"))
        let database = try vault.openDatabase(clock: SystemClock())
        defer { database.close() }
        let service = HealthService(database: database, clock: SystemClock())
        let start = ContinuousClock.now
        let daily = try service.dailyValues()
        print(
            String(
                format: "  dailyValues(): %.2f s for %d metrics, %d days of steps",
                seconds(ContinuousClock.now - start), daily.count, daily["steps"]?.count ?? 0))
        return met
    }

    /// Imports `file` in a child process (so its peak RSS is the import's alone) and prints the figures.
    private static func measure(file: URL, vault: URL, label: String, bytes: Int64) throws -> Bool {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-health-out-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["health", "--child-import", file.path, vault.path]
        child.standardOutput = handle
        try child.run()
        child.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let fields = Dictionary(
            text.split(separator: " ").compactMap { pair -> (String, Double)? in
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { $1 })
        guard child.terminationStatus == 0, let elapsed = fields["seconds"], let peak = fields["peakMB"] else {
            print("  \(label): the import failed (status \(child.terminationStatus)) \(text)")
            return false
        }
        let rate = Double(bytes) / 1_048_576 / elapsed
        let cpuRate = Double(bytes) / 1_048_576 / max(fields["cpu"] ?? elapsed, 1e-9)
        print(
            String(
                format:
                    "  %@: imported in %.1f s wall = %.0f MB/s (target >= %.0f) %@; CPU %.1f s (both threads) = %.0f MB per CPU-second; peak RSS %.0f MB (target <= %.0f) %@; %d added, %d skipped; load average %@",
                label, elapsed, rate, targetMBPerSecond, rate >= targetMBPerSecond ? "met" : "NOT met", fields["cpu"] ?? 0, cpuRate,
                peak, targetPeakMB, peak <= targetPeakMB ? "met" : "NOT met", Int(fields["added"] ?? 0), Int(fields["skipped"] ?? 0),
                loadAverage()))
        return rate >= targetMBPerSecond && peak <= targetPeakMB
    }

    /// The child's side: import, then print `seconds=... peakMB=... added=... skipped=...`.
    private static func childImport(file: String, vault: String) throws {
        let app = try CairnApplication(vault: try Vault(directory: URL(fileURLWithPath: vault)))
        let start = ContinuousClock.now
        let cpuStart = cpuSeconds()
        let summary = try app.health.importExport(at: URL(fileURLWithPath: file))
        let elapsed = seconds(ContinuousClock.now - start)
        print("seconds=\(elapsed) cpu=\(cpuSeconds() - cpuStart) peakMB=\(peakRSSMB()) added=\(summary.added) skipped=\(summary.skippedCount)")
    }

    /// User + system CPU seconds of this process, all threads (the import parses on one thread and stores on
    /// another, so on an idle 2-core machine its wall time is below this; on a loaded one the wall time also
    /// counts waiting for a core).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func peakRSSMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return -1 }
        return kilobytes / 1024
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// Writes a synthetic export: records grouped by type (as Health writes them), one block per type covering
/// every day, from a seeded generator.
enum SyntheticExport {
    struct Stats {
        var bytes: Int64 = 0
        var records = 0
        var kept = 0
        var days = 0
    }

    static let watch = (
        name: "Sam’s Apple Watch", version: "10.2",
        device: "&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"
    )
    static let phone = (
        name: "Sam’s iPhone", version: "17.2.1",
        device: "&lt;&lt;HKDevice: 0x3008d6850&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.2.1&gt;"
    )

    /// One type's block: how many records a day, from which source, and how each is written.
    struct Block {
        let perDay: Int
        let write: (inout Writer, _ day: Int, _ i: Int) -> Void
        let kept: Bool
    }

    static func write(to url: URL, bytes target: Int64) throws -> Stats {
        var writer = try Writer(url: url)
        writer.put(HealthXML.header)
        // Bytes per day, measured on one generated day (every date is written at the same width).
        var probe = Writer.probe()
        for block in makeBlocks(firstDay: 19_000) { for i in 0..<block.perDay { block.write(&probe, 0, i) } }
        let days = max(1, Int(target / max(1, probe.count)))
        // The series ends a month before today: imports leave out records dated after tomorrow (issue 36).
        let blocks = makeBlocks(firstDay: Int(Date().timeIntervalSince1970 / 86_400) - 30 - days)
        var stats = Stats()
        stats.days = days
        for block in blocks {
            for day in 0..<days {
                for i in 0..<block.perDay {
                    block.write(&writer, day, i)
                    stats.records += 1
                    if block.kept { stats.kept += 1 }
                }
            }
        }
        writer.put("</HealthData>\n")
        try writer.close()
        stats.bytes = writer.count
        return stats
    }

    private static func makeBlocks(firstDay: Int) -> [Block] {
        // Noise decided once per (block, day, i) through a cheap hash, so blocks need no shared state.
        func noise(_ a: Int, _ b: Int, _ c: Int) -> Int {
            var x = UInt64(truncatingIfNeeded: a &* 73_856_093 ^ b &* 19_349_663 ^ c &* 83_492_791)
            x ^= x >> 33
            x &*= 0xff51_afd7_ed55_8ccd
            x ^= x >> 33
            return Int(x % 1000)
        }
        func quantity(
            _ w: inout Writer, _ type: String, _ source: (name: String, version: String, device: String), _ unit: String,
            _ value: String, _ start: Int64, _ end: Int64, metadata: String = ""
        ) {
            w.put(
                "<Record type=\"\(type)\" sourceName=\"\(source.name)\" sourceVersion=\"\(source.version)\" device=\"\(source.device)\" unit=\"\(unit)\" creationDate=\""
            )
            w.date(end + 30)
            w.put("\" startDate=\"")
            w.date(start)
            w.put("\" endDate=\"")
            w.date(end)
            w.put("\" value=\"\(value)\"")
            if metadata.isEmpty { w.put("/>\n") } else { w.put(">\n\(metadata)</Record>\n") }
        }
        let motion = " <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"0\"/>\n"
        let zone = " <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Amsterdam\"/>\n"
        func dayStart(_ day: Int) -> Int64 { Int64(firstDay + day) * 86_400 - 3600 }
        return [
            Block(
                perDay: 300,
                write: { w, d, i in
                    let t = dayStart(d) + Int64(i) * 288
                    quantity(&w, "HKQuantityTypeIdentifierHeartRate", watch, "count/min", "\(55 + noise(1, d, i) % 60)", t, t, metadata: motion)
                }, kept: false),
            Block(
                perDay: 250,
                write: { w, d, i in
                    let t = dayStart(d) + Int64(i) * 345
                    quantity(&w, "HKQuantityTypeIdentifierActiveEnergyBurned", watch, "kcal", "0.\(100 + noise(2, d, i))", t, t + 60)
                }, kept: false),
            Block(
                perDay: 150,
                write: { w, d, i in
                    let t = dayStart(d) + Int64(i) * 576
                    quantity(&w, "HKQuantityTypeIdentifierBasalEnergyBurned", watch, "kcal", "1.\(noise(3, d, i))", t, t + 500)
                }, kept: false),
            Block(
                perDay: 150,
                write: { w, d, i in
                    let t = dayStart(d) + 25_000 + Int64(i) * 300
                    quantity(
                        &w, "HKQuantityTypeIdentifierDistanceWalkingRunning", i % 2 == 0 ? watch : phone, "km", "0.0\(noise(4, d, i))", t, t + 240)
                }, kept: false),
            // The same walks counted by the watch (100 a day) and the phone (80 a day), overlapping.
            Block(
                perDay: 180,
                write: { w, d, i in
                    let fromWatch = i < 100
                    let slot = fromWatch ? i : i - 100
                    let t = dayStart(d) + 25_000 + Int64(slot) * (fromWatch ? 420 : 520)
                    quantity(&w, "HKQuantityTypeIdentifierStepCount", fromWatch ? watch : phone, "count", "\(20 + noise(5, d, i) % 300)", t, t + 300)
                }, kept: true),
            Block(
                perDay: 5,
                write: { w, d, i in
                    let t = dayStart(d) + 3600 * Int64(1 + i * 4)
                    var beats = " <HeartRateVariabilityMetadataList>\n"
                    for b in 0..<8 { beats += "  <InstantaneousBeatsPerMinute bpm=\"\(60 + b)\" time=\"1:0\(b):00.00 AM\"/>\n" }
                    beats += " </HeartRateVariabilityMetadataList>\n"
                    quantity(
                        &w, "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", watch, "ms", "\(30 + noise(6, d, i) % 40).5", t, t + 60,
                        metadata: beats)
                }, kept: true),
            Block(
                perDay: 1,
                write: { w, d, _ in
                    let t = dayStart(d) + 80_000
                    quantity(&w, "HKQuantityTypeIdentifierRestingHeartRate", watch, "count/min", "\(50 + noise(7, d, 0) % 12)", t, t)
                }, kept: true),
            Block(
                perDay: 1,
                write: { w, d, _ in
                    let t = dayStart(d) + 26_000
                    quantity(
                        &w, "HKQuantityTypeIdentifierBodyMass", (name: "Scale", version: "3", device: ""), d % 2 == 0 ? "kg" : "lb",
                        d % 2 == 0 ? "7\(noise(8, d, 0) % 10).4" : "16\(noise(8, d, 0) % 10)", t, t)
                }, kept: true),
            // A night: the phone's InBed, then the watch's stages (with an awake stretch), all with HKTimeZone.
            Block(
                perDay: 12,
                write: { w, d, i in
                    let night = dayStart(d) - 3600
                    let values = [
                        "InBed", "AsleepCore", "AsleepDeep", "AsleepCore", "AsleepREM", "Awake", "AsleepCore",
                        "AsleepDeep", "AsleepREM", "AsleepCore", "AsleepREM", "AsleepCore",
                    ]
                    let (start, end): (Int64, Int64) =
                        i == 0 ? (night, night + 8 * 3600) : (night + 1200 + Int64(i - 1) * 2400, night + 1200 + Int64(i) * 2400)
                    let source = i == 0 ? phone : watch
                    w.put(
                        "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(source.name)\" sourceVersion=\"\(source.version)\" creationDate=\""
                    )
                    w.date(end + 600)
                    w.put("\" startDate=\"")
                    w.date(start)
                    w.put("\" endDate=\"")
                    w.date(end)
                    w.put("\" value=\"HKCategoryValueSleepAnalysis\(values[i])\">\n\(zone)</Record>\n")
                }, kept: true),
            Block(
                perDay: 1,
                write: { w, d, _ in
                    let t = dayStart(d) + 60_000
                    w.put(
                        "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\" duration=\"30\" durationUnit=\"min\" sourceName=\"\(watch.name)\" sourceVersion=\"10.2\" creationDate=\""
                    )
                    w.date(t + 1800)
                    w.put("\" startDate=\"")
                    w.date(t)
                    w.put("\" endDate=\"")
                    w.date(t + 1800)
                    w.put(
                        "\">\n <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n <WorkoutStatistics type=\"HKQuantityTypeIdentifierStepCount\" sum=\"3000\" unit=\"count\"/>\n</Workout>\n"
                    )
                }, kept: false),
        ]
    }

    /// A buffered file writer (or a byte counter, for the probe).
    struct Writer {
        private var handle: FileHandle?
        private var buffer: [UInt8] = []
        private(set) var count: Int64 = 0

        init(url: URL) throws {
            FileManager.default.createFile(atPath: url.path, contents: nil)
            handle = try FileHandle(forWritingTo: url)
            buffer.reserveCapacity(4 << 20)
        }

        private init() {}

        static func probe() -> Writer { Writer() }

        mutating func put(_ text: String) {
            var text = text
            text.withUTF8 { append($0) }
        }

        /// `YYYY-MM-DD HH:MM:SS +0100` for a UTC instant, written in +0100.
        mutating func date(_ utc: Int64) {
            let local = utc + 3600
            let day = LocalDay(dayNumber: Int(local / 86_400))
            let seconds = Int(local % 86_400)
            var bytes = [UInt8](repeating: 0, count: 25)
            func two(_ v: Int, _ at: Int) {
                bytes[at] = UInt8(48 + v / 10)
                bytes[at + 1] = UInt8(48 + v % 10)
            }
            two(day.year / 100, 0)
            two(day.year % 100, 2)
            bytes[4] = 45
            two(day.month, 5)
            bytes[7] = 45
            two(day.day, 8)
            bytes[10] = 32
            two(seconds / 3600, 11)
            bytes[13] = 58
            two(seconds / 60 % 60, 14)
            bytes[16] = 58
            two(seconds % 60, 17)
            bytes[19] = 32
            bytes[20] = 43
            two(1, 21)
            two(0, 23)
            bytes.withUnsafeBufferPointer { append($0) }
        }

        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            count += Int64(bytes.count)
            guard let handle else { return }
            buffer.append(contentsOf: bytes)
            if buffer.count >= 4 << 20 {
                handle.write(Data(buffer))
                buffer.removeAll(keepingCapacity: true)
            }
        }

        mutating func close() throws {
            if let handle {
                handle.write(Data(buffer))
                buffer.removeAll()
                try handle.close()
            }
        }
    }
}
