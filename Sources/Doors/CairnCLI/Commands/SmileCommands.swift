import CairnApp
import CairnCore
import Foundation
import Imaging
import PhotoMetadata
import Smile

/// The `cairn smile` group: add photos, list entries, export one crop, compare two.
enum SmileCommands {
    /// The group as `CairnCommandLine.commands` lists it.
    static var group: CommandGroup {
        CommandGroup(
            name: "smile", abstract: "Smile journal: mouth crops of your smile, to compare over time.",
            children: [
                .command(SmileAddCommand.self),
                .command(SmileListCommand.self),
                .command(SmileExportCommand.self),
                .command(SmileCompareCommand.self),
                .command(SmileDeleteCommand.self),
                .command(SmileReportCommand.self),
            ])
    }

    /// Writes `data` to `path` as a 0600 file unless a file is there (and `force` is off); never through a
    /// partial file (`OutputFile`).
    static func write(_ data: Data, to path: String, force: Bool) throws {
        try OutputFile.write(data, to: path, replace: force)
    }

    /// "1.2 MB" / "85 KB".
    static func size(_ bytes: Int) -> String {
        bytes >= 1_000_000 ? String(format: "%.1f MB", Double(bytes) / 1_000_000) : "\(max(1, (bytes + 500) / 1000)) KB"
    }
}

/// Why an output file was not written.
/// Some files of `smile add` were not stored (their results were printed).
struct SmileAddIncomplete: CairnError {
    let notStored: Int
    let total: Int
    var userMessage: String { "\(notStored) of \(total) photos were not added (see the result for each file above)." }
}

/// `cairn smile add FILE...`
struct SmileAddCommand: Command {
    static let name = "add"
    static let abstract = "Add photos of your smile: each is cropped to the mouth and only the crop is kept."
    static let synopsis = "FILE|FOLDER..."
    static let discussion = """
        Each photo is read into memory, the mouth is found (face landmarks, else lip colour) and a \(SmileService.cropSide)x\(SmileService.cropSide) \
        square crop is stored, with the capture date from the photo and which method found the mouth. The photo
        itself is never stored. A folder adds the images directly inside it, in name order.

        A square is stored without asking only when the method that found it is confident: face landmarks with
        plausible lips, a mouth not open wide, a face found upright, the whole mouth inside the square and no eye
        near it. Otherwise (lip colour, a wide-open mouth, a face on its side, a square the photo's edge or the
        eyes pushed) the suggested square is shown with the reasons and, at a terminal, you are asked to keep
        it, skip the photo or type your own square. Without a terminal nothing is stored for that photo: give --square, or use the web page, which
        shows the square on your photo. A square holding an eye is never stored.

        Result for each file: ok, needs a manual crop (nothing stored: give --square for that file, or use the
        web page to place the square), or not an image.
        """

    static let note = Option("--note", "TEXT", help: "A note for every entry added.")
    static let square = Option(
        "--square", "X,Y,SIDE",
        help:
            "Place the crop square yourself (one file only): its top-left corner and side, in the\nphoto's pixels as it is meant to be seen (after rotation)."
    )
    static let json = Option(
        "--json",
        help:
            "Print one result per file as JSON: outcome, detector, the crop square in the\nphoto's pixels, the photo's size, why the square needed a check (checkReasons),\nand the other faces when there were several."
    )
    static let options: [Option] = [note, square, json]

    let inputs: [String]
    let note: String
    let square: CropSquare?
    let json: Bool

    init(arguments: Arguments) throws {
        inputs = arguments.positionals.map(arguments.filePath)
        guard !inputs.isEmpty else { throw UsageError("Missing FILE.") }
        note = arguments.value(Self.note) ?? ""
        json = arguments.has(Self.json)
        if let text = arguments.value(Self.square) {
            guard let parsed = Self.parseSquare(text) else {
                throw UsageError("--square takes X,Y,SIDE: three whole numbers, e.g. --square 820,1410,600.")
            }
            square = parsed
        } else {
            square = nil
        }
    }

    /// `X,Y,SIDE` (whole numbers, X and Y at least 0, SIDE above 0), or nil.
    static func parseSquare(_ text: String) -> CropSquare? {
        let parts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let side = parts[2], x >= 0, y >= 0, side > 0 else { return nil }
        return CropSquare(x: x, y: y, side: side)
    }

