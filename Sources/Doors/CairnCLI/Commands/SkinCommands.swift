import CairnApp
import CairnCore
import Foundation
import Skin

/// `cairn skin ...`: the Skin journal from the command line.
enum SkinCommands {
    /// The `skin` command group.
    static var group: CommandGroup {
        CommandGroup(
            name: "skin", abstract: "The Skin journal: areas, photos and how much they differ from the first one.",
            children: [
                .command(SkinAreasCommand.self), .command(SkinAddAreaCommand.self), .command(SkinRenameAreaCommand.self),
                .command(SkinDeleteAreaCommand.self), .command(SkinLogCommand.self), .command(SkinTimelineCommand.self),
                .command(SkinCompareCommand.self), .command(SkinNoteCommand.self), .command(SkinTrendCommand.self),
                .command(SkinDeleteEntryCommand.self),
                .command(SkinCompareBatchCommand.self), .command(SkinGenerateCommand.self), .command(SkinReportCommand.self),
            ])
    }

    /// What the help of a command taking ENTRY says about it.
    static let entryHelp = "ENTRY is a photo's identifier from 'cairn skin timeline' (its first characters are enough)."

    /// The flag that reveals raw scores (the same one the web settings page sets).

    /// "87%" (whole percent).
    static func percent(_ value: Double) -> String { "\(Int(value.rounded()))%" }

    /// One compact JSON line, keys sorted; format characters as JSON escapes (`Console.printJSON`).
    static func line<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Console.escapingFormatCharacters(json: String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A note on one terminal line, as every command prints one: line breaks shown as " / ", tabs as spaces, and
    /// any other control character (only notes written before notes were checked can hold one) as U+FFFD. (Format
    /// characters are shown as `<U+202E>` by `Console`, for everything the CLI prints.)
    static func noteLine(_ note: String) -> String {
        let lines = note.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            String(
                String.UnicodeScalarView(
                    line.unicodeScalars.map { scalar -> Unicode.Scalar in
                        if scalar == "\t" { return " " }
                        return scalar.properties.generalCategory == .control ? "\u{FFFD}" : scalar
                    }))
        }
        return lines.joined(separator: " / ")
    }

    static func entryID(_ text: String, in timeline: SkinTimeline) throws -> EntryID {
        let matches = timeline.items.filter { $0.entry.id.rawValue.hasPrefix(text.lowercased()) }
        guard !text.isEmpty, matches.count == 1 else { throw SkinJournalError.entryNotFound }
        return matches[0].entry.id
    }
}

/// A comparison figure as JSON: every similarity carries the disclaimer.
struct SkinFigureJSON: Encodable {
    let entry: String
    let baseline: String
    let capturedAt: String
    let comparable: Bool
    let similarity: Int?
    /// The figure's band in plain words (`SimilarityBand`), where there is a figure.
    let band: String?
    let notComparableReason: String?
    /// The raw score behind the figure (higher = more different), in every figure's JSON, as `compare-batch` gives it
    /// for two files.
    let score: Double
    /// What the figure covers (`SkinComparator.comparedRegionSentence`).
    let comparedRegion: String
    /// How much of the first photo was not compared, and why (`ComparisonDiagnostics.notComparedMessage`), where the
    /// comparison's details were read and 2% or more was left out.
    let notCompared: String?
    let disclaimer: String

    init(_ comparison: StoredComparison, capturedAt: Date, notCompared: String? = nil) {
        entry = comparison.entryID.rawValue
        baseline = comparison.baselineID.rawValue
        self.capturedAt = DateText.utc(capturedAt)
        comparable = comparison.comparable
        similarity = comparison.similarityPercent.map { Int($0.rounded()) }
        band = comparison.similarityPercent.map { SimilarityBand(similarityPercent: $0).sentence }
        notComparableReason = comparison.reasonNotComparable?.userMessage
        score = (comparison.rawScore * 10_000).rounded() / 10_000
        comparedRegion = SkinComparator.comparedRegionSentence
        self.notCompared = comparison.comparable ? notCompared : nil
        disclaimer = Disclaimer.similarity.text
    }
}

