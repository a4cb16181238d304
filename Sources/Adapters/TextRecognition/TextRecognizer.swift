import CTesseract
import CairnCore
import Foundation
import Imaging
import NativeLoader

/// A rectangle in pixels of the upright photo (origin top left).
public struct TextBox: Hashable, Sendable, Codable {
    /// Left edge.
    public let x: Int
    /// Top edge.
    public let y: Int
    /// Width.
    public let width: Int
    /// Height.
    public let height: Int

    /// A box.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// One word Tesseract read, with its box and confidence.
public struct RecognizedWord: Hashable, Sendable, Codable {
    /// The word's text.
    public let text: String
    /// Tesseract's confidence, 0...1.
    public let confidence: Double
    /// Where the word is in the upright photo.
    public let box: TextBox
    /// Where the word is in the preprocessed image (the line geometry the parser uses).
    public let preprocessedBox: TextBox
    /// True when the word starts with a number of two digits or more read without a point or comma, and the
    /// image shows a mark of its own on the baseline between its digits (`TextRecognizer.hasUnreadMark`): a
    /// decimal point OCR did not read ("2.5" read as "25").
    public var unreadMarkInNumber = false
}

/// One text line: its words (indices into `RecognizedPage.words`) in reading order.
public struct RecognizedLine: Hashable, Sendable {
    /// Indices of the line's words.
    public let wordIndices: [Int]
    /// The words joined by single spaces.
    public let text: String
    /// The lowest word confidence, 0...1.
    public let minimumConfidence: Double
    /// The line's box in the preprocessed image.
    public let preprocessedBox: TextBox
}

/// Everything read from one image.
public struct RecognizedPage: Sendable {
    /// All words in reading order.
    public let words: [RecognizedWord]
    /// The words grouped in lines.
    public let lines: [RecognizedLine]
    /// Tesseract's mean word confidence, 0...1 (0 when nothing was read).
    public let meanConfidence: Double
    /// The preprocessing applied (scale, deskew, half turn).
    public let image: OCRImageSummary

    /// All text, one line per line.
    public var text: String { lines.map(\.text).joined(separator: "\n") }
}

/// How the photo was prepared, without its pixels.
public struct OCRImageSummary: Hashable, Sendable, Codable {
    /// Preprocessed size relative to the upright photo.
    public let scale: Double
    /// Rotation applied to straighten the text (degrees).
    public let deskewDegrees: Double
    /// The bow taken out of curved text lines, in photo pixels (`OCRImage.bow`); 0 when the lines were straight.
    public let bow: Double
    /// True when the photo was read turned by 180 degrees.
    public let turnedHalf: Bool
    /// The upright photo's width.
    public let sourceWidth: Int
    /// The upright photo's height.
    public let sourceHeight: Int
    /// The part of the upright photo that was read: the panel's box when the photo was cropped to it (a dark or
    /// coloured surround round the panel), else the whole photo.
    public var readArea: TextBox
    /// Lines of text seen outside the panel's box that were not read (0 when the whole photo was read).
    public var linesOutsidePanel: Int
    /// Runs of dot leaders erased before reading (`OCRImage.dotLeaderRuns`).
    public var dotLeaderRuns = 0
    /// True when the photo was cropped to the panel.
    public var croppedToPanel: Bool { readArea != TextBox(x: 0, y: 0, width: sourceWidth, height: sourceHeight) }
}

/// Why text recognition failed.
public struct TextRecognitionError: CairnError, Hashable {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// Tesseract or its English data is missing.
        case engineUnavailable
        /// The photo could not be read as an image.
        case unreadableImage(String)
        /// Tesseract failed on the image.
        case recognitionFailed
    }

    /// What went wrong.
    public let kind: Kind

    /// An error of `kind`.
    public init(kind: Kind) { self.kind = kind }

    /// A plain-English message without user content.
    public var userMessage: String {
        switch kind {
        case .engineUnavailable:
            "Text recognition is not available: Tesseract or its English data (Debian package tesseract-ocr-eng) is missing."
        case .unreadableImage(let why): "The photo cannot be read: \(why)"
        case .recognitionFailed: "Text recognition failed on this photo."
        }
    }
}

