import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Regimen

#if canImport(Glibc)
    import Glibc
#endif

/// `cairn-bench process [--rounds N] [--cairn PATH] [--only ROWS]`: what a person waits for, measured on whole `cairn` processes (the release
/// build beside this binary) beside an anchor process doing comparable work, alternating, in the same run:
///
/// | row | cairn | anchor | target |
/// |---|---|---|---|
/// | skin log, upright 12 MP JPEG with EXIF | `cairn skin log` | `exiftool -all=` + `vipsthumbnail` | CPU ratio <= 1.0 |
/// | skin log, EXIF orientation 6 | `cairn skin log` | `vips autorot` + `exiftool -all=` + `vipsthumbnail` | CPU ratio <= 1.0 |
/// | smile add, 12 MP face photo | `cairn smile add` | a Python MediaPipe face-mesh process, when it can run | <= 300 ms CPU (and <= 0.5x the anchor) |
/// | label scan, clean panel | `cairn regimen scan` | `tesseract IMAGE -` | wall ratio <= 1.1 |
/// | intake CSV import, 54,780 rows | `cairn regimen import` | Python csv + sqlite3, the same indexes | rows/s ratio >= 1.0 |
/// | the first page | `cairn serve` until its first answer | `python3 -m http.server` until its first answer | <= 100 ms wall |
/// | read-only commands | `today`, `ledger`, `skin timeline` | `sqlite3` reading the same vault | <= 50 ms wall each |
/// | a command through `cairn serve` | `regimen today` run inside a running server (its socket), plain and locked vault | the same command on its own (with the passphrase file when locked) | (figures) |
/// | `/regimen/ledger`, 16 clients (wrk) | req/s with 16 clients | req/s with 1 client; a static file, 16 clients | >= 1.6x one client |
///
/// A missing anchor tool is said and its ratio skipped (the absolute targets still count). Medians over the rounds
/// after one warm-up round. CPU is user + system of the child (its threads included).
enum ProcessBenchmark {

    static func run(arguments: [String]) throws -> Bool {
        var rounds = 5
        if let i = arguments.firstIndex(of: "--rounds"), i + 1 < arguments.count, let n = Int(arguments[i + 1]) { rounds = max(1, n) }
        var cairn = ProcessBench.cairnBeside
        // --cairn PATH measures another build (an earlier commit's, for figures before a change).
        if let i = arguments.firstIndex(of: "--cairn"), i + 1 < arguments.count { cairn = URL(fileURLWithPath: arguments[i + 1]) }
        guard FileManager.default.isExecutableFile(atPath: cairn.path) else {
            print("process: build the cairn product first (\(ProcessBench.buildCairn))")
            return false
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-process-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let bench = ProcessBench(cairn: cairn.path, work: work, rounds: rounds)
        print("process: whole processes beside their anchors, \(rounds) rounds after a warm-up, alternating; load average \(bench.load()) at start")
        try bench.prepare()
        // --only skin,scan runs those rows alone (names: skin, smile, scan, import, read, server, first, concurrent).
        var only: Set<String>?
        if let i = arguments.firstIndex(of: "--only"), i + 1 < arguments.count {
            only = Set(arguments[i + 1].split(separator: ",").map(String.init))
        }
        func runs(_ row: String) -> Bool { only?.contains(row) ?? true }
        var met = true
        if runs("skin") { met = try bench.skinLog() && met }
        if runs("smile") { met = try bench.smileAdd() && met }
        if runs("scan") { met = try bench.labelScan() && met }
        if runs("import") { met = try bench.intakeImport() && met }
        if runs("read") { met = try bench.readOnlyCommands() && met }
        if runs("server") { try bench.throughServer() }
        if runs("first") { met = try bench.firstAnswer() && met }
        if runs("concurrent") { met = try bench.concurrentReads() && met }
        print("  load average \(bench.load()) at end")
        return met
    }
}

/// The state of one `process` run: the files, the vaults and the helpers that time a child process.
final class ProcessBench {
    /// The release `cairn` built beside this benchmark (`make bench` builds both, with the same flags).
    static var cairnBeside: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("cairn")
    }
    /// How to build it: a release build with the flags every release product shares (Makefile).
    static let buildCairn = "make release"