struct SkinAreasCommand: Command {
    static let name = "areas"
    static let readsOnly = true
    static let abstract = "List the areas."
    static let options: [Option] = [.json]

    let json: Bool
    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        json = arguments.has(.json)
    }

    func run(in context: CommandContext) throws {
        let areas = try context.openApplication().skin.areas()
        if json {
            struct Item: Encodable {
                let id: String
                let name: String
                let bodyLocation: String?
                let photos: Int
            }
            try context.console.printJSON(
                areas.map { Item(id: $0.area.id.rawValue, name: $0.area.name, bodyLocation: $0.area.bodyLocation, photos: $0.entryCount) })
            return
        }
        if areas.isEmpty {
            context.console.print("No areas yet. Add one with 'cairn skin add-area NAME'.")
            return
        }
        for a in areas {
            context.console.print("\(a.area.id.rawValue)  \(a.area.name)  (\(a.entryCount) photo\(a.entryCount == 1 ? "" : "s"))")
        }
    }
}

struct SkinAddAreaCommand: Command {
    static let name = "add-area"
    static let abstract = "Add an area to photograph."
    static let synopsis = "NAME"
    static let location = Option("--location", "TEXT", help: "Where on the body the area is, in your words.")
    static let guidance = Option("--guidance", "TEXT", help: "A note on how to take its photos (light, distance), shown when you capture one.")
    static let options: [Option] = [location, guidance]

    let name: String, location: String?, guidance: String
    init(arguments: Arguments) throws {
        name = try arguments.positionals(exactly: ["NAME"])[0]
        location = arguments.value(Self.location)
        guidance = arguments.value(Self.guidance) ?? ""
    }
    func run(in context: CommandContext) throws {
        let area = try context.openApplication().skin.addArea(name: name, bodyLocation: location, guidance: guidance)
        context.console.print("Added area \(area.id.rawValue).")
    }
}

struct SkinRenameAreaCommand: Command {
    static let name = "rename-area"
    static let abstract = "Rename an area."
    static let synopsis = "AREA NEW_NAME"
    let area: String, newName: String
    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["AREA", "NEW_NAME"])
        area = p[0]
        newName = p[1]
    }
    func run(in context: CommandContext) throws {
        let skin = try context.openApplication().skin
        try skin.renameArea(try skin.area(namedOnCommandLine: area).id, to: newName)
        context.console.print("Renamed.")
    }
}

struct SkinDeleteAreaCommand: Command {
    static let name = "delete-area"
    static let abstract = "Delete an area and every photo of it (asks for --yes)."
    static let synopsis = "AREA"
    static let yes = Option("--yes", help: "Confirm that the area and its photos are to be deleted.", required: true)
    static let options: [Option] = [yes]

    let area: String, confirmed: Bool
    init(arguments: Arguments) throws {
        area = try arguments.positionals(exactly: ["AREA"])[0]
        confirmed = arguments.has(Self.yes)
    }
    func run(in context: CommandContext) throws {
        let skin = try context.openApplication().skin
        let found = try skin.area(namedOnCommandLine: area)
        guard confirmed else {
            throw UsageError(
                "This removes the area and all \(try skin.timeline(of: found.id).items.count) of its photos and cannot be undone. Add --yes to confirm."
            )
        }
        try skin.deleteArea(found.id)
        context.console.print("Deleted the area and its photos.")
    }
}

struct SkinLogCommand: Command {
    static let name = "log"
    static let abstract = "Log a photo file of an area and compare it with the area's first photo."
    static let synopsis = "AREA PHOTO"
    static let note = Option("--note", "TEXT", help: "A note kept with the photo.")
    static let options: [Option] = [note, .json]