/// Reads text with Tesseract through its C API (English, LSTM engine), after `OCRPreprocessing`.
///
/// Tesseract's OpenMP would spread each recognition over every core, for 3-4 times the CPU on two cores: each
/// recognition runs its parallel regions on the calling thread alone (`OpenMP`), so no environment variable and
/// no re-executed process are needed. One recogniser serves one call at a time (a lock).
public final class TextRecognizer: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSLock()
    /// The page segmentation mode: one column of text lines of varying sizes suits Supplement Facts panels.
    public static let pageSegmentationMode = PSM_SINGLE_COLUMN

    /// Tesseract's version ("5.3.0").
    public static var version: String { String(cString: TessVersion()) }

    /// Opens Tesseract's library now, on the calling thread (NativeLoader opens it on first use); false when it is
    /// not installed. The dynamic loader opens one library at a time, so a process that starts Tesseract on one
    /// thread and opens libvips on another opens Tesseract first: reading its English data then runs beside the
    /// opening of libvips and its ~90 dependencies, instead of waiting for it (the functions the start calls are
    /// looked up here too: a lookup would wait for that opening to end).
    @discardableResult
    public static func openLibrary() -> Bool { cairn_tesseract_available() != 0 }

    /// Starts Tesseract with English data from `dataPath` (nil: the Debian default). Throws
    /// `TextRecognitionError(.engineUnavailable)` when the data cannot be loaded.
    public init(dataPath: String? = nil) throws {
        // Tesseract is opened on first use (NativeLoader): without it the engine is unavailable, as without its data.
        guard TextRecognizer.openLibrary(), let api = TessBaseAPICreate() else {
            throw TextRecognitionError(kind: .engineUnavailable)
        }
        // Tesseract's messages (tprintf: its start, its caches' "WARNING! LEAK!" when a process ends) go to
        // `debug_file`, and Leptonica's to stderr unless silenced: both are set before the start reads its data, so
        // nothing of theirs reaches the person's terminal, whatever happens after (Cairn reports its own errors).
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        cairn_leptonica_silence()
        let rc: Int32
        if let dataPath {
            rc = TessBaseAPIInit2(api, dataPath, "eng", OEM_LSTM_ONLY)
        } else {
            rc = TessBaseAPIInit2(api, nil, "eng", OEM_LSTM_ONLY)
        }
        guard rc == 0 else {
            TessBaseAPIDelete(api)
            throw TextRecognitionError(kind: .engineUnavailable)
        }
        TessBaseAPISetPageSegMode(api, TextRecognizer.pageSegmentationMode)
        // Again after the start, which reads the language's own settings. Leptonica's own messages ("Error in
        // boxClipToRectangle: box outside rectangle", from inside Tesseract on some photos) go to stderr, which
        // debug_file does not reach: a person running `cairn regimen scan` saw them.
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        cairn_leptonica_silence()
        // Tesseract 5 re-reads poorly recognised lines inverted (white on black): labels are dark on light, and
        // the second pass doubles the time.
        _ = TessBaseAPISetVariable(api, "tessedit_do_invert", "0")
        // Keep inter-word spaces as Tesseract sees them; labels separate columns with wide gaps.
        _ = TessBaseAPISetVariable(api, "preserve_interword_spaces", "0")
        // Labels are set in proportional type: Tesseract's test of every row for a typewriter's fixed pitch only
        // feeds its older engine's character chopping, and takes 2-4% of a read (label 2 of `cairn-bench labels`:
        // 277 -> 273 ms for `tesseract` on what Cairn gives it; label 36 on a dark surround: 349 -> 336 ms; the same text).
        _ = TessBaseAPISetVariable(api, "textord_all_prop", "1")
        handle = api
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Reads encoded image bytes (upright as stored; `turnHalf` reads them turned by 180 degrees).
    public func recognise(imageData: Data, turnHalf: Bool = false) throws -> RecognizedPage {
        try recognise(try TextRecognizer.prepare(imageData, turnHalf: turnHalf))
    }

    /// Encoded image bytes prepared for reading (`OCRPreprocessing`), without a recogniser: a caller can prepare
    /// the photo while Tesseract is still starting. Throws `TextRecognitionError(.unreadableImage)`.
    public static func prepare(_ imageData: Data, turnHalf: Bool = false) throws -> OCRImage {
        do { return try OCRPreprocessing.prepare(imageData, turnHalf: turnHalf) } catch let error as CairnError {
            throw TextRecognitionError(kind: .unreadableImage(error.userMessage))
        }
    }

    /// What a page read from `image` carries about the image itself.
    private static func summary(of image: OCRImage) -> OCRImageSummary {
        OCRImageSummary(
            scale: image.scale, deskewDegrees: image.deskewDegrees, bow: image.bow, turnedHalf: image.turnedHalf,
            sourceWidth: image.sourceWidth, sourceHeight: image.sourceHeight,
            readArea: TextRecognizer.readArea(image), linesOutsidePanel: image.panel?.linesOutside ?? 0,
            dotLeaderRuns: image.dotLeaderRuns)
    }

    /// Hands `image` (not empty) to Tesseract at 300 dpi, with OpenMP kept on this thread. The caller holds `lock` and
    /// clears the image when done.
    private func setImage(_ image: OCRImage) {
        image.pixels.withUnsafeBufferPointer { buffer in
            TessBaseAPISetImage(handle, buffer.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
        }
        TessBaseAPISetSourceResolution(handle, 300)
        OpenMP.runParallelRegionsOnThisThread()
    }

    /// Reads a preprocessed image.
    public func recognise(_ image: OCRImage) throws -> RecognizedPage {
        lock.lock()
        defer { lock.unlock() }
        let summary = TextRecognizer.summary(of: image)
        guard image.width > 0, image.height > 0 else {
            return RecognizedPage(words: [], lines: [], meanConfidence: 0, image: summary)
        }
        setImage(image)
        defer { TessBaseAPIClear(handle) }
        guard TessBaseAPIRecognize(handle, nil) == 0 else { throw TextRecognitionError(kind: .recognitionFailed) }
        var (words, lines) = collectWords(image)
        // Tesseract's column analysis sometimes takes a whole panel for a picture and reads no word at all (a
        // panel of Japanese type, with English data): the image is then read again as one block of text.
        if words.isEmpty {
            TessBaseAPISetPageSegMode(handle, PSM_SINGLE_BLOCK)
            defer { TessBaseAPISetPageSegMode(handle, TextRecognizer.pageSegmentationMode) }
            guard TessBaseAPIRecognize(handle, nil) == 0 else { throw TextRecognitionError(kind: .recognitionFailed) }
            (words, lines) = collectWords(image)
        }
        let recognizedLines = TextRecognizer.recognizedLines(lines, words: words)
        let mean = words.isEmpty ? 0 : Double(TessBaseAPIMeanTextConf(handle)) / 100
        return RecognizedPage(words: words, lines: recognizedLines, meanConfidence: mean, image: summary)
    }

    /// Lines of word indices with their text, lowest confidence and box.
    private static func recognizedLines(_ lines: [[Int]], words: [RecognizedWord]) -> [RecognizedLine] {
        lines.filter { !$0.isEmpty }.map { indices -> RecognizedLine in
            let boxes = indices.map { words[$0].preprocessedBox }
            let x0 = boxes.map(\.x).min()!
            let y0 = boxes.map(\.y).min()!
            let x1 = boxes.map { $0.x + $0.width }.max()!
            let y1 = boxes.map { $0.y + $0.height }.max()!
            return RecognizedLine(
                wordIndices: indices, text: indices.map { words[$0].text }.joined(separator: " "),
                minimumConfidence: indices.map { words[$0].confidence }.min()!,
                preprocessedBox: TextBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        }
    }

    /// The words of the last recognition, in reading order, and its lines (indices into the words).
    private func collectWords(_ image: OCRImage) -> (words: [RecognizedWord], lines: [[Int]]) {
        var words: [RecognizedWord] = []
        var lines: [[Int]] = []
        if let iterator = TessBaseAPIGetIterator(handle) {
            defer { TessResultIteratorDelete(iterator) }
            let page = TessResultIteratorGetPageIterator(iterator)
            repeat {
                guard let cText = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
                let text = String(cString: cText)
                TessDeleteText(cText)
                var left: Int32 = 0
                var top: Int32 = 0
                var right: Int32 = 0
                var bottom: Int32 = 0
                guard TessPageIteratorBoundingBox(page, RIL_WORD, &left, &top, &right, &bottom) != 0 else { continue }
                let startsLine = TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                let box = TextBox(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top))
                var word = RecognizedWord(
                    text: trimmed, confidence: Double(TessResultIteratorConfidence(iterator, RIL_WORD)) / 100,
                    box: TextRecognizer.sourceBox(box, image), preprocessedBox: box)
                word.unreadMarkInNumber = TextRecognizer.hasUnreadMark(in: trimmed, box: box, image: image)
                words.append(word)
                if startsLine || lines.isEmpty { lines.append([]) }
                lines[lines.count - 1].append(words.count - 1)
            } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        }
        return (words, lines)
    }

    /// `page` (read from `image`) with `regions` of it read again, each on its own as one block of text, in the
    /// order given: `page`'s lines above every region come first and those below every region last, with their
    /// words; the words keep their boxes in the whole image. For a panel in columns side by side: Tesseract,
    /// given the whole panel, may leave out the right part of a column (its dot leaders and %DV), which it reads
    /// in a region of its own.
    public func recognise(_ image: OCRImage, regions: [TextBox], of page: RecognizedPage) throws -> RecognizedPage {
        lock.lock()
        defer { lock.unlock() }
        let summary = TextRecognizer.summary(of: image)
        guard image.width > 0, image.height > 0 else {
            return RecognizedPage(words: [], lines: [], meanConfidence: 0, image: summary)
        }
        setImage(image)
        defer { TessBaseAPIClear(handle) }
        // Each region is one block of rows: Tesseract's own column finding, inside a column, takes a row's dot
        // leaders and %DV for a column of their own and leaves them out.
        TessBaseAPISetPageSegMode(handle, PSM_SINGLE_BLOCK)
        defer { TessBaseAPISetPageSegMode(handle, TextRecognizer.pageSegmentationMode) }
        var words: [RecognizedWord] = []
        var lines: [[Int]] = []
        var confidences: [Double] = []
        let top = regions.map(\.y).min() ?? 0
        let bottom = regions.map { $0.y + $0.height }.max() ?? 0
        func keep(_ above: Bool) {
            for line in page.lines {
                let middle = line.preprocessedBox.y + line.preprocessedBox.height / 2
                guard above ? middle < top : middle > bottom else { continue }
                let offset = words.count
                words += line.wordIndices.map { page.words[$0] }
                lines.append(line.wordIndices.indices.map { $0 + offset })
                confidences += line.wordIndices.map { page.words[$0].confidence }
            }
        }
        keep(true)
        for region in regions {
            let x = max(0, min(image.width - 1, region.x))
            let y = max(0, min(image.height - 1, region.y))
            let w = min(image.width - x, region.width)
            let h = min(image.height - y, region.height)
            guard w > 8, h > 8 else { continue }
            TessBaseAPISetRectangle(handle, Int32(x), Int32(y), Int32(w), Int32(h))
            guard TessBaseAPIRecognize(handle, nil) == 0 else { throw TextRecognitionError(kind: .recognitionFailed) }
            let (regionWords, regionLines) = collectWords(image)
            let offset = words.count
            words += regionWords
            lines += regionLines.map { $0.map { $0 + offset } }
            confidences += regionWords.map(\.confidence)
        }
        keep(false)
        let recognizedLines = TextRecognizer.recognizedLines(lines, words: words)
        let mean = confidences.isEmpty ? 0 : confidences.reduce(0, +) / Double(confidences.count)
        return RecognizedPage(words: words, lines: recognizedLines, meanConfidence: mean, image: summary)
    }

    /// True when `text` starts with a number of two digits or more read without a point or comma, and the
    /// image in `box` shows, between the number's digits, a mark of its own on the baseline: ink in the lowest
    /// 30% of the digits' height, none in their upper 60%, not joined to a digit along the baseline, at least
    /// 6% of the digits' height and 2 pixels wide, with ink taken at half-way from paper to ink or at 60% of the
    /// way to paper (a faint point). That is a decimal point Tesseract did not read ("2.5 mg" read
    /// as "25mg" in a blurred photo). A serif's foot (of a "1") is joined to its stem, so it is not such a mark.
    /// The digits' part of the box is taken in proportion to the characters read. Measured (and the widths
    /// chosen) on what Tesseract was given for labels 0-99 of `cairn-bench labels`, degraded and curved (200
    /// photos): 69 of 75 numbers read with their point show it; 4 of 1,191 read without one do, and those 4 were
    /// decimal points lost (at 5% wide, a "1" of "100%" would be a fifth).
    static func hasUnreadMark(in text: String, box: TextBox, image: OCRImage) -> Bool {
        let digits = text.prefix { $0.isNumber }
        guard digits.count >= 2, !text.dropFirst(digits.count).hasPrefix("."), !text.dropFirst(digits.count).hasPrefix(","),
            box.width > 0, box.height > 2
        else { return false }
        let share = Double(digits.count) / Double(text.count)
        let x0 = max(0, box.x)
        let y0 = max(0, box.y)
        let x1 = min(image.width - 1, box.x + Int(Double(box.width) * share) + (share < 1 ? 2 : 0))
        let y1 = min(image.height - 1, box.y + box.height)
        guard x1 > x0 + 2, y1 > y0 + 2 else { return false }
        let w = x1 - x0 + 1
        let h = y1 - y0 + 1
        var values: [UInt8] = []
        values.reserveCapacity(w * h)
        for y in y0...y1 { values.append(contentsOf: image.pixels[(y * image.width + x0)...(y * image.width + x1)]) }
        let sorted = values.sorted()
        let dark = Int(sorted[sorted.count * 5 / 100])
        let light = Int(sorted[min(sorted.count - 1, sorted.count * 95 / 100)])
        guard light - dark >= 30 else { return false }
        // Ink at half-way from paper to ink, and (a faint point in a blurred photo) at 60% of the way to paper.
        return [0.5, 0.6].contains { fraction in
            let threshold = Double(dark) + fraction * Double(light - dark)
            func ink(_ x: Int, _ y: Int) -> Bool { Double(values[y * w + x]) < threshold }
            let inkRows = (0..<h).filter { y in (0..<w).contains { ink($0, y) } }
            guard let top = inkRows.first, let bottom = inkRows.last else { return false }
            let height = bottom - top + 1
            let upperEnd = top + Int(0.6 * Double(height))
            let lowerStart = bottom - Int(0.3 * Double(height))
            let upper = (0..<w).map { x in (top..<upperEnd).contains { ink(x, $0) } }
            let lower = (0..<w).map { x in (lowerStart...bottom).contains { ink(x, $0) } }
            guard let firstUpper = upper.firstIndex(of: true), let lastUpper = upper.lastIndex(of: true) else { return false }
            var x = 0
            while x < w {
                guard lower[x] else {
                    x += 1
                    continue
                }
                var end = x
                while end < w, lower[end] { end += 1 }
                if x > firstUpper, end <= lastUpper, !upper[x..<end].contains(true), Double(end - x) >= max(2, 0.06 * Double(height)) {
                    return true
                }
                x = end
            }
            return false
        }
    }

    /// The part of the upright photo `image` was made from (the panel's box, turned back; else the whole photo).
    static func readArea(_ image: OCRImage) -> TextBox {
        guard let panel = image.panel else { return TextBox(x: 0, y: 0, width: image.sourceWidth, height: image.sourceHeight) }
        guard image.turnedHalf else { return TextBox(x: panel.x, y: panel.y, width: panel.width, height: panel.height) }
        return TextBox(
            x: image.sourceWidth - panel.x - panel.width, y: image.sourceHeight - panel.y - panel.height,
            width: panel.width, height: panel.height)
    }

    /// A preprocessed-image box in upright-photo pixels: the scale is undone, then the deskew rotation (libvips
    /// turns about the centre and enlarges the canvas to fit, so centres correspond), then the bow, then the crop
    /// to the panel, then a half turn. A word box turned back by a few degrees becomes the upright box around its
    /// four corners.
    static func sourceBox(_ box: TextBox, _ image: OCRImage) -> TextBox {
        let s = image.scale > 0 ? image.scale : 1
        // The deskewed canvas before scaling, and the (cropped, turned) photo it was made from.
        let canvasW = Double(image.width) / s
        let canvasH = Double(image.height) / s
        let srcW = Double(image.panel?.width ?? image.sourceWidth)
        let srcH = Double(image.panel?.height ?? image.sourceHeight)
        let offsetX = Double(image.panel?.x ?? 0)
        let offsetY = Double(image.panel?.y ?? 0)
        let a = image.deskewDegrees * .pi / 180
        let c = cos(a)
        let sn = sin(a)
        let corners = [
            (box.x, box.y), (box.x + box.width, box.y), (box.x, box.y + box.height),
            (box.x + box.width, box.y + box.height),
        ].map { (px, py) -> (Double, Double) in
            let dx = Double(px) / s - canvasW / 2
            let dy = Double(py) / s - canvasH / 2
            // libvips rotates by (x, y) -> (x cos - y sin, x sin + y cos); this is its inverse.
            let x = dx * c + dy * sn + srcW / 2
            let y = -dx * sn + dy * c + srcH / 2
            // The bow moved the column at u up by bow u^2.
            let u = srcW > 0 ? x / srcW * 2 - 1 : 0
            return (x + offsetX, y + image.bow * u * u + offsetY)
        }
        let x0 = corners.map(\.0).min()!
        let x1 = corners.map(\.0).max()!
        let y0 = corners.map(\.1).min()!
        let y1 = corners.map(\.1).max()!
        var x = Int(x0.rounded())
        var y = Int(y0.rounded())
        let w = Int((x1 - x0).rounded())
        let h = Int((y1 - y0).rounded())
        if image.turnedHalf {
            x = image.sourceWidth - x - w
            y = image.sourceHeight - y - h
        }
        return TextBox(x: max(0, x), y: max(0, y), width: w, height: h)
    }
}

extension TextRecognitionError {
    public var errorKind: ErrorKind {
        switch kind {
        case .engineUnavailable: return .unavailable
        case .unreadableImage: return .refusedInput
        case .recognitionFailed: return .failure
        }
    }
}
