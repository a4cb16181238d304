import CairnCore
import Foundation
import Insights
import Outcomes
import Regimen
import Reports
import Skin
import Storage

/// A report ready to be written: its pages as a document, a file name to offer, and the plain list of what the
/// file holds (the preview page and the CLI say exactly this before anything is written).
public struct Report: Sendable {
    /// The layout the PDF is made from.
    public let document: ReportDocument
    /// The name a download or a default output file gets ("cairn-skin-photo-log.pdf": no names in it).
    public let fileName: String
    /// One sentence per part of the file, in order.
    public let contents: [String]
    /// How many photos it embeds (as their stored files).
    public let photoCount: Int
    /// Pages, counted by laying the document out (no photo is read).
    public var pageCount: Int { PDFRenderer.pageCount(document) }
}

/// Why a report was not made.
public enum ReportError: CairnError, Equatable {
    /// A stored photo could not be read back; nothing was written.
    case unreadablePhoto
    /// The PDF could not be made (cairo's status, no content).
    case renderingFailed

    public var userMessage: String {
        switch self {
        case .unreadablePhoto: return "A stored photo could not be read, so no report was written. Run 'cairn doctor' to check the vault."
        case .renderingFailed: return "The PDF could not be made. Nothing was written."
        }
    }
}

/// Gathers what each report holds, the same for the CLI and the web, and writes it as a PDF. Reads only:
/// nothing about a report is stored in the vault. Photos go in as their stored JPEG files, unchanged.
public final class ReportService: @unchecked Sendable {
    private let database: Database
    private let skin: SkinService
    private let smile: SmileService
    private let regimen: RegimenService
    private let outcomes: OutcomeService
    private let insights: InsightService
    private let photoStore: PhotoFileStore
    private let clock: any Clock

    /// What every report's metadata says about itself, beside its title.
    public static let metadataSentence =
        "The PDF's own metadata holds only its title, \"Cairn\" as the program that made it, the PDF library's name and the time it was made (in UTC): no name, no folder, no device."
    /// Said beside every report's contents: the file leaves the vault's protection.
    public static let notEncryptedSentence = "The PDF itself is not encrypted, even when the vault's lock is on: whoever has the file can read it."

    public init(
        database: Database, skin: SkinService, smile: SmileService, regimen: RegimenService, outcomes: OutcomeService,
        insights: InsightService, photoStore: PhotoFileStore, clock: any Clock
    ) {
        self.database = database
        self.skin = skin
        self.smile = smile
        self.regimen = regimen
        self.outcomes = outcomes
        self.insights = insights
        self.photoStore = photoStore
        self.clock = clock
    }

    // MARK: writing

    /// Writes `report` to `path` (mode 0600, through a temporary file, never half-written; an existing file only
    /// with `replace`). Returns the page count. Throws `OutputFileError`, `ReportError`.
    @discardableResult
    public func write(_ report: Report, to path: String, replace: Bool) throws -> Int {
        let file = try OutputFile(path: path, replace: replace)
        let pages: Int
        do {
            pages = try PDFRenderer.render(report.document) { file.write($0) }
        } catch {
            file.discard()
            throw Self.mapped(error)
        }
        try file.commit()
        return pages
    }

    /// The PDF in memory, for a download (nothing is written to disk).
    public func pdf(_ report: Report) throws -> Data {
        do { return try PDFRenderer.data(report.document).data } catch { throw Self.mapped(error) }
    }

    private static func mapped(_ error: Error) -> Error {
        switch error {
        case ReportRenderError.unreadablePhoto: return ReportError.unreadablePhoto
        case ReportRenderError.writeFailed: return OutputFileError.unwritable
        case is ReportRenderError: return ReportError.renderingFailed
        default: return error
        }
    }

    private func jpeg(_ id: PhotoID) -> @Sendable () throws -> Data {
        let store = photoStore
        return { try store.data(for: id) }
    }

    // MARK: Skin photo log

