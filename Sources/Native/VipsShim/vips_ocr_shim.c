#include <string.h>
#include <vips/vips.h>
#include "vips_ocr_shim.h"
#include "vips_lazy.h"

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

CairnImage *cairn_ocr_in_memory(CairnImage *in) { return vips_image_copy_memory(in); }

CairnImage *cairn_ocr_gray_from_memory(const void *pixels, size_t len, int width, int height) {
    VipsImage *raw = vips_image_new_from_memory_copy(pixels, len, width, height, 1, VIPS_FORMAT_UCHAR);
    if (!raw) return NULL;
    VipsImage *out = NULL;
    int rc = vips_copy(raw, &out, "interpretation", VIPS_INTERPRETATION_B_W, NULL);
    g_object_unref(raw);
    return rc ? NULL : out;
}

/* Otsu's threshold of a 256-bin histogram: the first level of the bright class. Also the means of both classes. */
static int cairn_otsu(const double *hist, double *dark_mean, double *bright_mean, double *dark_share) {
    double total = 0, sum = 0;
    for (int i = 0; i < 256; i++) { total += hist[i]; sum += i * hist[i]; }
    double sum_b = 0, weight_b = 0, best = -1;
    int threshold = 128;
    for (int t = 0; t < 255; t++) {
        weight_b += hist[t];
        sum_b += t * hist[t];
        double weight_f = total - weight_b;
        if (weight_b <= 0) continue;
        if (weight_f <= 0) break;
        double mb = sum_b / weight_b, mf = (sum - sum_b) / weight_f;
        double between = weight_b * weight_f * (mb - mf) * (mb - mf);
        if (between > best) {
            best = between; threshold = t + 1;
            *dark_mean = mb; *bright_mean = mf; *dark_share = total > 0 ? weight_b / total : 0;
        }
    }
    return threshold;
}

/* Mean of `in` over the pixels where `mask` (0/255, same size) is set; -1 when the mask is empty. */
static double cairn_masked_mean(VipsImage *in, VipsImage *mask) {
    VipsImage *ones = NULL, *product = NULL;
    double mask_avg = 0, product_avg = 0;
    int rc = vips_avg(mask, &mask_avg, NULL);
    if (!rc && mask_avg <= 0) return -1;
    if (!rc) rc = vips_linear1(mask, &ones, 1.0 / 255.0, 0, NULL);
    if (!rc) rc = vips_multiply(in, ones, &product, NULL);
    if (!rc) rc = vips_avg(product, &product_avg, NULL);
    if (ones) g_object_unref(ones);
    if (product) g_object_unref(product);
    return rc ? -1 : product_avg / (mask_avg / 255.0);
}

/* A mask (0/255) grown (`grow` > 0) or shrunk (< 0) by |grow| pixels with a square rank filter. */
static int cairn_grow(VipsImage *mask, VipsImage **out, int grow) {
    int size = 2 * (grow < 0 ? -grow : grow) + 1;
    if (size <= 1) { g_object_ref(mask); *out = mask; return 0; }
    return vips_rank(mask, out, size, size, grow > 0 ? size * size - 1 : 0, NULL);
}