    struct Sample {
        var wall: Double
        var cpu: Double
    }
    struct Row {
        var name: String
        var cairn: [Sample] = []
        var anchor: [Sample] = []
    }
    let cairn: String
    let work: URL
    let rounds: Int
    let environment: [String: String]
    var vault: URL { work.appendingPathComponent("vault") }
    var upright: URL { work.appendingPathComponent("upright.jpg") }
    var sideways: URL { work.appendingPathComponent("sideways.jpg") }
    var face: URL { work.appendingPathComponent("face.jpg") }

    /// The Python interpreter itself (not a pyenv shim, whose own start-up would count against the anchor).
    let python: String

    init(cairn: String, work: URL, rounds: Int) {
        self.cairn = cairn
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        let pipe = Pipe()
        probe.standardOutput = pipe
        probe.standardError = FileHandle.nullDevice
        try? probe.run()
        let found = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        probe.waitUntilExit()
        python = found.isEmpty ? "/usr/bin/python3" : found
        self.work = work
        self.rounds = rounds
        var environment = ProcessInfo.processInfo.environment
        environment["OMP_THREAD_LIMIT"] = "1"
        self.environment = environment
    }

    /// The photos (12 MP, camera-like, EXIF with GPS) and a vault with ten years of a regimen and a Skin area.
    func prepare() throws {
        let pipeline = ImagePipeline()
        try IngestBenchmark.makeSource(at: upright, pipeline: pipeline, orientation: 1)
        try IngestBenchmark.makeSource(at: sideways, pipeline: pipeline, orientation: 6)
        // A portrait enlarged to 12 MP (the 4:3 crop of `makeSource` would cut its mouth off), with camera EXIF.
        let portrait = BenchPaths.sharedData.appendingPathComponent("faces/fr_obama.jpg")
        let small = try pipeline.probe(Data(contentsOf: portrait))
        let factor = (12_000_000.0 / Double(small.width * small.height)).squareRoot()
        _ = try time("/usr/bin/vips", ["resize", portrait.path, face.path + "[Q=92]", String(format: "%.4f", factor)])
        _ = try time(
            "/usr/bin/exiftool",
            [
                "-q", "-overwrite_original", "-Make=Cairn", "-Model=Bench", "-GPSLatitude=48.8566",
                "-GPSLatitudeRef=N", "-DateTimeOriginal=2024:05:06 07:08:09", face.path,
            ])
        let app = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        let zone = TimeZone(identifier: "UTC")!
        let today = app.regimen.today()
        // Ten years up to yesterday: a dose later today than the run would be refused (a time later than now).
        try RegimenBenchmark.fill(app.regimen, days: 3652, firstDay: today.adding(days: -3652), zone: zone)
        let area = try app.skin.addArea(name: "Left forearm")
        _ = try app.skin.log(photo: Data(contentsOf: upright), in: area.id)
        app.database.close()
        print(
            "  vault: ten years of a regimen (5 products, 3 doses a day), one Skin area with its first photo; Skin photos 4032x3024, "
                + "the Smile photo \(try pipeline.probe(Data(contentsOf: face)).width)x\(try pipeline.probe(Data(contentsOf: face)).height)")
    }

    // MARK: rows

    func skinLog() throws -> Bool {
        let hasTools = tools("exiftool", "vipsthumbnail", "vips")
        var met = true
        for (name, photo, turns) in [("upright", upright, false), ("sideways (EXIF 6)", sideways, true)] {
            var row = ProcessBench.Row(name: "cairn skin log, \(name)")
            let out = work.appendingPathComponent("tool-out")
            try? FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            for round in 0...rounds {
                let c = try time(cairn, ["--data-dir", vault.path, "skin", "log", "Left forearm", photo.path])
                if round > 0 { row.cairn.append(c) }
                guard hasTools else { continue }
                var a = ProcessBench.Sample(wall: 0, cpu: 0)
                var source = photo.path
                if turns {
                    a.add(try time("/usr/bin/vips", ["autorot", photo.path, out.appendingPathComponent("r.jpg").path + "[Q=90]"]))
                    source = out.appendingPathComponent("r.jpg").path
                }
                try? FileManager.default.removeItem(at: out.appendingPathComponent("s.jpg"))
                a.add(try time("/usr/bin/exiftool", ["-q", "-all=", "-o", out.appendingPathComponent("s.jpg").path, source]))
                a.add(
                    try time(
                        "/usr/bin/vipsthumbnail", [photo.path, "--size", "512", "-o", out.appendingPathComponent("t.jpg").path + "[strip,Q=85]"]))
                if round > 0 { row.anchor.append(a) }
            }
            let anchor = turns ? "vips autorot + exiftool -all= + vipsthumbnail" : "exiftool -all= + vipsthumbnail"
            met =
                report(
                    row, anchor: hasTools ? anchor : nil, missing: "exiftool, vips (libimage-exiftool-perl, libvips-tools)",
                    ratioTarget: 1.0, on: \.cpu) && met
        }
        return met
    }