    let area: String, path: String, note: String, json: Bool
    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["AREA", "PHOTO"])
        area = p[0]
        path = arguments.filePath(p[1])
        note = arguments.value(Self.note) ?? ""
        json = arguments.has(.json)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let found = try app.skin.area(namedOnCommandLine: area)
        let entry = try app.skin.log(photo: about(path) { try InputFile.read(path) }, in: found.id, note: note)
        let view = try app.skin.comparison(of: entry.id, in: found.id)
        try SkinCompareCommand.show(view, details: try app.settings.flag(SettingFlag.showComparisonDetails), json: json, console: context.console)
    }
}

struct SkinTimelineCommand: Command {
    static let name = "timeline"
    static let readsOnly = true
    static let abstract = "List an area's photos, oldest first, with their similarity to the first one."
    static let synopsis = "AREA"
    static let options: [Option] = [.json]

    let area: String, json: Bool
    init(arguments: Arguments) throws {
        area = try arguments.positionals(exactly: ["AREA"])[0]
        json = arguments.has(.json)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let timeline = try app.skin.timeline(of: app.skin.area(namedOnCommandLine: area).id)
        let details = try app.settings.flag(SettingFlag.showComparisonDetails)
        if json {
            struct Item: Encodable {
                let entry: String
                let capturedAt: String
                let timeZone: String
                let note: String
                let isBaseline: Bool
                let comparison: SkinFigureJSON?
            }
            struct Output: Encodable {
                let area: String
                let entries: [Item]
                let disclaimer: String
            }
            try context.console.printJSON(
                Output(
                    area: timeline.area.id.rawValue,
                    entries: timeline.items.map { item in
                        Item(
                            entry: item.entry.id.rawValue, capturedAt: DateText.utc(item.entry.capturedAt), timeZone: item.entry.timeZone,
                            note: item.entry.note, isBaseline: item.isBaseline,
                            comparison: item.comparison.map { SkinFigureJSON($0, capturedAt: item.entry.capturedAt) })
                    }, disclaimer: Disclaimer.similarity.text))
            return
        }
        if timeline.items.isEmpty {
            context.console.print("No photos of this area yet.")
            return
        }
        for item in timeline.items {
            var figure = "first photo (the one others are compared with)"
            if let c = item.comparison {
                figure =
                    c.similarityPercent.map { "visual similarity \(SkinCommands.percent($0)) (\(SimilarityBand(similarityPercent: $0).label))" }
                    ?? "not comparable"
                if details { figure += String(format: " (raw score %.3f)", c.rawScore) }
            } else if !item.isBaseline {
                figure = "no comparison stored"
            }
            let note = item.entry.note.isEmpty ? "" : "  note: \(SkinCommands.noteLine(item.entry.note))"
            context.console.print(
                "\(item.entry.id.rawValue.prefix(8))  \(DateText.string(item.entry.capturedAt, .numericMinute, inZoneNamed: item.entry.timeZone))  \(figure)\(note)"
            )
        }
        if timeline.items.contains(where: { $0.comparison?.similarityPercent != nil }) {
            context.console.print(SkinComparator.comparedRegionSentence)
        }
        context.console.print(Disclaimer.similarity.text)
    }
}

struct SkinCompareCommand: Command {
    static let name = "compare"
    static let abstract = "Show how similar one photo of an area is to the area's first photo."
    static let synopsis = "AREA ENTRY"
    static let discussion = """
        \(SkinCommands.entryHelp)
        """
    static let options: [Option] = [.json]

