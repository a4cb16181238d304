import CPangoCairo
import CairnCore
import Foundation

/// One row of a Supplement Facts panel to draw.
struct PanelRow {
    let name: String
    let amount: String?
    let dailyValue: String
    let indented: Bool
}

/// What a rendered panel says.
struct PanelContent {
    let servingSize: String?
    let servingsPerContainer: String?
    let rows: [PanelRow]
    let footnote: String
    let otherIngredients: [String]
}

/// How a panel looks: font, size, and where the amount and %DV columns sit.
struct PanelStyle: CustomStringConvertible {
    /// Column layouts: amounts in their own right-aligned column; amounts right after the name; a compact
    /// panel without row rules.
    enum Layout: Int, CaseIterable { case columns, inline, compact }

    let font: String
    let pixelSize: Double
    let layout: Layout

    static let fonts = ["DejaVu Sans", "Liberation Sans", "DejaVu Serif", "Liberation Serif", "DejaVu Sans Condensed"]
    static let sizes: [Double] = [22, 26, 30]

    /// The style for label `index` of the corpus: cycles fonts, sizes and layouts.
    static func forLabel(_ index: Int) -> PanelStyle {
        PanelStyle(
            font: fonts[index % fonts.count], pixelSize: sizes[(index / fonts.count) % sizes.count],
            layout: Layout.allCases[index % Layout.allCases.count])
    }

    var description: String { "\(font) \(Int(pixelSize)) px, \(layout)" }
}

/// Draws Supplement Facts panels with cairo and pango, black on white, as RGB pixels.
enum LabelRenderer {
    static func render(_ content: PanelContent, style: PanelStyle) -> RGBImage {
        let px = style.pixelSize
        let margin = px * 1.2
        // Measure the columns on a scratch surface.
        let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8)!
        let measure = cairo_create(scratch)!
        func width(_ text: String, bold: Bool = false, scale: Double = 1) -> Double {
            let layout = makeLayout(measure, text, style: style, bold: bold, scale: scale)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            var ink = PangoRectangle()
            var logical = PangoRectangle()
            pango_layout_get_pixel_extents(layout, &ink, &logical)
            return Double(logical.width)
        }
        let indent = px * 1.5
        let nameWidth = content.rows.map { width($0.name) + ($0.indented ? indent : 0) }.max() ?? 0
        let amountWidth = content.rows.compactMap { $0.amount.map { width($0) } }.max() ?? 0
        let dvWidth = max(width("% Daily Value", bold: true), content.rows.map { width($0.dailyValue) }.max() ?? 0)
        let titleWidth = width("Supplement Facts", bold: true, scale: 1.8)
        let gap = px * 1.5
        let inner: Double
        switch style.layout {
        case .columns, .compact: inner = max(titleWidth, nameWidth + gap + amountWidth + gap + dvWidth)
        case .inline:
            let inlineWidth = content.rows.map { width($0.name + ($0.amount.map { " " + $0 } ?? "")) + ($0.indented ? indent : 0) }.max() ?? 0
            inner = max(titleWidth, inlineWidth + gap + dvWidth)
        }
        let canvasWidth = Int(inner + 2 * margin)
        cairo_destroy(measure)
        cairo_surface_destroy(scratch)

        // Draw twice: once to learn the height (on a tall canvas), then crop.
        let tall = Int(px * 3) * (content.rows.count + 12) + Int(px * 6) * (1 + content.otherIngredients.count / 4)
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(canvasWidth), Int32(tall))!
        let cr = cairo_create(surface)!
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_set_source_rgb(cr, 0, 0, 0)
        var y = margin
        let left = margin
        let right = margin + inner
        let lineGap = style.layout == .compact ? px * 0.25 : px * 0.45

        func draw(
            _ text: String, x: Double, alignRight: Bool = false, bold: Bool = false, scale: Double = 1,
            wrapWidth: Double? = nil
        ) -> Double {
            let layout = makeLayout(cr, text, style: style, bold: bold, scale: scale)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            if let wrapWidth { pango_layout_set_width(layout, Int32(wrapWidth * Double(PANGO_SCALE))) }
            var ink = PangoRectangle()
            var logical = PangoRectangle()
            pango_layout_get_pixel_extents(layout, &ink, &logical)
            cairo_move_to(cr, alignRight ? x - Double(logical.width) : x, y)
            pango_cairo_show_layout(cr, layout)
            return Double(logical.height)
        }
        func rule(_ thickness: Double) {
            cairo_rectangle(cr, left, y, inner, thickness)
            cairo_fill(cr)
            y += thickness + lineGap
        }

        y += draw("Supplement Facts", x: left, bold: true, scale: 1.8) + lineGap
        rule(max(2, px / 10))
        if let serving = content.servingSize { y += draw("Serving Size \(serving)", x: left) + lineGap * 0.5 }
        if let servings = content.servingsPerContainer { y += draw("Servings Per Container \(servings)", x: left) + lineGap * 0.5 }
        rule(px * 0.35)
        let headerHeight = draw("Amount Per Serving", x: left, bold: true)
        _ = draw("% Daily Value", x: right, alignRight: true, bold: true)
        y += headerHeight + lineGap
        rule(max(1, px / 14))
        for row in content.rows {
            let x = left + (row.indented ? indent : 0)
            let h: Double
            switch style.layout {
            case .columns, .compact:
                h = draw(row.name, x: x)
                if let amount = row.amount { _ = draw(amount, x: right - dvWidth - gap, alignRight: true) }
            case .inline:
                h = draw(row.name + (row.amount.map { " " + $0 } ?? ""), x: x)
            }
            _ = draw(row.dailyValue, x: right, alignRight: true)
            y += h + lineGap
            if style.layout != .compact {
                cairo_set_source_rgb(cr, 0.35, 0.35, 0.35)
                rule(1)
                cairo_set_source_rgb(cr, 0, 0, 0)
            }
        }
        rule(px * 0.35)
        y += draw(content.footnote, x: left, scale: 0.85) + lineGap * 2
        if !content.otherIngredients.isEmpty {
            y +=
                draw(
                    "Other ingredients: " + content.otherIngredients.joined(separator: ", ") + ".", x: left,
                    scale: 0.85, wrapWidth: inner) + lineGap
        }
        cairo_surface_flush(surface)
        let height = min(tall, Int(y + margin))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels = [UInt8](repeating: 0, count: canvasWidth * height * 3)
        for row in 0..<height {
            for x in 0..<canvasWidth {
                // RGB24 pixels are native-endian 0x00RRGGBB words: B, G, R, X in memory on little-endian.
                let p = row * stride + x * 4
                let o = (row * canvasWidth + x) * 3
                pixels[o] = data[p + 2]
                pixels[o + 1] = data[p + 1]
                pixels[o + 2] = data[p]
            }
        }
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        return RGBImage(width: canvasWidth, height: height, pixels: pixels)
    }

    private static func makeLayout(_ cr: OpaquePointer, _ text: String, style: PanelStyle, bold: Bool, scale: Double) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
        let description = pango_font_description_from_string(style.font)
        pango_font_description_set_absolute_size(description, style.pixelSize * scale * Double(PANGO_SCALE))
        if bold { pango_font_description_set_weight(description, PANGO_WEIGHT_BOLD) }
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_text(layout, text, -1)
        return layout
    }
}
