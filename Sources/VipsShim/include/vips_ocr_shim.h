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
/* Gaussian blur with standard deviation `sigma` pixels. */
CairnImage *cairn_ocr_blur(CairnImage *in, double sigma);

#endif
