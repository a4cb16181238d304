import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Regimen
import Testing
import TextRecognition

@testable import CairnApp

@Suite(.serialized) struct LabelScanServiceTests {
    static let service = try! LabelScanService.makeDefault()
    static let panel = """
        <b><span size="x-large">Supplement Facts</span></b>
        Serving Size 1 Lozenge
        Servings Per Container 60
        <b>Amount Per Serving                           % Daily Value</b>
        Vitamin D3 (as cholecalciferol)        25 mcg         125%
        Zinc (as zinc gluconate)                   15 mg         136%
        Proprietary Blend                            150 mg            †
            Ginger                                                              †
            Melatonin                                    3 mg             †
        † Daily Value not established.
        Other ingredients: Sorbitol, Citric Acid.
        """

    private func jpeg(_ image: RGBImage) throws -> Data { try ImagePipeline().encodeJPEG(image, quality: 90) }

    @Test func proposesRowsFromALabelPhotoWithMatchesAmountsAndBoxes() throws {
        let proposal = try Self.service.propose(imageData: try jpeg(TextRenderer.render(Self.panel)))
        #expect(proposal.status == .proposed)
        #expect(proposal.disclaimer == Disclaimer.labelReading.text)
        #expect(proposal.servingSize == (try Amount(1, .count)))
        #expect(proposal.servingsPerContainer == 60)
        #expect(proposal.rows.map(\.catalogueID) == ["vitamin-d", "zinc", nil, "ginger", "melatonin"])
        #expect(proposal.rows[0].amount == (try Amount(25, .mcg)))
        #expect(proposal.rows[1].amount == (try Amount(15, .mg)))
        #expect(proposal.rows[2].isBlend)
        #expect(proposal.rows[3].blendName == "Proprietary Blend")
        #expect(proposal.rows[3].flags.map(\.kind).contains(.undisclosedBlendAmount))
        #expect(proposal.rows[4].amount == (try Amount(3, .mg)))
        #expect(proposal.rows.allSatisfy { !$0.wordBoxes.isEmpty })
        #expect(proposal.otherIngredients == ["Sorbitol", "Citric Acid"])
        #expect(!proposal.readUpsideDown)
    }

    @Test func encodesTheProposalAsJSONWithTheDisclaimer() throws {
        let proposal = Self.service.propose(text: "Supplement Facts\nZinc 15 mg 136%")
        let json = String(decoding: try JSONEncoder().encode(proposal), as: UTF8.self)
        #expect(json.contains(Disclaimer.labelReading.text))
        #expect(json.contains("\"catalogueID\":\"zinc\""))
        #expect(json.contains("\"unit\":\"mg\""))
    }

    @Test func readsAnUpsideDownLabelAndSaysSo() throws {
        let image = try ImageDegradation.turnedHalf(TextRenderer.render(Self.panel))
        let proposal = try Self.service.propose(imageData: try jpeg(image))
        #expect(proposal.status == .proposed)
        #expect(proposal.readUpsideDown)
        #expect(proposal.warnings.contains { $0.contains("upside down") })
        #expect(proposal.rows.first?.catalogueID == "vitamin-d")
    }

    @Test func aPanelOnADarkBottleIsReadWithinItsBoxAndTextOnTheBottleIsReported() throws {
        let panel = TextRenderer.render(Self.panel)
        let white = try Self.service.propose(imageData: try jpeg(panel))
        // The panel on a dark bottle, with two lines of light print on the bottle below it (a line apart: the count
        // is made on a copy about 250 pixels long, where closer lines run together).
        let print = TextRenderer.render("KEEP OUT OF REACH OF CHILDREN\n\nStore in a cool, dry place", width: 500, margin: 4)
        let pad = 40
        let below = print.height + 40
        let w = panel.width + 2 * pad
        let h = panel.height + pad + below
        var pixels = [UInt8](repeating: 24, count: w * h * 3)
        for y in 0..<panel.height {
            for x in 0..<panel.width {
                for c in 0..<3 { pixels[((y + pad) * w + x + pad) * 3 + c] = UInt8(Double(panel.pixels[(y * panel.width + x) * 3 + c]) * 0.92) }
            }
        }
        for y in 0..<print.height {
            for x in 0..<print.width {
                // Light print on the dark bottle: the render's black text as a light grey.
                let v = print.pixels[(y * print.width + x) * 3]
                if v < 128 { for c in 0..<3 { pixels[((y + pad + panel.height + 20) * w + x + pad) * 3 + c] = 220 } }
            }
        }
        let bottle = try Self.service.propose(imageData: try jpeg(RGBImage(width: w, height: h, pixels: pixels)))
        #expect(bottle.rows.map(\.catalogueID) == white.rows.map(\.catalogueID))
        #expect(bottle.rows.map(\.amount) == white.rows.map(\.amount))
        #expect(bottle.warnings.contains { $0.hasPrefix("2 lines of text outside the panel's edges were not read") }, "\(bottle.warnings)")
        #expect(bottle.mayBeIncomplete)
        // The boxes are in the photo's pixels (the panel starts 40 pixels in).
        let first = try #require(bottle.rows.first?.wordBoxes.first)
        let plain = try #require(white.rows.first?.wordBoxes.first)
        #expect(abs(first.x - (plain.x + pad)) <= 3 && abs(first.y - (plain.y + pad)) <= 3)
        #expect(!white.warnings.contains { $0.contains("outside the panel") })
    }

