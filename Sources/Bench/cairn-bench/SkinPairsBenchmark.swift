import CairnCore
import Foundation
import Imaging
import Skin

/// The first section of `cairn-bench skin`: the shared set of photo pairs rendered from real photos
/// (`../shared/data/skin-pairs`, 2,880 pairs from 16 bases, with its truth file and scorer). Every pair is
/// compared exactly as `cairn skin compare-batch` compares it (decoded with the longer side at most 800 px, then
/// prepared and compared), written as the same JSON lines, and scored by the set's own `score.py`; the pHash
/// baseline (Hamming distance of 64-bit DCT hashes) is scored by it in the same run. Then the figures the scorer
/// does not give: leave-bases-out (the threshold and the similarity mapping fitted on 12 bases, applied to the
/// other 4, in 4 rotations), the grown-spot case and ms per pair.
///
/// Options: `--pairs=DIR` (default `../shared/data/skin-pairs`), `--threads=N` (default 2), `--out=DIR` (keeps
/// out.jsonl, phash.jsonl and components.jsonl there), `--limit=N` (every N-th pair, a quick look only: the scorer
/// then counts the missing pairs as "most different"), `--inspect=DIR` (pictures of the inner steps of the highest-scoring
/// unchanged pairs and of the pairs named by `--inspect-ids=ID,ID,...`, see `SkinComparator.inspect`).
enum SkinPairsBenchmark {
    struct Truth {
        let id: String, group: String, level: String, change: String, strengthIndex: Int, base: String, nuisance: String
    }

    struct Outcome {
        var result: SkinComparisonResult?
        var phash: Int
        var ms: Double
        /// The raw score from this pair's four change figures with term scales re-fitted on other bases.
        var refitScore: Double? = nil
    }

