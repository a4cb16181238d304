internal import CPangoCairo
import Foundation

/// One thing placed on a page, in points from the page's top left.
enum Placed {
    case text(String, TextStyle, x: Double, y: Double, width: Double, color: (Double, Double, Double), alignRight: Bool)
    case rect(x: Double, y: Double, w: Double, h: Double, color: (Double, Double, Double))
    case line(x0: Double, y0: Double, x1: Double, y1: Double, color: (Double, Double, Double), width: Double, dashed: Bool)
    case photo(ReportPhoto, x: Double, y: Double, w: Double, h: Double)
    case chart(ReportChart, x: Double, y: Double, w: Double)
}

/// Flows blocks onto pages top to bottom: a block that does not fit what is left of a page starts the next one
/// (tables and grids break between rows and repeat their header; a heading never ends a page alone).
struct Layout {
    let canvas: Canvas
    private var pages: [[Placed]] = [[]]
    private var y: Double

    init(canvas: Canvas) {
        self.canvas = canvas
        y = canvas.top
    }

    private var left: Double { canvas.left }
    private var width: Double { canvas.textWidth }
    private var bottomLimit: Double { canvas.height - canvas.bottom }
    private var remaining: Double { bottomLimit - y }
    private var pageIsEmpty: Bool { pages[pages.count - 1].isEmpty }

    private mutating func newPage() {
        pages.append([])
        y = canvas.top
    }

    /// Starts a new page unless `height` fits (or the page is still empty: then it goes here regardless).
    private mutating func ensure(_ height: Double) {
        if height > remaining && !pageIsEmpty { newPage() }
    }

    private mutating func put(_ item: Placed) { pages[pages.count - 1].append(item) }

    private mutating func text(_ s: String, _ style: TextStyle, color: (Double, Double, Double) = Ink.text, after: Double) {
        let h = canvas.height(s, style, width: width)
        ensure(h)
        put(.text(s, style, x: left, y: y, width: width, color: color, alignRight: false))
        y += h + after
    }

    mutating func pages(_ blocks: [ReportBlock]) -> [[Placed]] {
        for (index, block) in blocks.enumerated() {
            switch block {
            case .title(let s): text(s, .title, after: 8)
            case .heading(let s):
                let h = canvas.height(s, .heading, width: width)
                // Keep a heading with at least a few lines of what follows.
                if !pageIsEmpty { y += 12 }
                ensure(h + min(90, followingHeight(blocks, after: index)))
                put(.text(s, .heading, x: left, y: y, width: width, color: Ink.text, alignRight: false))
                y += h + 6
            case .paragraph(let s): text(s, .body, after: 6)
            case .strong(let s):
                let h = canvas.height(s, .bold, width: width)
                if !pageIsEmpty { y += 4 }
                ensure(h + min(70, followingHeight(blocks, after: index)))
                put(.text(s, .bold, x: left, y: y, width: width, color: Ink.text, alignRight: false))
                y += h + 4
            case .small(let s): text(s, .small, color: Ink.soft, after: 4)
            case .disclaimer(let s):
                let h = canvas.height(s, .disclaimer, width: width - 16)
                ensure(h + 10)
                put(.rect(x: left, y: y, w: 2.5, h: h + 8, color: Ink.teal))
                put(.text(s, .disclaimer, x: left + 12, y: y + 4, width: width - 16, color: Ink.text, alignRight: false))
                y += h + 16
            case .facts(let rows): facts(rows)
            case .table(let t): table(t)
            case .photo(let p, let share): photo(p, share: share)
            case .photoGrid(let photos, let columns): grid(photos, columns: max(1, columns))
            case .chart(let c):
                let h = c.height + 16
                ensure(h)
                put(.chart(c, x: left, y: y, w: width))
                y += h + 8
            case .dayGrid(let g): dayGrid(g)
            case .space(let points): y = min(bottomLimit, y + points)
            case .pageBreak: if !pageIsEmpty { newPage() }
            case .keep(let inner):
                // Laid out once on a fresh page to measure; when that takes one page, a new page starts unless
                // the whole fits here.
                var probe = self
                probe.newPage()
                let first = probe.pages.count
                _ = probe.pages(inner)
                if probe.pages.count == first, !pageIsEmpty {
                    let height = probe.y - canvas.top
                    if height + 16 > remaining { newPage() }
                }
                _ = pages(inner)
            }
        }
        return pages
    }

    /// A rough height of the block after `index`, so a heading stays with its first lines.
    private func followingHeight(_ blocks: [ReportBlock], after index: Int) -> Double {
        guard index + 1 < blocks.count else { return 0 }
        switch blocks[index + 1] {
        case .photo(let p, let share): return min(share * canvas.textHeight, width * Double(p.height) / Double(p.width)) + 40
        case .chart(let c): return c.height + 16
        case .heading, .pageBreak, .space, .keep: return 0
        default: return 60
        }
    }

