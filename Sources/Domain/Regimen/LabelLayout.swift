import Foundation

/// One word read from a label with its box (any pixel unit, origin top left), for `LabelLayout`. Pure data: no
/// OCR types.
public struct LabelWord: Hashable, Sendable {
    /// The word's text.
    public let text: String
    /// The box's left edge.
    public let x: Double
    /// The box's top edge.
    public let y: Double
    /// The box's width.
    public let width: Double
    /// The box's height.
    public let height: Double
    /// The recogniser's confidence, 0...1.
    public let confidence: Double

    /// A word.
    public init(text: String, x: Double, y: Double, width: Double, height: Double, confidence: Double) {
        self.text = text
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
    }
}

/// A part of the read image to read on its own (pixels of that image), and the panel column it belongs to (0 for
/// the first column, and for what lies above and below the columns).
public struct LabelRegion: Hashable, Sendable {
    /// The left edge.
    public let x: Double
    /// The top edge.
    public let y: Double
    /// The width.
    public let width: Double
    /// The height.
    public let height: Double
    /// The panel column, from 0.
    public let column: Int

    /// A region.
    public init(x: Double, y: Double, width: Double, height: Double, column: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.column = column
    }
}

/// How a panel's rows were laid out, as found from the words' positions: what `cairn regimen scan --json` says
/// it read.
public struct LabelLayoutSummary: Hashable, Sendable, Codable {
    /// Where a row's amount sat.
    public enum AmountPlacement: String, Hashable, Sendable, Codable {
        /// Right after the name ("Vitamin A 1050 mcg ..... 117%").
        case afterName
        /// In a column of its own, apart from the name.
        case ownColumn
        /// Both kinds of row.
        case mixed
        /// No row with an amount was read.
        case none
    }

    /// The number of panel columns side by side (1 for the usual one-column panel).
    public var columns: Int
    /// Where each column starts, as a share of the read image's width (0 for the first).
    public var columnStarts: [Double]
    /// Where the amounts were.
    public var amounts: AmountPlacement
    /// True when dot leaders ("Vitamin A 1050 mcg........ 117%") were read between a row's words.
    public var dotLeaders: Bool

    /// A summary.
    public init(columns: Int, columnStarts: [Double], amounts: AmountPlacement, dotLeaders: Bool) {
        self.columns = columns
        self.columnStarts = columnStarts
        self.amounts = amounts
        self.dotLeaders = dotLeaders
    }

    /// One sentence for people ("2 columns side by side, amounts right after the names, dot leaders").
    public var sentence: String {
        var parts = [columns == 1 ? "1 column" : "\(columns) columns side by side"]
        switch amounts {
        case .afterName: parts.append("amounts right after the names")
        case .ownColumn: parts.append("amounts in their own column")
        case .mixed: parts.append("amounts after the names and in their own column")
        case .none: parts.append("no amounts read")
        }
        if dotLeaders { parts.append("dot leaders") }
        return parts.joined(separator: ", ")
    }
}

/// Finds a panel's columns from the words' boxes and gives its lines in reading order: a panel printed in two
/// or three columns side by side (a multivitamin's) is read column by column, each row on its own line, so the
/// one `LabelParser` reads it as it reads a one-column panel.
///
/// A column starts where, on several lines, a word beginning a name (a capital and a letter, or "Amount" of a
/// column's heading) follows a wide gap after a row's end (a digit, "%", "*" or "†") and begins a row of its own
/// (with an amount, a %DV or a marker): the place the gutter between two columns leaves. Lines with a word across that place (the title, the serving size, a footnote
/// across the panel) stay whole. Without such a place the lines are the recogniser's, unchanged.
public enum LabelLayout {
    /// A gap this many times the line's height or more may separate two columns.
    static let gutterGapShare = 1.2
    /// The fewest lines that must show a column's start.
    static let minimumLinesPerColumn = 3

