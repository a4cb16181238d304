import Foundation
import Testing

@testable import Regimen

private func d(_ s: String) -> Decimal { Decimal(string: s, locale: Locale(identifier: "en_US_POSIX"))! }

@Suite struct LabelParserTests {
    static let panel = """
        Supplement Facts
        Serving Size 2 Lozenges
        Servings Per Container 24
        Amount Per Serving % Daily Value
        Vitamin A (as 100% Beta-Carotene) 2,000 IU 40%
        Vitamin C (as ascorbic acid) 200 mg 333%
        Zinc (as Zinc Oxide) 20 mg 133%
        Echinacea purpurea Herb Powder 20 mg †
        † Daily Value not established.
        Other ingredients: Sorbitol, Sucrose, Natural Flavors (lemon, orange), Citric Acid.
        """

    @Test func readsServingSizeServingsAndRows() throws {
        let label = LabelParser.parse(text: Self.panel)
        #expect(label.panelKind == .supplementFacts)
        #expect(label.servingSize == (try Amount(2, .count)))
        #expect(label.servingSizeText == "2 Lozenges")
        #expect(label.servingsPerContainer == 24)
        #expect(label.rows.map(\.nameOnLabel) == ["Vitamin A", "Vitamin C", "Zinc", "Echinacea purpurea Herb Powder"])
        #expect(label.rows[0].amount == (try Amount(2000, .iu)))
        #expect(label.rows[0].form == "Beta-Carotene")
        #expect(label.rows[0].dailyValuePercent == 40)
        #expect(label.rows[1].form == "ascorbic acid")
        #expect(label.rows[2].amount == (try Amount(20, .mg)))
        #expect(label.rows[3].dailyValueMarker == .notEstablished)
        #expect(label.rows[3].dailyValuePercent == nil)
        #expect(label.otherIngredients == ["Sorbitol", "Sucrose", "Natural Flavors (lemon, orange)", "Citric Acid"])
    }

