import CairnCore
import Foundation
import Imaging
import Regimen
import Synchronization
import TextRecognition

/// What reading a label photo found, for the person to review and edit before anything is saved.
public struct LabelProposal: Encodable, Sendable {
    /// The outcome.
    public enum Status: String, Encodable, Sendable {
        /// Rows were read (check each one; some may be flagged).
        case proposed
        /// No text, or no Supplement Facts panel, was found.
        case noLabel
        /// A food's nutrition panel in any country's format (`FoodPanelFormat`: Nutrition Facts, Nutrition
        /// Information, per 100 g, 栄養成分表示), which Cairn does not read as a supplement: no rows.
        case nutritionFacts
        /// The label does not appear to be in English.
        case otherLanguage
    }

    /// The outcome.
    public let status: Status
    /// A plain message for every outcome except a clean read; nil when there is nothing to add.
    public let message: String?
    /// `Disclaimer.labelReading`.
    public let disclaimer: String
    /// The serving size, when read.
    public let servingSize: Amount?
    /// The serving size as printed.
    public let servingSizeText: String?
    /// Servings per container, when read.
    public let servingsPerContainer: Decimal?
    /// The proposed rows (empty unless `status` is `.proposed`).
    public let rows: [LabelProposalRow]
    /// The "Other ingredients" list.
    public let otherIngredients: [String]
    /// Lines read that are not ingredients (warnings, directions, addresses, text below the panel): left out,
    /// never rows.
    public let notIngredients: [String]
    /// Lines of the panel that were seen but could not be read as a row, a heading or a footnote.
    public let unreadLines: [String]
    /// Remarks about the whole label (e.g. it was read turned the right way up, lines were not read, the panel
    /// may be cut off).
    public let warnings: [String]
    /// True when a warning says rows may be missing (lines not read or left out as illegible, the panel cut off
    /// or its end not read, no heading, much of the text hard to read).
    public let mayBeIncomplete: Bool
    /// Tesseract's mean word confidence, 0...1.
    public let meanConfidence: Double
    /// True when the photo was read turned by 180 degrees.
    public let readUpsideDown: Bool
    /// The width of the upright photo the word boxes are measured in (nil for typed text).
    public let photoWidth: Int?
    /// The height of the upright photo the word boxes are measured in (nil for typed text).
    public let photoHeight: Int?
    /// How the panel was laid out, as found from the words' positions (nil for typed text).
    public var layout: LabelLayoutSummary? = nil
    /// For a food's panel (`status == .nutritionFacts`): the format that told it.
    public var foodPanel: FoodPanelFormat? = nil
    /// Every line seen and not read as a row, with why (`unreadLines` and `notIngredients` are the same lines
    /// by kind; this adds the barely legible ones and, for a panel declined, every line it held).
    public var linesNotRead: [LineNotRead] = []

    /// The product form the serving size names ("Serving Size 2 Softgels": softgel), if any.
    public var suggestedForm: ProductForm? {
        guard let text = servingSizeText?.lowercased() else { return nil }
        let words = text.split(whereSeparator: { !$0.isLetter }).map { word -> String in
            var w = String(word)
            if w.hasSuffix("es"), ProductForm(rawValue: String(w.dropLast(2))) != nil { w.removeLast(2) } else if w.hasSuffix("s") { w.removeLast() }
            return w
        }
        let aliases: [String: ProductForm] = [
            "caplet": .tablet, "vegcap": .capsule, "gelcap": .softgel, "scoop": .powder,
            "sachet": .packet, "stick": .packet, "chewable": .chewable,
        ]
        for word in words {
            if let form = ProductForm(rawValue: word), form != .other { return form }
            if let form = aliases[word] { return form }
        }
        return nil
    }
}

/// A line of the photo that was seen and not read as a row, and why: so a person can tell a line Cairn could not
/// read from one it does not read by design.
public struct LineNotRead: Encodable, Sendable, Hashable {
    /// Why the line was not read.
    public enum Reason: String, Encodable, Sendable {
        /// Seen inside the panel, but no name and amount could be read from it (blurred, cut, misread).
        case unreadable
        /// So faint that it was left out as noise.
        case barelyLegible
        /// Read, and not an ingredient: directions, a warning, an address, text below the panel.
        case notAnIngredient
        /// Read, on a panel Cairn does not read: a food's nutrition panel, or a label in another language.
        case notSupported
    }

