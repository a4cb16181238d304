import CairnCore
import CairnTestSupport
import Foundation
import Testing

@testable import Imaging
@testable import TextRecognition

@Suite(.serialized) struct TextRecognizerTests {
    static let panel = """
        <b><span size="x-large">Supplement Facts</span></b>
        Serving Size 2 Lozenges
        Servings Per Container 24
        <b>Amount Per Serving                         % Daily Value</b>
        Vitamin C (as ascorbic acid)        200 mg        222%
        Zinc (as zinc gluconate)               15 mg        136%
        Melatonin                                     3 mg            †
        † Daily Value not established.
        """

    let recognizer = try! TextRecognizer()

    @Test func readsTheWordsOfARenderedLabelWithTheirBoxes() throws {
        let image = TextRenderer.render(Self.panel)
        let jpeg = try ImagePipeline().encodeJPEG(image, quality: 92)
        let page = try recognizer.recognise(imageData: jpeg)
        let words = page.words.map(\.text)
        for expected in ["Supplement", "Facts", "Serving", "Vitamin", "200", "222%", "Zinc", "Melatonin"] {
            #expect(words.contains(expected), "missing \(expected)")
        }
        #expect(page.meanConfidence > 0.8)
        let supplement = try #require(page.words.first { $0.text == "Supplement" })
        let zinc = try #require(page.words.first { $0.text == "Zinc" })
        // Boxes are in the photo's pixels: inside it, ordered top to bottom, left edges aligned with the margin.
        #expect(supplement.box.y < zinc.box.y)
        #expect(zinc.box.x >= 20 && zinc.box.x <= 45)
        #expect(zinc.box.x + zinc.box.width <= image.width && zinc.box.y + zinc.box.height <= image.height)
        #expect(page.lines.contains { $0.text.hasPrefix("Zinc") && $0.text.contains("15") })
    }

    /// A white 60 x 30 image with dark rectangles (x0, y0, x1, y1 inclusive) drawn on it.
    private static func blocks(_ rects: [(Int, Int, Int, Int)]) -> OCRImage {
        var pixels = [UInt8](repeating: 235, count: 60 * 30)
        for (x0, y0, x1, y1) in rects { for y in y0...y1 { for x in x0...x1 { pixels[y * 60 + x] = 30 } } }
        return OCRImage(
            width: 60, height: 30, pixels: pixels, scale: 1, deskewDegrees: 0, bow: 0, turnedHalf: false,
            sourceWidth: 60, sourceHeight: 30)
    }