    static func run(arguments: [String], dataDir: String) throws -> Bool {
        let dir = arguments.first { $0.hasPrefix("--pairs=") }.map { String($0.dropFirst(8)) } ?? dataDir + "/skin-pairs"
        let threads = max(1, arguments.first { $0.hasPrefix("--threads=") }.flatMap { Int($0.dropFirst(10)) } ?? 2)
        let limit = max(1, arguments.first { $0.hasPrefix("--limit=") }.flatMap { Int($0.dropFirst(8)) } ?? 1)
        let folder = URL(fileURLWithPath: dir)
        guard let tsv = try? String(contentsOf: folder.appendingPathComponent("pairs.tsv"), encoding: .utf8),
            let csv = try? String(contentsOf: folder.appendingPathComponent("truth.csv"), encoding: .utf8)
        else {
            print("Shared photo pairs: not found at \(dir) (pairs.tsv, truth.csv); section skipped")
            return true
        }
        let t0 = Date()
        let pairs = tsv.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t").map(String.init) }.filter { $0.count == 3 }
        let truth = parseTruth(csv)
        let chosen = stride(from: 0, to: pairs.count, by: limit).map { pairs[$0] }
        // Decode every distinct file once (as compare-batch does: longer side at most 800 px).
        let pipeline = ImagePipeline()
        var images: [String: RGBImage] = [:]
        for p in chosen {
            for name in [p[1], p[2]] where images[name] == nil {
                images[name] = try pipeline.decodeRGB(Data(contentsOf: folder.appendingPathComponent(name)), maxSide: 800)
            }
        }
        let decoded = Date()
        // Baselines are prepared once (a vault prepares each photo once, when it is logged) but their preparation
        // is counted in every pair's time below, as compare-batch pays it.
        let outcomes = UnsafeMutableBufferPointer<Outcome>.allocate(capacity: chosen.count)
        defer { outcomes.deallocate() }
        let imageList = images
        nonisolated(unsafe) let results = outcomes
        let countersBefore = SkinBenchmark.cpuCounters()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in stride(from: t, to: chosen.count, by: threads) {
                let b = imageList[chosen[i][1]]!
                let p = imageList[chosen[i][2]]!
                let start = SkinBenchmark.cpuMs()
                let r = try? SkinComparator.compare(baseline: SkinComparator.prepare(b), probe: SkinComparator.prepare(p))
                let ms = SkinBenchmark.cpuMs() - start
                let ph = (PerceptualHash.hash(b) ^ PerceptualHash.hash(p)).nonzeroBitCount
                (results.baseAddress! + i).initialize(to: Outcome(result: r, phash: ph, ms: ms))
            }
        }
        let compared = Date()
        let machine = SkinBenchmark.machineUse(from: countersBefore, to: SkinBenchmark.cpuCounters())
        let out =
            arguments.first { $0.hasPrefix("--out=") }.map { URL(fileURLWithPath: String($0.dropFirst(6))) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("cairn-skin-pairs-\(getpid())")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var ours: [String] = []
        var hashes: [String] = []
        var components: [String] = []
        for (i, p) in chosen.enumerated() {
            let o = outcomes[i]
            ours.append(jsonLine(id: p[0], result: o.result))
            hashes.append("{\"id\":\"\(p[0])\",\"score\":\(o.phash)}")
            if let r = o.result {
                let d = r.diagnostics
                let a = r.alignment
                components.append(
                    String(
                        format:
                            "{\"id\":\"%@\",\"raw\":%.5f,\"map\":%.5f,\"disp\":%.5f,\"median\":%.5f,\"hist\":%.5f,\"corr\":%.4f,\"scale\":%.4f,\"rot\":%.3f,\"method\":\"%@\",\"cblob\":%.5f,\"tblob\":%.5f,\"foreign\":%.4f,\"keystone\":%.4f,\"spot\":%.5f,\"comparable\":%@}",
                        p[0], r.rawScore, d.mapScore, d.displacement, d.medianChange, d.histogramDistance,
                        a.correlation, a.scale, a.rotationDegrees, a.method.rawValue, d.colourBlob, d.textureBlob, d.foreignFraction, a.keystone,
                        d.spotPeak, r.comparable ? "true" : "false"))
            }
        }
        let oursURL = out.appendingPathComponent("out.jsonl")
        let hashURL = out.appendingPathComponent("phash.jsonl")
        try (ours.joined(separator: "\n") + "\n").write(to: oursURL, atomically: true, encoding: .utf8)
        try (hashes.joined(separator: "\n") + "\n").write(to: hashURL, atomically: true, encoding: .utf8)
        try (components.joined(separator: "\n") + "\n").write(to: out.appendingPathComponent("components.jsonl"), atomically: true, encoding: .utf8)

        print(
            "Shared photo pairs (\(dir)): \(chosen.count) pairs from \(Set(chosen.map { $0[1] }).count) baselines; decoded in \(String(format: "%.1f", decoded.timeIntervalSince(t0))) s, compared in \(String(format: "%.1f", compared.timeIntervalSince(decoded))) s on \(threads) threads"
        )
        print("\n== score.py, this build (revision \(ComparisonRevision.current.number)) ==")
        let oursMetrics = out.appendingPathComponent("metrics.json")
        let hashMetrics = out.appendingPathComponent("phash-metrics.json")
        let scoreOK = score(folder: folder, results: oursURL, extra: [], metrics: oursMetrics)
        print("\n== score.py, pHash baseline (64-bit DCT hash, Hamming distance; no similarity, always comparable) ==")
        _ = score(
            folder: folder, results: hashURL, extra: ["--similarity-field", "none", "--comparable-field", "none"], summaryOnly: true,
            metrics: hashMetrics)
        printTargets(ours: oursMetrics, baseline: hashMetrics)

        var byID: [String: (Truth, Outcome)] = [:]
        for (i, p) in chosen.enumerated() { if let t = truth[p[0]] { byID[p[0]] = (t, outcomes[i]) } }
        let ms = (0..<chosen.count).map { outcomes[$0].ms }.sorted()
        var load = [Double](repeating: 0, count: 3)
        getloadavg(&load, 3)
        print(
            String(
                format:
                    "\nms per pair (thread CPU time, preparing both photos + comparing, release build): mean %.1f, p95 %.1f (target <= 30; load average %.2f; %@)",
                ms.reduce(0, +) / Double(max(1, ms.count)), ms.isEmpty ? 0 : ms[Int(Double(ms.count - 1) * 0.95)], load[0], machine))
        let target = ms.reduce(0, +) / Double(max(1, ms.count)) <= 30
        leaveBasesOut(Array(byID.values))
        if let dir = arguments.first(where: { $0.hasPrefix("--inspect=") }).map({ String($0.dropFirst(10)) }) {
            let ids = arguments.first { $0.hasPrefix("--inspect-ids=") }.map { $0.dropFirst(14).split(separator: ",").map(String.init) } ?? []
            try inspect(Array(byID.values), pairs: chosen, images: imageList, named: ids, to: dir)
        }
        print(
            "(This section's own pass/fail covers ms per pair, the grown-spot case and the border probes only: judge issue 39's accuracy targets from the score.py figures above.)"
        )
        let spotOK = try grownSpot(writeTo: arguments.first { $0.hasPrefix("--spot-photos=") }.map { String($0.dropFirst(14)) })
        let borderOK = try SkinBorderBenchmark.run(baselines: Set(chosen.map { $0[1] }).sorted().compactMap { imageList[$0] })
        return scoreOK && target && spotOK && borderOK
    }

