import Foundation
import Regimen
import Testing

struct LabelLayoutTests {
    /// Words of lines laid out as a monospaced panel: each text's words at `x` (in characters, 10 px each) on line
    /// `y` (30 px each), 20 px high; one recognised line per call.
    private struct Page {
        var words: [LabelWord] = []
        var lines: [[Int]] = []

        mutating func line(_ y: Int, _ parts: [(x: Int, text: String)]) {
            var indices: [Int] = []
            for part in parts {
                var x = part.x
                for word in part.text.split(separator: " ") {
                    indices.append(words.count)
                    words.append(
                        LabelWord(
                            text: String(word), x: Double(x * 10), y: Double(y * 30), width: Double(word.count * 10), height: 20, confidence: 0.9))
                    x += word.count + 1
                }
            }
            lines.append(indices)
        }
    }

    @Test func readsTwoColumnsSideBySideColumnByColumn() {
        var page = Page()
        page.line(0, [(0, "Supplement Facts")])
        page.line(1, [(0, "Serving Size 1 Tablet")])
        page.line(2, [(0, "Amount Per Tablet % DV"), (40, "Amount Per Tablet % DV")])
        page.line(3, [(0, "Vitamin A 1050 mcg 117%"), (40, "Biotin 30 mcg 100%")])
        page.line(4, [(0, "(29% as beta-carotene)"), (40, "Iron 18 mg 100%")])
        page.line(5, [(0, "Vitamin C 120 mg 133%"), (40, "Zinc 8 mg 73%")])
        page.line(6, [(0, "Folate 680 mcg DFE 170%")])
        page.line(8, [(0, "** Daily Value not established.")])
        let (lines, summary, regions) = LabelLayout.lines(words: page.words, recognisedLines: page.lines, imageWidth: 700)
        #expect(summary.columns == 2)
        #expect(summary.columnStarts == [0, 0.57])
        #expect(
            lines.map(\.text) == [
                "Supplement Facts", "Serving Size 1 Tablet", "Amount Per Tablet % DV", "Vitamin A 1050 mcg 117%", "(29% as beta-carotene)",
                "Vitamin C 120 mg 133%", "Folate 680 mcg DFE 170%", "Amount Per Tablet % DV", "Biotin 30 mcg 100%", "Iron 18 mg 100%",
                "Zinc 8 mg 73%", "** Daily Value not established.",
            ])
        // Indentation is measured from each column's own edge.
        #expect(lines.first { $0.text.hasPrefix("Biotin") }?.leftEdge == 0)
        #expect(regions.map(\.column) == [0, 1])
        let label = LabelParser.parse(lines)
        #expect(label.rows.map(\.nameOnLabel) == ["Vitamin A", "Vitamin C", "Folate", "Biotin", "Iron", "Zinc"])
        #expect(label.rows.allSatisfy { $0.blendName == nil && !$0.isBlend })
        #expect(LabelLayout.amountPlacement(of: label, lines: lines, words: page.words) == .afterName)
    }

    @Test func leavesAOneColumnPanelWithItsAmountColumnAsTheRecogniserReadIt() {
        var page = Page()
        page.line(0, [(0, "Supplement Facts")])
        page.line(1, [(0, "Amount Per Serving"), (40, "% Daily Value")])
        page.line(2, [(0, "Vitamin C (as ascorbic acid)"), (32, "200 mg"), (44, "222%")])
        page.line(3, [(0, "Zinc (as zinc gluconate)"), (32, "15 mg"), (44, "136%")])
        page.line(4, [(0, "Melatonin"), (32, "3 mg"), (44, "†")])
        page.line(5, [(0, "Serving Size 2 Tablets"), (30, "Servings Per Container 30")])
        let (lines, summary, regions) = LabelLayout.lines(words: page.words, recognisedLines: page.lines, imageWidth: 500)
        #expect(summary.columns == 1)
        #expect(regions.isEmpty)
        #expect(lines.map(\.text) == page.lines.map { $0.map { page.words[$0].text }.joined(separator: " ") })
        let label = LabelParser.parse(lines)
        #expect(LabelLayout.amountPlacement(of: label, lines: lines, words: page.words) == .ownColumn)
    }
}