    @Test func aMarkOnTheBaselineBetweenTheDigitsOfANumberReadWithoutAPointIsSeen() {
        let two = (5, 5, 14, 24)
        let dot = (18, 21, 20, 24)
        let five = (24, 5, 33, 24)
        let box = TextBox(x: 4, y: 4, width: 31, height: 22)
        // "2.5" read as "25": the point is there in the image.
        #expect(TextRecognizer.hasUnreadMark(in: "25", box: box, image: Self.blocks([two, dot, five])))
        // The unit read with it takes the box's right part ("25mg"): the digits' part is still searched.
        #expect(
            TextRecognizer.hasUnreadMark(
                in: "25mg", box: TextBox(x: 4, y: 4, width: 56, height: 22),
                image: Self.blocks([two, dot, five, (38, 12, 46, 24), (49, 12, 56, 28)])))
        // No mark between the digits, or the point was read.
        #expect(!TextRecognizer.hasUnreadMark(in: "25", box: box, image: Self.blocks([two, five])))
        #expect(!TextRecognizer.hasUnreadMark(in: "2.5", box: box, image: Self.blocks([two, dot, five])))
        // A serif's foot is joined to its stem along the baseline: no mark of its own.
        let one = [(8, 5, 10, 24), (4, 22, 15, 24)]
        #expect(!TextRecognizer.hasUnreadMark(in: "15", box: box, image: Self.blocks(one + [five])))
        // One digit holds no point between digits.
        #expect(!TextRecognizer.hasUnreadMark(in: "5", box: TextBox(x: 15, y: 4, width: 20, height: 22), image: Self.blocks([dot, five])))
    }

    @Test func readsALabelTurnedUpsideDownWhenAskedToTurnIt() throws {
        let image = try ImageDegradation.turnedHalf(TextRenderer.render(Self.panel))
        let jpeg = try ImagePipeline().encodeJPEG(image, quality: 92)
        let upsideDown = try recognizer.recognise(imageData: jpeg)
        let turned = try recognizer.recognise(imageData: jpeg, turnHalf: true)
        #expect(turned.words.map(\.text).contains("Supplement"))
        #expect(turned.meanConfidence > upsideDown.meanConfidence)
        #expect(turned.image.turnedHalf)
    }

    @Test func readsNothingFromABlankImage() throws {
        let blank = RGBImage(width: 800, height: 600, red: 250, green: 250, blue: 250)
        let page = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(blank))
        #expect(page.words.isEmpty)
        #expect(page.meanConfidence == 0)
    }

    @Test func refusesBytesThatAreNotAnImage() {
        #expect(throws: TextRecognitionError.self) { try recognizer.recognise(imageData: Data("not an image".utf8)) }
        #expect(throws: TextRecognitionError.self) { try recognizer.recognise(imageData: Data()) }
    }

    @Test func straightensATiltedLabel() throws {
        let image = try ImageDegradation.rotated(TextRenderer.render(Self.panel), degrees: 4)
        let prepared = try OCRPreprocessing.prepare(image)
        #expect(abs(prepared.deskewDegrees + 4) < 0.6, "deskew \(prepared.deskewDegrees)")
        let page = try recognizer.recognise(prepared)
        #expect(page.words.map(\.text).contains("Melatonin"))
    }

    @Test func boxesOfATiltedLabelLandOnTheWordsInThePhoto() throws {
        let upright = TextRenderer.render(Self.panel)
        let straight = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(upright, quality: 92))
        let tilted = try ImageDegradation.rotated(upright, degrees: 4)
        let page = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(tilted, quality: 92))
        #expect(abs(page.image.deskewDegrees) > 3)
        for word in ["Melatonin", "222%", "Supplement"] {
            let a = try #require(straight.words.first { $0.text == word }?.box, "\(word)")
            let b = try #require(page.words.first { $0.text == word }?.box, "\(word)")
            // Where the word's centre went when the label was turned (libvips turns about the centre, enlarging the canvas).
            let angle = 4 * Double.pi / 180
            let x = Double(a.x) + Double(a.width) / 2 - Double(upright.width) / 2
            let y = Double(a.y) + Double(a.height) / 2 - Double(upright.height) / 2
            let expectedX = x * cos(angle) - y * sin(angle) + Double(tilted.width) / 2
            let expectedY = x * sin(angle) + y * cos(angle) + Double(tilted.height) / 2
            let foundX = Double(b.x) + Double(b.width) / 2
            let foundY = Double(b.y) + Double(b.height) / 2
            #expect(
                abs(foundX - expectedX) < 8 && abs(foundY - expectedY) < 8,
                "\(word): box centre (\(foundX), \(foundY)), expected (\(expectedX), \(expectedY))")
        }
    }

    @Test func boxesOfAnUpsideDownTiltedLabelLandOnTheWordsAsThePhotoIsStored() throws {
        let tilted = try ImageDegradation.rotated(TextRenderer.render(Self.panel), degrees: 3)
        let upright = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(tilted, quality: 92))
        let stored = try ImageDegradation.turnedHalf(tilted)
        let turned = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(stored, quality: 92), turnHalf: true)
        #expect(turned.image.turnedHalf)
        for word in ["Melatonin", "222%"] {
            let a = try #require(upright.words.first { $0.text == word }?.box, "\(word)")
            let b = try #require(turned.words.first { $0.text == word }?.box, "\(word)")
            // In the photo as stored, the word sits where the upright one does, turned about the centre.
            let expectedX = Double(stored.width) - (Double(a.x) + Double(a.width) / 2)
            let expectedY = Double(stored.height) - (Double(a.y) + Double(a.height) / 2)
            let foundX = Double(b.x) + Double(b.width) / 2
            let foundY = Double(b.y) + Double(b.height) / 2
            #expect(
                abs(foundX - expectedX) < 8 && abs(foundY - expectedY) < 8,
                "\(word): box centre (\(foundX), \(foundY)), expected (\(expectedX), \(expectedY))")
        }
    }

    /// `image` with its columns moved down by `bow * u * u` (u from -1 at the left edge to 1 at the right), as the
    /// lines of a label on a bottle seen from a little above; white where nothing is left.
    static func bowed(_ image: RGBImage, by bow: Double) -> RGBImage {
        var pixels = [UInt8](repeating: 255, count: image.pixels.count)
        for x in 0..<image.width {
            let u = (Double(x) + 0.5) / Double(image.width) * 2 - 1
            let shift = Int((bow * u * u).rounded())
            for y in 0..<image.height where y - shift >= 0 && y - shift < image.height {
                for c in 0..<3 { pixels[(y * image.width + x) * 3 + c] = image.pixels[((y - shift) * image.width + x) * 3 + c] }
            }
        }
        return RGBImage(width: image.width, height: image.height, pixels: pixels)
    }

    @Test func straightensTheLinesOfALabelOnABottleAndItsBoxesLandOnTheWords() throws {
        let upright = TextRenderer.render(Self.panel)
        let straight = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(upright, quality: 92))
        let bow = 14.0
        let photo = Self.bowed(upright, by: bow)
        let prepared = try OCRPreprocessing.prepare(photo)
        #expect(abs(prepared.bow - bow) < 4, "bow \(prepared.bow)")
        let page = try recognizer.recognise(prepared)
        #expect(page.image.bow == prepared.bow)
        #expect(page.lines.contains { $0.text.hasPrefix("Vitamin C") && $0.text.contains("200") && $0.text.contains("222%") })
        for word in ["Melatonin", "222%", "136%"] {
            let a = try #require(straight.words.first { $0.text == word }?.box, "\(word)")
            let b = try #require(page.words.first { $0.text == word }?.box, "\(word)")
            let centreX = Double(a.x) + Double(a.width) / 2
            let u = centreX / Double(upright.width) * 2 - 1
            let expectedY = Double(a.y) + Double(a.height) / 2 + bow * u * u
            let foundY = Double(b.y) + Double(b.height) / 2
            #expect(abs(foundY - expectedY) < 6, "\(word): box centre y \(foundY), expected \(expectedY)")
        }
    }

    @Test func enlargesSmallText() throws {
        let small = TextRenderer.render(Self.panel, font: "DejaVu Sans 7", width: 500, margin: 15)
        let prepared = try OCRPreprocessing.prepare(small)
        #expect(prepared.scale > 1.25)
        let page = try recognizer.recognise(prepared)
        #expect(page.words.map(\.text).contains("Zinc"))
    }

    @Test func aRecognitionKeepsTesseractsParallelRegionsOnTheThreadThatAsked() throws {
        typealias GetInt = @convention(c) () -> Int32
        let levels = unsafeBitCast(
            try #require(dlsym(nil, "omp_get_max_active_levels"), "libgomp is loaded with Tesseract"),
            to: GetInt.self)
        let jpeg = try ImagePipeline().encodeJPEG(TextRenderer.render(Self.panel), quality: 92)
        final class Seen: @unchecked Sendable { var before: Int32 = -1, after: Int32 = -1, words = 0 }
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        // A fresh thread starts with OpenMP's defaults (parallel regions active); the recognition itself sets its
        // thread's limit, whatever the environment said when the process started.
        let thread = Thread { [recognizer] in
            seen.before = levels()
            seen.words = (try? recognizer.recognise(imageData: jpeg))?.words.count ?? 0
            seen.after = levels()
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.before > 0)
        #expect(seen.after == 0)
        #expect(seen.words > 10)
    }

    @Test func leptonicasMessagesFromInsideTesseractStayOffStandardError() throws {
        // A bench photo of a label on a bottle on which Leptonica, inside Tesseract, reports a box outside the image
        // (Fixtures/README.txt).
        let url = try #require(Bundle.module.url(forResource: "label-101-curved-bottle", withExtension: "jpg", subdirectory: "Fixtures"))
        let photo = try Data(contentsOf: url)
        var words = 0
        let written = try Self.standardError { words = try recognizer.recognise(imageData: photo).words.count }
        #expect(words > 10)
        // Other suites may write to stderr meanwhile; Leptonica's messages all start so.
        #expect(!written.contains("Error in "), "\(written)")
    }

    /// What the process writes to its standard error while `body` runs (file descriptor 2 sent to a file).
    static func standardError(during body: () throws -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(file >= 0)
        defer {
            close(file)
            unlink(path)
        }
        fflush(nil)
        let saved = dup(2)
        dup2(file, 2)
        do {
            try body()
        } catch {
            dup2(saved, 2)
            close(saved)
            throw error
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

@Suite(.serialized) struct TextRecognizerSurroundTests {
    let recognizer = try! TextRecognizer()

    /// `image` centred on a surround of `colour`, `pad` pixels each side.
    static func framed(_ image: RGBImage, colour: (UInt8, UInt8, UInt8), pad: Int) -> RGBImage {
        let w = image.width + 2 * pad
        let h = image.height + 2 * pad
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let o = (y * w + x) * 3
                let ix = x - pad
                let iy = y - pad
                if ix >= 0, iy >= 0, ix < image.width, iy < image.height {
                    let i = (iy * image.width + ix) * 3
                    pixels[o] = image.pixels[i]
                    pixels[o + 1] = image.pixels[i + 1]
                    pixels[o + 2] = image.pixels[i + 2]
                } else {
                    pixels[o] = colour.0
                    pixels[o + 1] = colour.1
                    pixels[o + 2] = colour.2
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: pixels)
    }

    @Test func aDarkOrColouredSurroundIsReadLikeAWhiteOne() throws {
        let image = TextRenderer.render(TextRecognizerTests.panel)
        let white = try recognizer.recognise(imageData: try ImagePipeline().encodeJPEG(image, quality: 92))
        let rows = white.lines.map(\.text).filter { $0.contains("mg") }
        #expect(rows.count == 3)
        for colour in [(UInt8(15), UInt8(15), UInt8(18)), (UInt8(22), UInt8(58), UInt8(140)), (UInt8(130), UInt8(62), UInt8(12))] {
            let jpeg = try ImagePipeline().encodeJPEG(Self.framed(image, colour: colour, pad: 120), quality: 92)
            let page = try recognizer.recognise(imageData: jpeg)
            #expect(page.lines.map(\.text).filter { $0.contains("mg") } == rows, "surround \(colour)")
            // Read within the panel's box, and the word boxes are still where the words are in the photo.
            let area = page.image.readArea
            #expect(page.image.croppedToPanel, "surround \(colour)")
            #expect(abs(area.x - 120) <= 8 && abs(area.y - 120) <= 8 && abs(area.width - image.width) <= 16, "\(area)")
            #expect(page.image.linesOutsidePanel == 0)
            for (cropped, plain) in zip(page.words, white.words) where cropped.text == plain.text {
                #expect(
                    abs(cropped.box.x - (plain.box.x + 120)) <= 3 && abs(cropped.box.y - (plain.box.y + 120)) <= 3,
                    "\(cropped.text): \(cropped.box) against \(plain.box)")
            }
        }
        #expect(!white.image.croppedToPanel)
    }

    /// A 12 MP photo (4032 x 3024) whose panel fills a fifth of it, on a dark bottle: the panel is found on the
    /// shrunk copy and cut from the photo at full resolution; the words' boxes are in the photo's own pixels.
    @Test func cutsThePanelFromATwelveMegapixelPhotoAtFullResolution() throws {
        let spaced = TextRecognizerTests.panel.replacingOccurrences(of: "\n", with: "\n\n")
        let panel = TextRenderer.render(spaced, font: "DejaVu Sans 34", width: 2400, margin: 120)
        var photo = RGBImage(width: 4032, height: 3024, red: 28, green: 30, blue: 36)
        let (left, top) = (1000, 900)
        for row in 0..<panel.height {
            let from = row * panel.width * 3
            let to = ((top + row) * photo.width + left) * 3
            photo.pixels.replaceSubrange(to..<(to + panel.width * 3), with: panel.pixels[from..<(from + panel.width * 3)])
        }
        let jpeg = try ImagePipeline().encodeJPEG(photo, quality: 90)
        let prepared = try OCRPreprocessing.prepare(jpeg)
        #expect(prepared.fullResolution == true)
        #expect(prepared.sourceWidth == 4032 && prepared.sourceHeight == 3024)
        #expect(prepared.panel != nil)
        #expect(prepared.panel.map { abs($0.x - left) < 40 && abs($0.y - top) < 40 } == true)
        let page = try recognizer.recognise(prepared)
        #expect(page.lines.contains { $0.text.hasPrefix("Zinc") && $0.text.contains("15 mg") })
        let zinc = try #require(page.words.first { $0.text == "Zinc" })
        #expect(zinc.box.x >= left && zinc.box.x < left + panel.width && zinc.box.y >= top && zinc.box.y < top + panel.height, "\(zinc.box)")
    }
}