    func smileAdd() throws -> Bool {
        var row = ProcessBench.Row(name: "cairn smile add, 12 MP face photo")
        let script = work.appendingPathComponent("facemesh.py")
        try """
        import sys, cv2, mediapipe as mp
        image = cv2.cvtColor(cv2.imread(sys.argv[1]), cv2.COLOR_BGR2RGB)
        with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1) as mesh:
            found = mesh.process(image)
        sys.exit(0 if found.multi_face_landmarks else 3)
        """.write(to: script, atomically: true, encoding: .utf8)
        let probe = try? time(python, [script.path, face.path])
        for round in 0...rounds {
            let c = try time(cairn, ["--data-dir", vault.path, "smile", "add", face.path])
            if round > 0 { row.cairn.append(c) }
            if probe != nil, let a = try? time(python, [script.path, face.path]), round > 0 { row.anchor.append(a) }
        }
        let ratioMet = report(
            row, anchor: probe != nil ? "Python MediaPipe face mesh" : nil,
            missing: "python3 with mediapipe's face mesh (PyPI's mediapipe no longer ships mp.solutions or its models)",
            ratioTarget: 0.5, on: \.cpu)
        let cpu = median(row.cairn.map(\.cpu))
        let absolute = cpu <= 0.300
        print(String(format: "      absolute: CPU %.0f ms, target <= 300 ms   %@", cpu * 1000, absolute ? "met" : "NOT met"))
        return absolute && (probe == nil || ratioMet)
    }

    func labelScan() throws -> Bool {
        let labels = try LabelBenchmark.loadCorpus()
        guard let label = labels.first else { return false }
        let normaliser = LabelNormaliser(catalogue: try Catalogue.bundled())
        let (content, _, _) = LabelBenchmark.panel(for: label, index: 0, normaliser: normaliser)
        let image = LabelRenderer.render(content, style: PanelStyle.forLabel(0))
        let path = work.appendingPathComponent("label.jpg")
        try ImagePipeline().encodeJPEG(image, quality: 95).write(to: path)
        var row = ProcessBench.Row(name: "cairn regimen scan, \(image.width)x\(image.height) panel")
        let hasTool = tools("tesseract")
        for round in 0...rounds {
            let c = try time(cairn, ["--data-dir", vault.path, "regimen", "scan", path.path])
            if round > 0 { row.cairn.append(c) }
            if hasTool {
                let a = try time("/usr/bin/tesseract", [path.path, "-"])
                if round > 0 { row.anchor.append(a) }
            }
        }
        return report(
            row, anchor: hasTool ? "tesseract IMAGE -" : nil, missing: "tesseract (tesseract-ocr)",
            ratioTarget: 1.1, on: \.wall)
    }