    /// The line as read.
    public let text: String
    /// Why it was not read as a row.
    public let reason: Reason
}

/// One proposed row.
public struct LabelProposalRow: Encodable, Sendable {
    /// The row's number in the proposal, from 1 (what `--accept N` and `--leave-out N` name); 0 for a row
    /// checked on its own.
    public var number: Int = 0
    /// The name as printed.
    public let nameOnLabel: String
    /// The matched catalogue entry's id, nil when unknown.
    public let catalogueID: String?
    /// The matched catalogue entry's name.
    public let catalogueName: String?
    /// How well the name matched (1 = exactly).
    public let matchScore: Double?
    /// The amount per serving as printed.
    public let amount: Amount?
    /// The amount in the catalogue's unit, only where the conversion is exact.
    public let amountInCatalogueUnit: Amount?
    /// The printed %DV.
    public let dailyValuePercent: Decimal?
    /// The %DV column's marker ("notEstablished" for †, "asterisk", "doubleAsterisk").
    public let dailyValueMarker: DailyValueMarker?
    /// The form printed in "(as ...)".
    public let form: String?
    /// The catalogue form it matched, if any.
    public let catalogueForm: String?
    /// True for a blend (or any row with members).
    public let isBlend: Bool
    /// For a blend member: the blend's name.
    public let blendName: String?
    /// Boxes (upright-photo pixels) of the words the row was read from, for highlighting.
    public let wordBoxes: [TextBox]
    /// The lowest confidence (0...1) of the row's words as read; nil for a row typed or changed by hand.
    public let confidence: Double?
    /// What to check, each with its reason.
    public let flags: [LabelFlag]
    /// True when the row is saved only once the person accepts it (a flag that needs a decision, `LabelGate`).
    public var needsDecision: Bool { flags.contains { $0.kind.needsDecision } }
}

/// One row as the person left it on a review page, to be matched and flagged again before saving.
public struct EditedLabelRow: Hashable, Sendable {
    /// The name as the person left it.
    public var nameOnLabel: String
    /// The form ("as ..."), if any.
    public var form: String?
    /// The amount per serving, if any.
    public var amount: Amount?
    /// The %DV, if any.
    public var dailyValuePercent: Decimal?
    /// The %DV column's marker as read, if any.
    public var dailyValueMarker: DailyValueMarker?
    /// True for a blend's total row.
    public var isBlend: Bool
    /// For a blend member: the blend's name.
    public var blendName: String?
    /// The boxes the row was read from (empty for a row added by hand).
    public var wordBoxes: [TextBox]
    /// The row's OCR confidence when it is unchanged since it was read; nil for a row typed or changed by hand.
    public var readConfidence: Double?
    /// The flags only the photo could raise (`LabelFlag.fromPhoto`: words not on one line, a mark in the amount's
    /// number), kept while the row is unchanged since it was read.
    public var readPhotoFlags: Set<LabelFlag.Kind>

    /// A row; everything but the name is optional.
    public init(
        nameOnLabel: String, form: String? = nil, amount: Amount? = nil, dailyValuePercent: Decimal? = nil,
        dailyValueMarker: DailyValueMarker? = nil, isBlend: Bool = false, blendName: String? = nil,
        wordBoxes: [TextBox] = [], readConfidence: Double? = nil, readPhotoFlags: Set<LabelFlag.Kind> = []
    ) {
        self.nameOnLabel = nameOnLabel
        self.form = form
        self.amount = amount
        self.dailyValuePercent = dailyValuePercent
        self.dailyValueMarker = dailyValueMarker
        self.isBlend = isBlend
        self.blendName = blendName
        self.wordBoxes = wordBoxes
        self.readConfidence = readConfidence
        self.readPhotoFlags = readPhotoFlags
    }
}

/// Reads a Supplement Facts photo on this machine and proposes the product's rows. The photo is only held in
/// memory for the call: nothing is stored, and nothing is saved until the person confirms an edited proposal
/// through the product service.
public final class LabelScanService: Sendable {
    private let recognizerStart: Pending<TextRecognizer>?
    private let normaliserStart: Pending<LabelNormaliser>
    /// The catalogue matcher. Only `startDefault()` loads it on another thread, and `propose(imageData:)` waits
    /// for it (and reports a catalogue that cannot be read) before anything else uses it.
    private var normaliser: LabelNormaliser {
        guard let normaliser = try? normaliserStart.get() else { preconditionFailure("the catalogue was not loaded") }
        return normaliser
    }

