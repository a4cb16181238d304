import CairnApp
import CairnCore
import Foundation
import Imaging
import Regimen

/// `cairn-bench memory [LINES]`: peak memory of whole `cairn` processes on big input, measured with GNU time
/// (`%M`, the process's maximum resident set), beside a baseline process doing the least the same input needs:
/// - `cairn regimen import` of an intake CSV of LINES lines (default 1 million), first import and the
///   idempotent second one, against `sqlite3 .import` of the same file into a table;
/// - `cairn smile add` of a 99 MP JPEG (a face photo enlarged) with a square placed by hand 4000 rows down and with
///   the square the cascade finds, and of a 99 MP PNG, against `vipsthumbnail` shrinking the JPEG;
/// - `cairn skin log` of the 99 MP JPEG, the PNG and the JPEG stored sideways (EXIF orientation 6) at 4:4:4 and at
///   4:2:0, and of a sideways 4:4:4 JPEG the size a camera's would be (noise added: the enlarged face compresses to
///   8 MB, a camera's 99 MP photo is nearer 30 MB, and the input and output files are held in memory).
/// Target: at most 200 MB for each `cairn` run. Needs the release `cairn` beside this binary.
enum InputMemoryBenchmark {
    static let targetMB = 200.0

    static func run(arguments: [String]) throws -> Bool {
        let lines = arguments.first.flatMap(Int.init) ?? 1_000_000
        let cairn = ProcessBench.cairnBeside
        guard FileManager.default.isExecutableFile(atPath: cairn.path) else {
            throw IngestBenchmark.BenchError(message: "no cairn binary beside cairn-bench (\(ProcessBench.buildCairn))")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-memory-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        print("memory: peak RSS of whole processes (GNU time %M); load average \(String(format: "%.2f", loadAverage())) at start")

        // 1. The intake CSV import.
        let vault = work.appendingPathComponent("vault")
        let app = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        _ = try app.regimen.addProduct(
            Product(
                name: "Vitamin D3", form: .softgel, servingSize: Amount("1", .count),
                ingredients: [
                    ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: Amount("25", .mcg), form: "Vitamin D3")
                ]))
        app.database.close()
        let csv = work.appendingPathComponent("intake.csv")
        try writeIntakeCSV(lines: lines, to: csv)
        let size = (try FileManager.default.attributesOfItem(atPath: csv.path)[.size] as? Int) ?? 0
        print("  intake CSV: \(lines) lines, \(size / 1_000_000) MB (one line a minute from 2023-01-01, one product)")
        let first = try measure(cairn.path, ["--data-dir", vault.path, "regimen", "import", csv.path])
        let second = try measure(cairn.path, ["--data-dir", vault.path, "regimen", "import", csv.path])
        let sqlite = try measure(
            "/usr/bin/sqlite3",
            [
                work.appendingPathComponent("baseline.db").path,
                ".import --csv \(csv.path) intake",
            ])
        report("cairn regimen import (first)", first)
        report("cairn regimen import (again: 0 new)", second)
        report("baseline: sqlite3 .import --csv", sqlite)
        print("    first import said: \(first.output.split(separator: "\n").last ?? "")")
        print("    second import said: \(second.output.split(separator: "\n").last ?? "")")

        // 2. A 100 MP photo through Smile.
        let photo = work.appendingPathComponent("big.jpg")
        // A real face photo enlarged to just under 100 MP (Cairn refuses more), saved as a camera would (Q90).
        let face = BenchPaths.sharedData.appendingPathComponent("faces/fr_obama.jpg")
        let small = try ImagePipeline().probe(Data(contentsOf: face))
        let factor = (99_000_000.0 / Double(small.width * small.height)).squareRoot()
        try tool("/usr/bin/vips", ["resize", face.path, photo.path + "[Q=90,strip]", String(format: "%.4f", factor)])
        let big = try ImagePipeline().probe(Data(contentsOf: photo))
        let bigSize = (try FileManager.default.attributesOfItem(atPath: photo.path)[.size] as? Int) ?? 0
        print("  Smile photo: \(big.width)x\(big.height) JPEG, \(bigSize / 1_000_000) MB (fr_obama.jpg enlarged)")
        let smile = try measure(cairn.path, ["--data-dir", vault.path, "smile", "add", photo.path, "--square", "4000,4000,1200"])
        // The same photo with the mouth found by the cascade (the square it proposes), and a 99 MP PNG (no
        // shrink-on-load: decoded whole, in order). The PNG is the face halved, then enlarged smoothly (linear) so it
        // stays under the 64 MiB a Smile file may have.
        let found = try measure(cairn.path, ["--data-dir", vault.path, "smile", "add", photo.path])
        let png = work.appendingPathComponent("big.png")
        let half = work.appendingPathComponent("half.v")
        try tool("/usr/bin/vips", ["resize", face.path, half.path, "0.5"])
        try tool("/usr/bin/vips", ["resize", half.path, png.path + "[compression=6]", String(format: "%.4f", 2 * factor), "--kernel", "linear"])
        let pngSize = (try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
        let pngInfo = try ImagePipeline().probe(Data(contentsOf: png))
        print("  Smile PNG: \(pngInfo.width)x\(pngInfo.height), \(pngSize / 1_000_000) MB")
        let pngFound = try measure(cairn.path, ["--data-dir", vault.path, "smile", "add", png.path])
        let thumbnail = try measure(
            "/usr/bin/vipsthumbnail",
            [
                photo.path, "--size", "1000", "-o",
                work.appendingPathComponent("t.jpg").path,
            ])
        // The same face at its own size (0.2 MP): what a Smile add costs whatever the photo (the dlib landmark
        // model alone is a 95 MB file read into memory).
        let modest = try measure(cairn.path, ["--data-dir", vault.path, "smile", "add", face.path])
        report("cairn smile add (the face at 0.2 MP)", modest)
        report("cairn smile add (99 MP JPEG, square)", smile)
        report("cairn smile add (99 MP JPEG, found)", found)
        report("cairn smile add (99 MP PNG, found)", pngFound)
        report("baseline: vipsthumbnail --size 1000", thumbnail)

        // 3. The same 99 MP photos through Skin (the full-size photo is kept, re-encoded), and the JPEG stored
        // sideways (EXIF orientation 6), which must turn (in bands: ImagePipeline.turnLimit), at 4:4:4 and 4:2:0, and
        // at 4:4:4 with noise added so the file is as large as a camera's.
        let sideways = work.appendingPathComponent("sideways.jpg")
        let turned = work.appendingPathComponent("turned.v")
        let sideways420 = work.appendingPathComponent("sideways420.jpg")
        let noisy = work.appendingPathComponent("noisy.jpg")
        let noise = work.appendingPathComponent("noise.v")
        let noise3 = work.appendingPathComponent("noise3.v")
        let sum = work.appendingPathComponent("sum.v")
        let sum8 = work.appendingPathComponent("sum8.v")
        try tool("/usr/bin/vips", ["rot", photo.path, turned.path, "d90"])
        try tool("/usr/bin/vips", ["copy", turned.path, sideways.path + "[Q=90]"])
        try tool("/usr/bin/vips", ["copy", turned.path, sideways420.path + "[Q=90,subsample-mode=on]"])
        try tool("/usr/bin/vips", ["gaussnoise", noise.path, String(big.height), String(big.width), "--sigma", "6", "--mean", "0"])
        try tool("/usr/bin/vips", ["bandjoin", "\(noise.path) \(noise.path) \(noise.path)", noise3.path])
        try tool("/usr/bin/vips", ["add", turned.path, noise3.path, sum.path])
        try tool("/usr/bin/vips", ["cast", sum.path, sum8.path, "uchar"])
        try tool("/usr/bin/vips", ["copy", sum8.path, noisy.path + "[Q=90]"])
        for file in [noise, noise3, sum, sum8, turned] { try? FileManager.default.removeItem(at: file) }
        for file in [sideways, sideways420, noisy] {
            try tool("/usr/bin/exiftool", ["-q", "-q", "-overwrite_original", "-EXIF:Orientation#=6", file.path])
        }
        let noisySize = (try FileManager.default.attributesOfItem(atPath: noisy.path)[.size] as? Int) ?? 0
        let sidewaysSize = (try FileManager.default.attributesOfItem(atPath: sideways.path)[.size] as? Int) ?? 0
        print(
            "  sideways JPEG: \(big.height)x\(big.width) stored, EXIF orientation 6, \(sidewaysSize / 1_000_000) MB at 4:4:4; with noise \(noisySize / 1_000_000) MB"
        )
        _ = try measure(cairn.path, ["--data-dir", vault.path, "skin", "add-area", "Arm"])
        let skinJPEG = try measure(cairn.path, ["--data-dir", vault.path, "skin", "log", "Arm", photo.path])
        let skinPNG = try measure(cairn.path, ["--data-dir", vault.path, "skin", "log", "Arm", png.path])
        let skinSideways = try measure(cairn.path, ["--data-dir", vault.path, "skin", "log", "Arm", sideways.path])
        let skinSideways420 = try measure(cairn.path, ["--data-dir", vault.path, "skin", "log", "Arm", sideways420.path])
        let skinNoisy = try measure(cairn.path, ["--data-dir", vault.path, "skin", "log", "Arm", noisy.path])
        report("cairn skin log (99 MP JPEG)", skinJPEG)
        report("cairn skin log (99 MP PNG)", skinPNG)
        report("cairn skin log (99 MP JPEG, sideways)", skinSideways)
        report("cairn skin log (sideways, 4:2:0)", skinSideways420)
        report("cairn skin log (sideways, camera-sized)", skinNoisy)

        let runs = [first, second, smile, found, pngFound, skinJPEG, skinPNG, skinSideways, skinSideways420, skinNoisy]
        let met = runs.allSatisfy { $0.status == 0 && $0.peakMB <= targetMB }
        print(
            String(
                format:
                    "  target (each cairn run <= %.0f MB): import %@ / %@, smile JPEG %@ / %@, smile PNG %@, skin JPEG %@, skin PNG %@, skin JPEG sideways %@ / 4:2:0 %@ / camera-sized %@; load average %.2f at end",
                targetMB, verdict(first) as NSString, verdict(second) as NSString, verdict(smile) as NSString,
                verdict(found) as NSString, verdict(pngFound) as NSString, verdict(skinJPEG) as NSString,
                verdict(skinPNG) as NSString, verdict(skinSideways) as NSString, verdict(skinSideways420) as NSString,
                verdict(skinNoisy) as NSString, loadAverage()))
        return met
    }

    static func verdict(_ f: Figures) -> String { f.status != 0 ? "FAILED (exit \(f.status))" : f.peakMB <= targetMB ? "met" : "NOT met" }

    struct Figures {
        var peakMB: Double
        var seconds: Double
        var cpuSeconds: Double
        var status: Int32
        var output: String
    }

    static func report(_ name: String, _ f: Figures) {
        print(
            String(
                format: "    %-38@ peak RSS %7.1f MB  wall %6.2f s  CPU %6.2f s%@", name as NSString, f.peakMB,
                f.seconds, f.cpuSeconds, (f.status == 0 ? "" : "  (exit \(f.status))") as NSString))
    }

    /// Runs `executable` under GNU time; its peak RSS, wall time, exit status and output.
    static func measure(_ executable: String, _ arguments: [String]) throws -> Figures {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-time-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M %e %U %S", "-o", report.path, executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["OMP_THREAD_LIMIT"] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        let numbers = text.split(separator: "\n").last?.split(separator: " ").compactMap { Double($0) } ?? []
        return Figures(
            peakMB: (numbers.first ?? 0) / 1024, seconds: numbers.count > 1 ? numbers[1] : 0,
            cpuSeconds: numbers.count > 3 ? numbers[2] + numbers[3] : 0, status: process.terminationStatus,
            output: output)
    }

    static func tool(_ executable: String, _ arguments: [String]) throws {
        let result = try measure(executable, arguments)
        guard result.status == 0 else { throw IngestBenchmark.BenchError(message: "\(executable) failed: \(result.output)") }
    }

    /// One taken dose a minute from 2023-01-01 00:00 UTC (all in the past, every line its own instant).
    static func writeIntakeCSV(lines: Int, to url: URL) throws {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = "date,time,time zone,product,amount,unit,status\n"
        let start = Date(timeIntervalSince1970: 1_672_531_200)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for i in 0..<lines {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: start.addingTimeInterval(Double(i) * 60))
            chunk += String(
                format: "%04d-%02d-%02d,%02d:%02d,UTC,Vitamin D3,1,softgel,%@\n", c.year!, c.month!, c.day!,
                c.hour!, c.minute!, (i % 10 == 9 ? "skipped" : "taken") as NSString)
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
    }

    static func loadAverage() -> Double {
        var load = [Double](repeating: 0, count: 3)
        return getloadavg(&load, 3) > 0 ? load[0] : -1
    }
}