    @Test func readsOCRMisreadsOfUnitsAndMarkers() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Vitamin D3 1000 1U 250%
                Melatonin 5mg t
                Vitamin B12 120mcg*
                Biotin 300 µg **
                Selenium 55 ug 100%
                Iron 1,5 mg 8%
                """)
        #expect(label.rows.count == 6)
        #expect(label.rows[0].amount == (try Amount(1000, .iu)))
        #expect(label.rows[1].amount == (try Amount(5, .mg)))
        #expect(label.rows[1].dailyValueMarker == .notEstablished)
        #expect(label.rows[2].amount == (try Amount(120, .mcg)))
        #expect(label.rows[2].dailyValueMarker == .asterisk)
        #expect(label.rows[3].amount == (try Amount(300, .mcg)))
        #expect(label.rows[3].dailyValueMarker == .doubleAsterisk)
        #expect(label.rows[4].amount == (try Amount(55, .mcg)))
        #expect(label.rows[5].amount == (try Amount(d("1.5"), .mg)))
    }

    @Test func readsDailyValueNotEstablishedWrittenInTheRow() throws {
        let row = try #require(LabelParser.parseRow("L-Theanine 200 mg Daily Value not established"))
        #expect(row.nameOnLabel == "L-Theanine")
        #expect(row.dailyValueMarker == .notEstablished)
        #expect(row.amount == (try Amount(200, .mg)))
    }

    @Test func aLineWithNothingButTheDailyValueColumnIsNoRow() {
        // OCR of a tilted photo can split the footnote so that this is all a line holds.
        #expect(LabelParser.parseRow("Daily Value not established") == nil)
        #expect(LabelParser.parseRow("t Daily Value not established") == nil)
        #expect(LabelParser.parse(text: "Supplement Facts\nZinc 15 mg 136%\nDaily Value not established").rows.count == 1)
    }

    @Test func keepsParenthesesThatAreNotForms() throws {
        let row = try #require(LabelParser.parseRow("Ginger (Zingiber officinale) (rhizome) extract 50 mg †"))
        #expect(row.nameOnLabel == "Ginger (Zingiber officinale) (rhizome) extract")
        #expect(row.form == nil)
    }

    @Test func readsASecondAmountInParentheses() throws {
        let row = try #require(LabelParser.parseRow("Vitamin D3 (as cholecalciferol) 25 mcg (1,000 IU) 125%"))
        #expect(row.amount == (try Amount(25, .mcg)))
        #expect(row.alternateAmount == (try Amount(1000, .iu)))
        #expect(row.form == "cholecalciferol")
        #expect(row.dailyValuePercent == 125)
    }

    @Test func readsBlendsWithAndWithoutMemberAmounts() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Proprietary Blend 500 mg †
                  Ginger 200 mg †
                  Melatonin †
                  Slippery Elm
                Zinc 10 mg 91%
                """)
        #expect(label.rows.count == 5)
        #expect(label.rows[0].isBlend)
        #expect(label.rows[0].amount == (try Amount(500, .mg)))
        #expect(label.rows[1].blendName == "Proprietary Blend")
        #expect(label.rows[1].amount == (try Amount(200, .mg)))
        #expect(label.rows[2].blendName == "Proprietary Blend")
        #expect(label.rows[2].amount == nil)
        #expect(label.rows[3].blendName == "Proprietary Blend")
        #expect(label.rows[4].blendName == nil)
        #expect(!label.rows[4].isBlend)
    }

    @Test func mergesAnAmountSplitOntoTheNextLine() throws {
        let label = LabelParser.parse(text: "Supplement Facts\nVitamin C\n200 mg 222%")
        #expect(label.rows.count == 1)
        #expect(label.rows[0].amount == (try Amount(200, .mg)))
        #expect(label.rows[0].dailyValuePercent == 222)
        #expect(label.rows[0].lineIndices == [1, 2])
    }

    @Test func recognisesANutritionFactsPanel() {
        let label = LabelParser.parse(text: "Nutrition Facts\nServing size 1 cup (228g)\nCalories 250\nTotal Fat 12g 18%")
        #expect(label.panelKind == .nutritionFacts)
    }

    @Test func readsAHeadingWithOCRErrors() {
        #expect(LabelParser.parse(text: "Supplernent Facts").panelKind == .supplementFacts)
        #expect(LabelParser.parse(text: "Suppiement Facts").panelKind == .supplementFacts)
    }

    @Test func keepsAnUnreadableAmountForReview() throws {
        let row = try #require(LabelParser.parseRow("Zinc 20 zz 133%"))
        #expect(row.amount == nil)
        #expect(row.unreadableAmountText == "20 zz")
        #expect(row.nameOnLabel == "Zinc")
    }

    @Test func dropsAMisreadMarkerAfterTheAmount() throws {
        let row = try #require(LabelParser.parseRow("Propolis 30 mg aie"))
        #expect(row.nameOnLabel == "Propolis")
        #expect(row.amount == (try Amount(30, .mg)))
        let bare = try #require(LabelParser.parseRow("Slippery Elm 30 mg ="))
        #expect(bare.amount == (try Amount(30, .mg)))
        #expect(LabelParser.parseRow("Proprietary Blend 22 mg 48")?.amount == (try Amount(22, .mg)))
        #expect(LabelParser.parseRow("Melatonin 5mg ams")?.amount == (try Amount(5, .mg)))
        #expect(LabelParser.parseRow("Royal Jelly k")?.nameOnLabel == "Royal Jelly")
        #expect(LabelParser.parseRow("Slippery Elm bark powder *k")?.nameOnLabel == "Slippery Elm bark powder")
        // A capital letter ends names.
        #expect(LabelParser.parseRow("Vitamin K")?.nameOnLabel == "Vitamin K")
    }

    @Test func readsOneMilligramDrawnLikeALowercaseL() throws {
        #expect(LabelParser.parseRow("Copper (as Copper Oxide) lmg 50%")?.amount == (try Amount(1, .mg)))
        #expect(LabelParser.parseRow("Copper (as Copper Oxide) 1lmg 50%")?.amount == (try Amount(1, .mg)))
    }

    @Test func keepsANumberInsideAName() throws {
        let row = try #require(LabelParser.parseRow("Pyridoxal 5-Phosphate †"))
        #expect(row.nameOnLabel == "Pyridoxal 5-Phosphate")
        #expect(row.unreadableAmountText == nil)
        #expect(row.amount == nil)
    }

    @Test func keepsANumberThatEndsAName() throws {
        let row = try #require(LabelParser.parseRow("CoQ 10 100 mg †"))
        #expect(row.nameOnLabel == "CoQ 10")
        #expect(row.amount == (try Amount(100, .mg)))
    }

    @Test func skipsTheFootnoteAndNoiseAsOCRMisreadsThem() {
        let label = LabelParser.parse(text: "Supplement Facts\nZinc 10 mg 91%\n+ Daily Vatue not estabished\nSS\na LL\neee")
        #expect(label.rows.map(\.nameOnLabel) == ["Zinc"])
    }

    @Test func givesNothingForEmptyOrNoiseText() {
        let empty = LabelParser.parse(text: "")
        #expect(empty.rows.isEmpty && empty.panelKind == .unknown)
        let noise = LabelParser.parse(text: "|||\n___\n--- ---")
        #expect(noise.rows.isEmpty)
    }
}

