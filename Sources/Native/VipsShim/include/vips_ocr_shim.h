#ifndef CAIRN_VIPS_OCR_SHIM_H
#define CAIRN_VIPS_OCR_SHIM_H
/* Non-variadic libvips wrappers for OCR preprocessing (and the label benchmark's phone-like degradation).
 * Same conventions as vips_shim.h: NULL on failure with the reason in libvips' error buffer; results are owned
 * by the caller (cairn_image_unref). */
#include "vips_shim.h"

/* One-band 8-bit luminance of an 8-bit sRGB image. */
CairnImage *cairn_ocr_gray(CairnImage *in);
/* Resized by `scale` in both directions (bicubic when enlarging, lanczos3 when shrinking). */
CairnImage *cairn_ocr_scale(CairnImage *in, double scale);
/* Evens out uneven light on a one-band image: divides by a smooth background estimate (the image shrunk by
 * `shrink`, blurred, and enlarged back), so paper becomes white everywhere. */
CairnImage *cairn_ocr_flatten_light(CairnImage *in, int shrink);
/* Rotated by `degrees` (counter-clockwise positive, as libvips) about the centre, corners filled with
 * `background` (0-255 in every band); the canvas grows to hold the whole image. */
CairnImage *cairn_ocr_rotate(CairnImage *in, double degrees, double background);
/* Rotated by 180 degrees. */
CairnImage *cairn_ocr_rot180(CairnImage *in);
/* A one-band 8-bit image made from a copy of `width * height` gray bytes. */
CairnImage *cairn_ocr_gray_from_memory(const void *pixels, size_t len, int width, int height);
/* `in` computed into memory once (later reads do not recompute it). */
CairnImage *cairn_ocr_in_memory(CairnImage *in);
/* Gaussian blur with standard deviation `sigma` pixels. */
CairnImage *cairn_ocr_blur(CairnImage *in, double sigma);

/* Where a label's panel is in a photo of it on a bottle: the light region round the photo's densest light part,
 * found on a copy shrunk to about 250 pixels (its text taken out by a grey closing, Otsu's threshold, a flood
 * fill), when a surround clearly darker than the paper lies round it (a step of 40 grey levels or more across
 * the region's edge). */
typedef struct {
    /* 1 when a panel with a surround round it was found; the other fields describe what was measured. */
    int found;
    /* The panel's box, in pixels of the image searched. */
    int left, top, width, height;
    /* The paper's grey (the median of the light class) and Otsu's threshold between surround and paper. */
    int paper, threshold;
    /* Text lines seen outside the panel (dark on light or light on dark), which the crop leaves unread. */
    int lines_outside;
    /* The share of the image the panel's region fills, the means of the dark and light classes, and the step
     * in grey across the region's edge. */
    double share, dark_mean, bright_mean, edge_step;
} CairnPanel;

/* Fills `panel` for the one-band 8-bit `gray`. When found, `*surround` is the mask (255 = surround) of the
 * panel's box at the searched copy's scale: the part of the box outside the panel (a tilted panel's corners),
 * to be painted paper. 0 on success (found or not), -1 on a libvips error. */
int cairn_ocr_find_panel(CairnImage *gray, CairnPanel *panel, CairnImage **surround);
/* `gray` cropped to the box, the pixels under `surround` (enlarged to the box's size; NULL: none) painted
 * `paper`. */
CairnImage *cairn_ocr_crop_panel(CairnImage *gray, int left, int top, int width, int height, CairnImage *surround,
                                 double paper);

#endif
