import CairnCore
import Foundation
import Imaging
import Skin

/// `cairn-bench skin --dump=DIR` writes every rendered pair of the Skin benchmark (binary PPM files and an
/// `index.tsv`); `cairn-bench skin --replay=DIR` compares those pairs again without rendering them, for fast
/// iteration on the comparator. Both print the same report; the figures of a replay equal those of the run that
/// dumped it when the comparator is unchanged.
///
/// Replay options: `--only=WORD,...` keeps the pairs whose level (careful, typical, sloppy) or kind (none, change,
/// different) is listed, e.g. `--only=sloppy,different` (every sloppy pair plus every different-subject pair);
/// `--no-sloppy`, `--limit=N` (every k-th pair), `--threads=N`, `--debug`, `--components=FILE.tsv`, `--terms=FILE.jsonl`
/// (the four change figures of every pair, also in a run that renders), `--heat=DIR`.
enum SkinReplay {
    static func kindName(_ kind: PairKind) -> String { kind == .noChange ? "none" : kind == .change ? "change" : "different" }

    /// Writes pairs as they are made.
    final class Dumper {
        let directory: URL
        var lines: [String] = []
        var lastBaseline: RGBImage?
        var baselineFile = ""
        var count = 0

        init(directory: String) {
            self.directory = URL(fileURLWithPath: directory)
            try? FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        }

        deinit {
            let header = "subject\tgroup\tlevel\tkind\tchange\tstrength\tmagnitude\tbaseline\tprobe\n"
            try? (header + lines.joined(separator: "\n") + "\n").write(
                to: directory.appendingPathComponent("index.tsv"),
                atomically: true, encoding: .utf8)
        }

        func add(
            baseline: RGBImage, probe: RGBImage, subject: Subject, level: NoiseLevel, kind: PairKind, change: ChangeKind?,
            strength: Int, magnitude: Double
        ) throws {
            if lastBaseline != baseline {
                count += 1
                baselineFile = "b\(count).ppm"
                try SkinReplay.writePPM(baseline, to: directory.appendingPathComponent(baselineFile))
                lastBaseline = baseline
            }
            count += 1
            let probeFile = "p\(count).ppm"
            try SkinReplay.writePPM(probe, to: directory.appendingPathComponent(probeFile))
            let kindName = kind == .noChange ? "none" : kind == .change ? "change" : "different"
            lines.append(
                [
                    subject.name, subject.group, level.name, kindName, change?.rawValue ?? "-", "\(strength)",
                    String(format: "%.1f", magnitude), baselineFile, probeFile,
                ].joined(separator: "\t"))
        }
    }

