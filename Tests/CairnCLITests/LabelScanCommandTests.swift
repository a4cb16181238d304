import CairnCLI
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Testing

/// `cairn regimen scan --confirm` and `products add|edit`: nothing flagged is saved before the person decides.
@Suite(.serialized) struct LabelScanCommandTests {
    /// A label with a row the catalogue does not know (flagged), two it knows, and a warning that is no ingredient.
    static let panel = """
        <b><span size="x-large">Supplement Facts</span></b>
        Serving Size 1 Capsule
        Zinc (as zinc gluconate)                   15 mg         136%
        Zorbexin Complex                            50 mg             †
        Vitamin C (as ascorbic acid)        200 mg        222%
        KEEP OUT OF REACH OF CHILDREN. Consult your physician.
        """

    struct Scene {
        let dir: URL
        var vault: String { dir.appendingPathComponent("vault").path }
        var photo: String { dir.appendingPathComponent("label.jpg").path }
        let environment = ["CAIRN_NOW": "2026-03-10T12:00:00Z", "TZ": "UTC"]

        func run(_ words: String...) -> CLIRun { cairn(["--data-dir", vault, "regimen"] + words, environment: environment) }
        func products() throws -> [[String: Any]] {
            let listed = run("products", "list", "--json")
            return try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        }
        func names(_ product: [String: Any]) -> [String] {
            (product["ingredients"] as? [[String: Any]] ?? []).compactMap { $0["nameOnLabel"] as? String }
        }
    }

    static func withScene(_ body: (Scene) throws -> Void) throws {
        try withTemporaryDirectory { dir throws in
            let scene = Scene(dir: dir)
            try ImagePipeline().encodeJPEG(TextRenderer.render(panel, font: "DejaVu Sans 15"), quality: 92)
                .write(to: URL(fileURLWithPath: scene.photo))
            try body(scene)
        }
    }

    /// The number of the proposed row whose name starts with `prefix`.
    static func rowNumber(_ scene: Scene, _ prefix: String) throws -> Int {
        let proposal = try #require(try JSONSerialization.jsonObject(with: Data(scene.run("scan", scene.photo).stdout.utf8)) as? [String: Any])
        let rows = try #require(proposal["rows"] as? [[String: Any]])
        let row = try #require(rows.first { ($0["nameOnLabel"] as? String)?.hasPrefix(prefix) == true }, "\(rows)")
        return try #require(row["number"] as? Int)
    }

    /// In this suite: its other tests scan on their own in this process (one libvips thread, `startForOnePhoto`).
    @Test func aScanSentToARunningServerLeavesTheServersImageThreadsAsTheyWere() throws {
        try Self.withScene { scene in
            let served = try InProcessServer(vault: URL(fileURLWithPath: scene.vault))
            defer { served.stop() }
            try OCRPreprocessing.useWorkerThreads(3)
            let scan = cairn(["--data-dir", served.directory, "regimen", "scan", scene.photo])
            #expect(scan.status == 0, "\(scan.stderr)")
            #expect(served.commandsRun == 1, "it ran in the server")
            // On its own, `cairn regimen scan` keeps libvips to one thread for its one photo; a server must not.
            #expect(try OCRPreprocessing.workerThreads == 3)
        }
    }

    @Test func aScanOnItsOwnEnlargesOnTwoThreadsAndLeavesLibvipsOnOne() throws {
        try Self.withScene { scene throws in
            let scan = scene.run("scan", scene.photo)
            #expect(scan.status == 0, "\(scan.stderr)")
            // The enlargement (the small print here is enlarged) takes two threads for itself, then gives them back.
            #expect(try OCRPreprocessing.workerThreads == 1)
        }
    }