    func run(in context: CommandContext) throws {
        let files = try expand(inputs)
        if square != nil, files.count != 1 {
            throw UsageError("--square places the square in one photo: give exactly one file.")
        }
        let app = try context.openApplication()
        var results: [SmileAddResult] = []
        for (index, file) in files.enumerated() {
            let result = add(file, with: app.smile, console: context.console)
            results.append(result)
            if !json { context.console.print(result.line) }
            if files.count > 1 { context.console.error(Self.progressBar(done: index + 1, of: files.count)) }
        }
        if json { try context.console.printJSON(results) }
        let failed = results.filter { $0.outcome != .ok }.count
        if failed > 0 { throw SmileAddIncomplete(notStored: failed, total: results.count) }
    }

    /// `Progress [########------------] 2/5` (20 cells).
    static func progressBar(done: Int, of total: Int) -> String {
        let cells = 20
        let filled = total == 0 ? cells : done * cells / total
        return "Progress [" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "] \(done)/\(total)"
    }

    /// Files as given; a folder becomes its regular files directly inside (hidden ones skipped), sorted.
    private func expand(_ inputs: [String]) throws -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
                for name in names.sorted() where !name.hasPrefix(".") {
                    let path = (input as NSString).appendingPathComponent(name)
                    var sub: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &sub), !sub.boolValue { files.append(path) }
                }
            } else {
                files.append(input)
            }
        }
        return files
    }

    private func add(_ file: String, with smile: SmileService, console: Console) -> SmileAddResult {
        let name = (file as NSString).lastPathComponent
        let analysis: SmileAnalysis
        do {
            analysis = try smile.analyse(fileAt: file)
        } catch let error as CairnError {
            return SmileAddResult(file: name, outcome: .notAnImage, message: error.userMessage)
        } catch {
            return SmileAddResult(file: name, outcome: .notAnImage, message: "The file is not an image Cairn can read.")
        }
        var result = SmileAddResult(file: name, analysis: analysis)
        var chosen = square
        if chosen == nil, analysis.proposalIsUncertain, let proposal = analysis.proposedSquare, console.canAsk {
            guard let checked = Self.check(proposal, of: analysis, file: name, console: console) else {
                result.message = "Skipped at your answer. Nothing was stored."
                return result
            }
            chosen = checked
        }
        do {
            let entry = try smile.confirm(analysis, square: chosen, note: note)
            result.outcome = .ok
            result.entry = entry.id.rawValue
            result.detector = entry.source.rawValue
            result.square = SquareJSON(entry.square)
            result.captureDate = entry.captureDate?.localDateTime
            result.message = "Added as \(entry.shortID) (\(entry.source.label))."
        } catch SmileError.uncertainProposal(let doubts) {
            result.outcome = .needsManualCrop
            result.message =
                SmileError.uncertainProposal(doubts).userMessage
                + " Nothing was stored: there is no terminal to ask at. To keep the suggested square, add it again with --square "
                + (result.square.map { "\($0.x),\($0.y),\($0.side)" } ?? "X,Y,SIDE") + ", or add the photo on the web page to see the square."
        } catch SmileError.needsManualCrop(let reason) {
            result.outcome = .needsManualCrop
            result.message = reason.userMessage + " Nothing was stored; add it again with --square X,Y,SIDE."
        } catch let error as CairnError {
            result.outcome = .needsManualCrop
            result.message = error.userMessage
        } catch {
            result.outcome = .needsManualCrop
            result.message = "The crop could not be stored. Nothing was changed."
        }
        return result
    }
}

extension SmileAddCommand {
    /// The crop check at a terminal: shows the proposal and why it needs a look, then asks to keep it, skip the photo
    /// or type another square (checked to lie inside the photo and hold no eye). Nil: skip (or input ended).
    static func check(_ proposal: CropSquare, of analysis: SmileAnalysis, file: String, console: Console) -> CropSquare? {
        console.error("")
        console.error("\(file): the suggested square needs your check before it is kept.")
        for doubt in analysis.doubts { console.error("  \(doubt.userMessage)") }
        console.error(
            "  Suggested square: left \(proposal.x), top \(proposal.y), side \(proposal.side), in the photo's \(analysis.sourceWidth)x\(analysis.sourceHeight) pixels."
        )
        console.error("  To see it on your photo, add the photo on the web page instead (cairn serve).")
        while true {
            guard
                let answer = console.ask("Keep the suggested square, skip this photo, or type your own square? [y/n/X,Y,SIDE]")?
                    .trimmingCharacters(in: .whitespaces).lowercased()
            else { return nil }
            switch answer {
            case "y", "yes", "keep": return proposal
            case "n", "no", "skip", "": return nil
            default:
                guard let typed = parseSquare(answer) else {
                    console.error("Answer y (keep), n (skip), or three whole numbers: left, top and side, e.g. 820,1410,600.")
                    continue
                }
                guard typed.fits(width: analysis.sourceWidth, height: analysis.sourceHeight) else {
                    console.error(SmileError.squareOutsidePhoto.userMessage)
                    continue
                }
                guard !analysis.holdsAnEye(typed) else {
                    console.error(SmileError.squareHoldsAnEye.userMessage)
                    continue
                }
                return typed
            }
        }
    }
}