    /// The photo log of one area: a title page (area, date range, count, both disclaimers, the trend chart), then
    /// every photo oldest first with its date, note, capture-quality notes and similarity figure beside the
    /// disclaimer; the similarity disclaimer in every footer. Throws `SkinJournalError.areaNotFound`.
    public func skinPhotoLog(area areaID: AreaID, paper: PaperSize) throws -> Report {
        let timeline = try skin.timeline(of: areaID)
        let area = timeline.area
        let items = timeline.items
        var blocks: [ReportBlock] = [.title("Skin photo log"), .heading(area.name)]
        var facts: [(label: String, value: String)] = []
        if let location = area.bodyLocation, !location.isEmpty { facts.append(("Where", location)) }
        if let first = items.first?.entry, let last = items.last?.entry {
            facts.append(
                (
                    "Photos",
                    "\(items.count), from \(DateText.string(first.capturedAt, .day, inZoneNamed: first.timeZone)) to \(DateText.string(last.capturedAt, .day, inZoneNamed: last.timeZone))"
                ))
        } else {
            facts.append(("Photos", "None yet"))
        }
        facts.append(("Made", DateText.string(clock.now(), .day, in: clock.timeZone) + " by Cairn, on this computer"))
        blocks.append(.facts(facts))
        blocks.append(.disclaimer(Disclaimer.similarity.text))
        blocks.append(.small(SkinComparator.comparedRegionSentence))
        if items.isEmpty {
            blocks.append(.paragraph("This area has no photos yet. Photos added to it later appear in a new photo log."))
        }
        let charted = items.filter { $0.isBaseline || $0.comparison?.magnitude != nil }
        if items.count > 1 {
            let t0 = items.first!.entry.capturedAt.timeIntervalSince1970
            let span = max(1, items.last!.entry.capturedAt.timeIntervalSince1970 - t0)
            let points = charted.map { item -> (x: Double, y: Double?) in
                ((item.entry.capturedAt.timeIntervalSince1970 - t0) / span, item.isBaseline ? 0 : item.comparison?.magnitude)
            }
            blocks.append(.heading("Trend"))
            blocks.append(.small("How much each photo differs from the first one, over time."))
            blocks.append(
                .chart(
                    ReportChart(
                        points: points, topLabel: "Similar", bottomLabel: "Different",
                        startLabel: DateText.string(items.first!.entry.capturedAt, .day, inZoneNamed: items.first!.entry.timeZone),
                        endLabel: DateText.string(items.last!.entry.capturedAt, .day, inZoneNamed: items.last!.entry.timeZone))))
            blocks.append(.disclaimer(Disclaimer.trend.text))
            let missing = items.count - charted.count
            if missing > 0 {
                blocks.append(.small("\(missing) photo\(missing == 1 ? " is" : "s are") not comparable or not compared yet, and not on the chart."))
            }
        }
        /// A photo with its caption: its date, what it is compared with and its figure beside the disclaimer,
        /// its capture notes and its note.
        func photo(_ item: SkinTimelineItem, _ index: Int) throws -> ReportPhoto {
            let e = item.entry
            var caption = ["\(index + 1). \(DateText.string(e.capturedAt, .dayAndTime, inZoneNamed: e.timeZone))"]
            if item.isBaseline {
                caption.append("First photo: every later photo is compared with it.")
            } else if let c = item.comparison {
                if let s = c.similarityPercent {
                    caption.append(
                        "Visual similarity to the first photo: \(Int(s.rounded()))%. \(SimilarityBand(similarityPercent: s).sentence) "
                            + Disclaimer.similarity.text)
                    let diagnostics = try? skin.comparison(of: e.id, in: area.id).details?.diagnostics
                    if let left = diagnostics?.notComparedMessage { caption.append(left) }
                    if let partial = diagnostics?.partialColourMessage { caption.append(partial) }
                } else {
                    caption.append("Not comparable: \((c.reasonNotComparable ?? .alignmentFailed).userMessage) No figure is given.")
                }
            } else {
                caption.append("Not compared yet.")
            }
            caption.append("Capture: " + e.quality.summary)
            if !e.note.isEmpty { caption.append("Note: " + e.note) }
            let stored = try photoStore.photo(e.photoID)
            return ReportPhoto(width: stored?.width ?? 4, height: stored?.height ?? 3, caption: caption, load: jpeg(e.photoID))
        }
        // The first photo beside the latest, on a page of their own, before every photo in turn.
        if items.count > 1 {
            blocks.append(.pageBreak)
            blocks.append(.heading("First and latest"))
            blocks.append(.photoGrid([try photo(items[0], 0), try photo(items[items.count - 1], items.count - 1)], columns: 2))
        }
        if !items.isEmpty { blocks.append(.pageBreak) }
        for (index, item) in items.enumerated() {
            blocks.append(.photo(try photo(item, index), maxHeightShare: 0.4))
        }
        let range = items.first.map { first in
            let last = items.last!.entry
            return
                "\(DateText.string(first.entry.capturedAt, .day, inZoneNamed: first.entry.timeZone)) to \(DateText.string(last.capturedAt, .day, inZoneNamed: last.timeZone))"
        }
        let document = ReportDocument(
            paper: paper, title: "Cairn Skin photo log", createdAt: clock.now(),
            header: "Cairn · Skin photo log · \(area.name)", footer: Disclaimer.similarity.text, blocks: blocks)
        var contents = [
            "A title page: the area \"\(area.name)\", " + (range.map { "its photos from \($0), " } ?? "no photos yet, ")
                + "how many there are, and the similarity disclaimer."
        ]
        if items.count > 1 {
            contents.append("The trend chart (how much each photo differs from the first one, from Similar to Different) with its disclaimer.")
            contents.append("The first photo beside the latest, each with its caption.")
        }
        if !items.isEmpty {
            contents.append(
                "\(items.count) photo\(items.count == 1 ? "" : "s"), oldest first, each as Cairn keeps it (the same JPEG, not encoded again), with its date, "
                    + "capture notes, your note if any, and its visual similarity beside the disclaimer.")
        }
        contents.append("The similarity disclaimer in the footer of every page, and page numbers.")
        contents.append(Self.metadataSentence)
        contents.append(Self.notEncryptedSentence)
        return Report(document: document, fileName: "cairn-skin-photo-log.pdf", contents: contents, photoCount: items.count)
    }