    private mutating func facts(_ rows: [(label: String, value: String)]) {
        let labelWidth = min(150, width * 0.32)
        // A short block of facts stays on one page.
        let total = rows.map {
            max(canvas.height($0.label, .smallBold, width: labelWidth - 8), canvas.height($0.value, .body, width: width - labelWidth)) + 4
        }
        .reduce(0, +)
        if total < canvas.textHeight / 3 { ensure(total) }
        for row in rows {
            let h = max(canvas.height(row.label, .smallBold, width: labelWidth - 8), canvas.height(row.value, .body, width: width - labelWidth))
            ensure(h + 4)
            put(.text(row.label, .smallBold, x: left, y: y + 1, width: labelWidth - 8, color: Ink.soft, alignRight: false))
            put(.text(row.value, .body, x: left + labelWidth, y: y, width: width - labelWidth, color: Ink.text, alignRight: false))
            y += h + 4
        }
        y += 6
    }

    private mutating func table(_ t: ReportTable) {
        let total = t.columns.map(\.share).reduce(0, +)
        let widths = t.columns.map { width * $0.share / max(total, 0.0001) }
        let pad = 3.0
        func rowHeight(_ cells: [String], _ style: TextStyle) -> Double {
            zip(cells, widths).map { canvas.height($0.0, style, width: $0.1 - 2 * pad) }.max() ?? 0
        }
        func place(_ cells: [String], _ style: TextStyle, fill: (Double, Double, Double)?) {
            let h = rowHeight(cells, style) + 2 * pad
            if let fill { put(.rect(x: left, y: y, w: width, h: h, color: fill)) }
            var x = left
            for (i, cell) in cells.enumerated() where i < widths.count {
                put(
                    .text(
                        cell, style, x: x + pad, y: y + pad, width: widths[i] - 2 * pad, color: Ink.text,
                        alignRight: t.columns[i].alignRight))
                x += widths[i]
            }
            y += h
        }
        let header = t.columns.map(\.title)
        let headerHeight = rowHeight(header, .smallBold) + 2 * pad
        func placeHeader() {
            place(header, .smallBold, fill: nil)
            put(.line(x0: left, y0: y, x1: left + width, y1: y, color: Ink.stone, width: 0.8, dashed: false))
        }
        let firstRow = t.rows.first.map { rowHeight(padded($0, t.columns.count), .small) + 2 * pad } ?? 0
        ensure(headerHeight + firstRow)
        placeHeader()
        for (i, row) in t.rows.enumerated() {
            let cells = padded(row, t.columns.count)
            let h = rowHeight(cells, .small) + 2 * pad
            if h > remaining && !pageIsEmpty {
                newPage()
                placeHeader()
            }
            place(cells, .small, fill: i % 2 == 1 ? Ink.paperWash : nil)
        }
        put(.line(x0: left, y0: y, x1: left + width, y1: y, color: Ink.hairline, width: 0.6, dashed: false))
        y += 10
    }

    private func padded(_ row: [String], _ count: Int) -> [String] {
        row.count >= count ? Array(row.prefix(count)) : row + Array(repeating: "", count: count - row.count)
    }

    private func captionHeight(_ lines: [String], width: Double) -> Double {
        lines.enumerated().map { canvas.height($0.element, $0.offset == 0 ? .bold : .small, width: width) + 2 }.reduce(0, +)
    }

    private mutating func captions(_ lines: [String], x: Double, y top: Double, width: Double) {
        var cy = top
        for (i, line) in lines.enumerated() {
            let style: TextStyle = i == 0 ? .bold : .small
            put(.text(line, style, x: x, y: cy, width: width, color: i == 0 ? Ink.text : Ink.soft, alignRight: false))
            cy += canvas.height(line, style, width: width) + 2
        }
    }

    private mutating func photo(_ p: ReportPhoto, share: Double) {
        let maxH = max(60, min(1, share) * canvas.textHeight)
        let scale = min(width / Double(p.width), maxH / Double(p.height))
        let w = Double(p.width) * scale
        let h = Double(p.height) * scale
        let caption = captionHeight(p.caption, width: width)
        ensure(h + 6 + caption)
        put(.photo(p, x: left + (width - w) / 2, y: y, w: w, h: h))
        captions(p.caption, x: left, y: y + h + 6, width: width)
        y += h + 6 + caption + 14
    }

    private mutating func grid(_ photos: [ReportPhoto], columns: Int) {
        let gap = 12.0
        let cell = (width - gap * Double(columns - 1)) / Double(columns)
        var index = 0
        while index < photos.count {
            let row = Array(photos[index..<min(photos.count, index + columns)])
            let captionH = row.map { captionHeight($0.caption, width: cell) }.max() ?? 0
            let h = cell + 4 + captionH
            ensure(h)
            for (i, p) in row.enumerated() {
                let scale = min(cell / Double(p.width), cell / Double(p.height))
                let w = Double(p.width) * scale
                let ph = Double(p.height) * scale
                let x = left + Double(i) * (cell + gap)
                put(.photo(p, x: x + (cell - w) / 2, y: y + (cell - ph), w: w, h: ph))
                captions(p.caption, x: x, y: y + cell + 4, width: cell)
            }
            y += h + gap
            index += columns
        }
    }