/// A crop square as JSON.
struct SquareJSON: Encodable, Equatable {
    let x: Int, y: Int, side: Int
    init(_ s: CropSquare) {
        x = s.x
        y = s.y
        side = s.side
    }
}

/// One file's result of `smile add`.
struct SmileAddResult: Encodable {
    enum Outcome: String, Encodable {
        case ok
        case needsManualCrop = "needs-manual-crop"
        case notAnImage = "not-an-image"
    }
    struct Face: Encodable {
        let detector: String
        let square: SquareJSON
        let confidence: Double
    }
    let file: String
    var outcome: Outcome
    var message: String
    /// The new entry's id when stored.
    var entry: String?
    /// Who placed the stored square (`landmarks`, `colour`, `manual`), or what the cascade found.
    var detector: String?
    /// The crop square in the photo's upright pixels: stored, or proposed.
    var square: SquareJSON?
    /// How sure the step was, 0-1 (landmarks: 1; information only).
    var confidence: Double?
    /// Why the proposal needed the person's check (`MouthDoubt` names); empty when it was confident.
    var checkReasons: [String] = []
    var photoWidth: Int?
    var photoHeight: Int?
    var captureDate: String?
    /// Further faces when there were several (the largest was used).
    var otherFaces: [Face] = []

    init(file: String, outcome: Outcome, message: String) {
        self.file = file
        self.outcome = outcome
        self.message = message
    }

    init(file: String, analysis: SmileAnalysis) {
        self.file = file
        outcome = .needsManualCrop
        message = analysis.message
        detector = analysis.location.chosen.map { SmileCropSource($0.detector).rawValue }
        square = analysis.proposedSquare.map(SquareJSON.init)
        confidence = analysis.location.chosen?.confidence
        checkReasons = analysis.doubts.map(\.rawValue)
        photoWidth = analysis.sourceWidth
        photoHeight = analysis.sourceHeight
        captureDate = analysis.captureDate?.localDateTime
        otherFaces = analysis.candidates.dropFirst().map {
            Face(detector: SmileCropSource($0.detector).rawValue, square: SquareJSON($0.square), confidence: $0.confidence)
        }
    }

    var line: String {
        let word: String
        switch outcome {
        case .ok: word = "ok"
        case .needsManualCrop: word = "needs a manual crop"
        case .notAnImage: word = "not an image"
        }
        var text = "\(file): \(word). \(message)"
        if let square, outcome == .ok {
            text += " Square \(square.x),\(square.y),\(square.side)" + (photoWidth.map { " in \($0)x\(photoHeight ?? 0)." } ?? ".")
        }
        if !otherFaces.isEmpty {
            text += " Other faces: " + otherFaces.map { "\($0.square.x),\($0.square.y),\($0.square.side)" }.joined(separator: "; ") + "."
        }
        return text
    }
}

/// `cairn smile list`
struct SmileListCommand: Command {
    static let name = "list"
    static let abstract = "List your smile entries, oldest first."
    static let json = Option("--json", help: "Print the entries as JSON (with the full IDs and crop squares).")
    static let options: [Option] = [json]

    let json: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(Self.json)
    }

    struct Item: Encodable {
        let id: String, captureDate: String?, added: String, note: String, detector: String
        let square: SquareJSON, photoWidth: Int, photoHeight: Int, cropBytes: Int
    }

    func run(in context: CommandContext) throws {
        let entries = try context.openApplication().smile.entries()
        if json {
            try context.console.printJSON(
                entries.map {
                    Item(
                        id: $0.id.rawValue, captureDate: $0.captureDate?.localDateTime, added: Timestamp.string(from: $0.createdAt),
                        note: $0.note, detector: $0.source.rawValue, square: SquareJSON($0.square), photoWidth: $0.sourceWidth,
                        photoHeight: $0.sourceHeight, cropBytes: $0.photo.byteCount)
                })
            return
        }
        guard !entries.isEmpty else {
            context.console.print("No smile entries yet. Add one with: cairn smile add PHOTO")
            return
        }
        for e in entries {
            let date = e.displayDate.padding(toLength: 18, withPad: " ", startingAt: 0)
            let source = e.source.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            context.console.print("\(e.shortID)  \(date)\(source)\(SkinCommands.noteLine(e.note))")
        }
    }
}