    /// The lines of `words` in reading order, given the recogniser's lines (indices into `words`, in its order),
    /// and the layout found. A line's `leftEdge` is measured from its column's left edge, so indentation means
    /// the same in every column.
    public static func lines(words: [LabelWord], recognisedLines: [[Int]], imageWidth: Double) -> (
        lines: [LabelLine], summary: LabelLayoutSummary, regions: [LabelRegion]
    ) {
        // Rows side by side as the recogniser joined them, and as they sit (a recogniser may read the columns as
        // blocks of their own; a tilted photo's rows do not sit on one line across the panel).
        let starts = columnStarts(words: words, lines: recognisedLines + physicalLines(words))
        let dotLeaders = words.contains { LabelParser.isLeader($0.text) || $0.text.contains("....") }
        func makeLine(_ indices: [Int], column: Double) -> LabelLine {
            let boxes = indices.map { words[$0] }
            let meaningful = boxes.filter { $0.text.count > 1 }
            let confidence = (meaningful.isEmpty ? boxes : meaningful).map(\.confidence).min()
            let top = boxes.map(\.y).min() ?? 0
            let bottom = boxes.map { $0.y + $0.height }.max() ?? 0
            return LabelLine(
                text: boxes.map(\.text).joined(separator: " "), leftEdge: (boxes.first?.x ?? 0) - column,
                height: bottom - top, confidence: confidence, wordIndices: indices)
        }
        guard !starts.isEmpty else {
            let lines = recognisedLines.filter { !$0.isEmpty }.map { makeLine($0, column: 0) }
            return (lines, summary(lines, columns: 1, starts: [0], width: imageWidth, dotLeaders: dotLeaders), [])
        }
        // Each line cut at the columns' starts (or kept whole when a word lies across one).
        struct Segment {
            var indices: [Int]
            var column: Int?
            var top: Double
            var bottom: Double
        }
        func segment(_ indices: [Int], _ column: Int?) -> Segment {
            Segment(
                indices: indices, column: column, top: indices.map { words[$0].y }.min()!,
                bottom: indices.map { words[$0].y + words[$0].height }.max()!)
        }
        var segments: [Segment] = []
        for line in recognisedLines where !line.isEmpty {
            let across = starts.contains { start in
                line.contains { i in words[i].x < start - 0.3 * words[i].height && words[i].x + words[i].width > start }
            }
            if across {
                segments.append(segment(line, nil))
                continue
            }
            var byColumn: [Int: [Int]] = [:]
            for i in line {
                let column = starts.lastIndex { words[i].x >= $0 - 0.3 * words[i].height }.map { $0 + 1 } ?? 0
                byColumn[column, default: []].append(i)
            }
            for (column, indices) in byColumn.sorted(by: { $0.key < $1.key }) { segments.append(segment(indices, column)) }
        }
        // The columns' band: from the top of the first line right of the first column to the bottom of the last.
        // Reading order: lines across the panel, and first-column lines above or below the band, where they stand;
        // within the band, each column top to bottom in turn (a footnote under the first column comes after the
        // last column).
        let right = segments.filter { ($0.column ?? 0) > 0 }
        let bandTop = right.map(\.top).min() ?? 0
        var bandBottom = right.map(\.bottom).max() ?? 0
        // The first column may run on below the others: its lines go on while each follows the one above closely.
        for first in segments.filter({ $0.column == 0 && $0.top > bandBottom - 0.5 * ($0.bottom - $0.top) }).sorted(by: { $0.top < $1.top }) {
            guard first.top - bandBottom < 0.8 * (first.bottom - first.top) else { break }
            bandBottom = max(bandBottom, first.bottom)
        }
        segments.sort { $0.top < $1.top }
        var ordered: [(indices: [Int], column: Int)] = []
        var band: [Segment] = []
        func flush() {
            for column in 0...starts.count {
                for segment in band where segment.column == column { ordered.append((segment.indices, column)) }
            }
            band = []
        }
        for segment in segments {
            let middle = (segment.top + segment.bottom) / 2
            if segment.column == nil || segment.column == 0 && (middle < bandTop || middle > bandBottom) {
                flush()
                ordered.append((segment.indices, 0))
            } else {
                band.append(segment)
            }
        }
        flush()
        let edges = [0.0] + starts
        let lefts = (0...starts.count).map { column in
            ordered.filter { $0.column == column }.compactMap { $0.indices.first.map { words[$0].x } }.min() ?? edges[column]
        }
        let lines = ordered.map { makeLine($0.indices, column: $0.column == 0 ? 0 : lefts[$0.column]) }
        // The regions to read on their own, in reading order: each column of the band (a line's height more above
        // and below it, for a tilted column), cut half a line before the next column starts.
        let heights = words.map(\.height).sorted()
        let margin = heights[heights.count / 2]
        // The first column starts where most of its rows start (specks and the panel's edge left of them are left
        // out), the last ends where most of its rows end.
        func quantile(_ values: [Double], _ q: Double) -> Double? {
            let sorted = values.sorted()
            return sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
        }
        let inBand = segments.filter { $0.column != nil && ($0.top + $0.bottom) / 2 >= bandTop && ($0.top + $0.bottom) / 2 <= bandBottom }
        let firstLefts = inBand.filter { $0.column == 0 }.compactMap { segment in
            segment.indices.first { words[$0].text.filter(\.isLetter).count >= 2 }.map { words[$0].x }
        }
        let lastRights = inBand.filter { $0.column == starts.count }.map { segment in
            segment.indices.map { words[$0].x + words[$0].width }.max() ?? 0
        }
        let left = max(0, (quantile(firstLefts, 0.2) ?? 0) - margin)
        let lastRight = min(imageWidth, (quantile(lastRights, 0.9) ?? imageWidth) + margin)
        let cuts = [left] + starts.map { $0 - 0.5 * margin } + [max(lastRight, (starts.last ?? 0) + margin)]
        // Never into the lines above or below the band (a footnote under the columns read as the first column's
        // end would end the panel before the next column).
        let outside = segments.filter { segment in
            let middle = (segment.top + segment.bottom) / 2
            return middle < bandTop || middle > bandBottom
        }
        let top = max(bandTop - margin, (outside.filter { $0.bottom <= bandTop }.map(\.bottom).max() ?? -.infinity) + 1)
        let bottom = min(bandBottom + margin, (outside.filter { $0.top >= bandBottom }.map(\.top).min() ?? .infinity) - 1)
        var regions: [LabelRegion] = []
        for column in 0...starts.count {
            regions.append(
                LabelRegion(x: cuts[column], y: top, width: cuts[column + 1] - cuts[column], height: bottom - top, column: column))
        }
        return (
            lines, summary(lines, columns: starts.count + 1, starts: edges, width: imageWidth, dotLeaders: dotLeaders),
            regions.filter { $0.width > 0 && $0.height > 0 }
        )
    }