    /// `cairn regimen scan` of a photo it cannot read, in a process of its own (Tesseract starts beside the photo's
    /// preparation and the refusal ends the process): Cairn's one line on stderr, nothing from Tesseract or
    /// Leptonica ("WARNING! LEAK!" was printed when the process ended while Tesseract was still starting).
    @Test func anUnreadablePhotoGivesCairnsErrorAndNoLibraryNoise() throws {
        let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/cairn")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the cairn binary first: swift build")
        try Self.withScene { scene throws in
            let text = scene.dir.appendingPathComponent("note.jpg")
            try Data("not a photo at all\n".utf8).write(to: text)
            let cut = scene.dir.appendingPathComponent("cut.jpg")
            let photo = try Data(contentsOf: URL(fileURLWithPath: scene.photo))
            try photo.prefix(photo.count / 3).write(to: cut)
            for file in [text, cut] {
                let process = Process()
                process.executableURL = binary
                process.arguments = ["--data-dir", scene.vault, "regimen", "scan", file.path]
                process.environment = scene.environment.merging(["PATH": "/usr/bin:/bin", "OMP_THREAD_LIMIT": "1"]) { a, _ in a }
                let out = Pipe()
                let err = Pipe()
                process.standardOutput = out
                process.standardError = err
                try process.run()
                let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                _ = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 1, "\(file.lastPathComponent): \(stderr)")
                let lines = stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("cairn: The photo cannot be read: "), "\(file.lastPathComponent): \(stderr)")
            }
        }
    }

    @Test func confirmRefusesWhileAFlaggedRowIsUndecidedAndNamesIt() throws {
        try Self.withScene { scene in
            let number = try Self.rowNumber(scene, "Zorbexin")
            let refused = scene.run("scan", scene.photo, "--confirm", "--name", "Night", "--form", "capsule")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("Row \(number) is flagged"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--accept N"))
            #expect(try scene.products().isEmpty, "nothing saved")
        }
    }

    @Test func acceptOrLeaveOutDecidesARowAndTheWarningIsNeverSaved() throws {
        try Self.withScene { scene in
            let number = try Self.rowNumber(scene, "Zorbexin")
            let saved = scene.run("scan", scene.photo, "--confirm", "--name", "Night", "--form", "capsule", "--accept", "\(number)")
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(saved.stderr.contains("Left out, not ingredients"))
            let product = try #require(try scene.products().first)
            #expect(scene.names(product).contains("Zorbexin Complex"))
            #expect(!scene.names(product).contains { $0.uppercased().contains("KEEP OUT") }, "no junk row saved")

            let second = scene.run("scan", scene.photo, "--confirm", "--name", "Night 2", "--form", "capsule", "--leave-out", "\(number)")
            #expect(second.status == 0, "\(second.stderr)")
            let without = try #require(try scene.products().first { $0["name"] as? String == "Night 2" })
            #expect(!scene.names(without).contains("Zorbexin Complex"))
        }
    }

    @Test func onATerminalScanAsksAboutEachFlaggedRow() throws {
        try Self.withScene { scene in
            let words = ["--data-dir", scene.vault, "regimen", "scan", scene.photo, "--confirm", "--name", "Asked", "--form", "capsule"]
            // Edit the unknown row into a known one (Magnesium), keeping its amount.
            let (edited, questions) = cairn(words, environment: scene.environment, answers: ["e", "Magnesium", "", "", ""])
            #expect(edited.status == 0, "\(edited.stderr)")
            #expect(questions.first?.contains("[a/e/l]") == true)
            let product = try #require(try scene.products().first)
            #expect(scene.names(product).contains("Magnesium"))
            #expect(!scene.names(product).contains("Zorbexin Complex"))

            let (unanswered, _) = cairn(words, environment: scene.environment, answers: [])
            #expect(unanswered.status == 1, "input ended: nothing saved")
            #expect(try scene.products().count == 1)
        }
    }

    @Test func manualAmountsGoThroughTheSameChecksAsScannedOnes() throws {
        try withTemporaryDirectory { dir throws in
            let scene = Scene(dir: dir)
            let refused = scene.run("products", "add", "D3", "--form", "softgel", "Vitamin D3=1,000,000 IU")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("Above the upper limit"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--accept 1"))
            #expect(try scene.products().isEmpty)

            let accepted = scene.run("products", "add", "D3", "--form", "softgel", "Vitamin D3=1,000,000 IU", "--accept", "1")
            #expect(accepted.status == 0, "\(accepted.stderr)")
            // An edit that keeps the accepted row passes; a changed flagged row needs its own --accept.
            #expect(scene.run("products", "edit", "D3", "--name", "D3 high").status == 0)
            let changed = scene.run("products", "edit", "D3 high", "Vitamin D3=2,000,000 IU", "Zinc=15 mg")
            #expect(changed.status == 1)
            #expect(changed.stderr.contains("Row 1 is flagged"))
            #expect(scene.run("products", "edit", "D3 high", "Vitamin D3=2,000,000 IU", "Zinc=15 mg", "--accept", "1").status == 0)
        }
    }
}
