internal import CPangoCairo
import CairnCore
import Foundation

/// Why a report could not be written.
public enum ReportRenderError: Error, Equatable, Sendable {
    /// A photo's stored bytes could not be read or are not a JPEG.
    case unreadablePhoto
    /// cairo reported an error (the message names the status, never content).
    case cairo(String)
    /// The destination refused the bytes.
    case writeFailed
}

/// Lays a `ReportDocument` out on pages and writes it as a PDF with cairo + pango: fonts embedded and subset
/// by cairo, text selectable, photos embedded as their stored JPEG bytes (cairo's JPEG MIME data), a header and
/// a footer with "Page i of n" on every page. The PDF's metadata is the document's title, "Cairn" as creator
/// and the creation date in UTC; cairo adds its own Producer ("cairo 1.16.0 (https://cairographics.org)").
public enum PDFRenderer {
    /// The font family of every report (Debian's fonts-dejavu-core; pango falls back per character, e.g. to
    /// Noto Color Emoji for emoji).
    public static let fontFamily = "DejaVu Sans"

    /// Writes `document` through `sink`, which receives the PDF in pieces and returns false to stop. Returns the
    /// page count. Photos are read one at a time as their page is drawn.
    @discardableResult
    public static func render(_ document: ReportDocument, to sink: @escaping (UnsafeRawBufferPointer) -> Bool) throws -> Int {
        let box = SinkBox(sink)
        let size = document.paper.points
        let opaque = Unmanaged.passUnretained(box).toOpaque()
        guard
            let surface = cairo_pdf_surface_create_for_stream(
                { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                    let box = Unmanaged<SinkBox>.fromOpaque(closure).takeUnretainedValue()
                    return box.write(UnsafeRawBufferPointer(start: data, count: Int(length))) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR
                }, opaque, size.width, size.height)
        else { throw ReportRenderError.cairo("no surface") }
        defer { cairo_surface_destroy(surface) }
        cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, document.title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Cairn")
        let date = DateText.utc(document.createdAt)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, date)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, date)
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        let canvas = Canvas(cr: cr, paper: document.paper)
        defer { canvas.release() }
        var layout = Layout(canvas: canvas)
        let pages = layout.pages(document.blocks)
        for (index, page) in pages.enumerated() {
            try canvas.draw(page, header: document.header, footer: document.footer, number: index + 1, of: pages.count)
            cairo_show_page(cr)
        }
        cairo_surface_finish(surface)
        if box.failed { throw ReportRenderError.writeFailed }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw ReportRenderError.cairo(String(cString: cairo_status_to_string(status))) }
        return pages.count
    }

    /// The whole PDF in memory (for a download; the CLI streams to its file instead).
    public static func data(_ document: ReportDocument) throws -> (data: Data, pages: Int) {
        var data = Data()
        let pages = try render(document) { chunk in
            data.append(contentsOf: chunk)
            return true
        }
        return (data, pages)
    }

    /// How many pages `document` takes, without reading a photo or writing anything.
    public static func pageCount(_ document: ReportDocument) -> Int {
        let size = document.paper.points
        let surface = cairo_pdf_surface_create_for_stream({ _, _, _ in CAIRO_STATUS_SUCCESS }, nil, size.width, size.height)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        let canvas = Canvas(cr: cr, paper: document.paper)
        defer { canvas.release() }
        var layout = Layout(canvas: canvas)
        return layout.pages(document.blocks).count
    }
}

final class SinkBox {
    let sink: (UnsafeRawBufferPointer) -> Bool
    var failed = false
    init(_ sink: @escaping (UnsafeRawBufferPointer) -> Bool) { self.sink = sink }
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed else { return false }
        if !sink(bytes) { failed = true }
        return !failed
    }
}

// MARK: - text and drawing

/// The type styles of a report.
enum TextStyle {
    case title, heading, body, bold, small, smallBold, disclaimer, footer, tiny

    var font: String {
        let f = PDFRenderer.fontFamily
        switch self {
        case .title: return "\(f) Bold 21"
        case .heading: return "\(f) Bold 13"
        case .body: return "\(f) 10"
        case .bold: return "\(f) Bold 10"
        case .small: return "\(f) 8.5"
        case .smallBold: return "\(f) Bold 8.5"
        case .disclaimer: return "\(f) Oblique 9"
        case .footer: return "\(f) 7.5"
        case .tiny: return "\(f) 6"
        }
    }
}

/// Colours of the design system (cairn.css), as cairo RGB.
enum Ink {
    static let text = (0.169, 0.165, 0.157)  // #2b2a28
    static let soft = (0.345, 0.329, 0.302)  // #58544d
    static let hairline = (0.827, 0.800, 0.749)  // #d3ccbf
    static let stone = (0.549, 0.522, 0.478)  // #8c857a
    static let teal = (0.122, 0.435, 0.420)  // #1f6f6b
    static let wash = (0.890, 0.937, 0.929)  // #e3efed
    static let paperWash = (0.969, 0.957, 0.933)  // #f7f4ee
}

/// The cairo context with one pango context at 72 dpi, so font sizes are points on paper.
final class Canvas {
    let cr: OpaquePointer
    let pango: OpaquePointer
    let width: Double, height: Double
    let left = 50.0, right = 50.0, top = 64.0, bottom = 62.0
    var textWidth: Double { width - left - right }
    var textHeight: Double { height - top - bottom }
    private var fonts: [String: OpaquePointer] = [:]