    /// Writes a strip of pictures (`SkinComparator.inspect`) for the 12 highest-scoring unchanged typical pairs, the 4
    /// highest careful ones and the pairs named in `ids`, named by group, level, rank, id, base and raw score.
    static func inspect(_ rows: [(Truth, Outcome)], pairs: [[String]], images: [String: RGBImage], named ids: [String], to dir: String) throws {
        let url = URL(fileURLWithPath: dir)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let files = Dictionary(pairs.map { ($0[0], ($0[1], $0[2])) }, uniquingKeysWith: { a, _ in a })
        func worst(_ level: String, _ count: Int) -> [Truth] {
            rows.filter { $0.0.group == "nochange" && $0.0.nuisance == "combined" && $0.0.level == level }
                .sorted { ($0.1.result?.rawScore ?? .infinity) > ($1.1.result?.rawScore ?? .infinity) }.prefix(count).map(\.0)
        }
        let truth = Dictionary(rows.map { ($0.0.id, $0.0) }, uniquingKeysWith: { a, _ in a })
        let chosen =
            worst("L2", 12).enumerated().map { ($0.offset + 1, $0.element) } + worst("L1", 4).enumerated().map { ($0.offset + 1, $0.element) }
            + ids.compactMap { truth[$0] }.map { (0, $0) }
        let pipeline = ImagePipeline()
        for (rank, t) in chosen {
            guard let (b, p) = files[t.id], let bi = images[b], let pi = images[p] else { continue }
            let (r, strip) = try SkinComparator.inspect(baseline: SkinComparator.prepare(bi), probe: SkinComparator.prepare(pi))
            let kind = t.group == "change" ? "\(t.change)\(t.strengthIndex)" : t.group
            let name = String(format: "%@-%@-%02d-%@-%@-raw%.2f.jpg", kind, t.level, rank, t.id, t.base, r.rawScore)
            try pipeline.encodeJPEG(strip, quality: 95).write(to: url.appendingPathComponent(name))
        }
        print("  wrote \(chosen.count) inspection strips to \(dir) (baseline crop | probe lined up | tone fitted | map | colour blob | texture blob)")
    }

    /// The grown-spot case (`SpotSample`): unchanged retakes of a 40 px spot against retakes where it grew by
    /// 20-60% in radius (40 -> 52 px is the reported case), all from the same distance. The target: every grown
    /// retake reads clearly lower (by 10 points or more) than every unchanged retake, or "not comparable".
    /// `--spot-photos=DIR` also writes the baseline and the 52 px probe as JPEG files (for the compare-page screenshot).
    static func grownSpot(writeTo dir: String?) throws -> Bool {
        let baseline = SpotSample.photo(spotRadius: 40, retake: 0)
        let prepared = try SkinComparator.prepare(baseline)
        func describe(_ r: SkinComparisonResult) -> String {
            guard r.comparable, let s = r.similarityPercent else { return "not comparable" }
            return String(format: "%.0f%%", s)
        }
        var unchanged: [Double] = []
        var lines: [String] = []
        for retake in UInt64(1)...8 {
            let r = try SkinComparator.compare(baseline: prepared, probe: SkinComparator.prepare(SpotSample.photo(spotRadius: 40, retake: retake)))
            unchanged.append(r.comparable ? r.similarityPercent ?? 0 : 0)
            lines.append(describe(r))
        }
        print("\nGrown-spot case (a 40 px dark spot on smooth skin-toned texture, same distance; similarity of 8 retakes each):")
        print("  unchanged retakes:   " + lines.joined(separator: " "))
        var grownWorst = -Double.infinity
        for growth in [20, 30, 40, 50, 60] {
            var row: [String] = []
            for retake in UInt64(1)...8 {
                let r = try SkinComparator.compare(
                    baseline: prepared,
                    probe: SkinComparator.prepare(SpotSample.photo(spotRadius: 40 * (1 + Double(growth) / 100), retake: retake)))
                if r.comparable { grownWorst = max(grownWorst, r.similarityPercent ?? 0) }
                row.append(describe(r))
            }
            print(
                "  grown \(growth)% (\(Int(40 * (1 + Double(growth) / 100))) px): ".padding(toLength: 23, withPad: " ", startingAt: 0)
                    + row.joined(separator: " "))
        }
        let lowestUnchanged = unchanged.min() ?? 0
        let met = grownWorst == -.infinity || grownWorst <= lowestUnchanged - 10
        print(
            String(
                format: "  highest grown %@ against lowest unchanged %.0f%%: target 10 points lower or not comparable: %@",
                grownWorst == -.infinity ? "(none comparable)" : String(format: "%.0f%%", grownWorst), lowestUnchanged, met ? "met" : "NOT met"))
        if let dir {
            let pipeline = ImagePipeline()
            let url = URL(fileURLWithPath: dir)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try pipeline.encodeJPEG(baseline, quality: 92).write(to: url.appendingPathComponent("spot-40px.jpg"))
            try pipeline.encodeJPEG(SpotSample.photo(spotRadius: 52, retake: 1), quality: 92).write(to: url.appendingPathComponent("spot-52px.jpg"))
            try pipeline.encodeJPEG(SpotSample.photo(spotRadius: 40, retake: 1), quality: 92).write(
                to: url.appendingPathComponent("spot-40px-retake.jpg"))
            print("  wrote spot-40px.jpg, spot-52px.jpg and spot-40px-retake.jpg to \(dir)")
        }
        return met
    }

