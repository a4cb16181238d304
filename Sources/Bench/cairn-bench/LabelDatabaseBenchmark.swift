import Barcodes
import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import LabelDatabase
import Regimen
import Storage

/// `cairn-bench label-database [--records N] [--no-zip]`: writes a synthetic DSLD bulk file of N label records
/// (215,000 by default, the size of the real database) in DSLD's own format, made from the 148 real labels of
/// ../shared (each record a real label's rows under a new id, name and barcode, with DSLD's other fields), then:
///
/// - imports it through `LabelDatabaseService` in a child process: MB/s of JSON text (target >= 20) and the
///   child's peak RSS (target <= 200 MB), beside a baseline measured in the same run: the same file split and
///   decoded record by record with nothing written (what the database itself costs is the difference);
/// - the database's size against the text it was built from (target <= 1.5x);
/// - searches by name (target <= 20 ms each, the median and the slowest of 200 words), beside a baseline: every
///   label holding a query's first word found with `LIKE '%word%'` over the labels table (what FTS5 saves);
/// - a 12 MP photo of a barcode to proposed rows (target <= 300 ms), beside a baseline: decoding the photo alone.
///
/// With `zip` installed, the import is measured again from the file zipped (one large array in the zip).
enum LabelDatabaseBenchmark {
    static let targetMBPerSecond = 20.0
    static let targetPeakMB = 200.0
    static let targetSizeRatio = 1.5
    static let targetSearchMilliseconds = 20.0
    static let targetBarcodeMilliseconds = 300.0

    static func run(arguments: [String]) throws -> Bool {
        if arguments.first == "--child-import", arguments.count == 3 {
            try childImport(file: arguments[1], vault: arguments[2])
            exit(0)
        }
        if arguments.first == "--child-decode", arguments.count == 2 {
            try childDecode(file: arguments[1])
            exit(0)
        }
        var records = 215_000
        var zip = true
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--records":
                records = max(148, Int(index + 1 < arguments.count ? arguments[index + 1] : "") ?? records)
                index += 2
            case "--no-zip":
                zip = false
                index += 1
            default: index += 1
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-labels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("label-database: synthetic DSLD bulk file, \(records) label records")
        let file = directory.appendingPathComponent("DSLD-labels.json")
        let generated = ContinuousClock.now
        let bytes = try writeSynthetic(records: records, to: file)
        print(
            String(
                format: "  generated %.0f MB (%.1f KB a record) in %.1f s", mb(bytes), Double(bytes) / Double(records) / 1024,
                seconds(since: generated)))

        var met = true
        let baseline = try child(["--child-decode", file.path])
        if let elapsed = baseline["seconds"] {
            print(
                String(
                    format: "  baseline, split and decoded with nothing written: %.1f s = %.0f MB/s; peak RSS %.0f MB",
                    elapsed, mb(bytes) / elapsed, baseline["peakMB"] ?? -1))
        }
        let vault = directory.appendingPathComponent("vault")
        met = try measureImport(file: file, vault: vault, label: "JSON array", textBytes: bytes) && met

        let databaseBytes =
            (try? FileManager.default.attributesOfItem(atPath: vault.appendingPathComponent("labels.sqlite").path)[.size] as? NSNumber)??
            .int64Value ?? 0
        let ratio = Double(databaseBytes) / Double(bytes)
        print(
            String(
                format: "  label database on disk: %.0f MB = %.2fx the text (target <= %.1fx) %@", mb(databaseBytes), ratio, targetSizeRatio,
                ratio <= targetSizeRatio ? "met" : "NOT met"))
        met = met && ratio <= targetSizeRatio

        if zip, FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") {
            let archive = directory.appendingPathComponent("DSLD-labels.zip")
            let zipping = Process()
            zipping.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
            zipping.currentDirectoryURL = directory
            zipping.arguments = ["-q", "-1", archive.path, file.lastPathComponent]
            try zipping.run()
            zipping.waitUntilExit()
            let zipBytes = (try? FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? NSNumber)??.int64Value ?? 0
            print(String(format: "  zipped to %.0f MB", mb(zipBytes)))
            met = try measureImport(file: archive, vault: directory.appendingPathComponent("vault-zip"), label: "zip", textBytes: bytes) && met
        }