    /// The last service `startForOnePhoto()` made, kept until the process ends (or makes another).
    private static let keptUntilExit = Mutex<LabelScanService?>(nil)

    /// The block size from which a one-photo process maps memory on its own (glibc's largest dynamic threshold).
    static let oneShotMMapThreshold: Int32 = 32 << 20

    /// glibc's `mallopt(M_MMAP_THRESHOLD, bytes)`, found in the process with dlsym, as OpenMP's setting is found:
    /// Swift's Glibc module does not import <malloc.h>. -3 is M_MMAP_THRESHOLD there (part of glibc's ABI).
    private static func setMMapThreshold(_ bytes: Int32) {
        typealias SetOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: SetOption.self)(-3, bytes)
    }

    /// Below this mean confidence, a photo with no panel heading is also read turned by 180 degrees.
    public static let upsideDownRetryConfidence = 0.8

    /// A line with no amount and no catalogue match read below this confidence is treated as noise.
    public static let noiseConfidence = 0.5

    /// A service reading with `recognizer` (nil: text only) and matching against `catalogue`.
    public init(catalogue: Catalogue, recognizer: TextRecognizer?) {
        self.recognizerStart = recognizer.map { .ready($0) }
        self.normaliserStart = .ready(LabelNormaliser(catalogue: catalogue))
    }

    private init(starting recognizer: Pending<TextRecognizer>, normaliser: Pending<LabelNormaliser>) {
        self.recognizerStart = recognizer
        self.normaliserStart = normaliser
    }

    /// The bundled catalogue and a Tesseract recogniser. Throws `RegimenError.catalogueUnreadable` or
    /// `TextRecognitionError`.
    public static func makeDefault() throws -> LabelScanService {
        LabelScanService(catalogue: try Catalogue.bundled(), recognizer: try TextRecognizer())
    }

    /// The bundled catalogue and a Tesseract recogniser, each loaded on its own thread: Tesseract's English data
    /// at once, beside decoding and preparing the photo; the catalogue once the photo is prepared (or when first
    /// needed), beside the recognition, so the two cores go to what the first words read wait for (a one-photo
    /// command: `cairn regimen scan`, and the web's scans). A missing Tesseract or an unreadable catalogue is
    /// reported by `propose(imageData:)`.
    public static func startDefault() -> LabelScanService {
        LabelScanService(
            starting: Pending { try TextRecognizer() },
            normaliser: .deferred { LabelNormaliser(catalogue: try Catalogue.bundled()) })
    }

    /// `startDefault()` for a process that reads one photo (`cairn regimen scan`): libvips is also kept to one
    /// worker thread, so preparing the photo takes one core and Tesseract's start the other, but for the photo's
    /// enlargement at the end, which takes two (`OCRPreprocessing.useWorkerThreads`). Tesseract's library
    /// is opened here before libvips' (`TextRecognizer.openLibrary`), so its start is not held up behind libvips'.
    /// Blocks of up to 32 MiB (Tesseract's data and networks, the photo's planes) come from the heap and are
    /// reused there (`oneShotMMapThreshold`). The service is kept until the process ends: Tesseract is not torn
    /// down.
    public static func startForOnePhoto() -> LabelScanService {
        // glibc maps each block of 128 KiB or more on its own, and unmaps it when freed: the next one is faulted
        // in again page by page, and every unmapping interrupts the other core running a thread of this process.
        // Its threshold rises by itself, but only after the first such block of each size is freed. A process that
        // reads one photo and ends takes them from the heap from the start (scan: 12 ms of wall less, 20 rounds).
        setMMapThreshold(oneShotMMapThreshold)
        TextRecognizer.openLibrary()
        let service = startDefault()
        // A libvips that cannot start is reported when the photo is read.
        try? OCRPreprocessing.useWorkerThreads(1, whileEnlarging: 2)
        // Tearing Tesseract down (freeing its networks and word lists) takes ~3 ms after the output is written,
        // which the process's end does at no cost. A process that makes another service keeps only that one.
        keptUntilExit.withLock { $0 = service }
        return service
    }

    /// Reads the photo (in memory only) and proposes rows. Throws `TextRecognitionError` for bytes that are not
    /// a readable image; every other problem (no label, food panel, other language) is a proposal with a message
    /// and no rows.
    public func propose(imageData: Data) throws -> LabelProposal {
        guard let recognizerStart else { throw TextRecognitionError(kind: .engineUnavailable) }
        let prepared: OCRImage
        do {
            prepared = try TextRecognizer.prepare(imageData)
        } catch {
            // Tesseract may still be starting on its own thread. The refusal ends a one-photo process: ended while
            // Tesseract reads its data, the process tears Tesseract's caches down under it, and their destructors
            // print "WARNING! LEAK!" on the person's terminal (and may crash). Its start is waited for first.
            _ = try? recognizerStart.get()
            throw error
        }
        normaliserStart.start()
        let recognizer = try recognizerStart.get()
        var page = try recognizer.recognise(prepared)
        _ = try normaliserStart.get()
        var parsed = parse(page, imageWidth: prepared.width)
        // Columns side by side: each is read again on its own (with what lies above and below them).
        if !parsed.regions.isEmpty {
            let boxes = parsed.regions.map { r in
                TextBox(x: Int(r.x.rounded()), y: Int(r.y.rounded()), width: Int(r.width.rounded()), height: Int(r.height.rounded()))
            }
            page = try recognizer.recognise(prepared, regions: boxes, of: page)
            parsed = parse(page, regions: parsed.regions, layout: parsed.layout)
        }
        if parsed.label.panelKind == .unknown, !page.words.isEmpty, page.meanConfidence < Self.upsideDownRetryConfidence {
            let turned = try recognizer.recognise(imageData: imageData, turnHalf: true)
            let turnedParsed = parse(turned)
            if turnedParsed.label.panelKind != .unknown || turned.meanConfidence > page.meanConfidence + 0.1 {
                page = turned
                parsed = turnedParsed
            }
        }
        return proposal(parsed.label, lines: parsed.lines, page: page, layout: parsed.layout)
    }

    /// Proposes rows from typed label text (no photo, no word boxes).
    public func propose(text: String) -> LabelProposal {
        let lines = LabelLine.lines(from: text)
        return proposal(LabelParser.parse(lines), lines: lines, page: nil, layout: nil)
    }

    // MARK: private

    /// The page's lines in reading order, its columns found from the words' boxes (`LabelLayout`), parsed; with
    /// the regions to read again one by one when the panel has columns side by side.
    private func parse(_ page: RecognizedPage, imageWidth: Int? = nil) -> (
        label: ParsedLabel, lines: [LabelLine], layout: LabelLayoutSummary, regions: [LabelRegion]
    ) {
        let words = Self.layoutWords(page)
        let right = page.lines.map { Double($0.preprocessedBox.x + $0.preprocessedBox.width) }.max() ?? 0
        let (lines, firstLayout, regions) = LabelLayout.lines(
            words: words, recognisedLines: page.lines.map(\.wordIndices), imageWidth: imageWidth.map(Double.init) ?? right)
        let label = LabelParser.parse(lines)
        var layout = firstLayout
        layout.dotLeaders = layout.dotLeaders || page.image.dotLeaderRuns > 0
        layout.amounts = LabelLayout.amountPlacement(of: label, lines: lines, words: words)
        return (label, lines, layout, regions)
    }

    /// A page read region by region (`TextRecognizer.recognise(_:regions:)`), parsed in the regions' order; the
    /// layout is the one the whole page showed, with where the amounts were read again.
    private func parse(_ page: RecognizedPage, regions: [LabelRegion], layout: LabelLayoutSummary) -> (
        label: ParsedLabel, lines: [LabelLine], layout: LabelLayoutSummary, regions: [LabelRegion]
    ) {
        let words = Self.layoutWords(page)
        let lines = LabelLayout.lines(words: words, recognisedLines: page.lines.map(\.wordIndices), regions: regions)
        let label = LabelParser.parse(lines)
        var layout = layout
        layout.amounts = LabelLayout.amountPlacement(of: label, lines: lines, words: words)
        return (label, lines, layout, regions)
    }

    /// The page's words with their boxes in the image Tesseract read (the geometry the layout is found in).
    private static func layoutWords(_ page: RecognizedPage) -> [LabelWord] {
        page.words.map { word in
            let box = word.preprocessedBox
            return LabelWord(
                text: word.text, x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height),
                confidence: word.confidence)
        }
    }

    private func proposal(_ label: ParsedLabel, lines: [LabelLine], page: RecognizedPage?, layout: LabelLayoutSummary?) -> LabelProposal {
        let words = page?.words ?? []
        let turned = page?.image.turnedHalf ?? false
        var warnings: [String] = []
        if turned { warnings.append("The photo was upside down; it was read turned the right way up.") }
        if let bow = page?.image.bow, bow != 0 {
            warnings.append(
                "The lines of the label were curved (a round bottle); they were straightened before reading. Check the rows at the label's edges most closely."
            )
        }
        func empty(_ status: LabelProposal.Status, _ message: String) -> LabelProposal {
            var proposal = LabelProposal(
                status: status, message: message, disclaimer: Disclaimer.labelReading.text, servingSize: nil,
                servingSizeText: nil, servingsPerContainer: nil, rows: [], otherIngredients: [], notIngredients: [],
                unreadLines: [], warnings: warnings, mayBeIncomplete: true,
                meanConfidence: page?.meanConfidence ?? 0, readUpsideDown: turned,
                photoWidth: page?.image.sourceWidth, photoHeight: page?.image.sourceHeight)
            proposal.layout = layout
            proposal.foodPanel = status == .nutritionFacts ? label.foodPanel ?? .nutritionFacts : nil
            if status == .nutritionFacts || status == .otherLanguage {
                proposal.linesNotRead = lines.map { LineNotRead(text: $0.text, reason: .notSupported) }
            } else {
                proposal.linesNotRead = label.unusedLines.map { LineNotRead(text: $0, reason: .unreadable) }
            }
            return proposal
        }
        if lines.isEmpty {
            return empty(
                .noLabel, "No text was found in this photo. Photograph the Supplement Facts panel straight on, filling the frame, in even light.")
        }
        if label.panelKind == .nutritionFacts {
            let what = (label.foodPanel ?? .nutritionFacts).title
            return empty(.nutritionFacts, "This is \(what). Cairn reads Supplement Facts panels only: nothing was read from it.")
        }
        func confidence(_ row: ParsedLabelRow) -> Double? { row.lineIndices.compactMap { lines[$0].confidence }.min() }
        var normalised = normaliser.normalise(label, confidence: confidence)
        // OCR noise: a barely legible line with no amount and no catalogue match is left out, and said so.
        let noise = normalised.filter { row in
            row.match == nil && row.parsed.amount == nil && row.parsed.unreadableAmountText == nil && !row.parsed.isBlend
                && (confidence(row.parsed) ?? 1) < Self.noiseConfidence
        }
        var incomplete = false
        if !noise.isEmpty {
            incomplete = true
            normalised.removeAll { row in noise.contains(row) }
            warnings.append("\(noise.count) barely legible line\(noise.count == 1 ? " was" : "s were") left out. Compare the rows with the label.")
        }
        let matched = normalised.filter { $0.match != nil }.count
        if label.panelKind == .unknown && matched == 0 {
            if LabelLanguage.looksForeign(lines.map(\.text).joined(separator: " ")) {
                return empty(.otherLanguage, "This label does not appear to be in English. Cairn reads English Supplement Facts panels only.")
            }
            return empty(.noLabel, "No Supplement Facts panel was found in this photo. Photograph the panel straight on, filling the frame.")
        }
        if label.panelKind == .unknown {
            incomplete = true
            warnings.append("No \"Supplement Facts\" heading was read. Check that the whole panel is in the photo and that every row is here.")
        }
        if let page, page.meanConfidence < 0.75 {
            incomplete = true
            warnings.append("Much of the text was hard to read. Compare every row with the label, or take a sharper photo.")
        }
        // Nothing silent: lines of the panel seen but not read, and a panel that runs off the photo.
        let unread = label.unusedLines
        if !unread.isEmpty {
            incomplete = true
            warnings.append(
                "\(unread.count) line\(unread.count == 1 ? " of the panel was" : "s of the panel were") not read as a row. Compare the rows with the label; add any missing row by hand."
            )
        }
        if let page, page.image.linesOutsidePanel > 0 {
            incomplete = true
            let n = page.image.linesOutsidePanel
            warnings.append(
                "\(n) line\(n == 1 ? "" : "s") of text outside the panel's edges \(n == 1 ? "was" : "were") not read (the photo was read within the panel, its light box). If \(n == 1 ? "it belongs" : "any belong") to the panel, add the missing rows by hand or take the photo again with the whole panel on one light background."
            )
        }
        if let page, let (edge, ofPhoto) = Self.cutOffEdge(page) {
            incomplete = true
            if ofPhoto {
                warnings.append(
                    "Text touches the \(edge) edge of the photo: part of the panel may be cut off. Check that every row is here, or take the photo again with a margin around the panel."
                )
            } else {
                warnings.append(
                    "Text touches the \(edge) edge of the panel as it was found in the photo: part of the panel may not have been read. Check that every row is here."
                )
            }
        } else if page != nil, !label.panelEndFound, label.otherIngredients.isEmpty {
            incomplete = true
            warnings.append(
                "The end of the panel (its footnote) was not read: rows below the last one shown may be missing. Check them against the label.")
        }
        if !label.notIngredients.isEmpty {
            warnings.append(
                "\(label.notIngredients.count) line\(label.notIngredients.count == 1 ? " that is" : "s that are") not an ingredient (directions, warnings, an address, text below the panel) \(label.notIngredients.count == 1 ? "was" : "were") left out."
            )
        }
        let rows = normalised.enumerated().map { index, row -> LabelProposalRow in
            let boxes = row.parsed.lineIndices.flatMap { lines[$0].wordIndices }.compactMap { $0 < words.count ? words[$0].box : nil }
            let offLine = row.parsed.lineIndices.contains { i in
                Self.wordsOffOneLine(lines[i].wordIndices.compactMap { $0 < words.count ? words[$0].preprocessedBox : nil })
            }
            // A mark between the digits of the row's amount (not of its %DV) that was not read.
            let markInNumber =
                row.parsed.amount != nil
                && row.parsed.lineIndices.contains { i in
                    lines[i].wordIndices.contains { $0 < words.count && words[$0].unreadMarkInNumber && !words[$0].text.contains("%") }
                }
            let photoFlags = (offLine ? [LabelFlag.wordsOffLine] : []) + (markInNumber ? [LabelFlag.markInNumber] : [])
            var proposed = Self.proposalRow(row, wordBoxes: boxes, confidence: confidence(row.parsed), photoFlags: photoFlags)
            proposed.number = index + 1
            return proposed
        }
        let flagged = rows.filter(\.needsDecision).count
        let message =
            rows.isEmpty
            ? "The panel was found but no ingredient rows could be read. Try a sharper photo."
            : (flagged > 0 ? "\(flagged) of \(rows.count) rows are flagged: each is saved only once you accept it, change it or leave it out." : nil)
        var proposal = LabelProposal(
            status: .proposed, message: message, disclaimer: Disclaimer.labelReading.text,
            servingSize: label.servingSize, servingSizeText: label.servingSizeText,
            servingsPerContainer: label.servingsPerContainer, rows: rows,
            otherIngredients: label.otherIngredients, notIngredients: label.notIngredients,
            unreadLines: unread, warnings: warnings, mayBeIncomplete: incomplete,
            meanConfidence: page?.meanConfidence ?? 1, readUpsideDown: turned,
            photoWidth: page?.image.sourceWidth, photoHeight: page?.image.sourceHeight)
        proposal.layout = layout
        proposal.linesNotRead =
            unread.map { LineNotRead(text: $0, reason: .unreadable) }
            + noise.map { LineNotRead(text: $0.parsed.nameOnLabel, reason: .barelyLegible) }
            + label.notIngredients.map { LineNotRead(text: $0, reason: .notAnIngredient) }
        return proposal
    }

    /// The side of the part of the photo that was read (the whole photo, or the panel's box it was cropped to)
    /// that text touches ("bottom", "top", "left", "right"), and whether that side is the photo's own edge; nil
    /// when every word keeps a margin: a panel photographed too tight, cut off by the frame, or cut by the crop.
    static func cutOffEdge(_ page: RecognizedPage) -> (edge: String, ofPhoto: Bool)? {
        let w = page.image.sourceWidth
        let h = page.image.sourceHeight
        let area = page.image.readArea
        // Only words that hold letters or digits: a border's edge read as "|" is no text.
        let boxes = page.words.filter { $0.text.contains { $0.isLetter || $0.isNumber } && $0.confidence > 0.3 }.map(\.box)
        guard w > 0, h > 0, area.width > 0, area.height > 0, !boxes.isEmpty else { return nil }
        let margin = max(1, min(w, h) / 400)
        let bottom = area.y + area.height
        let right = area.x + area.width
        if boxes.contains(where: { $0.y + $0.height >= bottom - margin }) { return ("bottom", bottom >= h) }
        if boxes.contains(where: { $0.y <= area.y + margin }) { return ("top", area.y <= 0) }
        if boxes.contains(where: { $0.x + $0.width >= right - margin }) { return ("right", right >= w) }
        if boxes.contains(where: { $0.x <= area.x + margin }) { return ("left", area.x <= 0) }
        return nil
    }

    /// True when the words of one recognised line (boxes in reading order) do not sit on one straight line: the
    /// middles of two neighbouring words are apart by more than half the taller one's height, as when Tesseract
    /// joins the name of one row with the amount of the next on a curved label. Marks smaller than the line's
    /// words (a "*", a comma) and bars (narrow and tall) are left out.
    static func wordsOffOneLine(_ boxes: [TextBox]) -> Bool {
        let heights = boxes.map(\.height).sorted()
        guard !heights.isEmpty else { return false }
        let typical = Double(heights[heights.count / 2])
        let sized = boxes.filter { $0.width > $0.height / 2 && Double($0.height) >= 0.6 * typical }
        guard sized.count >= 2 else { return false }
        return zip(sized, sized.dropFirst()).contains { a, b in
            let ma = Double(a.y) + Double(a.height) / 2
            let mb = Double(b.y) + Double(b.height) / 2
            return abs(ma - mb) > 0.5 * Double(max(a.height, b.height))
        }
    }

    private static func proposalRow(
        _ row: NormalisedLabelRow, wordBoxes: [TextBox], confidence: Double?,
        photoFlags: [LabelFlag] = []
    ) -> LabelProposalRow {
        LabelProposalRow(
            nameOnLabel: row.parsed.nameOnLabel, catalogueID: row.match?.ingredient.id, catalogueName: row.match?.ingredient.name,
            matchScore: row.match?.score, amount: row.parsed.amount, amountInCatalogueUnit: row.amountInCatalogueUnit,
            dailyValuePercent: row.parsed.dailyValuePercent, dailyValueMarker: row.parsed.dailyValueMarker,
            form: row.parsed.form, catalogueForm: row.match?.form?.name, isBlend: row.parsed.isBlend,
            blendName: row.parsed.blendName, wordBoxes: wordBoxes, confidence: confidence,
            flags: row.flags + photoFlags)
    }
}

