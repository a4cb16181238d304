#ifndef CAIRN_JPEG_BANDS_H
#define CAIRN_JPEG_BANDS_H
/* A JPEG turned upright in bands, through libjpeg's own API (libjpeg-turbo 2.1, opened on first use): what
 * TurboJPEG 2.1 cannot do, since it decodes a whole picture at once. */
#include <stddef.h>

/* Re-encodes the YCbCr or greyscale JPEG `jpeg` (`size` bytes) turned upright for EXIF `orientation` (2-8) at
 * `quality`, with the same pixels and encoder settings as Imaging's planar path through TurboJPEG (decode to
 * planes at their own resolution, turn each, tjCompressFromYUVPlanes), but holding about `band_bytes` of
 * decoded samples at most: the output is made band by band (a band is a run of whole output MCU rows), and for
 * each band the source is decoded again keeping only what that band needs (jpeg_crop_scanline for the columns
 * of a quarter turn, jpeg_skip_scanlines for the rows of a flip), turned, and streamed into one encoder.
 * The source's entropy-coded data is read once per band; nothing is written anywhere but memory.
 *
 * Returns 0 with the new JPEG in `*out` (`*out_size` bytes, malloc'd: the caller frees it), its size in
 * `*out_width` x `*out_height` and the number of bands in `*bands`. Returns -1 with libjpeg's reason in
 * `reason` (at most `reason_size` bytes, NUL-terminated) on any error or warning (data cut short, a bad marker,
 * more than 500 scans), and for a JPEG this path does not take (CMYK, RGB, an unusual subsampling, 4:1:1 that
 * must make a quarter turn). */
int cairn_jpeg_turn_in_bands(const unsigned char *jpeg, size_t size, int orientation, int quality,
                             size_t band_bytes, unsigned char **out, size_t *out_size, int *out_width,
                             int *out_height, int *bands, char *reason, size_t reason_size);

/* Re-encodes the upright YCbCr or greyscale JPEG `jpeg` at `quality` into the file Imaging's planar path makes for
 * it (TurboJPEG's decode to planes, then tjCompressFromYUVPlanes: the same samples, padding and encoder settings),
 * one MCU row at a time through libjpeg's raw-data API, so no plane of the picture is ever held whole. With
 * `want_half`, also makes an RGB copy at half size (ceil(w/2) x ceil(h/2)) from the same decode: what libjpeg's own
 * decode at scale 1/2 gives (libvips' shrink-on-load by 2), except that its luma, which libjpeg makes with a 4x4
 * reduced inverse DCT, is the rounded mean of each 2 x 2 of decoded luma samples (within a level or two); the
 * chroma of a 4:2:0 photo and the colour conversion are libjpeg's own. Only when libjpeg's half-scale decode
 * needs no upsampling (4:2:0, 4:4:4); otherwise `*half` stays NULL.
 *
 * Returns 0 with the new JPEG in `*out` (`*out_size` bytes, malloc'd: the caller frees it), its size in
 * `*out_width` x `*out_height`, and the half-size copy (malloc'd, 3 bytes a pixel) in `*half` or NULL. Returns -1
 * with libjpeg's reason in `reason` on any error or warning (data cut short, a bad marker, more than 500 scans),
 * and for a JPEG this path does not take (CMYK, RGB, an unusual subsampling). */
int cairn_jpeg_rebuild_upright(const unsigned char *jpeg, size_t size, int quality, int want_half, unsigned char **out,
                               size_t *out_size, int *out_width, int *out_height, unsigned char **half,
                               int *half_width, int *half_height, char *reason, size_t reason_size);

#endif