    func intakeImport() throws -> Bool {
        let lines = 54_780
        let csv = work.appendingPathComponent("intake.csv")
        try InputMemoryBenchmark.writeIntakeCSV(lines: lines, to: csv)
        let script = work.appendingPathComponent("import.py")
        try """
        import csv, sqlite3, sys, uuid
        db = sqlite3.connect(sys.argv[2])
        db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=FULL")
        db.executescript('''
        CREATE TABLE IF NOT EXISTS regimen_intake (id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL,
          product_id TEXT NOT NULL, product_revision_id TEXT NOT NULL, schedule_revision_id TEXT, occurrence_day TEXT,
          occurrence_slot TEXT, servings TEXT NOT NULL, taken_at TEXT NOT NULL, time_zone TEXT NOT NULL,
          local_day TEXT NOT NULL, recorded_at TEXT NOT NULL, supersedes TEXT UNIQUE);
        CREATE INDEX IF NOT EXISTS by_time ON regimen_intake (taken_at);
        CREATE INDEX IF NOT EXISTS by_product_time ON regimen_intake (product_id, taken_at);
        CREATE INDEX IF NOT EXISTS by_local_day ON regimen_intake (local_day);''')
        with open(sys.argv[1], newline='') as f, db:
            for r in csv.DictReader(f):
                db.execute("INSERT INTO regimen_intake VALUES (?,?,?,?,?,NULL,NULL,NULL,?,?,?,?,?,NULL)",
                           (str(uuid.uuid4()), 'extra', r['status'], 'p', 'p1', r['amount'], r['date'] + 'T' + r['time'] + ':00Z',
                            r['time zone'], r['date'], '2026-12-01T00:00:00Z'))
        """.write(to: script, atomically: true, encoding: .utf8)
        var row = ProcessBench.Row(name: "cairn regimen import, \(lines) rows")
        let hasPython = (try? time(python, ["-c", "import sqlite3"])) != nil
        for round in 0...rounds {
            let fresh = work.appendingPathComponent("import-\(round)")
            let app = try CairnApplication.open(dataDirectory: fresh.path, environment: [:])
            _ = try app.regimen.addProduct(
                Product(
                    name: "Vitamin D3", form: .softgel, servingSize: Amount("1", .count),
                    ingredients: [
                        ProductIngredient(catalogueID: "vitamin-d", nameOnLabel: "Vitamin D3", amount: Amount("25", .mcg), form: "Vitamin D3")
                    ]))
            app.database.close()
            let c = try time(cairn, ["--data-dir", fresh.path, "regimen", "import", csv.path])
            try? FileManager.default.removeItem(at: fresh)
            if round > 0 { row.cairn.append(c) }
            if hasPython {
                let db = work.appendingPathComponent("import-\(round).db")
                let a = try time(python, [script.path, csv.path, db.path])
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db.path + suffix) }
                if round > 0 { row.anchor.append(a) }
            }
        }
        let cairnRate = Double(lines) / median(row.cairn.map(\.wall))
        let anchorRate = hasPython ? Double(lines) / median(row.anchor.map(\.wall)) : 0
        let met = hasPython ? cairnRate / anchorRate >= 1.0 : true
        print(
            String(
                format: "    %-44@ wall %7.1f ms  CPU %7.1f ms  %6.0f rows/s", row.name as NSString,
                median(row.cairn.map(\.wall)) * 1000, median(row.cairn.map(\.cpu)) * 1000, cairnRate))
        if hasPython {
            print(
                String(
                    format: "      anchor: %-36@ wall %7.1f ms  CPU %7.1f ms  %6.0f rows/s   ratio %.2fx   target >= 1.0x   %@",
                    "Python csv + sqlite3" as NSString, median(row.anchor.map(\.wall)) * 1000,
                    median(row.anchor.map(\.cpu)) * 1000, anchorRate, cairnRate / anchorRate, met ? "met" : "NOT met"))
        } else {
            print("      anchor skipped: no python3 with sqlite3")
        }
        return met
    }

    func readOnlyCommands() throws -> Bool {
        let database = vault.appendingPathComponent("cairn.sqlite").path
        let hasSQLite = tools("sqlite3")
        var met = true
        for (name, words) in [
            ("cairn regimen today", ["regimen", "today"]), ("cairn regimen ledger", ["regimen", "ledger"]),
            ("cairn skin timeline", ["skin", "timeline", "Left forearm"]),
        ] {
            var row = ProcessBench.Row(name: name)
            for round in 0...rounds {
                let c = try time(cairn, ["--data-dir", vault.path] + words)
                if round > 0 { row.cairn.append(c) }
                if hasSQLite {
                    let a = try time(
                        "/usr/bin/sqlite3",
                        [
                            "-readonly", database,
                            "SELECT * FROM regimen_intake ORDER BY taken_at DESC LIMIT 50",
                        ])
                    if round > 0 { row.anchor.append(a) }
                }
            }
            _ = report(row, anchor: hasSQLite ? "sqlite3 -readonly, 50 newest log rows" : nil, missing: "sqlite3", ratioTarget: nil, on: \.wall)
            let wall = median(row.cairn.map(\.wall))
            print(String(format: "      absolute: wall %.1f ms, target <= 50 ms   %@", wall * 1000, wall <= 0.050 ? "met" : "NOT met"))
            met = wall <= 0.050 && met
        }
        return met
    }

    /// `cairn regimen today` while `cairn serve` has the vault open (the command runs inside the server, over the
    /// vault's socket) against the same command on its own, on the plain vault and on a copy whose lock is on (on
    /// its own it reads the passphrase file and derives the key: what a script pays without a server). The server
    /// runs first for all rounds, then the command alone: the two cannot run at once (the server takes the command).
    func throughServer() throws {
        let locked = work.appendingPathComponent("vault-locked")
        let passphrase = work.appendingPathComponent("passphrase.txt")
        try? FileManager.default.removeItem(at: locked)
        try FileManager.default.copyItem(at: vault, to: locked)
        try Data("a bench passphrase for the process rows\n".utf8).write(to: passphrase)
        _ = try time(cairn, ["--data-dir", locked.path, "settings", "lock", "on", "--passphrase-file", passphrase.path])
        defer { try? FileManager.default.removeItem(at: locked) }
        for (name, folder, unlock) in [
            ("plain vault", vault, [String]()),
            ("locked vault", locked, ["--vault-passphrase-file", passphrase.path]),
        ] {
            var row = ProcessBench.Row(name: "cairn regimen today through serve, \(name)")
            let server = try ServedProcess(cairn: cairn, vault: folder, environment: environment, global: unlock)
            // The server catches up on insights and tidies up in the background after it opens: wait for quiet.
            var last = ProcessCPU.cpuSeconds(of: server.process.processIdentifier)
            var quiet = 0
            for _ in 0..<200 where quiet < 3 {
                usleep(100_000)
                let now = ProcessCPU.cpuSeconds(of: server.process.processIdentifier)
                quiet = now - last < 0.005 ? quiet + 1 : 0
                last = now
            }
            // More rounds than the other rows: the server's CPU is read from /proc in clock ticks (10 ms).
            let many = max(rounds, 20)
            var serverCPU = 0.0
            for round in 0...many {
                let before = ProcessCPU.cpuSeconds(of: server.process.processIdentifier)
                let c = try time(cairn, ["--data-dir", folder.path, "regimen", "today"])
                if round > 0 {
                    row.cairn.append(c)
                    serverCPU += ProcessCPU.cpuSeconds(of: server.process.processIdentifier) - before
                }
            }
            server.stop()
            for round in 0...many {
                let a = try time(cairn, ["--data-dir", folder.path] + unlock + ["regimen", "today"])
                if round > 0 { row.anchor.append(a) }
            }
            _ = report(row, anchor: "the same command on its own", missing: "", ratioTarget: nil, on: \.wall)
            print(
                String(
                    format: "      the CPU above is the client's; the server spent %.1f ms more per command (mean)",
                    serverCPU / Double(many) * 1000))
        }
    }

    func firstAnswer() throws -> Bool {
        var row = ProcessBench.Row(name: "cairn serve until its first answer")
        let site = work.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<!doctype html><title>x</title>".utf8).write(to: site.appendingPathComponent("index.html"))
        let hasPython = FileManager.default.isExecutableFile(atPath: python)
        for round in 0...rounds {
            let c = try firstAnswer(of: ServedProcess(cairn: cairn, vault: vault, environment: environment))
            if round > 0 { row.cairn.append(c) }
            if hasPython, let server = try? ServedProcess(python: self.python, site: site, environment: environment) {
                let a = try firstAnswer(of: server)
                if round > 0 { row.anchor.append(a) }
            }
        }
        _ = report(row, anchor: hasPython ? "python3 -m http.server" : nil, missing: "python3", ratioTarget: nil, on: \.wall)
        let wall = median(row.cairn.map(\.wall))
        print(String(format: "      absolute: wall %.1f ms, target <= 100 ms   %@", wall * 1000, wall <= 0.100 ? "met" : "NOT met"))
        return wall <= 0.100
    }

    func concurrentReads() throws -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            print("    /regimen/ledger under load: skipped (no wrk: apt-get install wrk, scripts/install-deps.sh --with-test-tools)")
            return false
        }
        let server = try ServedProcess(cairn: cairn, vault: vault, environment: environment)
        defer { server.stop() }
        _ = try LoopbackHTTP.get(port: server.port, path: "/?key=\(server.key)", session: nil)
        let url = "http://127.0.0.1:\(server.port)/regimen/ledger"
        let cookie = "Cookie: cairn_session=\(server.key)"
        _ = wrk(url, clients: 1, header: cookie, seconds: 1)  // warm-up
        let one = wrk(url, clients: 1, header: cookie, seconds: 3)
        let sixteen = wrk(url, clients: 16, header: cookie, seconds: 3)
        // The same page as a static file, served by Python's threading http.server.
        let site = work.appendingPathComponent("ledger-site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let page = try LoopbackHTTP.get(port: server.port, path: "/regimen/ledger", session: server.key)
        try page.body.write(to: site.appendingPathComponent("ledger.html"))
        var staticFile: WrkFigures?
        if let server = try? ServedProcess(python: python, site: site, environment: environment) {
            staticFile = wrk("http://127.0.0.1:\(server.port)/ledger.html", clients: 16, header: nil, seconds: 3)
            server.stop()
        }
        let ratio = one.requestsPerSecond > 0 ? sixteen.requestsPerSecond / one.requestsPerSecond : 0
        print(
            String(
                format: "    /regimen/ledger (%d KiB), wrk: 1 client %.0f req/s (p99 %.1f ms); 16 clients %.0f req/s (p99 %.1f ms)",
                page.body.count / 1024, one.requestsPerSecond, one.p99 * 1000, sixteen.requestsPerSecond, sixteen.p99 * 1000))
        if let staticFile {
            print(
                String(
                    format: "      anchor: the same page as a static file (python3 -m http.server), 16 clients: %.0f req/s (p99 %.1f ms)",
                    staticFile.requestsPerSecond, staticFile.p99 * 1000))
        }
        print(String(format: "      16 clients / 1 client: %.2fx   target >= 1.6x   %@", ratio, ratio >= 1.6 ? "met" : "NOT met"))
        return ratio >= 1.6
    }

    // MARK: helpers

    /// Prints a row: the cairn medians, the anchor's and their ratio on `key` against `ratioTarget` (when given).
    func report(
        _ row: ProcessBench.Row, anchor: String?, missing: String, ratioTarget: Double?,
        on key: KeyPath<ProcessBench.Sample, Double>
    ) -> Bool {
        print(
            String(
                format: "    %-44@ wall %7.1f ms  CPU %7.1f ms", row.name as NSString,
                median(row.cairn.map(\.wall)) * 1000, median(row.cairn.map(\.cpu)) * 1000))
        guard let anchor, !row.anchor.isEmpty else {
            print("      anchor skipped: missing \(missing)")
            return true
        }
        let ratio = median(row.cairn.map { $0[keyPath: key] }) / max(median(row.anchor.map { $0[keyPath: key] }), 1e-6)
        let what = key == \ProcessBench.Sample.cpu ? "CPU" : "wall"
        var line = String(
            format: "      anchor: %-36@ wall %7.1f ms  CPU %7.1f ms   %@ ratio %.2fx", anchor as NSString,
            median(row.anchor.map(\.wall)) * 1000, median(row.anchor.map(\.cpu)) * 1000, what as NSString, ratio)
        var met = true
        if let ratioTarget {
            met = ratio <= ratioTarget
            line += String(format: "   target <= %.1fx   %@", ratioTarget, met ? "met" : "NOT met")
        }
        print(line)
        return met
    }

    /// Runs a process to its end with the bench's environment (`time(_:_:environment:)`).
    func time(_ executable: String, _ arguments: [String]) throws -> ProcessBench.Sample {
        try ProcessBench.time(executable, arguments, environment: environment)
    }

    /// Runs a process to its end, its output discarded; its wall and CPU seconds (the child's own rusage, from
    /// wait4). Throws when it exits non-zero. (posix_spawn and wait4 directly: Foundation's Process notices an exit
    /// only at its next 50 ms poll, which rounds every wall time up to the next 50 ms.)
    static func time(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> ProcessBench.Sample {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else {
            throw BenchArgumentError(message: "could not start \(executable)")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            throw BenchArgumentError(
                message: "\((executable as NSString).lastPathComponent) \(arguments.prefix(4).joined(separator: " ")) exited with status \(code)")
        }
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return ProcessBench.Sample(wall: wall, cpu: cpu)
    }

    /// Wall time from the spawn to the first answered request, and the server's CPU until then; stops it.
    func firstAnswer(of server: ServedProcess) throws -> ProcessBench.Sample {
        defer { server.stop() }
        let path = server.key.isEmpty ? "/" : "/?key=\(server.key)"
        let response = try LoopbackHTTP.get(port: server.port, path: path, session: nil)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - server.started) / 1e9
        guard response.status > 0 else { throw BenchArgumentError(message: "no answer") }
        return ProcessBench.Sample(wall: wall, cpu: ProcessCPU.cpuSeconds(of: server.process.processIdentifier))
    }

    struct WrkFigures {
        var requestsPerSecond: Double
        var p99: Double
    }

    func wrk(_ url: String, clients: Int, header: String?, seconds: Int) -> WrkFigures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments =
            ["-t", "\(min(clients, 2))", "-c", "\(clients)", "-d", "\(seconds)s", "--latency"]
            + (header.map { ["-H", $0] } ?? []) + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return WrkFigures(requestsPerSecond: 0, p99: 0) }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var figures = WrkFigures(requestsPerSecond: 0, p99: 0)
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("Requests/sec:"), let value = words.last.flatMap({ Double($0) }) { figures.requestsPerSecond = value }
            if words.first == "99%", let value = words.last { figures.p99 = Self.wrkSeconds(String(value)) }
            if line.contains("Non-2xx") { print("      wrk: \(line.trimmingCharacters(in: .whitespaces))") }
        }
        return figures
    }

    static func wrkSeconds(_ text: String) -> Double {
        for (suffix, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0)] where text.hasSuffix(suffix) {
            return (Double(text.dropLast(suffix.count)) ?? 0) * scale
        }
        return 0
    }

    func tools(_ names: String...) -> Bool {
        names.allSatisfy { FileManager.default.isExecutableFile(atPath: "/usr/bin/\($0)") }
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    func load() -> String {
        var load = [Double](repeating: 0, count: 3)
        return getloadavg(&load, 3) == 3 ? String(format: "%.2f", load[0]) : "unknown"
    }

}