@Suite struct LabelPanelStructureTests {
    @Test func theFootnoteEndsThePanelAndNothingBelowItBecomesARow() {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Serving Size 1 Capsule
                Zinc (as zinc gluconate) 15 mg 136%
                Melatonin 3 mg †
                † Daily Value not established.
                Suggested use: Take 2 capsules daily with a meal.
                KEEP OUT OF REACH OF CHILDREN
                Distributed by Example Inc., 100 Main Street, Springfield, IL 62701
                Other ingredients: Rice flour, gelatin.
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Zinc", "Melatonin"])
        #expect(label.panelEndFound)
        #expect(label.notIngredients.count == 3)
        #expect(label.otherIngredients == ["Rice flour", "gelatin"])
    }

    @Test func statementsInsideThePanelAreLeftOutNotRows() {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Zinc 15 mg 136%
                Keep out of reach of children. Consult your physician if pregnant.
                Questions? Call 1-800-555-0100 or visit www.example.com
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Zinc"])
        #expect(label.notIngredients.count == 2)
    }

    @Test func aRowSplitAfterAnOpenParenthesisIsJoined() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Vitamin D3 (as
                cholecalciferol) 25 mcg 125%
                """)
        #expect(label.rows.count == 1)
        #expect(label.rows[0].nameOnLabel == "Vitamin D3")
        #expect(label.rows[0].form == "cholecalciferol")
        #expect(label.rows[0].amount == (try Amount(25, .mcg)))
    }

    @Test func aClosingBracketMisreadBeforeTheAmountStillSplitsFormAndAmount() throws {
        let row = try #require(LabelParser.parseRow(LabelParser.cleanLine("Magnesium (as magnesium glycinate]20mg 5%")))
        #expect(row.form == "magnesium glycinate")
        #expect(row.amount == (try Amount(20, .mg)))
    }

    @Test func aStandardisationIsAFormNotADailyValue() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Sunflower Lecithin 100 mg †
                  Phosphatidylserine 20%
                Bacopa monnieri extract 300 mg †
                standardized to 20% bacosides
                Turmeric root extract (standardized to 95% curcuminoids) 500 mg †
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Sunflower Lecithin", "Bacopa monnieri extract", "Turmeric root extract"])
        #expect(label.rows.allSatisfy { $0.dailyValuePercent == nil })
        #expect(label.rows[0].form == "standardized to 20% Phosphatidylserine")
        #expect(label.rows[1].form == "standardized to 20% bacosides")
        #expect(label.rows[2].form == "standardized to 95% curcuminoids")
        #expect(label.rows[2].amount == (try Amount(500, .mg)))
    }

    @Test func aRowWithOnlyADailyValueUnderAnotherIsStillARow() {
        let label = LabelParser.parse(text: "Supplement Facts\nVitamin C 60 mg 67%\nVitamin A 100%")
        #expect(label.rows.map(\.nameOnLabel) == ["Vitamin C", "Vitamin A"])
        #expect(label.rows[1].dailyValuePercent == 100)
    }

    @Test func blendMembersListedInRunningTextAreRowsOfTheBlendInOrder() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Vitamin C 60 mg 67%
                Calm Blend 500 mg †
                Ashwagandha root, Rhodiola rosea, L-Theanine,
                Lemon Balm leaf, Passionflower, Chamomile,
                Valerian root, Hops
                † Daily Value not established.
                """)
        let members = label.rows.filter { $0.blendName == "Calm Blend" }
        #expect(
            members.map(\.nameOnLabel) == [
                "Ashwagandha root", "Rhodiola rosea", "L-Theanine", "Lemon Balm leaf",
                "Passionflower", "Chamomile", "Valerian root", "Hops",
            ])
        #expect(label.rows.first { $0.nameOnLabel == "Calm Blend" }?.isBlend == true)
        #expect(label.rows.first { $0.nameOnLabel == "Calm Blend" }?.amount == (try Amount(500, .mg)))
    }

    @Test func aBlendWithItsMembersAfterAColonOnOneLine() {
        let label = LabelParser.parse(text: "Supplement Facts\nProprietary Blend 250 mg: Ginger root, Peppermint leaf")
        #expect(label.rows.map(\.nameOnLabel) == ["Proprietary Blend", "Ginger root", "Peppermint leaf"])
        #expect(label.rows.dropFirst().allSatisfy { $0.blendName == "Proprietary Blend" })
    }

    @Test func internationalUnitAmountsAreRead() throws {
        for (line, value) in [
            ("Vitamin D3 800 IU 200%", 800), ("Vitamin E 30IU 100%", 30), ("Vitamin A 5,000 I.U. 100%", 5000),
            ("Vitamin D 1000 1U 250%", 1000),
        ] {
            let row = try #require(LabelParser.parseRow(line), "\(line)")
            #expect(row.amount == (try Amount(Decimal(value), .iu)), "\(line)")
        }
    }

    @Test func linesSeenButNotReadAreKept() {
        let label = LabelParser.parse(text: "Supplement Facts\nZinc 15 mg 136%\n12 34\nMelatonin 3 mg †")
        #expect(label.unusedLines == ["12 34"])
    }

    @Test func aRowGarbledBeyondItsWordsIsALineNotReadWhenItIsAsTallAsTheRows() {
        func line(_ text: String, height: Double) -> LabelLine {
            LabelLine(text: text, leftEdge: 10, height: height, confidence: 0.9, wordIndices: [])
        }
        let rows = [line("Supplement Facts", height: 40), line("Nano Silver 50 mcg †", height: 30), line("Vitamin C 90 mg 100%", height: 30)]
        let garbled = LabelParser.parse(rows + [line("[eh i", height: 28), line("† Daily Value not established.", height: 30)])
        #expect(garbled.unusedLines == ["[eh i"])
        // A speck or a rule read as two letters is no line of text.
        let speck = LabelParser.parse(rows + [line("[eh i", height: 9), line("† Daily Value not established.", height: 30)])
        #expect(speck.unusedLines.isEmpty)
    }

    @Test func aStatementAmongTheRowsIsALineOfThePanelNotRead() {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Maca 187.5 mg *
                Tongkat. Ali root : powder 112. St mg es 4
                TestoSurge 107.5 mg *
                * Daily Value not established.
                Keep out of reach of children. Consult your physician if pregnant.
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Maca", "TestoSurge"])
        #expect(label.unusedLines == ["Tongkat. Ali root : powder 112. St mg es 4"])
        #expect(label.notIngredients == ["Keep out of reach of children. Consult your physician if pregnant."])
    }

    @Test func aRowEndingWithItsDailyValueDoesNotSwallowTheNextRow() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Vitamin B12 (as Meckyicopaluntta 3,000 oncst Oe ~ 50000%
                Biotin 300 mcg 100%
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Vitamin B12", "Biotin"])
        #expect(label.rows[1].amount == (try Amount(300, .mcg)))
    }

    @Test func blendMembersInParenthesesAfterTheBlendsNameAreRowsOfTheBlendInOrder() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Energy Blend (Green Tea leaf extract, Guarana seed, Yerba Mate leaf) 300 mg †
                Zinc 15 mg 136%
                † Daily Value not established.
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Energy Blend", "Green Tea leaf extract", "Guarana seed", "Yerba Mate leaf", "Zinc"])
        #expect(label.rows[0].isBlend)
        #expect(label.rows[0].amount == (try Amount(300, .mg)))
        #expect(label.rows[1...3].allSatisfy { $0.blendName == "Energy Blend" && $0.amount == nil })
        #expect(label.rows[4].blendName == nil)
    }

    @Test func blendsNamedComplexOrMatrixListTheirMembersLikeBlends() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Focus Matrix 250 mg †
                Bacopa leaf, Ginkgo biloba leaf,
                L-Tyrosine
                Energy Complex 100 mg: Caffeine, Theobromine
                † Daily Value not established.
                """)
        #expect(
            label.rows.map(\.nameOnLabel) == [
                "Focus Matrix", "Bacopa leaf", "Ginkgo biloba leaf", "L-Tyrosine",
                "Energy Complex", "Caffeine", "Theobromine",
            ])
        #expect(label.rows[1...3].allSatisfy { $0.blendName == "Focus Matrix" })
        #expect(label.rows[5...6].allSatisfy { $0.blendName == "Energy Complex" })
        #expect(label.rows[0].isBlend && label.rows[4].isBlend)
    }

    @Test func aPercentageInParenthesesUnderARowIsItsStandardisation() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Green Tea leaf extract 250 mg †
                (50% EGCG)
                Turmeric root extract 500 mg †
                providing 95% curcuminoids
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Green Tea leaf extract", "Turmeric root extract"])
        #expect(label.rows.allSatisfy { $0.dailyValuePercent == nil })
        #expect(label.rows[0].form == "50% EGCG")
        #expect(label.rows[1].form == "providing 95% curcuminoids")
    }

    @Test func internationalUnitsAsOCRMisreadsThemAreRead() throws {
        for (line, value) in [
            ("Vitamin D3 800 lU 200%", 800), ("Vitamin E 400 IU. 1333%", 400), ("Vitamin D3 2,000 IU (50 mcg) 250%", 2000),
            ("Vitamin A 10,000 I.U 200%", 10000),
        ] {
            let row = try #require(LabelParser.parseRow(line), "\(line)")
            #expect(row.amount == (try Amount(Decimal(value), .iu)), "\(line)")
        }
    }

    @Test func theFootnoteEndsThePanelInItsUsualWordings() {
        for footnote in [
            "†Daily Value not established.", "** Daily Value (DV) not established", "‡ Daily Value not established",
            "*Percent Daily Values are based on a 2,000 calorie diet.", "† DV not established.",
        ] {
            let label = LabelParser.parse(
                text: """
                    Supplement Facts
                    Zinc 15 mg 136%
                    Melatonin 3 mg †
                    \(footnote)
                    Vegan. Gluten free. Non-GMO.
                    """)
            #expect(label.rows.map(\.nameOnLabel) == ["Zinc", "Melatonin"], "\(footnote)")
            #expect(label.panelEndFound, "\(footnote)")
        }
    }

    @Test func tellsFoodPanelsOfSeveralCountriesByHeadingOrColumns() {
        let cases: [(String, FoodPanelFormat)] = [
            ("Nutrition Facts\nCalories 230\nTotal Fat 8g 10%", .nutritionFacts),
            ("NUTRITION INFORMATION\nServings per package: 6\nEnergy 532 kJ 313 kJ\nProtein 8.5 g 5.0 g", .nutritionInformation),
            ("Nutrition Information\nDietary Fibre 0 g 0 g\nSodium 60 mg 46 mg", .nutritionInformation),
            ("NUTRITION\nTypical values per 100g\nFat 3.1g\nSalt 0.13g", .per100),
            ("栄養成分表示\nたんぱく質 3.6g", .japanese),
            ("Energy 112 kcal 86 kcal\nDietary Fibre 0 g 0 g", .unnamed),
            ("per 100 g\nSodium 60 mg", .unnamed),
            ("Protein 4.2 g\nTotal Fat 2.6 g\nCarbohydrate 17.9 g\nSugars 3 g\nSodium 60 mg", .unnamed),
        ]
        for (text, format) in cases {
            let label = LabelParser.parse(text: text)
            #expect(label.panelKind == .nutritionFacts, "\(text)")
            #expect(label.foodPanel == format, "\(text)")
            #expect(label.rows.isEmpty, "\(text)")
        }
    }

    @Test func aSupplementPanelWithCaloriesOrNutritionInItsTextStaysASupplementPanel() {
        let label = LabelParser.parse(
            text:
                "Whole Food Nutrition\nSupplement Facts\nServing Size 2 Gummies\nCalories 15\nTotal Carbohydrate 4 g 1%*\nTotal Sugars 3 g\nVitamin C 60 mg 67%"
        )
        #expect(label.panelKind == .supplementFacts)
        #expect(label.foodPanel == nil)
        #expect(label.rows.map(\.nameOnLabel).contains("Vitamin C"))
    }

    @Test func readsDotLeadersSubLinesAndEquivalentUnits() throws {
        let label = LabelParser.parse(
            text: """
                Supplement Facts
                Vitamin A 1050 mcg........ 117%
                (29% as beta-carotene)
                Vitamin D3 25 mcg ...... 125%
                (1,000 IU)
                Niacin 16 mg NE . . . . . . 100%
                Folate 680 mcg DFE.......170%
                (400 mcg folic acid)
                Lutein 250 mcg ........ **
                ** Daily Value not established.
                """)
        #expect(label.rows.map(\.nameOnLabel) == ["Vitamin A", "Vitamin D3", "Niacin", "Folate", "Lutein"])
        #expect(label.rows[0].amount == (try Amount(1050, .mcg)))
        #expect(label.rows[0].dailyValuePercent == 117)
        #expect(label.rows[0].form == "29% as beta-carotene")
        #expect(label.rows[1].alternateAmount == (try Amount(1000, .iu)))
        #expect(label.rows[2].amount == (try Amount(16, .mgNE)))
        #expect(label.rows[3].amount == (try Amount(680, .mcgDFE)))
        #expect(label.rows[3].dailyValuePercent == 170)
        #expect(label.rows[3].form == "400 mcg folic acid")
        #expect(label.rows[4].dailyValueMarker == .doubleAsterisk)
        #expect(label.unusedLines.isEmpty)
    }
}