    // MARK: Smile progress sheet

    /// The anonymised crops in date order on a grid with their dates, the first and latest side by side first.
    /// Only the stored crops go in: never an original photo, a note or metadata.
    public func smileProgressSheet(paper: PaperSize) throws -> Report {
        let entries = try smile.entries()
        func photo(_ e: SmileEntry, _ label: String) -> ReportPhoto {
            ReportPhoto(width: e.photo.width, height: e.photo.height, caption: [label], load: jpeg(e.photo.id))
        }
        var blocks: [ReportBlock] = [.title("Smile progress sheet")]
        var facts: [(label: String, value: String)] = [("Crops", entries.isEmpty ? "None yet" : "\(entries.count)")]
        if let first = entries.first, let last = entries.last { facts.append(("Dates", "\(first.displayDate) to \(last.displayDate)")) }
        facts.append(("Made", DateText.string(clock.now(), .day, in: clock.timeZone) + " by Cairn, on this computer"))
        blocks.append(.facts(facts))
        blocks.append(.small(Self.smileOnlyCrops))
        if entries.isEmpty {
            blocks.append(.paragraph("No crops yet. Crops added to the Smile journal later appear in a new sheet."))
        } else if entries.count > 1 {
            blocks.append(.heading("First and latest"))
            blocks.append(
                .photoGrid(
                    [
                        photo(entries.first!, "First · \(entries.first!.displayDate)"),
                        photo(entries.last!, "Latest · \(entries.last!.displayDate)"),
                    ], columns: 2))
        }
        if !entries.isEmpty {
            blocks.append(.heading(entries.count == 1 ? "The crop" : "All crops, oldest first"))
            blocks.append(
                .photoGrid(
                    entries.enumerated().map { photo($0.element, "\($0.offset + 1). \($0.element.displayDate)") },
                    columns: entries.count == 1 ? 2 : 3))
        }
        let document = ReportDocument(
            paper: paper, title: "Cairn Smile progress sheet", createdAt: clock.now(),
            header: "Cairn · Smile progress sheet", footer: Self.smileOnlyCrops, blocks: blocks)
        var contents = ["A title block: how many crops and their dates."]
        if entries.count > 1 { contents.append("The first and the latest crop side by side.") }
        if !entries.isEmpty {
            contents.append("All \(entries.count) crop\(entries.count == 1 ? "" : "s") in date order on a grid, each with its date.")
        }
        contents.append(Self.smileOnlyCrops)
        contents.append(Self.metadataSentence)
        contents.append(Self.notEncryptedSentence)
        let count = entries.isEmpty ? 0 : entries.count + (entries.count > 1 ? 2 : 0)
        return Report(document: document, fileName: "cairn-smile-progress.pdf", contents: contents, photoCount: count)
    }