extension LabelScanService {
    /// Matches and flags a row the person edited or typed, exactly as rows read from a photo are (the same
    /// catalogue, the same flags): an unchanged row keeps its low-confidence flag, a name the catalogue does not
    /// know is kept with an "unknown ingredient" flag.
    public func revalidate(_ row: EditedLabelRow, number: Int = 0) -> LabelProposalRow {
        let trimmedForm = row.form?.trimmingCharacters(in: .whitespaces)
        let parsed = ParsedLabelRow(
            nameOnLabel: row.nameOnLabel.trimmingCharacters(in: .whitespaces),
            form: trimmedForm?.isEmpty == false ? trimmedForm : nil, amount: row.amount,
            dailyValuePercent: row.dailyValuePercent, dailyValueMarker: row.dailyValueMarker,
            isBlend: row.isBlend, blendName: row.blendName)
        var checked = Self.proposalRow(
            normaliser.normalise(parsed, confidence: row.readConfidence), wordBoxes: row.wordBoxes,
            confidence: row.readConfidence,
            photoFlags: LabelFlag.Kind.allCases.filter(row.readPhotoFlags.contains).compactMap(LabelFlag.fromPhoto))
        checked.number = number
        return checked
    }

    /// A smaller JPEG of the upright photo (longer side at most `maxSide`), to show beside the rows. Made in
    /// memory; nothing is written. Throws `ImagingError` for bytes that are not a readable image.
    public func preview(imageData: Data, maxSide: Int = 1400) throws -> Data {
        let pipeline = ImagePipeline()
        return try pipeline.encodeJPEG(try pipeline.decodeRGB(imageData, maxSide: maxSide), quality: 82)
    }
}

