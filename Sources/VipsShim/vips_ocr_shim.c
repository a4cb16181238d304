#include <vips/vips.h>
#include "vips_ocr_shim.h"

CairnImage *cairn_ocr_gray(CairnImage *in) {
    VipsImage *cur = in, *next = NULL;
    g_object_ref(cur);
    if (vips_image_get_bands(cur) > 1 || vips_image_get_interpretation(cur) != VIPS_INTERPRETATION_B_W) {
        int rc = vips_colourspace(cur, &next, VIPS_INTERPRETATION_B_W, NULL);
        g_object_unref(cur);
        if (rc) return NULL;
        cur = next; next = NULL;
    }
    if (vips_image_get_bands(cur) > 1) {
        int rc = vips_extract_band(cur, &next, 0, NULL);
        g_object_unref(cur);
        if (rc) return NULL;
        cur = next; next = NULL;
    }
    int rc = vips_cast_uchar(cur, &next, NULL);
    g_object_unref(cur);
    return rc ? NULL : next;
}

CairnImage *cairn_ocr_scale(CairnImage *in, double scale) {
    VipsImage *out = NULL;
    int rc = scale > 1
        ? vips_resize(in, &out, scale, "kernel", VIPS_KERNEL_CUBIC, NULL)
        : vips_resize(in, &out, scale, NULL);
    return rc ? NULL : out;
}

CairnImage *cairn_ocr_flatten_light(CairnImage *in, int shrink) {
    int w = vips_image_get_width(in), h = vips_image_get_height(in);
    if (shrink < 2 || w / shrink < 4 || h / shrink < 4) { g_object_ref(in); return in; }
    VipsImage *small = NULL, *closed = NULL, *soft = NULL, *blurred = NULL, *background = NULL, *ratio = NULL,
              *scaled = NULL, *out = NULL;
    int rc = vips_shrink(in, &small, (double)shrink, (double)shrink, NULL);
    /* The background is the paper: a grey dilation (rank filter picking the brightest pixel) removes the text. */
    if (!rc) rc = vips_rank(small, &closed, 5, 5, 24, NULL);
    if (!rc) rc = vips_gaussblur(closed, &soft, 2.0, NULL);
    /* Computed once, in memory: with the operation cache off, the lazy chain would otherwise shrink, rank and
       blur again for every output tile the enlarging resize asks for (overlapping tiles, measured 1.5x a plain
       Tesseract run per scan). The small image is 1/256 of the photo. */
    if (!rc) { blurred = vips_image_copy_memory(soft); rc = blurred ? 0 : -1; }
    if (!rc) rc = vips_resize(blurred, &background, (double)w / vips_image_get_width(blurred),
                              "vscale", (double)h / vips_image_get_height(blurred), NULL);
    if (!rc) rc = vips_divide(in, background, &ratio, NULL);
    if (!rc) rc = vips_linear1(ratio, &scaled, 255.0, 0.0, NULL);
    if (!rc) rc = vips_cast_uchar(scaled, &out, NULL);
    if (small) g_object_unref(small);
    if (closed) g_object_unref(closed);
    if (soft) g_object_unref(soft);
    if (blurred) g_object_unref(blurred);
    if (background) g_object_unref(background);
    if (ratio) g_object_unref(ratio);
    if (scaled) g_object_unref(scaled);
    return rc ? NULL : out;
}

CairnImage *cairn_ocr_rotate(CairnImage *in, double degrees, double background) {
    int bands = vips_image_get_bands(in);
    double values[4] = { background, background, background, background };
    VipsArrayDouble *bg = vips_array_double_new(values, bands > 4 ? 4 : bands);
    VipsImage *out = NULL;
    int rc = vips_rotate(in, &out, degrees, "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return rc ? NULL : out;
}

CairnImage *cairn_ocr_rot180(CairnImage *in) {
    VipsImage *out = NULL;
    return vips_rot(in, &out, VIPS_ANGLE_D180, NULL) ? NULL : out;
}

CairnImage *cairn_ocr_blur(CairnImage *in, double sigma) {
    VipsImage *out = NULL;
    return vips_gaussblur(in, &out, sigma, NULL) ? NULL : out;
}

CairnImage *cairn_ocr_gray_from_memory(const void *pixels, size_t len, int width, int height) {
    VipsImage *raw = vips_image_new_from_memory_copy(pixels, len, width, height, 1, VIPS_FORMAT_UCHAR);
    if (!raw) return NULL;
    VipsImage *out = NULL;
    int rc = vips_copy(raw, &out, "interpretation", VIPS_INTERPRETATION_B_W, NULL);
    g_object_unref(raw);
    return rc ? NULL : out;
}