        met = try measureSearch(vault: vault) && met
        met = try measureBarcode(vault: vault, records: records) && met
        return met
    }

    // MARK: the synthetic file

    /// Writes `records` DSLD label records as one JSON array, each a real label's rows with a new id, name and
    /// barcode (`DSLDFixtures.upc`), plus DSLD's fields Cairn skips (contacts, claims, target groups, events).
    static func writeSynthetic(records: Int, to url: URL) throws -> Int64 {
        let labels = try DSLDFixtures.labels()
        let words = [
            "Ultra", "Daily", "Complete", "Advanced", "Max", "Pure", "Whole", "Night", "Active", "Kids", "Women's", "Men's", "Senior", "Plus",
        ]
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = Data("[\n".utf8)
        var written: Int64 = 0
        // Each real label serialised once around markers (its id, name and barcode), then each record is its parts
        // with the markers filled: the file is written at disk speed.
        let templates = try labels.map { label -> (parts: [String], markers: [String]) in
            let text = String(decoding: try JSONSerialization.data(withJSONObject: templateMarkers(label), options: [.sortedKeys]), as: UTF8.self)
            var parts: [String] = []
            var markers: [String] = []
            var rest = Substring(text)
            while let hit = ["424242424", "@@NAME@@", "@@UPC@@"].compactMap({ m in rest.range(of: m).map { ($0, m) } })
                .min(by: { $0.0.lowerBound < $1.0.lowerBound })
            {
                parts.append(String(rest[..<hit.0.lowerBound]))
                markers.append(hit.1)
                rest = rest[hit.0.upperBound...]
            }
            parts.append(String(rest))
            return (parts, markers)
        }
        for index in 0..<records {
            let which = index % labels.count
            let name = "\(words[index % words.count]) \(words[(index / 7) % words.count]) \(labels[which]["fullName"] as? String ?? "") \(index)"
            var record = ""
            for (position, part) in templates[which].parts.enumerated() {
                record += part
                guard position < templates[which].markers.count else { continue }
                switch templates[which].markers[position] {
                case "424242424": record += "\(1_000_000 + index)"
                case "@@NAME@@": record += name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                default: record += DSLDFixtures.upc(for: index)
                }
            }
            buffer.append(contentsOf: Array(record.utf8))
            buffer.append(contentsOf: Array((index + 1 < records ? ",\n" : "\n]\n").utf8))
            if buffer.count > 4 << 20 {
                handle.write(buffer)
                written += Int64(buffer.count)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        handle.write(buffer)
        written += Int64(buffer.count)
        return written
    }

    /// A label with the markers `writeSynthetic` fills, as it serialises them.
    private static func templateMarkers(_ template: [String: Any]) -> [String: Any] {
        var label = template
        label["id"] = 424_242_424
        label["fullName"] = "@@NAME@@"
        label["upcSku"] = "@@UPC@@"
        label["contacts"] = [
            [
                "contactId": 4242, "name": label["brandName"] ?? "",
                "contactDetails": ["city": "Springfield", "state": "NY", "country": "USA", "zipCode": "10001", "phoneNumber": "(800) 555-0100"],
            ]
        ]
        label["claims"] = [["langualCode": "P0265", "langualCodeDescription": "Structure/Function"]]
        label["targetGroups"] = ["Adult (18 - 50 Years)"]
        label["userGroups"] = [["dailyValueTargetGroupName": "Adults and children 4 or more years of age", "langualCode": "P0250"]]
        label["productType"] = ["langualCode": "A1305", "langualCodeDescription": "Vitamin"]
        label["pdf"] = "https://dsld.od.nih.gov/dsld/pdf/424242424.pdf"
        return label
    }

    // MARK: import

    private static func measureImport(file: URL, vault: URL, label: String, textBytes: Int64) throws -> Bool {
        let fields = try child(["--child-import", file.path, vault.path])
        guard let elapsed = fields["seconds"], let peak = fields["peakMB"] else {
            print("  \(label): the import failed")
            return false
        }
        let rate = mb(textBytes) / elapsed
        print(
            String(
                format:
                    "  import (%@): %.1f s wall = %.0f MB/s of text (target >= %.0f) %@; CPU %.1f s; peak RSS %.0f MB (target <= %.0f) %@; %d labels; load average %@",
                label, elapsed, rate, targetMBPerSecond, rate >= targetMBPerSecond ? "met" : "NOT met", fields["cpu"] ?? 0, peak, targetPeakMB,
                peak <= targetPeakMB ? "met" : "NOT met", Int(fields["labels"] ?? 0), loadAverage()))
        return rate >= targetMBPerSecond && peak <= targetPeakMB
    }

    /// Runs this benchmark again as a child (so its peak RSS is the work's alone) and reads its `key=value` line.
    private static func child(_ arguments: [String]) throws -> [String: Double] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-labels-out-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["label-database"] + arguments
        process.standardOutput = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else { return [:] }
        return Dictionary(
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pair -> (String, Double)? in
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let value = Double(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { $1 })
    }

    private static func childImport(file: String, vault: String) throws {
        let app = try CairnApplication(vault: try Vault(directory: URL(fileURLWithPath: vault)))
        let start = ContinuousClock.now
        let cpu = cpuSeconds()
        let result = try app.labels.importFile(atPath: file)
        print("seconds=\(seconds(since: start)) cpu=\(cpuSeconds() - cpu) peakMB=\(peakRSSMB()) labels=\(result.labels)")
    }

    private static func childDecode(file: String) throws {
        let start = ContinuousClock.now
        var count = 0
        _ = try DSLDBulkFile(url: URL(fileURLWithPath: file)).read { _ in count += 1 }
        print("seconds=\(seconds(since: start)) peakMB=\(peakRSSMB()) labels=\(count)")
    }

    // MARK: search

    private static func measureSearch(vault: URL) throws -> Bool {
        let file = try LabelDatabaseFile(readingAt: vault.appendingPathComponent("labels.sqlite").path)
        defer { file.close() }
        let names = try DSLDFixtures.labels().compactMap { $0["fullName"] as? String }
        var queries: [String] = []
        for (index, name) in names.enumerated() {
            let words = name.split(separator: " ").map(String.init).filter { $0.count > 3 }
            if let word = words.first { queries.append(word) }
            if words.count > 1, index % 2 == 0 { queries.append(words.prefix(2).joined(separator: " ")) }
        }
        queries = Array(queries.prefix(200))
        _ = try file.search("vitamin")
        var timings: [Double] = []
        var found = 0
        var slowestQuery = ""
        for query in queries {
            let start = ContinuousClock.now
            found += try file.search(query).count
            let elapsed = seconds(since: start) * 1000
            if elapsed > (timings.max() ?? 0) { slowestQuery = query }
            timings.append(elapsed)
        }
        timings.sort()
        let median = timings[timings.count / 2]
        let slowest = timings.last ?? 0
        // Baseline: the first word of each query found by a scan of every name and brand.
        let database = try BuiltDatabase(readingAt: vault.appendingPathComponent("labels.sqlite").path)
        defer { database.close() }
        var scans: [Double] = []
        for query in queries.prefix(20) {
            let word = String(query.split(separator: " ")[0])
            let start = ContinuousClock.now
            _ = try database.read {
                try $0.query("SELECT count(*) FROM labels WHERE name LIKE ? OR brand LIKE ?", "%\(word)%", "%\(word)%")
            }
            scans.append(seconds(since: start) * 1000)
        }
        scans.sort()
        print(
            String(
                format:
                    "  search: %d queries, median %.2f ms, slowest %.2f ms (%@) (target <= %.0f ms) %@; %d labels found; baseline LIKE scan: median %.1f ms",
                queries.count, median, slowest, slowestQuery, targetSearchMilliseconds, slowest <= targetSearchMilliseconds ? "met" : "NOT met",
                found,
                scans[scans.count / 2]))
        return slowest <= targetSearchMilliseconds
    }

    // MARK: barcode

    private static func measureBarcode(vault: URL, records: Int) throws -> Bool {
        let app = try CairnApplication(vault: try Vault(directory: vault))
        let index = records / 2
        let digits = "0" + DSLDFixtures.upc(for: index).replacingOccurrences(of: " ", with: "")
        // A 12 MP photo (4032 x 3024) with the symbol about a fifth of its width, as a phone held at 20 cm takes it.
        let width = 4032
        let height = 3024
        let rgb = BarcodeDrawing.rgb(ean13: digits, width: width, height: height, x: 1500, y: 1200, moduleWidth: 9, barHeight: 600, seed: 7)
        let photo = try ImagePipeline().encodeJPEG(RGBImage(width: width, height: height, pixels: rgb), quality: 90)
        _ = try app.labels.checker()
        var timings: [Double] = []
        var baselines: [Double] = []
        var rows = 0
        for _ in 0..<5 {
            let decode = ContinuousClock.now
            _ = try ImagePipeline().decodeRGB(photo, approximatelyFitting: BarcodeReader().workingSide)
            baselines.append(seconds(since: decode) * 1000)
            let start = ContinuousClock.now
            let lookup = try app.labels.lookUp(photo: photo)
            guard let first = lookup.labels.first else {
                print("  barcode: the barcode was not found in the photo")
                return false
            }
            rows = try app.labels.proposal(for: try app.labels.label(first.id)).rows.count
            timings.append(seconds(since: start) * 1000)
        }
        timings.sort()
        baselines.sort()
        let median = timings[timings.count / 2]
        print(
            String(
                format:
                    "  barcode to rows, 12 MP photo: median %.0f ms of 5 (target <= %.0f ms) %@, %d rows proposed; baseline, decoding the photo alone: %.0f ms",
                median, targetBarcodeMilliseconds, median <= targetBarcodeMilliseconds ? "met" : "NOT met", rows, baselines[baselines.count / 2]))
        return median <= targetBarcodeMilliseconds
    }

    // MARK: helpers

    private static func mb(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func peakRSSMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return -1 }
        return kilobytes / 1024
    }
}