    @Test func aDeferredValueIsMadeOnlyOnceAskedForAndOnlyOnce() throws {
        final class Counter: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0
            func next() -> Int {
                lock.lock()
                defer { lock.unlock() }
                count += 1
                return count
            }
            var value: Int {
                lock.lock()
                defer { lock.unlock() }
                return count
            }
        }
        let counter = Counter()
        let pending = Pending<Int>.deferred { counter.next() }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(counter.value == 0, "not made before it is started")
        pending.start()
        pending.start()
        #expect(try pending.get() == 1)
        #expect(try pending.get() == 1)
        #expect(counter.value == 1)
        // get() alone starts it too.
        let other = Pending<Int>.deferred { 7 }
        #expect(try other.get() == 7)
    }

    @Test func saysSoWhenThePhotoHasNoLabel() throws {
        let blank = RGBImage(width: 900, height: 700, red: 235, green: 232, blue: 228)
        let proposal = try Self.service.propose(imageData: try jpeg(blank))
        #expect(proposal.status == .noLabel)
        #expect(proposal.rows.isEmpty)
        #expect(proposal.message?.isEmpty == false)
    }

    @Test func saysSoForTextThatIsNotALabel() throws {
        let prose = TextRenderer.render("The quick brown fox jumps over the lazy dog.\nA walk in the park on a sunny afternoon.")
        let proposal = try Self.service.propose(imageData: try jpeg(prose))
        #expect(proposal.status == .noLabel)
        #expect(proposal.rows.isEmpty)
    }

    @Test func refusesANutritionFactsPanel() throws {
        let food = """
            <b><span size="x-large">Nutrition Facts</span></b>
            8 servings per container
            Serving size 2/3 cup (55g)
            Calories 230
            Total Fat 8g 10%
            Sodium 160mg 7%
            Total Carbohydrate 37g 13%
            Protein 3g
            """
        let proposal = try Self.service.propose(imageData: try jpeg(TextRenderer.render(food)))
        #expect(proposal.status == .nutritionFacts)
        #expect(proposal.rows.isEmpty)
        #expect(Self.service.propose(text: "Nutrition Facts\nCalories 230\nTotal Fat 8g 10%").status == .nutritionFacts)
    }

    /// Food panels of several countries, as a phone photographs them (US Nutrition Facts is above).
    static let foodPanels: [(name: String, markup: String)] = [
        (
            "Australia",
            """
            <b><span size="x-large">NUTRITION INFORMATION</span></b>
            Servings per package: 6
            Serving size: 170 g
            <b>                     Avg Qty per Serving    Avg Qty per 100 g</b>
            Energy                    532 kJ                    313 kJ
            Protein                   8.5 g                      5.0 g
            Fat, total                 5.1 g                      3.0 g
             - saturated              3.2 g                      1.9 g
            Carbohydrate           14.6 g                     8.6 g
             - sugars                 13.4 g                     7.9 g
            Sodium                   75 mg                     44 mg
            Calcium                  204 mg (26% RDI*)    120 mg
            """
        ),
        (
            "Singapore",
            """
            <b><span size="x-large">Nutrition Information</span></b>
            Servings per package: 1     Serving size: 130 g
            <b>                             Per Serving       Per 100 g</b>
            Energy                        112 kcal             86 kcal
            Protein                       4.2 g                 3.2 g
            Total Fat                    2.6 g                 2.0 g
            Saturated Fat              1.7 g                 1.3 g
            Trans Fat                    0 g                    0 g
            Cholesterol                 10 mg                8 mg
            Carbohydrate              17.9 g               13.8 g
            Dietary Fibre               0 g                    0 g
            Sodium                      60 mg                46 mg
            """
        ),
        (
            "United Kingdom",
            """
            <b><span size="x-large">NUTRITION</span></b>
            <b>Typical values            per 100g        per 125g pot</b>
            Energy                          389kJ/93kcal    486kJ/116kcal
            Fat                                3.1g               3.9g
            of which saturates          2.0g               2.5g
            Carbohydrate                12.0g             15.0g
            of which sugars              11.5g             14.4g
            Protein                          4.0g               5.0g
            Salt                               0.13g             0.16g
            """
        ),
        (
            "Japan",
            """
            <b><span size="x-large">栄養成分表示</span></b>
            1個 (100g) 当たり
            エネルギー          62kcal
            たんぱく質          3.6g
            脂質                    3.0g
            炭水化物             5.0g
            食塩相当量          0.1g
            """
        ),
    ]

    /// Every food panel is declined with a message naming it as a food's, and no row is proposed: never a row
    /// read from a food's panel (Singapore's "Dietary Fibre 0 g" once went through unflagged).
    @Test(arguments: foodPanels.map(\.name)) func declinesAFoodPanelOfEachCountry(_ country: String) throws {
        let markup = Self.foodPanels.first { $0.name == country }!.markup
        let proposal = try Self.service.propose(imageData: try jpeg(TextRenderer.render(markup)))
        #expect(proposal.status == .nutritionFacts, "\(country): \(proposal.status) \(proposal.rows.map(\.nameOnLabel))")
        #expect(proposal.rows.isEmpty)
        #expect(proposal.message?.contains("food") == true)
        #expect(proposal.message.map(ProductWording.bannedWords(in:))?.isEmpty == true)
        // Why nothing was read: every line seen, "not supported" (not "unreadable").
        #expect(!proposal.linesNotRead.isEmpty)
        #expect(proposal.linesNotRead.allSatisfy { $0.reason == .notSupported })
        // The same panel typed, and without its heading (as when OCR loses it).
        let plain = markup.replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression)
        #expect(Self.service.propose(text: plain).status == .nutritionFacts)
        let headless = plain.split(separator: "\n").dropFirst().joined(separator: "\n")
        #expect(Self.service.propose(text: headless).status == .nutritionFacts, "\(country) without its heading")
        #expect(throws: LabelSaveError.nothingToSave) {
            try Self.service.product(from: proposal, name: "Yogurt", form: .other)
        }
    }

    /// Two columns side by side are read column by column, every row through the same parser and checks: the
    /// amounts right after the names, dot leaders, sub-lines kept with their row, the layout said.
    @Test func readsATwoColumnPanelWithDotLeadersAndSubLines() throws {
        let proposal = try Self.service.propose(imageData: try jpeg(TextRenderer.twoColumnPanel()))
        try jpeg(TextRenderer.twoColumnPanel()).write(to: URL(fileURLWithPath: "/tmp/two-col.jpg"))
        #expect(proposal.status == .proposed)
        let read = proposal.rows.map { "\($0.nameOnLabel) \($0.amount.map { "\($0)" } ?? "-")" }
        #expect(proposal.rows.count == 23, "\(read)")
        #expect(proposal.layout?.columns == 2)
        #expect(proposal.layout?.amounts == .afterName)
        #expect(proposal.layout?.dotLeaders == true)
        let byName = Dictionary(proposal.rows.map { ($0.nameOnLabel, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["Vitamin A"]?.amount == (try Amount(1050, .mcg)))
        #expect(byName["Vitamin A"]?.dailyValuePercent == 117)
        #expect(byName["Vitamin A"]?.form?.contains("beta-carotene") == true)
        #expect(byName["Folate"]?.amount == (try Amount(680, .mcgDFE)))
        #expect(byName["Folate"]?.form?.contains("folic acid") == true)
        #expect(byName["Niacin"]?.amount == (try Amount(16, .mgNE)))
        #expect(byName["Biotin"]?.amount == (try Amount(30, .mcg)))
        #expect(byName["Lutein"]?.dailyValueMarker == .doubleAsterisk)
        #expect(proposal.rows.last?.nameOnLabel == "Lycopene")
        #expect(!proposal.rows.contains { $0.nameOnLabel.hasPrefix("(") })
        #expect(proposal.linesNotRead.allSatisfy { $0.reason != .notSupported })
        // The JSON `cairn regimen scan` prints says which layout it read.
        let json = String(decoding: try JSONEncoder().encode(proposal), as: UTF8.self)
        #expect(json.contains(#""layout":{"#) && json.contains(#""columns":2"#) && json.contains(#""linesNotRead":"#))
    }

    @Test func refusesALabelInAnotherLanguage() throws {
        let german = """
            <b>Nahrungsergänzungsmittel</b>
            Zutaten: Füllstoff Cellulose, Zinkgluconat, Überzugsmittel
            Verzehrempfehlung: täglich 1 Kapsel mit ausreichend Flüssigkeit
            pro Tagesdosis          % NRV
            Zink    10 mg   100 %
            """
        let proposal = try Self.service.propose(imageData: try jpeg(TextRenderer.render(german)))
        #expect(proposal.status == .otherLanguage)
        #expect(proposal.rows.isEmpty)
        let text = Self.service.propose(text: "Complément alimentaire\nIngrédients : gélules de gélatine\nDose journalière par jour avec les repas")
        #expect(text.status == .otherLanguage)
        #expect(text.rows.isEmpty)
    }

    @Test func refusesBytesThatAreNotAPhoto() {
        #expect(throws: TextRecognitionError.self) { try Self.service.propose(imageData: Data("plain text".utf8)) }
    }

    @Test func messagesUseAllowedWording() throws {
        let proposals = [
            Self.service.propose(text: ""), Self.service.propose(text: "Nutrition Facts\nFat 1g"),
            Self.service.propose(text: "Complément alimentaire\nIngrédients : gélules par jour avec les repas"),
            Self.service.propose(text: "Supplement Facts\nZinc 500 mg 20%\nXyzzy 5 mg"),
        ]
        for p in proposals {
            for text in [p.message ?? ""] + p.warnings + p.rows.flatMap { $0.flags.map(\.reason) } {
                #expect(ProductWording.bannedWords(in: text).isEmpty, "\(text)")
            }
        }
    }

    @Test func reportsThePhotoSizeTheBoxesAreMeasuredIn() throws {
        let image = TextRenderer.render(Self.panel)
        let proposal = try Self.service.propose(imageData: try jpeg(image))
        #expect(proposal.photoWidth == image.width && proposal.photoHeight == image.height)
        for box in proposal.rows.flatMap(\.wordBoxes) {
            #expect(box.x + box.width <= image.width && box.y + box.height <= image.height)
        }
        #expect(proposal.rows.allSatisfy { $0.confidence != nil })
        #expect(Self.service.propose(text: "Supplement Facts\nZinc 15 mg").photoWidth == nil)
    }

    @Test func suggestsTheFormTheServingSizeNames() {
        func form(_ serving: String) -> ProductForm? {
            Self.service.propose(text: "Supplement Facts\nServing Size \(serving)\nZinc 15 mg").suggestedForm
        }
        #expect(form("2 Softgels") == .softgel)
        #expect(form("1 Capsule") == .capsule)
        #expect(form("1 Caplet") == .tablet)
        #expect(form("1 Scoop (5 g)") == .powder)
        #expect(form("3 Gummies") == nil || form("3 Gummies") == .gummy)
        #expect(form("5 g") == nil)
        #expect(Self.service.propose(text: "Supplement Facts\nZinc 15 mg").suggestedForm == nil)
    }

    @Test func revalidatesAnEditedRowWithTheSameFlagsAsAReadOne() throws {
        let edited = Self.service.revalidate(EditedLabelRow(nameOnLabel: " Zinc ", form: "zinc gluconate", amount: try Amount(90, .mg)))
        #expect(edited.catalogueID == "zinc" && edited.nameOnLabel == "Zinc" && edited.form == "zinc gluconate")
        #expect(edited.flags.map(\.kind).contains(.aboveUpperLimit))
        let typed = Self.service.propose(text: "Supplement Facts\nZinc 90 mg")
        #expect(typed.rows[0].flags.map(\.kind) == edited.flags.map(\.kind), "the CLI's flags")
        let unknown = Self.service.revalidate(EditedLabelRow(nameOnLabel: "Moonpetal root", amount: try Amount(40, .mg)))
        #expect(unknown.catalogueID == nil && unknown.flags.map(\.kind) == [.unknownIngredient])
        let unsure = Self.service.revalidate(EditedLabelRow(nameOnLabel: "Zinc", amount: try Amount(15, .mg), readConfidence: 0.4))
        #expect(unsure.flags.map(\.kind).contains(.lowConfidence))
        #expect(unsure.confidence == 0.4)
        let empty = Self.service.revalidate(EditedLabelRow(nameOnLabel: "Melatonin", form: "  "))
        #expect(empty.form == nil && empty.flags.map(\.kind) == [.missingAmount])
    }

    @Test func buildsTheProductFromReviewedRows() throws {
        let rows = [
            Self.service.revalidate(EditedLabelRow(nameOnLabel: "Zinc", amount: try Amount(15, .mg), dailyValuePercent: 136)),
            Self.service.revalidate(EditedLabelRow(nameOnLabel: "Moonpetal root")),
        ]
        let product = try Self.service.product(fromReviewed: rows, servingSize: try Amount(2, .count), name: "Zinc plus", form: .capsule)
        #expect(product.ingredients.map(\.catalogueID) == ["zinc", nil])
        #expect(product.ingredients[0].dailyValuePercent == 136)
        #expect(product.servingSize == (try Amount(2, .count)))
        let oneUnit = try Self.service.product(fromReviewed: rows, servingSize: nil, name: "Zinc plus", form: .capsule)
        #expect(oneUnit.servingSize == (try Amount(1, .count)))
        #expect(throws: LabelSaveError.nothingToSave) {
            try Self.service.product(fromReviewed: [], servingSize: nil, name: "Nothing", form: .capsule)
        }
        #expect(throws: RegimenError.self) { try Self.service.product(fromReviewed: rows, servingSize: nil, name: " ", form: .capsule) }
    }

    @Test func makesASmallerUprightPreviewInMemory() throws {
        let image = TextRenderer.render(Self.panel, width: 2000)
        let preview = try Self.service.preview(imageData: try jpeg(image), maxSide: 500)
        let info = try ImagePipeline().probe(preview)
        #expect(max(info.width, info.height) == 500)
        #expect(info.width == 500 && abs(Double(info.height) - Double(image.height) * 500 / Double(image.width)) <= 1, "same shape")
        #expect(throws: (any Error).self) { try Self.service.preview(imageData: Data("not a photo".utf8)) }
    }

    @Test func aLineWhoseWordsSitOnTwoLinesIsOffLine() {
        let name = TextBox(x: 10, y: 100, width: 120, height: 20)
        let amount = TextBox(x: 300, y: 102, width: 40, height: 18)
        #expect(!LabelScanService.wordsOffOneLine([name, amount]))
        // The amount of the next row, half a line lower, joined to this row's name.
        #expect(LabelScanService.wordsOffOneLine([name, TextBox(x: 300, y: 115, width: 40, height: 18)]))
        // A small marker high on the line is no word.
        #expect(!LabelScanService.wordsOffOneLine([name, amount, TextBox(x: 400, y: 92, width: 6, height: 8)]))
        #expect(!LabelScanService.wordsOffOneLine([name]))
    }

    @Test func anUnchangedRowKeepsTheFlagsOnlyThePhotoCouldRaiseUntilItIsEdited() throws {
        let read = EditedLabelRow(
            nameOnLabel: "Zinc", amount: try Amount(15, .mg), readConfidence: 0.95,
            readPhotoFlags: [.wordsOffLine, .markInNumber])
        let kept = Self.service.revalidate(read)
        #expect(kept.flags.map(\.kind).contains(.wordsOffLine))
        #expect(kept.flags.map(\.kind).contains(.markInNumber))
        #expect(kept.needsDecision)
        var edited = read
        edited.readPhotoFlags = []
        edited.readConfidence = nil
        let checked = Self.service.revalidate(edited)
        #expect(!checked.flags.map(\.kind).contains(.wordsOffLine))
        #expect(!checked.flags.map(\.kind).contains(.markInNumber))
    }
}