    let area: String, entry: String, json: Bool
    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["AREA", "ENTRY"])
        area = p[0]
        entry = p[1]
        json = arguments.has(.json)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let found = try app.skin.area(namedOnCommandLine: area)
        let id = try SkinCommands.entryID(entry, in: app.skin.timeline(of: found.id))
        try Self.show(
            app.skin.comparison(of: id, in: found.id), details: try app.settings.flag(SettingFlag.showComparisonDetails),
            json: json, console: context.console)
    }

    static func show(_ view: SkinComparisonView, details: Bool, json: Bool, console: Console) throws {
        if json {
            struct Output: Encodable {
                let entry: String
                let isBaseline: Bool
                let comparison: SkinFigureJSON?
                let disclaimer: String
            }
            try console.printJSON(
                Output(
                    entry: view.entry.id.rawValue, isBaseline: view.isBaseline,
                    comparison: view.comparison.map {
                        SkinFigureJSON($0, capturedAt: view.entry.capturedAt, notCompared: view.details?.diagnostics.notComparedMessage)
                    },
                    disclaimer: Disclaimer.similarity.text))
            return
        }
        console.print(
            "Photo \(view.entry.id.rawValue) of \(DateText.string(view.entry.capturedAt, .numericMinute, inZoneNamed: view.entry.timeZone))")
        guard !view.isBaseline else {
            console.print("This is the area's first photo: the others are compared with it.")
            return
        }
        guard let c = view.comparison else {
            console.print("No comparison is stored for this photo.")
            return
        }
        if let s = c.similarityPercent {
            console.print("Visual similarity to the first photo: \(SkinCommands.percent(s))")
            console.print(SimilarityBand(similarityPercent: s).sentence)
            console.print(SkinComparator.comparedRegionSentence)
            if let partial = view.details?.diagnostics.partialColourMessage { console.print(partial) }
            if let left = view.details?.diagnostics.notComparedMessage { console.print(left) }
            if let slant = view.details?.alignment.perspectiveMessage { console.print(slant) }
        } else {
            console.print("Not comparable: \(c.reasonNotComparable?.userMessage ?? NotComparableReason.alignmentFailed.userMessage)")
        }
        if details { console.print(String(format: "Raw score: %.3f (higher means more different)", c.rawScore)) }
        console.print(Disclaimer.similarity.text)
    }
}

struct SkinNoteCommand: Command {
    static let name = "note"
    static let abstract = "Write, remove or list the note of one photo of an area."
    static let usage = "AREA ENTRY TEXT | AREA ENTRY --clear | AREA ENTRY --history"
    static let discussion = """
        \(SkinCommands.entryHelp)
        TEXT becomes the photo's note: at most \(TextInput.maximumNoteLength) characters; line breaks and tabs are kept,
        other control characters are refused. Put -- before a TEXT that starts with a dash.
        A new note takes the place of the current one, which stays recorded.
        """
    static let clear = Option("--clear", help: "Remove the photo's note (the removal is recorded too).")
    static let history = Option("--history", help: "List every version of the note, oldest first.")
    static let options: [Option] = [clear, history]

    enum Action: Equatable {
        case write(String)
        case clear, history
    }
    let area: String, entry: String, action: Action
    init(arguments: Arguments) throws {
        let clear = arguments.has(Self.clear)
        let history = arguments.has(Self.history)
        if clear || history {
            guard !(clear && history) else { throw UsageError("Use either --clear or --history, not both.") }
            let p = try arguments.positionals(exactly: ["AREA", "ENTRY"])
            area = p[0]
            entry = p[1]
            action = clear ? .clear : .history
            return
        }
        let p = try arguments.positionals(exactly: ["AREA", "ENTRY", "TEXT"])
        guard !p[2].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError("The note is empty. To remove a photo's note, use --clear.")
        }
        area = p[0]
        entry = p[1]
        action = .write(p[2])
    }
    func run(in context: CommandContext) throws {
        let skin = try context.openApplication().skin
        let found = try skin.area(namedOnCommandLine: area)
        let id = try SkinCommands.entryID(entry, in: skin.timeline(of: found.id))
        switch action {
        case .history:
            let versions = try skin.noteHistory(of: id, in: found.id)
            if versions.isEmpty {
                context.console.print("This photo has no note.")
                return
            }
            let zone = try skin.entry(id, in: found.id).timeZone
            for v in versions {
                let text = v.text.isEmpty ? "(note removed)" : SkinCommands.noteLine(v.text)
                context.console.print("\(DateText.string(v.recordedAt, .numericMinute, inZoneNamed: zone))  \(text)")
            }
        case .clear:
            let changed = try skin.setNote("", of: id, in: found.id)
            context.console.print(changed ? "Removed the note. Earlier notes stay in its history." : "This photo has no note.")
        case .write(let text):
            let changed = try skin.setNote(text, of: id, in: found.id)
            context.console.print(changed ? "Saved the note." : "The note is unchanged.")
        }
    }
}