int cairn_ocr_find_panel(CairnImage *gray, CairnPanel *panel, CairnImage **surround_out) {
    memset(panel, 0, sizeof(*panel));
    *surround_out = NULL;
    int w = vips_image_get_width(gray), h = vips_image_get_height(gray);
    int shrink = (w > h ? w : h) / 250;
    if (shrink < 1) shrink = 1;
    if (w / shrink < 32 || h / shrink < 32) return 0;
    VipsImage *shrunk = NULL, *small = NULL, *dilated = NULL, *closed = NULL, *hist = NULL, *above = NULL,
              *mask = NULL, *tiny = NULL, *tiny_blur = NULL, *region = NULL, *inner = NULL, *outer = NULL,
              *inner_band = NULL, *outer_band = NULL, *eroded = NULL, *grown = NULL, *opened_min = NULL,
              *opened = NULL, *black_hat = NULL, *top_hat = NULL, *ink_dark = NULL, *ink_light = NULL, *ink = NULL,
              *far = NULL, *far_inv = NULL, *ink_outside = NULL, *columns = NULL, *rows = NULL, *box_region = NULL,
              *framed = NULL, *framed_mem = NULL, *flooded = NULL, *surround = NULL, *surround_grown = NULL;
    double *row_sums = NULL;
    int found = 0, threshold = 0, sx = -1, sy = -1, bl = 0, bt = 0, bw = 0, bh = 0, sw = 0, sh = 0, lines = 0, run = 0;
    double counts[256], dark_mean = 0, bright_mean = 0, dark_share = 0, ink_value = 128, outside_ink = 64;
    double region_avg = 0, inside = 0, outside = 0, fx = 1, fy = 1;
    /* About 250 pixels long (fast, and a 5 x 5 window spans every stroke and rule of the text). */
    int rc = vips_shrink(gray, &shrunk, (double)shrink, (double)shrink, NULL);
    if (!rc) { small = vips_image_copy_memory(shrunk); rc = small ? 0 : -1; }
    /* The paper without its text: a grey closing (the brightest pixel of each 5 x 5 square, then the darkest). */
    if (!rc) rc = vips_rank(small, &dilated, 5, 5, 24, NULL);
    if (!rc) rc = vips_rank(dilated, &closed, 5, 5, 0, NULL);
    if (!rc) { VipsImage *m = vips_image_copy_memory(closed); g_object_unref(closed); closed = m; rc = closed ? 0 : -1; }
    if (!rc) rc = vips_hist_find(closed, &hist, NULL);
    if (!rc) {
        VipsImage *d = NULL;
        rc = vips_cast(hist, &d, VIPS_FORMAT_DOUBLE, NULL);
        if (!rc) {
            size_t len = 0;
            double *values = vips_image_write_to_memory(d, &len);
            if (values && len == 256 * sizeof(double)) memcpy(counts, values, sizeof(counts)); else rc = -1;
            g_free(values);
            g_object_unref(d);
        }
    }
    if (!rc) {
        threshold = cairn_otsu(counts, &dark_mean, &bright_mean, &dark_share);
        /* The paper's grey: the median of the bright class. */
        double bright = 0, seen = 0;
        for (int i = threshold; i < 256; i++) bright += counts[i];
        panel->paper = 255;
        for (int i = threshold; i < 256; i++) { seen += counts[i]; if (seen * 2 >= bright) { panel->paper = i; break; } }
        panel->threshold = threshold;
        panel->dark_mean = dark_mean;
        panel->bright_mean = bright_mean;
    }
    /* A surround is darker than the paper by far, and more than a sliver of the photo. */
    if (rc || bright_mean - dark_mean < 40 || dark_share < 0.02) goto done;
    rc = vips_moreeq_const1(closed, &above, (double)threshold, NULL);
    if (!rc) { mask = vips_image_copy_memory(above); rc = mask ? 0 : -1; }
    /* The panel is the bright region round the densest bright part of the photo (a strong blur of the mask
       peaks inside the largest region). */
    if (!rc) rc = vips_shrink(mask, &tiny, 8, 8, NULL);
    if (!rc) rc = vips_gaussblur(tiny, &tiny_blur, 3, NULL);
    if (!rc) {
        double peak = 0;
        int px = 0, py = 0;
        rc = vips_max(tiny_blur, &peak, "x", &px, "y", &py, NULL);
        if (!rc) {
            double scale_x = (double)vips_image_get_width(mask) / vips_image_get_width(tiny_blur);
            double scale_y = (double)vips_image_get_height(mask) / vips_image_get_height(tiny_blur);
            sx = (int)((px + 0.5) * scale_x); sy = (int)((py + 0.5) * scale_y);
            if (sx >= vips_image_get_width(mask)) sx = vips_image_get_width(mask) - 1;
            if (sy >= vips_image_get_height(mask)) sy = vips_image_get_height(mask) - 1;
        }
    }
    if (!rc) {
        double *value = NULL;
        int n = 0;
        rc = vips_getpoint(mask, &value, &n, sx, sy, NULL);
        int bright_seed = !rc && n > 0 && value[0] > 0;
        g_free(value);
        if (!rc && !bright_seed) {
            /* The centre of the photo, where a panel photographed on purpose sits. */
            sx = vips_image_get_width(mask) / 2; sy = vips_image_get_height(mask) / 2;
            rc = vips_getpoint(mask, &value, &n, sx, sy, NULL);
            bright_seed = !rc && n > 0 && value[0] > 0;
            g_free(value);
        }
        if (rc || !bright_seed) goto done;
    }
    if (!rc) rc = vips_draw_flood(mask, &ink_value, 1, sx, sy, "equal", TRUE, "left", &bl, "top", &bt, "width", &bw,
                                  "height", &bh, NULL);
    if (!rc) rc = vips_equal_const1(mask, &region, 128, NULL);
    if (!rc) { VipsImage *m = vips_image_copy_memory(region); g_object_unref(region); region = m; rc = region ? 0 : -1; }
    if (!rc) rc = vips_avg(region, &region_avg, NULL);
    if (rc) goto done;
    sw = vips_image_get_width(small); sh = vips_image_get_height(small);
    panel->share = region_avg / 255.0;
    /* Too small to be the panel, or no surround left round it. */
    if (panel->share < 0.15 || panel->share > 0.98) goto done;
    /* A box that is the whole photo, with each of its corners in the region: no surround lies inside it (the
       surround below is what is connected to the box's corners; dark text or a picture reaching the photo's edge
       is no surround), so there is nothing to crop or paint, and the edge and the text outside, which only
       describe a panel found, are not measured. */
    if (bl == 0 && bt == 0 && bw == sw && bh == sh) {
        int corner_outside = 0;
        for (int corner = 0; !rc && corner < 4; corner++) {
            double *value = NULL;
            int n = 0;
            rc = vips_getpoint(region, &value, &n, corner % 2 ? sw - 1 : 0, corner / 2 ? sh - 1 : 0, NULL);
            if (!rc && n > 0 && value[0] == 0) corner_outside = 1;
            g_free(value);
        }
        if (rc || !corner_outside) goto done;
    }
    /* A real edge: the paper just inside the region is far brighter than the surround just outside it (a shade
       across the paper, thresholded, has no such step). */
    rc = cairn_grow(region, &eroded, -3);
    if (!rc) rc = cairn_grow(region, &grown, 3);
    if (!rc) rc = vips_notequal_const1(eroded, &inner_band, 255, NULL);
    if (!rc) { VipsImage *b = NULL; rc = vips_andimage(region, inner_band, &b, NULL); g_object_unref(inner_band); inner_band = b; }
    if (!rc) rc = vips_notequal_const1(region, &outer, 255, NULL);
    if (!rc) rc = vips_andimage(grown, outer, &outer_band, NULL);
    if (rc) goto done;
    inside = cairn_masked_mean(closed, inner_band);
    outside = cairn_masked_mean(closed, outer_band);
    panel->edge_step = inside - outside;
    if (inside < 0 || outside < 0 || inside - outside < 40) goto done;
    /* Text outside the panel (on the bottle, or a part of the panel the box left out): dark ink on light
       (closing minus image) or light ink on dark (image minus opening), away from the panel's edge. */
    rc = vips_rank(small, &opened_min, 5, 5, 0, NULL);
    if (!rc) rc = vips_rank(opened_min, &opened, 5, 5, 24, NULL);
    if (!rc) rc = vips_subtract(closed, small, &black_hat, NULL);
    if (!rc) rc = vips_subtract(small, opened, &top_hat, NULL);
    if (!rc) rc = vips_moreeq_const1(black_hat, &ink_dark, 40, NULL);
    if (!rc) rc = vips_moreeq_const1(top_hat, &ink_light, 40, NULL);
    if (!rc) rc = vips_orimage(ink_dark, ink_light, &ink, NULL);
    if (!rc) rc = cairn_grow(region, &far, 4);
    if (!rc) rc = vips_notequal_const1(far, &far_inv, 255, NULL);
    if (!rc) rc = vips_andimage(ink, far_inv, &ink_outside, NULL);
    if (!rc) rc = vips_project(ink_outside, &columns, &rows, NULL);
    if (!rc) {
        VipsImage *d = NULL;
        rc = vips_cast(rows, &d, VIPS_FORMAT_DOUBLE, NULL);
        size_t len = 0;
        if (!rc) { row_sums = vips_image_write_to_memory(d, &len); rc = row_sums && len == (size_t)sh * sizeof(double) ? 0 : -1; }
        if (d) g_object_unref(d);
    }
    if (rc) goto done;
    /* Lines: runs of two rows or more each holding three ink pixels or more. */
    for (int y = 0; y <= sh; y++) {
        int inked = y < sh && row_sums[y] / 255.0 >= 3;
        if (inked) run++;
        else { if (run >= 2) lines++; run = 0; }
    }
    panel->lines_outside = lines;
    /* The surround inside the panel's box (the corners a tilted panel leaves): not region, and connected to the
       box's edge (a dark band or picture inside the panel is not surround). */
    rc = vips_extract_area(region, &box_region, bl, bt, bw, bh, NULL);
    /* A frame round the box: surround on the sides inside the photo, a copy of the edge on the photo's border. */
    if (!rc) rc = vips_embed(box_region, &framed, 1, 1, bw + 2, bh + 2, "extend", VIPS_EXTEND_COPY, NULL);
    if (!rc) { framed_mem = vips_image_copy_memory(framed); rc = framed_mem ? 0 : -1; }
    if (!rc) {
        double zero = 0;
        if (bl > 0) rc |= vips_draw_rect(framed_mem, &zero, 1, 0, 0, 1, bh + 2, "fill", TRUE, NULL);
        if (bt > 0) rc |= vips_draw_rect(framed_mem, &zero, 1, 0, 0, bw + 2, 1, "fill", TRUE, NULL);
        if (bl + bw < sw) rc |= vips_draw_rect(framed_mem, &zero, 1, bw + 1, 0, 1, bh + 2, "fill", TRUE, NULL);
        if (bt + bh < sh) rc |= vips_draw_rect(framed_mem, &zero, 1, 0, bh + 1, bw + 2, 1, "fill", TRUE, NULL);
    }
    for (int corner = 0; !rc && corner < 4; corner++) {
        int cx = corner % 2 ? bw + 1 : 0, cy = corner / 2 ? bh + 1 : 0, n = 0;
        double *value = NULL;
        rc = vips_getpoint(framed_mem, &value, &n, cx, cy, NULL);
        int dark = !rc && n > 0 && value[0] == 0;
        g_free(value);
        if (dark) rc = vips_draw_flood(framed_mem, &outside_ink, 1, cx, cy, "equal", TRUE, NULL);
    }
    if (!rc) rc = vips_equal_const1(framed_mem, &flooded, 64, NULL);
    /* Grown by one pixel into the paper, so no dark sliver of the surround stays at the panel's edge. */
    if (!rc) rc = cairn_grow(flooded, &surround_grown, 1);
    if (!rc) rc = vips_extract_area(surround_grown, &surround, 1, 1, bw, bh, NULL);
    if (!rc) { *surround_out = vips_image_copy_memory(surround); rc = *surround_out ? 0 : -1; }
    if (rc) goto done;
    fx = (double)w / sw; fy = (double)h / sh;
    panel->left = (int)(bl * fx);
    panel->top = (int)(bt * fy);
    int right = (int)((bl + bw) * fx + 0.5), bottom = (int)((bt + bh) * fy + 0.5);
    if (right > w || bl + bw >= sw) right = w;
    if (bottom > h || bt + bh >= sh) bottom = h;
    panel->width = right - panel->left;
    panel->height = bottom - panel->top;
    found = 1;
done:
    panel->found = found;
    g_free(row_sums);
    VipsImage *all[] = { shrunk, small, dilated, closed, hist, above, mask, tiny, tiny_blur, region, inner, outer,
                         inner_band, outer_band, eroded, grown, opened_min, opened, black_hat, top_hat, ink_dark,
                         ink_light, ink, far, far_inv, ink_outside, columns, rows, box_region, framed, framed_mem,
                         flooded, surround, surround_grown };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) if (all[i]) g_object_unref(all[i]);
    if (rc) {
        if (*surround_out) { g_object_unref(*surround_out); *surround_out = NULL; }
        return -1;
    }
    if (!found && *surround_out) { g_object_unref(*surround_out); *surround_out = NULL; }
    return 0;
}

