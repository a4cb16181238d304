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

#endif