    static let smileOnlyCrops =
        "Only the anonymised mouth crops are in this file, as Cairn stored them (square, no metadata): no full photo, no note."

    // MARK: Regimen summary

    /// The regimen over `period`: the products with their label facts, the schedules in force and their revisions,
    /// taken / skipped / not logged per product with a day-by-day grid, daily totals per ingredient by unit, outcome
    /// series with the schedule changes marked, and the insights of the period with their windows, caveats and
    /// the association sentence (the period's rule is `ReportPeriod`'s).
    /// Insights out of date are recomputed first (a write); then everything is read in one snapshot
    /// (`Database.snapshot`), so the summary shows one state of the vault even while a reminder logs a dose.
    /// `insightDetails`: each insight's figures and limitations in an appendix (the summary keeps its plain sentence
    /// and disclaimer either way).
    public func regimenSummary(_ reportPeriod: ReportPeriod, paper: PaperSize, insightDetails: Bool = true) throws -> Report {
        try insights.recomputeIfStale()
        return try database.snapshot { try regimenSummaryInSnapshot(reportPeriod, paper: paper, insightDetails: insightDetails) }
    }

    private func regimenSummaryInSnapshot(_ reportPeriod: ReportPeriod, paper: PaperSize, insightDetails: Bool) throws -> Report {
        let (from, to, period) = (reportPeriod.from, reportPeriod.to, reportPeriod.days)
        let doses = try regimen.doses(in: period)
        let ledger = try ledgerEntries(in: period)
        var schedules: [(summary: ScheduleSummary, inForce: [ScheduleRevision])] = []
        for s in try regimen.schedules() {
            let history = try regimen.scheduleHistory(s.scheduleID)
            let atStart = history.revision(on: from).map { [$0] } ?? []
            let during = history.revisions.filter { $0.effectiveFrom > from && $0.effectiveFrom <= to }
            let revisions = (atStart + during).filter { !($0.state == .stopped && $0.effectiveFrom < from) }
            if !revisions.isEmpty { schedules.append((s, revisions)) }
        }
        var productIDs = Set(schedules.map(\.summary.latest.plan.productID))
        productIDs.formUnion(ledger.map(\.productID))
        let products = try regimen.products(includingArchived: true).filter { productIDs.contains($0.product.id) }
            .sorted { $0.product.name.lowercased() < $1.product.name.lowercased() }

        var blocks: [ReportBlock] = [.title("Regimen summary")]
        blocks.append(
            .facts([
                ("Period", "\(from) to \(to) (\(from.days(to: to) + 1) days)"),
                ("Products", products.isEmpty ? "None in this period" : "\(products.count)"),
                ("Made", DateText.string(clock.now(), .day, in: clock.timeZone) + " by Cairn, on this computer"),
            ]))
        blocks.append(.small(Self.regimenNote))

        // Products and their label facts.
        blocks.append(.heading("Products"))
        if products.isEmpty { blocks.append(.paragraph("No product was scheduled or logged in this period.")) }
        var ingredientNames: [String: String] = [:]
        for stored in products {
            let p = stored.product
            blocks.append(.strong([p.name, p.brand].filter { !$0.isEmpty }.joined(separator: " · ")))
            blocks.append(.small("Form: \(p.form.rawValue) · serving: \(Self.serving(p)) · label facts as saved (version \(stored.revisionNumber))"))
            for row in p.ingredients where ingredientNames[IngredientDose.key(for: row)] == nil {
                ingredientNames[IngredientDose.key(for: row)] = row.nameOnLabel
            }
            if !p.ingredients.isEmpty {
                blocks.append(
                    .table(
                        ReportTable(
                            columns: [
                                .init("Ingredient", share: 4), .init("Amount per serving", share: 2, alignRight: true),
                                .init("% DV", share: 1, alignRight: true), .init("Form", share: 3),
                            ],
                            rows: p.ingredients.map { row in
                                [row.nameOnLabel, row.amount.map(Self.amount) ?? "", row.dailyValuePercent.map { "\($0)%" } ?? "", row.form ?? ""]
                            })))
            }
        }

        // Schedules and their revisions.
        blocks.append(.heading("Schedules in this period"))
        if schedules.isEmpty {
            blocks.append(.paragraph("No schedule was in force in this period."))
        } else {
            var rows: [[String]] = []
            for (summary, revisions) in schedules {
                for r in revisions {
                    let when = r.effectiveFrom < from ? "in force on \(from) (since \(r.effectiveFrom))" : "from \(r.effectiveFrom)"
                    rows.append([summary.productName, when, r.state.rawValue, Self.describe(r.plan)])
                }
            }
            blocks.append(
                .table(
                    ReportTable(
                        columns: [
                            .init("Product", share: 3), .init("Revision", share: 3), .init("State", share: 1.4),
                            .init("Plan", share: 4),
                        ], rows: rows)))
        }

        // Logged doses per product.
        blocks.append(.heading("Scheduled doses: taken, skipped, not logged"))
        let byProduct = Dictionary(grouping: doses, by: \.productID)
        let current = ledger.filter(\.isCurrent)
        var countRows: [[String]] = []
        for stored in products {
            let ds = byProduct[stored.product.id] ?? []
            let extras = current.filter { $0.productID == stored.product.id && $0.kind != .scheduled && $0.status == .taken }.count
            countRows.append([
                stored.product.name, "\(ds.filter { $0.state == .taken }.count)", "\(ds.filter { $0.state == .skipped }.count)",
                "\(ds.filter { $0.state == .notLogged }.count)", "\(extras)",
            ])
        }
        if countRows.isEmpty {
            blocks.append(.paragraph("No doses were scheduled in this period."))
        } else {
            blocks.append(
                .table(
                    ReportTable(
                        columns: [
                            .init("Product", share: 4), .init("Taken", share: 1.2, alignRight: true),
                            .init("Skipped", share: 1.2, alignRight: true), .init("Not logged", share: 1.4, alignRight: true),
                            .init("As needed or extra, taken", share: 2, alignRight: true),
                        ], rows: countRows)))
            blocks.append(.small("Not logged means no record was made for a scheduled dose; it is not counted as taken or as skipped."))
        }
        for stored in products {
            let ds = byProduct[stored.product.id] ?? []
            guard !ds.isEmpty else { continue }
            blocks.append(.heading("Day by day: \(stored.product.name)"))
            blocks.append(.small("T taken · S skipped · P partly (some doses of the day logged or a mix) · – not logged · blank: nothing scheduled"))
            blocks.append(.dayGrid(Self.dayGrid(ds, period: period)))
        }

        // Daily totals per ingredient, by unit.
        blocks.append(.heading("Daily totals per ingredient"))
        let exposure = try regimen.exposure(in: period)
        let totals = Dictionary(grouping: exposure.ingredients) { "\($0.ingredientKey)|\($0.amount.unit.symbol)" }
        if totals.isEmpty {
            blocks.append(.paragraph("No dose logged as taken in this period had label amounts."))
        } else {
            blocks.append(
                .small(
                    "Each day adds up every product logged as taken that day. Amounts in units that do not convert into each other stay in separate rows."
                ))
            let rows = totals.values.map { days -> (String, [String]) in
                let name = ingredientNames[days[0].ingredientKey] ?? days[0].ingredientKey
                let values = days.map(\.amount.value).sorted()
                let unit = days[0].amount.unit.symbol
                let median = values[values.count / 2]
                return (
                    name.lowercased() + unit,
                    [name, unit, "\(days.count)", Self.number(values.first!), Self.number(median), Self.number(values.last!)]
                )
            }.sorted { $0.0.localizedStandardCompare($1.0) == .orderedAscending }.map(\.1)
            blocks.append(
                .table(
                    ReportTable(
                        columns: [
                            .init("Ingredient", share: 4), .init("Unit", share: 1.3), .init("Days", share: 1, alignRight: true),
                            .init("Lowest day", share: 1.6, alignRight: true), .init("Middle day", share: 1.6, alignRight: true),
                            .init("Highest day", share: 1.6, alignRight: true),
                        ], rows: rows)))
        }

        // Outcome series with the schedule changes marked.
        let changes = schedules.flatMap { s in s.inForce.filter { $0.effectiveFrom >= from }.map { (s.summary.productName, $0) } }
            .sorted { ($0.1.effectiveFrom, $0.0) < ($1.1.effectiveFrom, $1.0) }
        let series = try outcomes.dailySeries().compactMap { s -> (DailyOutcomeSeries, [(LocalDay, Double)])? in
            let values = s.values.filter { period.contains($0.key) }.sorted { $0.key < $1.key }
            return values.isEmpty ? nil : (s, values.map { ($0.key, $0.value) })
        }
        blocks.append(.heading("Outcome series"))
        if series.isEmpty {
            blocks.append(.paragraph("No outcome values in this period."))
        } else {
            if !changes.isEmpty {
                blocks.append(
                    .small(
                        "Dashed lines mark schedule changes: "
                            + changes.enumerated().map { i, c in
                                "\(i + 1) \(c.1.effectiveFrom) \(c.0): \(c.1.state.rawValue), \(Self.describe(c.1.plan))"
                            }.joined(separator: "; ") + "."))
            }
            let span = Double(max(1, from.days(to: to)))
            for (s, values) in series {
                // The page's axis: a rating on its whole scale, never a value below the metric's range.
                let (low, high, _) = s.metric.chartAxis(for: values.map(\.1))
                let range = high > low ? high - low : 1
                let unit = s.metric.unit.isEmpty ? "" : ", " + s.metric.unit
                let title = ReportBlock.strong("\(s.metric.name)\(unit) (\(values.count) day\(values.count == 1 ? "" : "s") with a value)")
                blocks.append(
                    .keep([
                        title,
                        .chart(
                            ReportChart(
                                points: values.map { (Double(from.days(to: $0.0)) / span, (high - $0.1) / range) },
                                topLabel: Self.number(high), bottomLabel: Self.number(low),
                                startLabel: from.description, endLabel: to.description,
                                marks: changes.enumerated().map {
                                    ReportChart.Mark(x: Double(from.days(to: $0.element.1.effectiveFrom)) / span, label: "\($0.offset + 1)")
                                },
                                height: 120)),
                    ]))
            }
        }

        // Insights of the period (recomputed before the snapshot).
        let found = try insights.list().filter { period.contains($0.change.day) }
        blocks.append(.heading("Insights"))
        if found.isEmpty {
            blocks.append(.paragraph("No insight about a change in this period."))
        }
        // The summary: each insight's plain sentence and its disclaimer, kept on one page; those with too little
        // data yet share one line per change. The figures go to an appendix the person may leave out.
        let shown = found.filter { !$0.isTooLittleData }
        for insight in shown {
            blocks.append(
                .keep([
                    .strong("\(insight.label): \(insight.metricName) around \(insight.change.description) (\(insight.change.day))"),
                    .paragraph(insight.plainSummary), .disclaimer(insight.disclaimer),
                ]))
        }
        for (_, waiting) in Dictionary(grouping: found.filter(\.isTooLittleData), by: \.change.id).sorted(by: { $0.key < $1.key }) {
            let first = waiting[0].change
            blocks.append(
                .keep([
                    .paragraph(
                        "Around \(first.description) (\(first.day)): too little data yet to tell for \(waiting.map(\.metricName).joined(separator: ", "))."
                    ),
                    .disclaimer(Disclaimer.insight.text),
                ]))
        }
        if insightDetails, !shown.isEmpty {
            blocks.append(.pageBreak)
            blocks.append(.heading("Appendix: insight details"))
            for insight in shown {
                var facts = insight.facts
                if !insight.limitations.isEmpty { facts.append(("Limitations", insight.limitations.joined(separator: " "))) }
                blocks.append(
                    .keep([
                        .strong("\(insight.metricName) around \(insight.change.description) (\(insight.change.day))"),
                        .small(insight.summary), .disclaimer(insight.disclaimer), .facts(facts),
                    ]))
            }
        }

        let document = ReportDocument(
            paper: paper, title: "Cairn Regimen summary", createdAt: clock.now(),
            header: "Cairn · Regimen summary · \(from) to \(to)", footer: Self.regimenNote, blocks: blocks)
        let contents = [
            "The period \(from) to \(to) and the \(products.count) product\(products.count == 1 ? "" : "s") scheduled or logged in it, each with its label facts (\(products.reduce(0) { $0 + $1.product.ingredients.count }) ingredient rows).",
            "The schedules in force and their revisions in the period (\(schedules.reduce(0) { $0 + $1.inForce.count }) rows).",
            "Per product: scheduled doses taken, skipped and not logged, doses taken as needed or extra, and a day-by-day grid.",
            "Daily totals per ingredient across products, one row per unit (never merged across units).",
            "\(series.count) outcome series chart\(series.count == 1 ? "" : "s") with the schedule changes marked.",
            "\(found.count) insight\(found.count == 1 ? "" : "s") about changes in the period, each with its window, caveats and the sentence: \(Disclaimer.insight.text)",
            Self.metadataSentence,
            Self.notEncryptedSentence,
        ]
        return Report(document: document, fileName: "cairn-regimen-summary-\(from)-to-\(to).pdf", contents: contents, photoCount: 0)
    }