extension ProcessBench.Sample {
    mutating func add(_ other: ProcessBench.Sample) {
        wall += other.wall
        cpu += other.cpu
    }
}

/// A server child (`cairn serve --port 0`, or Python's http.server on a free port) with its port, read from the
/// first line it prints.
final class ServedProcess {
    let process = Process()
    let started: UInt64
    private(set) var port: UInt16 = 0
    private(set) var key = ""

    /// `global` goes before `serve` (`--vault-passphrase-file FILE` to unlock at start).
    init(cairn: String, vault: URL, environment: [String: String], global: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: cairn)
        process.arguments = ["--data-dir", vault.path] + global + ["serve", "--port", "0"]
        started = try Self.launch(process, environment: environment)
        let text = try readLine(containing: "key=")
        guard let portRange = text.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression),
            let keyRange = text.range(of: #"key=[A-Za-z0-9_-]+"#, options: .regularExpression)
        else {
            stop()
            throw BenchArgumentError(message: "cairn serve printed no address")
        }
        port = UInt16(text[portRange].split(separator: ":")[1]) ?? 0
        key = String(text[keyRange].dropFirst(4))
    }

    init(python: String, site: URL, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", site.path]
        started = try Self.launch(process, environment: environment)
        let text = try readLine(containing: "port ")
        guard let range = text.range(of: #"port \d+"#, options: .regularExpression) else {
            stop()
            throw BenchArgumentError(message: "python3 http.server printed no port")
        }
        port = UInt16(text[range].dropFirst(5)) ?? 0
    }

    private static func launch(_ process: Process, environment: [String: String]) throws -> UInt64 {
        process.environment = environment
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        let started = DispatchTime.now().uptimeNanoseconds
        try process.run()
        return started
    }

    private func readLine(containing needle: String) throws -> String {
        guard let pipe = process.standardOutput as? Pipe else { return "" }
        var text = ""
        while !text.contains(needle) || !text.contains("\n") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

extension LoopbackHTTP {
    /// A GET on 127.0.0.1:`port` and its answer.
    static func get(port: UInt16, path: String, session: String?) throws -> RawResponse {
        let socket = try LoopbackSocket(port: port, timeoutSeconds: 30)
        socket.send(raw("GET", path, port: port, session: session))
        return try socket.receive()
    }
}