/// A value being made on its own thread (or made already, or to be made on its own thread once `start()` or
/// `get()` is first called); `get()` waits for it once and then returns it, or throws what making it threw.
final class Pending<Value>: @unchecked Sendable {
    private let lock = NSCondition()
    private var result: Result<Value, Error>?
    private var make: (@Sendable () throws -> Value)?

    init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
        start()
    }

    private init(waiting make: @escaping @Sendable () throws -> Value) { self.make = make }

    private init(result: Result<Value, Error>) { self.result = result }

    /// A value made on its own thread from the first `start()` or `get()` on.
    static func deferred(_ make: @escaping @Sendable () throws -> Value) -> Pending { Pending(waiting: make) }

    static func ready(_ value: Value) -> Pending { Pending(result: .success(value)) }

    /// Starts making the value on its own thread, unless it was started already.
    func start() {
        lock.lock()
        let starting = make
        make = nil
        lock.unlock()
        guard let starting else { return }
        let thread = Thread { [self] in
            let made = Result { try starting() }
            lock.lock()
            result = made
            lock.broadcast()
            lock.unlock()
        }
        thread.start()
    }

    func get() throws -> Value {
        start()
        lock.lock()
        defer { lock.unlock() }
        while result == nil { lock.wait() }
        return try result!.get()
    }
}

