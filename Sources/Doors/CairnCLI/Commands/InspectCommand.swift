import CairnApp
import CairnCore
import Foundation
import PhotoMetadata

/// `cairn inspect FILE`: the metadata a JPEG or PNG carries, read by Cairn's own inspector.
struct InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "List the metadata (EXIF, GPS, XMP, comments, ...) a JPEG or PNG file carries."
    static let synopsis = "FILE"
    static let discussion = """
        Reads the file's markers or chunks with Cairn's own inspector and lists every kind of metadata in it,
        and for a JPEG every segment and byte its picture does not need (unknown segments such as DNL, bytes
        between segments, padding in the image data, restart markers out of place, unused tables, trailers).
        Nothing is stored. Every photo Cairn writes is checked the same way and carries at most a bare JFIF header.
        """

    static let json = Option("--json", help: "Print the report as JSON.")
    static let options: [Option] = [json]

    /// It never runs inside `cairn serve` (CommandForwarding): it opens no vault.
    var goesThroughServer: Bool { false }

    let path: String
    let json: Bool

    init(arguments: Arguments) throws {
        path = arguments.filePath(try arguments.positionals(exactly: ["FILE"])[0])
        json = arguments.has(Self.json)
    }

    func run(in context: CommandContext) throws {
        let data = try InputFile.read(path)
        let report = try MetadataInspector.inspect(data)
        let clean = MetadataAllowList.cairnJPEG.violations(in: report).isEmpty
        if json {
            try context.console.printJSON(InspectReport(report: report, carriesOnlyAllowedMetadata: clean))
            return
        }
        context.console.print("\(report.container.rawValue.uppercased()) image")
        if report.items.isEmpty {
            context.console.print("  No metadata.")
        }
        for item in report.items {
            let kind = item.kind.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)
            let location = item.location.padding(toLength: 24, withPad: " ", startingAt: 0)
            context.console.print("  \(kind)\(location)\(item.byteCount) bytes")
        }
        context.console.print(clean ? "Carries nothing beyond a JFIF header." : "Carries metadata or other bytes beyond a JFIF header.")
    }
}

private struct InspectReport: Encodable {
    struct Item: Encodable {
        let kind: String
        let location: String
        let byteCount: Int
    }
    let container: String
    let items: [Item]
    let carriesOnlyAllowedMetadata: Bool

    init(report: MetadataReport, carriesOnlyAllowedMetadata: Bool) {
        container = report.container.rawValue
        items = report.items.map { Item(kind: $0.kind.rawValue, location: $0.location, byteCount: $0.byteCount) }
        self.carriesOnlyAllowedMetadata = carriesOnlyAllowedMetadata
    }
}