    static func writePPM(_ image: RGBImage, to url: URL) throws {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.pixels)
        try data.write(to: url)
    }

    static func readPPM(_ url: URL) throws -> RGBImage {
        let data = try Data(contentsOf: url)
        var fields: [String] = []
        var i = 0
        var current = ""
        while fields.count < 4 && i < data.count {
            let c = Character(UnicodeScalar(data[i]))
            if c.isWhitespace {
                if !current.isEmpty {
                    fields.append(current)
                    current = ""
                }
            } else {
                current.append(c)
            }
            i += 1
        }
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), data.count - i == w * h * 3 else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return RGBImage(width: w, height: h, pixels: [UInt8](data[i...]))
    }

    struct Pair: Sendable {
        var subject: String, group: String, level: NoiseLevel, kind: PairKind, change: ChangeKind?, strength: Int, magnitude: Double
        var baseline: String, probe: String
    }

    static func run(directory: String, arguments: [String], t0: Date) throws -> Bool {
        let dir = URL(fileURLWithPath: directory)
        let text = try String(contentsOf: dir.appendingPathComponent("index.tsv"), encoding: .utf8)
        var all: [Pair] = []
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 9, let level = NoiseLevel.allCases.first(where: { $0.name == f[2] }) else { continue }
            let kind: PairKind = f[3] == "none" ? .noChange : f[3] == "change" ? .change : .differentSubject
            all.append(
                Pair(
                    subject: f[0], group: f[1], level: level, kind: kind, change: ChangeKind(rawValue: f[4]),
                    strength: Int(f[5]) ?? 0, magnitude: Double(f[6]) ?? 0, baseline: f[7], probe: f[8]))
        }
        var chosen = arguments.contains("--no-sloppy") ? all.filter { $0.level != .sloppy } : all
        if let only = arguments.first(where: { $0.hasPrefix("--only=") }).map({ Set($0.dropFirst(7).split(separator: ",").map(String.init)) }) {
            chosen = chosen.filter { only.contains($0.level.name) || only.contains(kindName($0.kind)) }
        }
        if let limit = arguments.first(where: { $0.hasPrefix("--limit=") }).flatMap({ Int($0.dropFirst(8)) }) {
            chosen = stride(from: 0, to: chosen.count, by: max(1, chosen.count / max(1, limit))).map { chosen[$0] }
        }
        let pairs = chosen
        let threads = arguments.first { $0.hasPrefix("--threads=") }.flatMap { Int($0.dropFirst(10)) } ?? 1
        let heatDir = arguments.first { $0.hasPrefix("--heat=") }.map { URL(fileURLWithPath: String($0.dropFirst(7))) }
        nonisolated(unsafe) var records = [Record?](repeating: nil, count: pairs.count)
        nonisolated(unsafe) var times = [Double](repeating: 0, count: pairs.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            var cache: (String, PreparedPhoto, UInt64)?
            for idx in stride(from: worker, to: pairs.count, by: threads) {
                let p = pairs[idx]
                guard let probeImage = try? readPPM(dir.appendingPathComponent(p.probe)),
                    let baseImage = try? readPPM(dir.appendingPathComponent(p.baseline))
                else { continue }
                if cache?.0 != p.baseline, let b = try? SkinComparator.prepare(baseImage) {
                    cache = (p.baseline, b, PerceptualHash.hash(baseImage))
                }
                guard let (_, baseline, baseHash) = cache else { continue }
                let start = SkinBenchmark.cpuMs()
                guard let pp = try? SkinComparator.prepare(probeImage) else { continue }
                let mid = SkinBenchmark.cpuMs()
                guard let r = try? SkinComparator.compare(baseline: baseline, probe: pp) else { continue }
                let end = SkinBenchmark.cpuMs()
                let rec = Record(
                    subject: p.subject, group: p.group, level: p.level, kind: p.kind, change: p.change, strength: p.strength,
                    result: r, phash: Double((baseHash ^ PerceptualHash.hash(probeImage)).nonzeroBitCount),
                    note: p.probe, magnitude: p.magnitude)
                if let heatDir {
                    try? writeHeat(r.changeMap, to: heatDir.appendingPathComponent("h-" + p.probe.replacingOccurrences(of: ".ppm", with: ".pgm")))
                }
                lock.lock()
                records[idx] = rec
                times[idx] = end - start + (mid - start)
                lock.unlock()
            }
        }
        let done = records.compactMap { $0 }
        if let inspectDir = arguments.first(where: { $0.hasPrefix("--inspect=") }).map({ String($0.dropFirst(10)) }) {
            let files = Set(
                arguments.first { $0.hasPrefix("--inspect-files=") }.map { $0.dropFirst(16).split(separator: ",").map(String.init) } ?? [])
            try inspect(pairs.filter { files.contains($0.probe) }, from: dir, to: inspectDir)
        }
        if let file = arguments.first(where: { $0.hasPrefix("--components=") }).map({ String($0.dropFirst(13)) }) {
            var msById: [String: Double] = [:]
            for (i, r) in records.enumerated() { if let r { msById[r.note] = times[i] } }
            var out =
                "level\tkind\tchange\tstrength\tmagnitude\tgroup\tsubject\tcomparable\traw\tmap\tdisplacement\ttexture\tprobe\tmedian\thistogram\treason\tms\tunclipped\n"
            for r in done {
                let d = r.result.diagnostics
                out +=
                    "\(r.level.name)\t\(r.kind == .noChange ? "none" : r.kind == .change ? "change" : "different")\t\(r.change?.rawValue ?? "-")\t\(r.strength)\t\(r.magnitude)\t\(r.group)\t\(r.subject)\t\(r.result.comparable ? 1 : 0)\t\(r.result.rawScore)\t\(d.mapScore)\t\(d.displacement)\t\(r.result.alignment.correlation)\t\(r.note)\t\(d.medianChange)\t\(d.histogramDistance)\t\(r.result.reasonNotComparable?.rawValue ?? "-")\t\(String(format: "%.1f", msById[r.note] ?? 0))\t\(d.unclippedFraction)\n"
            }
            try out.write(toFile: file, atomically: true, encoding: .utf8)
        }
        if let file = arguments.first(where: { $0.hasPrefix("--terms=") }).map({ String($0.dropFirst(8)) }) {
            try writeTerms(done, to: file)
        }
        print("Replayed \(done.count) of \(pairs.count) pairs from \(directory) (\(threads) thread(s))")
        Report.printAll(records: done, times: times)
        if arguments.contains("--debug") { Report.printWorst(records: done) }
        print("Total replay time \(String(format: "%.1f", Date().timeIntervalSince(t0))) s")
        return !SkinBenchmark.missedTarget
    }

    /// One JSON line per record with the five change figures behind its raw score (`--terms=FILE`, in a run or a replay), to study the
    /// raw score's parts (e.g. other term scales) without running the comparisons again.
    static func writeTerms(_ records: [Record], to file: String) throws {
        var out = ""
        for r in records {
            let d = r.result.diagnostics
            out += String(
                format:
                    "{\"subject\":\"%@\",\"group\":\"%@\",\"level\":\"%@\",\"kind\":\"%@\",\"change\":\"%@\",\"strength\":%d,\"magnitude\":%.1f,\"comparable\":%@,\"raw\":%.5f,\"map\":%.5f,\"disp\":%.5f,\"cblob\":%.5f,\"tblob\":%.5f,\"spot\":%.5f,\"corr\":%.4f,\"note\":\"%@\"}\n",
                r.subject, r.group, r.level.name, kindName(r.kind), r.change?.rawValue ?? "-", r.strength, r.magnitude,
                r.result.comparable ? "true" : "false", r.result.rawScore, d.mapScore, d.displacement, d.colourBlob, d.textureBlob,
                d.spotPeak, r.result.alignment.correlation, r.note)
        }
        try out.write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// Inspection strips (`SkinComparator.inspect`) of the given pairs, named by level, kind, subject, probe file and raw score.
    static func inspect(_ pairs: [Pair], from dir: URL, to out: String) throws {
        let url = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let pipeline = ImagePipeline()
        for p in pairs {
            let b = try SkinComparator.prepare(readPPM(dir.appendingPathComponent(p.baseline)))
            let q = try SkinComparator.prepare(readPPM(dir.appendingPathComponent(p.probe)))
            let (r, strip) = try SkinComparator.inspect(baseline: b, probe: q)
            let kind =
                p.kind == .change
                ? (p.change?.rawValue ?? "change").replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: " ", with: "-") + "\(p.strength)"
                : kindName(p.kind)
            let name = String(format: "%@-%@-%@-%@-raw%.2f.jpg", p.level.name, kind, p.subject, p.probe, r.rawScore)
            try pipeline.encodeJPEG(strip, quality: 95).write(to: url.appendingPathComponent(name))
        }
        print("  wrote \(pairs.count) inspection strips to \(out)")
    }

    static func writeHeat(_ map: ChangeMap, to url: URL) throws {
        var data = Data("P5\n\(map.width) \(map.height)\n255\n".utf8)
        data.append(contentsOf: map.values.map { UInt8(min(max($0, 0), 1) * 255) })
        try data.write(to: url)
    }
}