/// A rough check for labels not written in English: common words of German, French, Spanish, Italian, Dutch
/// and Portuguese supplement labels against common English label words.
enum LabelLanguage {
    static let foreignWords: Set<String> = [
        "nahrungsergänzungsmittel", "nahrungserganzungsmittel", "zutaten", "tagesdosis", "verzehrempfehlung", "enthält",
        "enthalt", "kapseln", "tabletten", "und", "mit", "der", "die", "das", "pro", "je", "nrv", "vnr", "vrn", "ingrédients",
        "ingredients:", "complément", "complement", "alimentaire", "gélules", "gelules", "comprimés", "par", "jour", "avec",
        "les", "des", "et", "pour", "ingredientes", "suplemento", "alimenticio", "cápsulas", "capsulas", "por", "día", "dia",
        "con", "los", "las", "del", "y", "ingredienti", "integratore", "alimentare", "giornaliera", "di", "il", "per", "dose",
        "bevat", "ingrediënten", "voedingssupplement", "dagelijkse", "dosis", "van", "een", "het", "suplemento", "diária",
        "diaria", "cápsula", "vitamine", "magnésium", "zink", "eisen", "empfohlene", "tagesverzehr", "porción", "porzione",
    ]
    static let englishWords: Set<String> = [
        "the", "and", "of", "per", "serving", "servings", "size", "daily", "value", "amount", "ingredients", "other",
        "supplement", "facts", "container", "as", "vitamin", "not", "established", "blend", "proprietary", "each",
    ]