    /// Lines read region by region (`LabelRegion`, in reading order): each line's `leftEdge` measured from its
    /// column's left edge (the leftmost line start in the regions of that column), so indentation means the same
    /// in every column.
    public static func lines(words: [LabelWord], recognisedLines: [[Int]], regions: [LabelRegion]) -> [LabelLine] {
        func region(of line: [Int]) -> LabelRegion? {
            let x = words[line[0]].x
            let y = line.map { words[$0].y + words[$0].height / 2 }.reduce(0, +) / Double(line.count)
            return regions.first { x >= $0.x - 1 && x < $0.x + $0.width && y >= $0.y - 1 && y < $0.y + $0.height + 1 }
        }
        let nonEmpty = recognisedLines.filter { !$0.isEmpty }
        let columns = nonEmpty.map { region(of: $0)?.column ?? 0 }
        var lefts: [Int: Double] = [:]
        for (line, column) in zip(nonEmpty, columns) where column > 0 {
            lefts[column] = min(lefts[column] ?? .infinity, words[line[0]].x)
        }
        return zip(nonEmpty, columns).map { line, column in
            let boxes = line.map { words[$0] }
            let meaningful = boxes.filter { $0.text.count > 1 }
            let top = boxes.map(\.y).min() ?? 0
            let bottom = boxes.map { $0.y + $0.height }.max() ?? 0
            return LabelLine(
                text: boxes.map(\.text).joined(separator: " "), leftEdge: boxes[0].x - (column > 0 ? lefts[column] ?? 0 : 0),
                height: bottom - top, confidence: (meaningful.isEmpty ? boxes : meaningful).map(\.confidence).min(), wordIndices: line)
        }
    }

    /// The words in lines by where they sit (a word joins the line whose middle is within half its height of
    /// its own), each line left to right, whatever lines the recogniser made: two columns' rows side by side
    /// are one such line, whether the recogniser read them as one line or as two blocks.
    static func physicalLines(_ words: [LabelWord]) -> [[Int]] {
        var lines: [(middle: Double, height: Double, indices: [Int])] = []
        for i in words.indices.sorted(by: { words[$0].y + words[$0].height / 2 < words[$1].y + words[$1].height / 2 }) {
            let word = words[i]
            let middle = word.y + word.height / 2
            if let k = lines.indices.last(where: { abs(lines[$0].middle - middle) < 0.5 * max(lines[$0].height, word.height) }) {
                lines[k].indices.append(i)
            } else {
                lines.append((middle, word.height, [i]))
            }
        }
        return lines.map { $0.indices.sorted { words[$0].x < words[$1].x } }
    }

