internal import CPangoCairo
import CairnCore
import Foundation

/// Renders lines of text (Pango markup allowed) in black on white with cairo + pango, for OCR and
/// label-reading tests.
public enum TextRenderer {
    /// The text as an image `width` pixels wide, as tall as it needs.
    public static func render(_ markup: String, font: String = "DejaVu Sans 13", width: Int = 900, margin: Int = 30) -> RGBImage {
        // Measure first on a scratch surface, then draw on one of the right height.
        func layout(on cr: OpaquePointer) -> OpaquePointer {
            let layout = pango_cairo_create_layout(cr)!
            let description = pango_font_description_from_string(font)
            pango_layout_set_font_description(layout, description)
            pango_font_description_free(description)
            pango_layout_set_width(layout, Int32((width - 2 * margin) * Int(PANGO_SCALE)))
            pango_layout_set_markup(layout, markup, -1)
            return layout
        }
        let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10)
        let scratchContext = cairo_create(scratch)
        let measuring = layout(on: scratchContext!)
        var logical = PangoRectangle()
        var ink = PangoRectangle()
        pango_layout_get_pixel_extents(measuring, &ink, &logical)
        g_object_unref(UnsafeMutableRawPointer(measuring))
        cairo_destroy(scratchContext)
        cairo_surface_destroy(scratch)

        let height = Int(logical.height) + 2 * margin
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!
        let cr = cairo_create(surface)!
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_set_source_rgb(cr, 0, 0, 0)
        cairo_move_to(cr, Double(margin), Double(margin))
        let drawing = layout(on: cr)
        pango_cairo_show_layout(cr, drawing)
        g_object_unref(UnsafeMutableRawPointer(drawing))
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                // RGB24 is a native-endian 32-bit word: 0x00RRGGBB, i.e. B, G, R, X in memory on little-endian.
                let p = y * stride + x * 4
                let o = (y * width + x) * 3
                pixels[o] = data[p + 2]
                pixels[o + 1] = data[p + 1]
                pixels[o + 2] = data[p]
            }
        }
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}