    static func looksForeign(_ text: String) -> Bool {
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count >= 2 || $0 == "y" }
        guard !words.isEmpty else { return false }
        let foreign = words.filter { foreignWords.contains($0) || $0.contains(where: { "äöüßéèêàçñíóúãõ".contains($0) }) }.count
        let english = words.filter { englishWords.contains($0) }.count
        return foreign >= 3 && foreign > english * 2
    }
}

extension LabelScanService {
    /// The product a reviewed proposal describes, ready for `RegimenService.addProduct`. The person names it and
    /// gives its form (labels do not print either reliably); rows keep their catalogue match, or none for a name
    /// the catalogue does not know. Throws `LabelSaveError.nothingToSave` unless rows were read.
    public func product(from proposal: LabelProposal, name: String, brand: String = "", form: ProductForm) throws -> Product {
        guard proposal.status == .proposed else { throw LabelSaveError.nothingToSave }
        return try product(fromReviewed: proposal.rows, servingSize: proposal.servingSize, name: name, brand: brand, form: form)
    }

    /// The product reviewed rows describe (see `revalidate(_:)`), one serving being `servingSize` (nil: one
    /// unit). Throws `LabelSaveError.nothingToSave` for no rows, and the errors of `ProductIngredient` and
    /// `Product`.
    public func product(
        fromReviewed rows: [LabelProposalRow], servingSize: Amount?, name: String, brand: String = "",
        form: ProductForm
    ) throws -> Product {
        guard !rows.isEmpty else { throw LabelSaveError.nothingToSave }
        let ingredients = try rows.map { row in
            try ProductIngredient(
                catalogueID: row.catalogueID, nameOnLabel: row.nameOnLabel, amount: row.amount,
                dailyValuePercent: row.dailyValuePercent, form: row.form)
        }
        let serving = try servingSize ?? Amount(1, .count)
        return try Product(name: name, brand: brand, form: form, servingSize: serving, ingredients: ingredients)
    }
}

/// Why a label proposal could not be saved.
public enum LabelSaveError: CairnError, Equatable {
    /// The photo gave no rows to save.
    case nothingToSave

    public var userMessage: String {
        switch self {
        case .nothingToSave: return "Nothing was read from this label, so there is nothing to save."
        }
    }
}