    /// The x positions where columns after the first start, left to right; empty for a one-column panel.
    static func columnStarts(words: [LabelWord], lines: [[Int]]) -> [Double] {
        var candidates: [(x: Double, height: Double)] = []
        var seen = Set<Int>()
        for line in lines {
            let sorted = line.sorted { words[$0].x < words[$1].x }
            for (k, (a, b)) in zip(sorted, sorted.dropFirst()).enumerated() {
                let left = words[a]
                let right = words[b]
                let height = max(left.height, right.height)
                guard right.x - (left.x + left.width) >= gutterGapShare * height else { continue }
                // The right part is a row too (an amount, a %DV, a marker) or a column's heading: not a sentence
                // ("Other ingredients: Cane Sugar, natural flavor") nor "% Daily Value".
                let rest = sorted[(k + 1)...].map { words[$0].text }
                let rowLike = right.text == "Amount" || rest.contains { $0.contains { $0.isNumber || "%*†‡".contains($0) } }
                guard endsRow(left.text), startsName(right.text), rowLike, seen.insert(b).inserted else { continue }
                candidates.append((right.x, height))
            }
        }
        // Starts within two line heights of each other are one column's.
        candidates.sort { $0.x < $1.x }
        var clusters: [[(x: Double, height: Double)]] = []
        for candidate in candidates {
            if let last = clusters.last?.last, candidate.x - last.x <= 2 * max(candidate.height, last.height) {
                clusters[clusters.count - 1].append(candidate)
            } else {
                clusters.append([candidate])
            }
        }
        return clusters.filter { $0.count >= minimumLinesPerColumn }.map { cluster in cluster.map(\.x).min()! }
    }

    /// A word that can end a row: an amount, a %DV or a marker, a sub-line's ")", or the end of a column's
    /// heading ("% DV", "% Daily Value").
    private static func endsRow(_ text: String) -> Bool {
        text.contains { $0.isNumber || "%*†‡)".contains($0) } || LabelUnitParser.isUnitWord(text) || ["dv", "value"].contains(text.lowercased())
    }

    /// A word that can start a row's name or a column's heading: a capital then a lowercase letter ("Vitamin",
    /// "Zinc", "Amount"), or a name in capitals of three letters or more ("DHA" is not enough alone).
    private static func startsName(_ text: String) -> Bool {
        let letters = Array(text.prefix(2))
        guard letters.count == 2, letters[0].isUppercase, letters[1].isLetter else { return false }
        return letters[1].isLowercase || text.count >= 4 && text.allSatisfy { $0.isUppercase || $0 == "-" }
    }

    /// Where the amounts of `label`'s rows sat in `lines`: right after the name, or apart from it (a gap of
    /// one and a half line heights, or dot leaders between).
    public static func amountPlacement(of label: ParsedLabel, lines: [LabelLine], words: [LabelWord]) -> LabelLayoutSummary.AmountPlacement {
        var afterName = 0
        var ownColumn = 0
        for row in label.rows where row.amount != nil {
            guard let index = row.lineIndices.first, index < lines.count else { continue }
            let line = lines[index].wordIndices.filter { $0 < words.count }.map { words[$0] }
            guard let k = line.indices.dropFirst().first(where: { line[$0].text.first?.isNumber == true }),
                line[..<k].contains(where: { $0.text.contains { $0.isLetter } })
            else { continue }
            let leaders = line[..<k].reversed().prefix { LabelParser.isLeader($0.text) }
            let j = k - leaders.count - 1
            guard j >= 0 else { continue }
            let gap = line[k].x - (line[j].x + line[j].width)
            if !leaders.isEmpty || gap >= 1.5 * max(line[k].height, line[j].height) { ownColumn += 1 } else { afterName += 1 }
        }
        switch (afterName, ownColumn) {
        case (0, 0): return .none
        case (_, 0): return .afterName
        case (0, _): return .ownColumn
        default: return afterName >= 4 * ownColumn ? .afterName : ownColumn >= 4 * afterName ? .ownColumn : .mixed
        }
    }

    private static func summary(_ lines: [LabelLine], columns: Int, starts: [Double], width: Double, dotLeaders: Bool)
        -> LabelLayoutSummary
    {
        LabelLayoutSummary(
            columns: columns, columnStarts: starts.map { width > 0 ? (($0 / width) * 100).rounded() / 100 : 0 },
            amounts: .none, dotLeaders: dotLeaders)
    }
}