/// `cairn smile export ID --out PATH`
struct SmileExportCommand: Command {
    static let name = "export"
    static let abstract = "Write one smile crop to a file, exactly as stored."
    static let synopsis = "ID"
    static let discussion = """
        Writes the stored crop's bytes unchanged (no re-encoding); it carries no metadata (checked before writing).
        """
    static let out = Option("--out", "PATH", help: "The file to write.", required: true)
    static let force = Option("--force", help: "Replace a file already at PATH.")
    static let options: [Option] = [out, force]

    let id: String, out: String, force: Bool

    init(arguments: Arguments) throws {
        id = try arguments.positionals(exactly: ["ID"])[0]
        guard let out = arguments.value(Self.out), !out.isEmpty else { throw UsageError("Missing --out PATH.") }
        self.out = arguments.filePath(out)
        force = arguments.has(Self.force)
    }

    func run(in context: CommandContext) throws {
        let smile = try context.openApplication().smile
        let export = try smile.export(try smile.entry(matching: Arguments.parse(id, as: IdentifierPrefix.self, naming: "ID")))
        guard export.containsNoMetadata else { throw SmileError.outputNotClean }
        try SmileCommands.write(export.jpeg, to: out, force: force)
        context.console.print(
            "Wrote \(out): \(SmileService.cropSide)x\(SmileService.cropSide) JPEG, \(export.jpeg.count) bytes (\(SmileCommands.size(export.jpeg.count))), no metadata (checked)."
        )
    }
}

/// `cairn smile compare A B --out PATH`
struct SmileCompareCommand: Command {
    static let name = "compare"
    static let abstract = "Write two smile crops side by side into a new JPEG (not stored in Cairn)."
    static let synopsis = "A B"
    static let discussion = """
        A goes on the left, B on the right. The new picture carries no metadata (checked before writing).
        """
    static let out = Option("--out", "PATH", help: "The file to write, e.g. side-by-side.jpg.", required: true)
    static let force = Option("--force", help: "Replace a file already at PATH.")
    static let options: [Option] = [out, force]

    let a: String, b: String, out: String, force: Bool

    init(arguments: Arguments) throws {
        let ids = try arguments.positionals(exactly: ["A", "B"])
        a = ids[0]
        b = ids[1]
        guard let out = arguments.value(Self.out), !out.isEmpty else { throw UsageError("Missing --out PATH.") }
        self.out = arguments.filePath(out)
        force = arguments.has(Self.force)
    }

    func run(in context: CommandContext) throws {
        let smile = try context.openApplication().smile
        let jpeg = try smile.sideBySide(
            try smile.entry(matching: Arguments.parse(a, as: IdentifierPrefix.self, naming: "ID")),
            try smile.entry(matching: Arguments.parse(b, as: IdentifierPrefix.self, naming: "ID")))
        try SmileCommands.write(jpeg, to: out, force: force)
        let width = 2 * SmileService.cropSide + SmileService.sideBySideGap
        context.console.print(
            "Wrote \(out): \(width)x\(SmileService.cropSide) JPEG, \(jpeg.count) bytes (\(SmileCommands.size(jpeg.count))), no metadata (checked).")
    }
}

/// `cairn smile delete ID --yes`
struct SmileDeleteCommand: Command {
    static let name = "delete"
    static let abstract = "Delete one smile entry and its crop (asks for --yes)."
    static let synopsis = "ID"
    static let yes = Option("--yes", help: "Confirm that the entry and its crop are to be deleted.", required: true)
    static let options: [Option] = [yes]

    let id: String, confirmed: Bool

    init(arguments: Arguments) throws {
        id = try arguments.positionals(exactly: ["ID"])[0]
        confirmed = arguments.has(Self.yes)
    }

    func run(in context: CommandContext) throws {
        let smile = try context.openApplication().smile
        let entry = try smile.entry(matching: Arguments.parse(id, as: IdentifierPrefix.self, naming: "ID"))
        guard confirmed else {
            throw UsageError("This deletes the smile entry of \(entry.displayDate) and its crop; it cannot be undone. Add --yes to confirm.")
        }
        try smile.delete(entry.id)
        context.console.print("Deleted the smile entry of \(entry.displayDate).")
    }
}