    /// One JSON line exactly as `cairn skin compare-batch` prints it.
    static func jsonLine(id: String, result r: SkinComparisonResult?) -> String {
        guard let r else { return "{\"id\":\"\(id)\",\"score\":null,\"similarity\":null,\"comparable\":false}" }
        let sim = r.comparable ? r.similarityPercent.map { String(Int($0.rounded())) } ?? "null" : "null"
        let score = (r.rawScore * 10_000).rounded() / 10_000
        return
            "{\"id\":\"\(id)\",\"score\":\(score),\"similarity\":\(sim),\"comparable\":\(r.comparable),\"disclaimer\":\"\(Disclaimer.similarity.text.replacingOccurrences(of: "\"", with: "\\\""))\"}"
    }

    static func parseTruth(_ csv: String) -> [String: Truth] {
        var lines = csv.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [:] }
        lines.removeFirst()
        func col(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
        let (id, g, l, c, s, b, n) = (
            col("pair_id"), col("group"), col("level"), col("change_type"), col("strength_idx"), col("base_id"), col("nuisance")
        )
        var out: [String: Truth] = [:]
        for f in lines where f.count == header.count {
            out[f[id]] = Truth(id: f[id], group: f[g], level: f[l], change: f[c], strengthIndex: Int(f[s]) ?? 0, base: f[b], nuisance: f[n])
        }
        return out
    }

    /// Runs the set's `score.py` on `results` and prints its report (only its headline lines with `summaryOnly`).
    static func score(folder: URL, results: URL, extra: [String], summaryOnly: Bool = false, metrics: URL? = nil) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", folder.appendingPathComponent("score.py").path, "--truth", folder.appendingPathComponent("truth.csv").path,
                "--results", results.path, "--id-field", "id", "--score-field", "score",
            ]
            + (extra.isEmpty ? ["--similarity-field", "similarity", "--comparable-field", "comparable"] : extra)
            + (metrics.map { ["--json", $0.path] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch {
            print("score.py could not run (python3 with numpy is needed): \(error)")
            return false
        }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if summaryOnly {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(40) { print(line) }
        } else {
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
        }
        return process.terminationStatus == 0
    }

    /// Issue 18's accuracy targets beside this build's figures and the pHash baseline's, from the metrics score.py wrote
    /// (`--json`), each marked met or not met.
    static func printTargets(ours: URL, baseline: URL) {
        func load(_ url: URL) -> [String: Any] {
            (try? Data(contentsOf: url)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        }
        let m = load(ours)
        let b = load(baseline)
        func value(_ d: [String: Any], _ path: [String]) -> Double? {
            var node: Any? = d
            for key in path { node = (node as? [String: Any])?[key] }
            if let list = node as? [Any], let first = list.first as? NSNumber { return first.doubleValue }
            return (node as? NSNumber)?.doubleValue
        }
        func p5(_ d: [String: Any], _ group: String) -> Double? {
            ((d["similarity"] as? [String: Any])?[group] as? [NSNumber]).flatMap { $0.count > 1 ? $0[1].doubleValue : nil }
        }
        func worstSingle(_ d: [String: Any]) -> Double? {
            guard let single = d["single_fa_at_L2thr"] as? [String: Any] else { return nil }
            return single.values.compactMap { ($0 as? [NSNumber]).flatMap { $0.count > 1 ? $0[1].doubleValue : nil } }.max()
        }
        typealias Row = (name: String, ours: Double?, baseline: Double?, target: Double, atLeast: Bool)
        var rows: [Row] = [
            ("typical AUC", value(m, ["auc_L2"]), value(b, ["auc_L2"]), 0.93, true),
            ("typical caught at 5% false alarms", value(m, ["tpr5_L2"]), value(b, ["tpr5_L2"]), 0.78, true),
        ]
        for (type, target) in [("spot", 0.97), ("grow", 0.95), ("warp", 0.75), ("red", 0.70), ("brown", 0.70), ("smooth", 0.70)] {
            rows.append(
                ("  typical caught: \(type)", value(m, ["per_type_L2", type, "rate"]), value(b, ["per_type_L2", type, "rate"]), target, true))
        }
        rows += [
            ("careful AUC", value(m, ["auc_L1"]), value(b, ["auc_L1"]), 0.98, true),
            ("careful caught at 5% false alarms", value(m, ["tpr5_L1"]), value(b, ["tpr5_L1"]), 0.93, true),
            ("worst single nuisance (typical sweep) above the threshold", worstSingle(m), worstSingle(b), 0.10, false),
            ("different subjects not comparable", value(m, ["not_comparable", "different subject"]), nil, 0.97, true),
            ("same subject not comparable", value(m, ["not_comparable", "same subject (all)"]), nil, 0.01, false),
            ("unchanged typical similarity median", value(m, ["similarity", "no-change L2"]), nil, 97, true),
            ("unchanged typical similarity p5", p5(m, "no-change L2"), nil, 92, true),
            ("unchanged careful similarity p5", p5(m, "no-change L1"), nil, 95, true),
        ]
        func show(_ v: Double?, _ target: Double) -> String {
            guard let v else { return "-" }
            return target > 1 ? String(format: "%.1f", v) : String(format: "%.3f", v)
        }
        print("\nTargets (issue 39) on the shared set, this build beside the pHash baseline of the same run:")
        print("  " + "figure".padding(toLength: 60, withPad: " ", startingAt: 0) + "  this build   pHash   target     ")
        for r in rows {
            let met = r.ours.map { r.atLeast ? $0 >= r.target : $0 <= r.target } ?? false
            print(
                "  " + r.name.padding(toLength: 60, withPad: " ", startingAt: 0)
                    + "  " + show(r.ours, r.target).padding(toLength: 11, withPad: " ", startingAt: 0)
                    + show(r.baseline, r.target).padding(toLength: 8, withPad: " ", startingAt: 0)
                    + ((r.atLeast ? ">= " : "<= ") + show(r.target, r.target)).padding(toLength: 11, withPad: " ", startingAt: 0)
                    + (met ? "met" : "NOT met"))
        }
    }

    /// Leave-bases-out: the bases sorted by name and dealt into 4 folds; for each fold, the five term scales of the raw
    /// score (`Calibration.TermScales`, the new-mark one as measured there), the typical and careful thresholds (95th percentile of the combined no-change
    /// scores) and the similarity mapping's noise floor (the typical threshold) are fitted on the other 12 bases and
    /// applied to the 4 held out. Printed: false alarms and changes caught on the held-out
    /// bases at the fitted thresholds, and the similarity the re-fitted mapping gives their unchanged typical pairs.
    static func leaveBasesOut(_ rows: [(Truth, Outcome)]) {
        let bases = Array(Set(rows.map { $0.0.base })).sorted()
        guard bases.count >= 8 else { return }
        func score(_ o: Outcome) -> Double { o.result.map { $0.comparable ? o.refitScore ?? $0.rawScore : .infinity } ?? .infinity }
        func q(_ v: [Double], _ p: Double) -> Double { Stats.quantile(v, p) }
        print("\nLeave-bases-out (term scales, thresholds and the similarity mapping fitted on 12 bases, applied to the other 4):")
        print(
            "  fold  held-out bases                                              | typical: FA  caught | careful: FA  caught | unchanged typical similarity median / p5"
        )
        var totals = (faT: 0, nT: 0, caughtT: 0, cT: 0, faC: 0, nC: 0, caughtC: 0, cC: 0)
        var heldSims: [Double] = []
        for fold in 0..<4 {
            let held = Set(bases.enumerated().filter { $0.offset % 4 == fold }.map { $0.element })
            let train = rows.filter { !held.contains($0.0.base) }
            let test = rows.filter { held.contains($0.0.base) }
            func nochange(_ r: [(Truth, Outcome)], _ level: String) -> [Double] {
                r.filter { $0.0.group == "nochange" && $0.0.nuisance == "combined" && $0.0.level == level }.map { score($0.1) }
            }
            func changes(_ r: [(Truth, Outcome)], _ level: String) -> [Double] {
                r.filter { $0.0.group == "change" && $0.0.level == level }.map { score($0.1) }
            }
            // The four term scales re-fitted on the 12 bases (95th percentiles of their unchanged typical pairs).
            let trainNC = train.filter { $0.0.group == "nochange" && $0.0.nuisance == "combined" && $0.0.level == "L2" }
                .compactMap { $0.1.result?.diagnostics }
            var scales = Calibration.TermScales(
                map: q(trainNC.map(\.mapScore), 0.95), displacement: q(trainNC.map(\.displacement), 0.95),
                colour: q(trainNC.map(\.colourBlob), 0.95), texture: q(trainNC.map(\.textureBlob), 0.95),
                spot: .infinity)
            // The new-mark scale as `Calibration.TermScales` measures it: on the pairs the other four figures read within
            // the noise floor (here the 12 bases' own typical threshold of those four).
            func four(_ d: ComparisonDiagnostics) -> Double {
                Calibration.rawScore(map: d.mapScore, displacement: d.displacement, colour: d.colourBlob, texture: d.textureBlob, scales: scales)
            }
            let floor4 = q(trainNC.map(four), 0.95)
            scales.spot = q(trainNC.filter { four($0) <= floor4 }.map(\.spotPeak), 0.95)
            func refitted(_ r: [(Truth, Outcome)]) -> [(Truth, Outcome)] {
                r.map { row in
                    guard let res = row.1.result, res.comparable else { return row }
                    let d = res.diagnostics
                    var o = row.1
                    o.refitScore = Calibration.rawScore(
                        map: d.mapScore, displacement: d.displacement, colour: d.colourBlob,
                        texture: d.textureBlob, spot: d.spotPeak, scales: scales)
                    return (row.0, o)
                }
            }
            let fitted = refitted(train)
            let scored = refitted(test)
            let thT = q(nochange(fitted, "L2"), 0.95)
            let thC = q(nochange(fitted, "L1"), 0.95)
            let ncT = nochange(scored, "L2")
            let chT = changes(scored, "L2")
            let ncC = nochange(scored, "L1")
            let chC = changes(scored, "L1")
            let faT = ncT.filter { $0 > thT }.count
            let caughtT = chT.filter { $0 > thT }.count
            let faC = ncC.filter { $0 > thC }.count
            let caughtC = chC.filter { $0 > thC }.count
            let sims = ncT.map { Calibration.similarityPercent(rawScore: $0, noiseFloor: thT) }
            heldSims += sims
            totals.faT += faT
            totals.nT += ncT.count
            totals.caughtT += caughtT
            totals.cT += chT.count
            totals.faC += faC
            totals.nC += ncC.count
            totals.caughtC += caughtC
            totals.cC += chC.count
            func pct(_ a: Int, _ b: Int) -> String { String(format: "%5.1f%%", 100 * Double(a) / Double(max(1, b))) }
            print(
                String(
                    format: "  %d     %@ | %@ %@ | %@ %@ | %.0f / %.0f", fold + 1,
                    held.sorted().joined(separator: ",").padding(toLength: 59, withPad: " ", startingAt: 0),
                    pct(faT, ncT.count), pct(caughtT, chT.count), pct(faC, ncC.count), pct(caughtC, chC.count),
                    q(sims, 0.5), q(sims, 0.05)))
        }
        func pct(_ a: Int, _ b: Int) -> String { String(format: "%.1f%%", 100 * Double(a) / Double(max(1, b))) }
        print(
            "  all held-out: typical false alarms \(pct(totals.faT, totals.nT)) (5% expected), caught \(pct(totals.caughtT, totals.cT)); careful false alarms \(pct(totals.faC, totals.nC)), caught \(pct(totals.caughtC, totals.cC)); unchanged typical similarity median \(String(format: "%.0f", q(heldSims, 0.5))) / p5 \(String(format: "%.0f", q(heldSims, 0.05)))"
        )
    }
}
