import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Regimen
import Reports
import Skin
import Testing

/// The three reports made from a real vault and read back with poppler's tools and exiftool.
struct ReportServiceTests {
    /// A vault on a clock the test sets, with `count` demo photos logged in an area named "Left forearm".
    static func skinVault(photos count: Int, note: String = "") throws -> (TestVault, AreaID) {
        let vault = try TestVault()
        let area = try vault.app.skin.addArea(name: "Left forearm", bodyLocation: "inner side")
        let now = vault.app.clock.now()
        for index in 0..<count {
            _ = try vault.app.skin.log(
                photo: try SkinDemo.jpeg(index: index, count: max(count, 2), seed: 3), in: area.id,
                note: index == count - 1 ? note : "", capturedAt: now.addingTimeInterval(Double(index - count) * 86_400),
                timeZone: TimeZone(identifier: "UTC"))
        }
        return (vault, area.id)
    }

    static func pages(_ url: URL) throws -> Int {
        let info = String(decoding: try Tools.run(tool: "pdfinfo", [url.path]), as: UTF8.self)
        let line = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }!
        return Int(line.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces))!
    }

    static func text(_ url: URL, page: Int? = nil) throws -> String {
        let range = page.map { ["-f", "\($0)", "-l", "\($0)"] } ?? []
        // pdftotext wraps lines as laid out; join them so a sentence split over two lines is still found.
        return String(decoding: try Tools.run(tool: "pdftotext", range + [url.path, "-"]), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ")
    }

    /// The embedded JPEGs, extracted unchanged, in page order (colour emoji are small bitmaps, not JPEGs).
    static func images(_ url: URL, in scratch: Scratch) throws -> [Data] {
        let list = String(decoding: try Tools.run(tool: "pdfimages", ["-list", url.path]), as: UTF8.self)
        let jpegs = list.split(separator: "\n").dropFirst(2).enumerated().filter {
            $0.element.split(separator: " ", omittingEmptySubsequences: true)[8] == "jpeg"
        }.map(\.offset)
        try Tools.run(tool: "pdfimages", ["-all", url.path, scratch.file("img").path])
        return try jpegs.map { try Data(contentsOf: scratch.file(String(format: "img-%03d.jpg", $0))) }
    }

    @Test func theSkinLogHoldsEveryStoredPhotoUnchangedAndTheDisclaimerOnEveryPage() throws {
        let (vault, area) = try Self.skinVault(photos: 3, note: "Nach dem Urlaub")
        let report = try vault.app.reports.skinPhotoLog(area: area, paper: .a4)
        let url = vault.scratch.file("log.pdf")
        let written = try vault.app.reports.write(report, to: url.path, replace: false)
        #expect(written == report.pageCount)
        #expect(try Self.pages(url) == written)
        for page in 1...written {
            #expect(try Self.text(url, page: page).contains(Disclaimer.similarity.text), "page \(page)")
        }
        let all = try Self.text(url)
        #expect(all.contains("Left forearm") && all.contains("Nach dem Urlaub"))
        #expect(all.contains("Visual similarity to the first photo"))
        #expect(all.contains(Disclaimer.trend.text))
        #expect(all.contains("Capture: "))
        let stored = try vault.app.skin.timeline(of: area).items.map { try vault.app.photoStore.data(for: $0.entry.photoID) }
        // The first beside the latest on a page of their own, then every photo in turn.
        #expect(try Self.images(url, in: vault.scratch) == [stored.first!, stored.last!] + stored)
        #expect(all.contains("First and latest"))
        #expect(report.photoCount == 3)
        #expect(ProductWording.bannedWords(in: all).isEmpty)
    }

    @Test func theFileIsOwnerOnlyAndItsMetadataNamesNoAreaPathOrMachine() throws {
        let (vault, area) = try Self.skinVault(photos: 2)
        let url = vault.scratch.file("log.pdf")
        let old = umask(0o022)
        defer { umask(old) }
        try vault.app.reports.write(try vault.app.reports.skinPhotoLog(area: area, paper: .letter), to: url.path, replace: false)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let exif = String(decoding: try Tools.run(tool: "exiftool", ["-a", "-s", "-PDF:all", "-XMP:all", url.path]), as: UTF8.self)
        #expect(exif.contains("Cairn Skin photo log"))
        for leak in ["Left forearm", "inner side", vault.directory.path, vault.scratch.url.path, ProcessInfo.processInfo.hostName, NSHomeDirectory()]
        {
            #expect(!exif.contains(leak), "metadata names \(leak)")
        }
        #expect(!exif.contains("Author"))
    }

    @Test func anExistingFileIsLeftAloneUnlessReplacingIsAskedAndNothingHalfWrittenStays() throws {
        let (vault, area) = try Self.skinVault(photos: 1)
        let url = vault.scratch.file("log.pdf")
        try Data("keep me".utf8).write(to: url)
        let report = try vault.app.reports.skinPhotoLog(area: area, paper: .a4)
        #expect(throws: OutputFileError.exists) { try vault.app.reports.write(report, to: url.path, replace: false) }
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
        try vault.app.reports.write(report, to: url.path, replace: true)
        #expect(try Self.pages(url) == report.pageCount)
        #expect(throws: OutputFileError.isDirectory) { try vault.app.reports.write(report, to: vault.scratch.url.path, replace: true) }
        #expect(throws: OutputFileError.unwritable) {
            try vault.app.reports.write(report, to: vault.scratch.file("missing/log.pdf").path, replace: false)
        }

        // A photo that cannot be read stops the report: no file, no temporary file.
        let entry = try vault.app.skin.timeline(of: area).items[0].entry
        try FileManager.default.removeItem(at: try vault.app.photoStore.fileURL(for: entry.photoID))
        let broken = vault.scratch.file("broken.pdf")
        #expect(throws: ReportError.unreadablePhoto) {
            try vault.app.reports.write(try vault.app.reports.skinPhotoLog(area: area, paper: .a4), to: broken.path, replace: false)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: vault.scratch.url.path).filter {
            $0.hasSuffix(".pdf") || $0.hasSuffix(".partial")
        }
        #expect(left == ["log.pdf"])
    }

    @Test(arguments: [0, 1])
    func anEmptyAreaAndAOnePhotoAreaRender(photos: Int) throws {
        let (vault, area) = try Self.skinVault(photos: photos)
        let url = vault.scratch.file("log.pdf")
        let pages = try vault.app.reports.write(try vault.app.reports.skinPhotoLog(area: area, paper: .a4), to: url.path, replace: false)
        #expect(pages == (photos == 0 ? 1 : 2))
        let text = try Self.text(url)
        #expect(text.contains(Disclaimer.similarity.text))
        #expect(text.contains(photos == 0 ? "no photos yet" : "First photo"))
        #expect(try Self.images(url, in: vault.scratch).count == photos)
    }

    @Test func aNoteWithRightToLeftTextAndEmojiRenders() throws {
        let (vault, area) = try Self.skinVault(photos: 2, note: "אחרי החופשה 🌞 بعد العطلة 👍")
        let url = vault.scratch.file("log.pdf")
        try vault.app.reports.write(try vault.app.reports.skinPhotoLog(area: area, paper: .a4), to: url.path, replace: false)
        let text = try Self.text(url)
        #expect(text.contains("Note:"))
        // pdftotext spaces and marks right-to-left runs in its own way; the letters are what must be there.
        let letters = String(text.unicodeScalars.filter { !$0.properties.isWhitespace && !(0x200E...0x202E).contains($0.value) })
        #expect(letters.contains("אחריהחופשה") || letters.contains("השפוחהירחא"), "Hebrew is in the text layer")
        #expect(letters.contains("بعدالعطلة") || letters.contains("ةلطعلادعب"), "Arabic is in the text layer")
        #expect(try Self.images(url, in: vault.scratch).count == 4, "the first and latest page, then both photos")
    }

    @Test func theSmileSheetHoldsOnlyTheStoredCrops() throws {
        let vault = try TestVault()
        let face = try Data(contentsOf: SharedData.faces.appendingPathComponent("fr_obama.jpg"))
        let a = try vault.app.smile.add(face).1
        let b = try vault.app.smile.add(face, note: "a private note").1
        let report = try vault.app.reports.smileProgressSheet(paper: .a4)
        let url = vault.scratch.file("smile.pdf")
        try vault.app.reports.write(report, to: url.path, replace: false)
        let crops = try [a, b].map { try vault.app.smile.cropJPEG($0) }
        // First and latest side by side, then the grid of both.
        #expect(try Self.images(url, in: vault.scratch) == [crops[0], crops[1], crops[0], crops[1]])
        let text = try Self.text(url)
        #expect(text.contains("Only the anonymised mouth crops"))
        #expect(!text.contains("a private note"))
        #expect(report.contents.contains { $0.contains("Only the anonymised mouth crops") })
    }

    @Test func theRegimenSummaryCarriesTheAssociationSentenceByEveryInsightAndFortyIngredients() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let clock = TravelClock("2026-04-30T12:00:00Z", zone: "UTC")
        let app = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:], clock: clock)
        defer { app.database.close() }
        let ingredients = try (1...40).map { i in
            try ProductIngredient(catalogueID: nil, nameOnLabel: "Botanical extract \(i)", amount: try Amount("\(i * 5)", .mg))
        }
        let forty = try Product(name: "Forty-part blend", form: .capsule, servingSize: try Amount("1", .count), ingredients: ingredients)
        // Rows the catalogue does not know are flagged; the test accepts them, as a person would after checking.
        let blend = try app.regimen.addProduct(forty, decisions: .acceptingEveryRow(of: forty))
        let schedule = try app.regimen.addSchedule(
            SchedulePlan(
                productID: blend.product.id, times: [TimeSlot(parsing: "08:00")!],
                recurrence: .daily, startDay: day("2026-03-01")))
        var g = SeededGenerator(seed: 4)
        func noise() -> Double { (-2 * log(max(g.unit(), 1e-12))).squareRoot() * cos(2 * .pi * g.unit()) }
        for d in day("2026-01-01").dayNumber...day("2026-04-30").dayNumber {
            let local = LocalDay(dayNumber: d)
            _ = try app.outcomes.add(
                metricID: "sleep_quality", value: min(5, max(1, (local >= day("2026-03-01") ? 4 : 3) + 0.4 * noise())), on: local)
            guard local >= day("2026-03-01"), local < day("2026-04-30") else { continue }
            let dose = DoseOccurrence(revisionID: schedule.id, day: local, slot: TimeSlot(parsing: "08:00")!)
            let at = Date(timeIntervalSince1970: Double(d) * 86_400 + 8 * 3_600)
            try app.regimen.checkIn(dose.doseID, status: d % 10 == 0 ? .skipped : .taken, at: at)
        }
        let report = try app.reports.regimenSummary(ReportPeriod(from: day("2026-02-01"), to: day("2026-04-30")), paper: .a4)
        let url = scratch.file("summary.pdf")
        let pages = try app.reports.write(report, to: url.path, replace: false)
        #expect(try Self.pages(url) == pages)
        let text = try Self.text(url)
        #expect(text.contains("Botanical extract 40"))
        #expect(text.contains("Forty-part blend"))
        #expect(text.contains("Day by day"))
        #expect(text.contains("Sleep quality"))
        let insights = try app.insights.list().filter { (day("2026-02-01")...day("2026-04-30")).contains($0.change.day) }
        #expect(!insights.isEmpty)
        // The association sentence by every insight's plain sentence, by its figures in the appendix, and by each
        // change's line of series with too little data yet.
        let shown = insights.filter { !$0.isTooLittleData }
        let waiting = Set(insights.filter(\.isTooLittleData).map(\.change.id)).count
        #expect(text.components(separatedBy: Disclaimer.insight.text).count - 1 == 2 * shown.count + waiting)
        #expect(text.contains("Appendix: insight details"))
        for insight in insights {
            guard let start = text.range(of: insight.plainSummary) else {
                Issue.record("plain sentence missing: \(insight.plainSummary)")
                continue
            }
            #expect(text[start.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(Disclaimer.insight.text))
        }
        #expect(report.contents.contains { $0.contains(Disclaimer.insight.text) })
        #expect(throws: ReportPeriodError.endsBeforeStart) { try ReportPeriod(from: day("2026-03-02"), to: day("2026-03-01")) }
        #expect(throws: ReportPeriodError.tooLong) { try ReportPeriod(from: day("2015-01-01"), to: day("2026-01-01")) }
    }
}