    private mutating func dayGrid(_ g: ReportDayGrid) {
        let labelWidth = 46.0
        let cell = min(14, (width - labelWidth) / 31)
        func header() {
            for day in 1...31 {
                put(.text("\(day)", .tiny, x: left + labelWidth + Double(day - 1) * cell, y: y, width: cell, color: Ink.soft, alignRight: false))
            }
            y += 9
        }
        ensure(9 + cell)
        header()
        for row in g.rows {
            if cell > remaining && !pageIsEmpty {
                newPage()
                header()
            }
            put(.text(row.label, .small, x: left, y: y + 1.5, width: labelWidth - 4, color: Ink.text, alignRight: false))
            for (i, c) in row.cells.prefix(31).enumerated() where c != .none {
                let x = left + labelWidth + Double(i) * cell
                let fill: (Double, Double, Double) = c == .taken ? Ink.wash : c == .partly ? Ink.paperWash : c == .skipped ? Ink.hairline : (1, 1, 1)
                put(.rect(x: x + 0.5, y: y + 0.5, w: cell - 1, h: cell - 1, color: fill))
                put(.text(c.letter, .tiny, x: x, y: y + (cell - 7) / 2, width: cell, color: Ink.text, alignRight: false))
            }
            y += cell
        }
        y += 10
    }
}

extension Canvas {
    /// Draws one laid-out page with its header (mark and `header`) and footer (`footer`, "Page i of n").
    func draw(_ page: [Placed], header: String, footer: String, number: Int, of total: Int) throws {
        mark(x: left, y: 22, size: 20)
        text(header, .small, x: left + 26, y: 30, width: textWidth - 26, color: Ink.soft)
        line(left, 48, left + textWidth, 48, Ink.hairline)
        let footerTop = height - bottom + 14
        line(left, footerTop - 6, left + textWidth, footerTop - 6, Ink.hairline)
        text(footer, .footer, x: left, y: footerTop, width: textWidth - 80, color: Ink.soft)
        text("Page \(number) of \(total)", .footer, x: left + textWidth - 80, y: footerTop, width: 80, color: Ink.soft, alignRight: true)
        for item in page {
            switch item {
            case .text(let s, let style, let x, let y, let w, let color, let alignRight):
                text(s, style, x: x, y: y, width: w, color: color, alignRight: alignRight)
            case .rect(let x, let y, let w, let h, let color): fill(x, y, w, h, color)
            case .line(let x0, let y0, let x1, let y1, let color, let w, let dashed): line(x0, y0, x1, y1, color, width: w, dashed: dashed)
            case .photo(let p, let x, let y, let w, let h): try photo(p, x: x, y: y, w: w, h: h)
            case .chart(let c, let x, let y, let w): chart(c, x: x, y: y, w: w)
            }
        }
    }

    /// A frame with the vertical axis words at its left, the time words under it, dashed numbered marks, and the
    /// points joined by a teal line.
    func chart(_ c: ReportChart, x: Double, y: Double, w: Double) {
        let axis = 62.0
        let x0 = x + axis
        let x1 = x + w - 4
        let y0 = y + 8
        let y1 = y + c.height - 6
        text(c.topLabel, .small, x: x, y: y0 - 5, width: axis - 6, color: Ink.soft, alignRight: true)
        text(c.bottomLabel, .small, x: x, y: y1 - 6, width: axis - 6, color: Ink.soft, alignRight: true)
        line(x0, y0, x0, y1, Ink.stone)
        line(x0, y1, x1, y1, Ink.stone)
        line(x0, y0, x1, y0, Ink.hairline, width: 0.4, dashed: true)
        text(c.startLabel, .small, x: x0, y: y1 + 3, width: (x1 - x0) / 2, color: Ink.soft)
        text(c.endLabel, .small, x: x0 + (x1 - x0) / 2, y: y1 + 3, width: (x1 - x0) / 2, color: Ink.soft, alignRight: true)
        func px(_ v: Double) -> Double { x0 + 4 + min(max(v, 0), 1) * (x1 - x0 - 8) }
        func py(_ v: Double) -> Double { y0 + min(max(v, 0), 1) * (y1 - y0) }
        for m in c.marks {
            line(px(m.x), y0, px(m.x), y1, Ink.stone, width: 0.6, dashed: true)
            text(m.label, .tiny, x: px(m.x) + 1.5, y: y0 + 1, width: 20, color: Ink.text)
        }
        cairo_set_source_rgb(cr, Ink.teal.0, Ink.teal.1, Ink.teal.2)
        cairo_set_line_width(cr, 1.4)
        var drawing = false
        for p in c.points {
            guard let v = p.y else {
                if drawing { cairo_stroke(cr) }
                drawing = false
                continue
            }
            if drawing { cairo_line_to(cr, px(p.x), py(v)) } else { cairo_move_to(cr, px(p.x), py(v)) }
            drawing = true
        }
        if drawing { cairo_stroke(cr) }
        for p in c.points {
            guard let v = p.y else { continue }
            cairo_arc(cr, px(p.x), py(v), c.points.count > 150 ? 1.2 : 2.4, 0, 2 * .pi)
            cairo_fill(cr)
        }
    }
}
