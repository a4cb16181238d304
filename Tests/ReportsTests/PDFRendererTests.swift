import CairnTestSupport
import Foundation
import Reports
import Testing

/// Real cairo + pango output, checked with poppler's tools (pdfinfo, pdftotext, pdfimages) and exiftool.
struct PDFRendererTests {
    static func jpeg(_ scratch: Scratch, _ name: String, width: Int, height: Int) throws -> Data {
        let url = scratch.file(name)
        try Tools.run(tool: "vips", ["gaussnoise", url.path + "[Q=85]", "\(width)", "\(height)", "--mean", "120", "--sigma", "30"])
        return try Data(contentsOf: url)
    }

    static func write(_ document: ReportDocument, _ scratch: Scratch) throws -> (URL, Int) {
        let (data, pages) = try PDFRenderer.data(document)
        let url = scratch.file("out.pdf")
        try data.write(to: url)
        return (url, pages)
    }

    /// pdfinfo's fields ("Pages" -> "3").
    static func info(_ url: URL) throws -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: try Tools.run(tool: "pdfinfo", [url.path]), as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    static func text(_ url: URL, page: Int? = nil) throws -> String {
        let range = page.map { ["-f", "\($0)", "-l", "\($0)"] } ?? []
        return String(decoding: try Tools.run(tool: "pdftotext", range + [url.path, "-"]), as: UTF8.self)
    }

    static func document(_ blocks: [ReportBlock], paper: PaperSize = .a4) -> ReportDocument {
        ReportDocument(
            paper: paper, title: "Cairn test report", createdAt: Date(timeIntervalSince1970: 1_780_000_000),
            header: "Cairn · test", footer: "The footer sentence of every page.", blocks: blocks)
    }

    @Test func everyPageCarriesTheFooterAndItsNumberAndPdfinfoAgreesOnTheCount() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let blocks: [ReportBlock] = [.title("A long report")] + (1...120).map { .paragraph("Paragraph \($0): some words to fill the page.") }
        let (url, pages) = try Self.write(Self.document(blocks), scratch)
        #expect(pages > 2)
        #expect(try Self.info(url)["Pages"] == "\(pages)")
        #expect(PDFRenderer.pageCount(Self.document(blocks)) == pages)
        for page in 1...pages {
            let text = try Self.text(url, page: page)
            #expect(text.contains("The footer sentence of every page."))
            #expect(text.contains("Page \(page) of \(pages)"))
        }
    }

    @Test func photosAreEmbeddedAsTheirOwnJPEGBytes() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try Self.jpeg(scratch, "a.jpg", width: 1200, height: 900)
        let second = try Self.jpeg(scratch, "b.jpg", width: 600, height: 800)
        let blocks: [ReportBlock] = [
            .photo(ReportPhoto(width: 1200, height: 900, caption: ["First", "a caption"]) { first }, maxHeightShare: 0.4),
            .photoGrid([ReportPhoto(width: 600, height: 800, caption: ["Second"]) { second }], columns: 3),
        ]
        let (url, _) = try Self.write(Self.document(blocks), scratch)
        let list = String(decoding: try Tools.run(tool: "pdfimages", ["-list", url.path]), as: UTF8.self)
        let rows = list.split(separator: "\n").dropFirst(2)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.split(separator: " ", omittingEmptySubsequences: true)[8] == "jpeg" })
        try Tools.run(tool: "pdfimages", ["-all", url.path, scratch.file("img").path])
        #expect(try Data(contentsOf: scratch.file("img-000.jpg")) == first)
        #expect(try Data(contentsOf: scratch.file("img-001.jpg")) == second)
    }

    @Test func bytesThatAreNotAJPEGStopTheReport() throws {
        let blocks: [ReportBlock] = [.photo(ReportPhoto(width: 10, height: 10) { Data("not a photo".utf8) }, maxHeightShare: 0.3)]
        #expect(throws: ReportRenderError.unreadablePhoto) { _ = try PDFRenderer.data(Self.document(blocks)) }
        struct Missing: Error {}
        let failing: [ReportBlock] = [.photo(ReportPhoto(width: 10, height: 10) { throw Missing() }, maxHeightShare: 0.3)]
        #expect(throws: ReportRenderError.unreadablePhoto) { _ = try PDFRenderer.data(Self.document(failing)) }
    }

    @Test(arguments: [(PaperSize.a4, "595.276 x 841.89"), (PaperSize.letter, "612 x 792")])
    func paperSizes(_ paper: PaperSize, _ expected: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (url, _) = try Self.write(Self.document([.paragraph("Hello")], paper: paper), scratch)
        #expect(try Self.info(url)["Page size"]?.hasPrefix("\(expected) pts") == true)
    }

    @Test func metadataHoldsTheTitleCreatorAndAUTCDateOnly() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (url, _) = try Self.write(Self.document([.paragraph("Hello")]), scratch)
        let info = try Self.info(url)
        #expect(info["Title"] == "Cairn test report")
        #expect(info["Creator"] == "Cairn")
        #expect(info["Author"] == nil)
        // The document's own metadata (exiftool's PDF and XMP groups), not the file system's.
        let exif = String(decoding: try Tools.run(tool: "exiftool", ["-a", "-G1", "-s", "-PDF:all", "-XMP:all", url.path]), as: UTF8.self)
        #expect(exif.contains("2026:05:28 20:26:40Z"))
        #expect(!exif.contains("Author"))
        #expect(!exif.contains(ProcessInfo.processInfo.hostName))
        #expect(!exif.contains(scratch.url.path))
    }

    @Test func rightToLeftTextAndEmojiRenderAndStaySelectable() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (url, _) = try Self.write(Self.document([.paragraph("Note: שלום עולם and مرحبا 🙂👍")]), scratch)
        let text = try Self.text(url)
        // pdftotext spaces and marks right-to-left runs in its own way; the letters are what must be there.
        let letters = String(text.unicodeScalars.filter { !$0.properties.isWhitespace && !(0x200E...0x202E).contains($0.value) })
        #expect(letters.contains("שלוםעולם") || letters.contains("םלועםולש"), "\(text)")
        #expect(letters.contains("مرحبا") || letters.contains("ابحرم"), "\(text)")
        #expect(text.contains("Note:"))
        let fonts = String(decoding: try Tools.run(tool: "pdffonts", [url.path]), as: UTF8.self)
        #expect(fonts.contains("DejaVuSans"))
        // Every font is embedded (the "emb" column).
        for row in fonts.split(separator: "\n").dropFirst(2) {
            let columns = row.split(separator: " ", omittingEmptySubsequences: true)
            #expect(columns.count >= 5 && columns[columns.count - 5] == "yes", "not embedded: \(row)")
        }
    }

    @Test func tablesBreakAcrossPagesAndRepeatTheirHeader() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let table = ReportTable(
            columns: [.init("Ingredient", share: 3), .init("Amount", share: 1, alignRight: true)],
            rows: (1...90).map { ["Ingredient number \($0)", "\($0) mg"] })
        let (url, pages) = try Self.write(Self.document([.table(table)]), scratch)
        #expect(pages >= 2)
        for page in 1...pages { #expect(try Self.text(url, page: page).contains("Ingredient")) }
        #expect(try Self.text(url).contains("Ingredient number 90"))
    }
}