CairnImage *cairn_ocr_crop_panel(CairnImage *gray, int left, int top, int width, int height, CairnImage *surround,
                                 double paper) {
    VipsImage *crop = NULL, *mask = NULL, *exact = NULL, *fill = NULL, *fill_uchar = NULL, *out = NULL;
    int rc = vips_extract_area(gray, &crop, left, top, width, height, NULL);
    if (!rc && surround) {
        int mw = vips_image_get_width(surround), mh = vips_image_get_height(surround);
        rc = vips_resize(surround, &mask, (double)width / mw, "vscale", (double)height / mh, "kernel", VIPS_KERNEL_NEAREST, NULL);
        /* Rounding may leave the enlarged mask a pixel off the crop's size. */
        if (!rc) rc = vips_embed(mask, &exact, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
        if (!rc) rc = vips_linear1(crop, &fill, 0.0, paper, NULL);
        if (!rc) rc = vips_cast_uchar(fill, &fill_uchar, NULL);
        if (!rc) rc = vips_ifthenelse(exact, fill_uchar, crop, &out, NULL);
    } else if (!rc) {
        out = crop; crop = NULL;
    }
    if (crop) g_object_unref(crop);
    if (mask) g_object_unref(mask);
    if (exact) g_object_unref(exact);
    if (fill) g_object_unref(fill);
    if (fill_uchar) g_object_unref(fill_uchar);
    return rc ? NULL : out;
}