    static let regimenNote = "A record of what was scheduled and logged in Cairn. It is not advice."

    private func ledgerEntries(in period: ClosedRange<LocalDay>) throws -> [LedgerEntry] {
        var entries: [LedgerEntry] = []
        var offset: Int? = 0
        while let next = offset {
            let page = try regimen.ledger(LedgerQuery(from: period.lowerBound, to: period.upperBound, limit: 1000, offset: next))
            entries += page.entries
            offset = page.nextOffset
        }
        return entries
    }

    /// One row per month of the period, one cell per day: what the day's scheduled doses say.
    static func dayGrid(_ doses: [TodayDose], period: ClosedRange<LocalDay>) -> ReportDayGrid {
        let byDay = Dictionary(grouping: doses) { $0.day }
        var rows: [ReportDayGrid.Row] = []
        var month = LocalDay(year: period.lowerBound.year, month: period.lowerBound.month, day: 1)!
        while month <= period.upperBound {
            let next =
                month.month == 12 ? LocalDay(year: month.year + 1, month: 1, day: 1)! : LocalDay(year: month.year, month: month.month + 1, day: 1)!
            let count = month.days(to: next)
            let cells = (1...31).map { d -> ReportDayGrid.Cell in
                guard d <= count, let day = LocalDay(year: month.year, month: month.month, day: d), period.contains(day),
                    let ds = byDay[day], !ds.isEmpty
                else { return .none }
                let taken = ds.filter { $0.state == .taken }.count
                let skipped = ds.filter { $0.state == .skipped }.count
                if taken == ds.count { return .taken }
                if skipped == ds.count { return .skipped }
                if taken + skipped == 0 { return .notLogged }
                return .partly
            }
            rows.append(.init(label: String(format: "%04d-%02d", month.year, month.month), cells: cells))
            month = next
        }
        return ReportDayGrid(rows: rows)
    }

    static func describe(_ plan: SchedulePlan) -> String {
        var text = plan.recurrence.summary
        if !plan.times.isEmpty { text += " at " + plan.times.map(\.description).joined(separator: ", ") }
        return text + ", " + (plan.servings == 1 ? "1 serving" : "\(plan.servings) servings")
    }

    static func serving(_ p: Product) -> String {
        p.servingSize.unit == .count ? "\(p.servingSize.value) \(p.form.rawValue)" : amount(p.servingSize)
    }

    static func amount(_ a: Amount) -> String { "\(a.value) \(a.unit.symbol)" }

    static func number(_ d: Decimal) -> String {
        var value = d
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 3, .plain)
        return "\(rounded)"
    }

    static func number(_ v: Double) -> String {
        let text = String(format: "%.2f", v)
        return text.hasSuffix(".00") ? String(text.dropLast(3)) : text
    }
}

extension ReportError {
    public var errorKind: ErrorKind {
        switch self {
        case .unreadablePhoto, .renderingFailed: return .failure
        default: return .refusedInput
        }
    }
}