struct SkinTrendCommand: Command {
    static let name = "trend"
    static let readsOnly = true
    static let abstract = "Show how much each photo of an area differs from the first one, over time."
    static let synopsis = "AREA"
    static let options: [Option] = [.json]

    let area: String, json: Bool
    init(arguments: Arguments) throws {
        area = try arguments.positionals(exactly: ["AREA"])[0]
        json = arguments.has(.json)
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let timeline = try app.skin.timeline(of: app.skin.area(namedOnCommandLine: area).id)
        if json {
            struct Point: Encodable {
                let entry: String
                let capturedAt: String
                let comparable: Bool
                let difference: Double?
            }
            struct Output: Encodable {
                let area: String
                let points: [Point]
                let disclaimer: String
            }
            try context.console.printJSON(
                Output(
                    area: timeline.area.id.rawValue,
                    points: timeline.items.map { item in
                        Point(
                            entry: item.entry.id.rawValue, capturedAt: DateText.utc(item.entry.capturedAt),
                            comparable: item.isBaseline || item.comparison?.comparable == true,
                            difference: item.isBaseline ? 0 : item.comparison?.magnitude)
                    }, disclaimer: Disclaimer.trend.text))
            return
        }
        if timeline.items.isEmpty {
            context.console.print("No photos of this area yet.")
            return
        }
        let width = 30
        context.console.print("Date              Similar " + String(repeating: " ", count: width - 8) + "Different")
        for item in timeline.items {
            let date = DateText.string(item.entry.capturedAt, .numericMinute, inZoneNamed: item.entry.timeZone)
            let magnitude = item.isBaseline ? 0 : item.comparison?.magnitude
            let bar = magnitude.map { "|" + String(repeating: "#", count: Int(($0 * Double(width)).rounded())) } ?? "  (not comparable)"
            context.console.print("\(date)  \(bar)")
        }
        context.console.print(Disclaimer.trend.text)
    }
}

struct SkinDeleteEntryCommand: Command {
    static let name = "delete-entry"
    static let abstract = "Delete one photo of an area (asks for --yes)."
    static let synopsis = "AREA ENTRY"
    static let yes = Option("--yes", help: "Confirm that the photo is to be deleted.", required: true)
    static let options: [Option] = [yes]

    let area: String, entry: String, confirmed: Bool
    init(arguments: Arguments) throws {
        let p = try arguments.positionals(exactly: ["AREA", "ENTRY"])
        area = p[0]
        entry = p[1]
        confirmed = arguments.has(Self.yes)
    }
    func run(in context: CommandContext) throws {
        let skin = try context.openApplication().skin
        let found = try skin.area(namedOnCommandLine: area)
        let id = try SkinCommands.entryID(entry, in: skin.timeline(of: found.id))
        let consequence = try skin.deletionConsequence(of: id, in: found.id)
        guard confirmed else { throw UsageError(consequence.message + " Add --yes to confirm.") }
        try skin.deleteEntry(id, in: found.id)
        context.console.print(
            "Deleted the photo."
                + (consequence.isBaseline && consequence.nextBaseline != nil
                    ? " The other photos are now compared with the next-oldest one." : ""))
    }
}

struct SkinCompareBatchCommand: Command {
    static let name = "compare-batch"
    static let abstract = "Compare pairs of image files listed in a TSV file, storing nothing."
    static let synopsis = "PAIRS.tsv"
    static let discussion = """
        Each line is: id<TAB>baseline<TAB>probe, with paths relative to the TSV file's folder. Prints one JSON line
        per pair: id, score (raw distance, higher = more different), similarity (0-100, null when not comparable),
        comparable, and the disclaimer. A pair that cannot be read gets an "error" instead.
        """
    let path: String
    init(arguments: Arguments) throws { path = arguments.filePath(try arguments.positionals(exactly: ["PAIRS.tsv"])[0]) }