    init(cr: OpaquePointer, paper: PaperSize) {
        self.cr = cr
        (width, height) = paper.points
        pango = pango_cairo_create_context(cr)
        pango_cairo_context_set_resolution(pango, 72)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(pango, options)
        cairo_font_options_destroy(options)
    }

    func release() {
        for description in fonts.values { pango_font_description_free(description) }
        g_object_unref(UnsafeMutableRawPointer(pango))
    }

    private func font(_ style: TextStyle) -> OpaquePointer {
        if let known = fonts[style.font] { return known }
        let description = pango_font_description_from_string(style.font)!
        fonts[style.font] = description
        return description
    }

    /// A laid-out paragraph; the caller unrefs it.
    func layout(_ text: String, _ style: TextStyle, width: Double, alignRight: Bool = false) -> OpaquePointer {
        let layout = pango_layout_new(pango)!
        pango_layout_set_font_description(layout, font(style))
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        if alignRight { pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT) }
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The height of `text` set in `style` at `width`.
    func height(_ text: String, _ style: TextStyle, width: Double) -> Double {
        let l = layout(text, style, width: width)
        defer { g_object_unref(UnsafeMutableRawPointer(l)) }
        var w: Int32 = 0
        var h: Int32 = 0
        pango_layout_get_size(l, &w, &h)
        return Double(h) / Double(PANGO_SCALE)
    }

    func text(
        _ text: String, _ style: TextStyle, x: Double, y: Double, width: Double, color: (Double, Double, Double) = Ink.text,
        alignRight: Bool = false
    ) {
        let l = layout(text, style, width: width, alignRight: alignRight)
        defer { g_object_unref(UnsafeMutableRawPointer(l)) }
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, l)
        // Showing a layout leaves a current point; clear it so the next arc does not start with a line from it.
        cairo_new_path(cr)
    }

    func fill(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ color: (Double, Double, Double)) {
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_rectangle(cr, x, y, w, h)
        cairo_fill(cr)
    }

    func line(
        _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ color: (Double, Double, Double), width: Double = 0.6,
        dashed: Bool = false
    ) {
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_set_line_width(cr, width)
        if dashed {
            var d = [2.5, 2.0]
            cairo_set_dash(cr, &d, 2, 0)
        }
        cairo_move_to(cr, x0, y0)
        cairo_line_to(cr, x1, y1)
        cairo_stroke(cr)
        if dashed { cairo_set_dash(cr, nil, 0, 0) }
    }

    /// The stored JPEG bytes, placed in the box: cairo embeds them unchanged (MIME data) and the 1 x 1 image
    /// surface they are attached to is only the stand-in cairo needs, scaled to the box (the PDF image takes
    /// its pixel size from the JPEG). Throws `unreadablePhoto` for bytes that are not a JPEG, because cairo
    /// would otherwise draw the stand-in pixel.
    func photo(_ photo: ReportPhoto, x: Double, y: Double, w: Double, h: Double) throws {
        guard let data = try? photo.load(), data.count > 3, data[data.startIndex] == 0xFF, data[data.startIndex + 1] == 0xD8,
            data[data.startIndex + 2] == 0xFF
        else { throw ReportRenderError.unreadablePhoto }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)!
        defer { cairo_surface_destroy(surface) }
        let copy = malloc(data.count)!
        data.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
        let status = cairo_surface_set_mime_data(
            surface, "image/jpeg", copy.assumingMemoryBound(to: UInt8.self), UInt(data.count),
            { free($0) }, copy)
        guard status == CAIRO_STATUS_SUCCESS else {
            free(copy)
            throw ReportRenderError.cairo("mime data")
        }
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, w, h)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_rectangle(cr, 0, 0, 1, 1)
        cairo_fill(cr)
        cairo_restore(cr)
        cairo_set_source_rgb(cr, Ink.hairline.0, Ink.hairline.1, Ink.hairline.2)
        cairo_set_line_width(cr, 0.5)
        cairo_rectangle(cr, x, y, w, h)
        cairo_stroke(cr)
    }

    /// Cairn's mark: four stones, the teal capstone on top, `size` points tall.
    func mark(x: Double, y: Double, size: Double) {
        let s = size / 32
        let stones: [(Double, Double, Double, Double, Double, (Double, Double, Double))] = [
            (16, 26.6, 12, 4.4, -4, (0.435, 0.408, 0.369)), (15.3, 19.3, 8.8, 3.6, 6, (0.549, 0.522, 0.478)),
            (16.8, 13, 6.4, 3, -7, (0.659, 0.631, 0.584)), (15.8, 7.4, 4.4, 2.9, 9, Ink.teal),
        ]
        for (cx, cy, rx, ry, angle, color) in stones {
            cairo_new_path(cr)
            cairo_save(cr)
            cairo_translate(cr, x + cx * s, y + cy * s)
            cairo_rotate(cr, angle * .pi / 180)
            cairo_scale(cr, rx * s, ry * s)
            cairo_arc(cr, 0, 0, 1, 0, 2 * .pi)
            cairo_restore(cr)
            cairo_set_source_rgb(cr, color.0, color.1, color.2)
            cairo_fill(cr)
        }
    }
}