    struct Line: Encodable {
        let id: String
        let score: Double?
        let similarity: Int?
        let comparable: Bool
        let reason: String?
        let error: String?
        let disclaimer: String

        private enum CodingKeys: String, CodingKey { case id, score, similarity, comparable, reason, error, disclaimer }

        /// `similarity` is always there, null when the pair is not comparable (as the help says); the other optional
        /// fields only when they have a value.
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encodeIfPresent(score, forKey: .score)
            if error == nil { try c.encode(similarity, forKey: .similarity) }
            try c.encode(comparable, forKey: .comparable)
            try c.encodeIfPresent(reason, forKey: .reason)
            try c.encodeIfPresent(error, forKey: .error)
            try c.encode(disclaimer, forKey: .disclaimer)
        }
    }

    func run(in context: CommandContext) throws {
        let text = String(decoding: try InputFile.read(path), as: UTF8.self)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let skin = try context.openApplication().skin
        for raw in text.split(whereSeparator: \.isNewline) where !raw.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = raw.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else {
                context.console.print(
                    try SkinCommands.line(
                        Line(
                            id: fields.first ?? "", score: nil, similarity: nil, comparable: false, reason: nil,
                            error: "A line needs three tab-separated fields: id, baseline, probe.",
                            disclaimer: Disclaimer.similarity.text)))
                continue
            }
            func file(_ name: String) -> String { name.hasPrefix("/") ? name : folder.appendingPathComponent(name).path }
            do {
                let result = try skin.compareFiles(baseline: InputFile.read(file(fields[1])), probe: InputFile.read(file(fields[2])))
                context.console.print(
                    try SkinCommands.line(
                        Line(
                            id: fields[0], score: (result.rawScore * 10_000).rounded() / 10_000,
                            similarity: result.comparable ? result.similarityPercent.map { Int($0.rounded()) } : nil,
                            comparable: result.comparable, reason: result.reasonNotComparable?.userMessage, error: nil,
                            disclaimer: Disclaimer.similarity.text)))
            } catch let problem as CairnError {
                context.console.print(
                    try SkinCommands.line(
                        Line(
                            id: fields[0], score: nil, similarity: nil, comparable: false, reason: nil,
                            error: problem.userMessage, disclaimer: Disclaimer.similarity.text)))
            }
        }
    }
}

struct SkinGenerateCommand: Command {
    static let name = "generate"
    static let abstract = "Add a reproducible series of synthetic demo photos to an area (created if missing)."
    static let area = Option("--area", "NAME", help: "The area to add the photos to (created if missing).", required: true)
    static let count = Option("--count", "N", help: "How many photos to add.", required: true)
    static let seed = Option("--seed", "S", help: "The seed: the same seed gives the same photos.", required: true)
    static let options: [Option] = [area, count, seed]

    let area: String, count: Int, seed: UInt64
    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        guard let area = arguments.value(Self.area), !area.isEmpty else { throw UsageError("--area needs a name.") }
        self.area = area
        guard arguments.value(Self.count) != nil else { throw UsageError("--count is required.") }
        count = try arguments.integer(Self.count, in: 1...2000, default: 1)
        seed = UInt64(try arguments.integer(Self.seed, in: 0...Int(Int32.max), default: 1))
    }
    func run(in context: CommandContext) throws {
        let app = try context.openApplication()
        let found = try (try? app.skin.area(named: area)) ?? app.skin.addArea(name: area, guidance: "Synthetic demo photos.")
        let entries = try SkinDemo.generate(count: count, seed: seed, into: found.id, service: app.skin, now: app.clock.now())
        context.console.print("Added \(entries.count) demo photo\(entries.count == 1 ? "" : "s") to the area.")
    }
}

extension SkinService {
    /// The area the command line names, its name in the refusal when there is none.
    func area(namedOnCommandLine name: String) throws -> TrackingArea {
        try about("Area \"\(name)\"") { try area(named: name) }
    }
}
