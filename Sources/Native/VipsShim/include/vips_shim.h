#ifndef CAIRN_VIPS_SHIM_H
#define CAIRN_VIPS_SHIM_H
/* Non-variadic wrappers around libvips operations (Swift cannot call variadic C).
 * VipsImage stays opaque: Swift only sees `CairnImage *` (an OpaquePointer). Every function that returns a new
 * image returns NULL on failure and leaves the reason in libvips' error buffer (read it with
 * cairn_vips_error_take). Images returned here are owned by the caller: release them with cairn_image_unref. */
#include <stddef.h>

typedef struct _VipsImage CairnImage;

/* Starts libvips once per process (later and concurrent calls wait for the first and return its result): operation
 * cache off, warnings kept off stderr, optional modules deferred (cairn_vips_load_modules). 0 on success. */
int cairn_vips_init(void);

/* The error text libvips collected since the last call (a copy to release with cairn_free; may be empty),
 * and clears it. */
char *cairn_vips_error_take(void);
/* Frees libvips' thread-private buffers: call at the end of a thread Cairn started itself that used libvips
 * (libvips' own pool threads and the main thread need no call). */
void cairn_vips_thread_shutdown(void);
/* The number of worker threads each libvips evaluation uses from now on (>= 1). */
void cairn_vips_set_concurrency(int threads);
int cairn_vips_concurrency(void);
void cairn_free(void *p);

/* Loads libvips' optional loader modules (HEIC, JPEG XL, ImageMagick, PDF, OpenSlide), which cairn_vips_init defers,
 * once per process; nothing when they were loaded at start (a VIPSHOME the user set). */
void cairn_vips_load_modules(void);

/* The loader class libvips picks for these bytes by their signature ("VipsForeignLoadJpegBuffer", ...), NULL if none.
 * Bytes no built-in loader takes are asked again after the modules are loaded. */
const char *cairn_loader_for_buffer(const void *buf, size_t len);

/* Opens an image held in memory. Reads the header only; pixels are decoded lazily by later operations.
 * The buffer must outlive the image. sequential != 0 asks for top-to-bottom access. Truncated data fails. */
CairnImage *cairn_image_new_from_buffer(const void *buf, size_t len, int sequential);
/* Reads (and drops) the first `rows` rows of an image opened for sequential access, 64 at a time, so that a later
 * request further down starts there. Asked for a rectangle far down at once, libvips' sequential reader sizes its
 * line cache to hold every row it skips (a square 4000 rows down a 99 MP photo: 107 MB). 0 on success. */
int cairn_read_rows_in_strips(CairnImage *in, int rows);
/* JPEG bytes to be decoded at 1/shrink (1, 2, 4 or 8: libjpeg's DCT scaling), otherwise as above. */
CairnImage *cairn_jpeg_new_from_buffer_shrunk(const void *buf, size_t len, int sequential, int shrink);
/* An 8-bit sRGB image made from a copy of row-major RGB bytes. */
CairnImage *cairn_image_new_from_rgb(const void *pixels, size_t len, int width, int height);
void cairn_image_unref(CairnImage *image);

int cairn_image_width(CairnImage *image);
int cairn_image_height(CairnImage *image);
int cairn_image_bands(CairnImage *image);
/* EXIF orientation 1-8 as libvips read it (1 when absent). */
int cairn_image_orientation(CairnImage *image);
/* A metadata blob by name ("exif-data", "icc-profile-data"); 0 on success. The pointer belongs to the image. */
int cairn_image_get_blob(CairnImage *image, const char *name, const void **data, size_t *len);

/* Rotates/flips upright by the orientation tag and removes the tag. */
CairnImage *cairn_autorot(CairnImage *in);
/* The rectangle of `in` (inside it); NULL when it is not. */
CairnImage *cairn_extract_area(CairnImage *in, int left, int top, int width, int height);
/* 8-bit, 3-band sRGB: imports an embedded ICC profile (or converts the colour space), flattens alpha on
 * white, casts to uchar. */
CairnImage *cairn_to_srgb8(CairnImage *in);
/* Shrink-on-load thumbnail from encoded bytes, fitting width x height, never enlarging; autorotated. */
CairnImage *cairn_thumbnail_buffer(const void *buf, size_t len, int width, int height);
/* cairn_thumbnail_buffer's steps after its shrink-on-load, on `w` x `h` 8-bit sRGB pixels (3 bytes each, rows
 * packed) already upright: the same resize to fit width x height, never enlarging (the same bytes as
 * vips_thumbnail_image, without its line cache). The pixels are read in place: they must stay until the result has
 * been computed. */
CairnImage *cairn_thumbnail_rgb(const void *pixels, size_t len, int w, int h, int width, int height);
/* Resizes to exactly width x height (the aspect ratio may change). */
CairnImage *cairn_resize_exact(CairnImage *in, int width, int height);
/* Shrinks an 8-bit image to exactly width x height (at most its own size) for a thumbnail: lanczos3 as
 * cairn_resize_exact, both directions through libvips' vertical reduce. */
CairnImage *cairn_thumbnail_shrink(CairnImage *in, int width, int height);

/* Encodes as baseline JPEG (4:2:0 for colour) with no metadata (strip). Returns 0 and a buffer to release with cairn_free. */
int cairn_jpegsave_buffer(CairnImage *in, int quality, void **buf, size_t *len);
/* Computes the pixels and returns them packed (row-major, band-interleaved); release with cairn_free. */
void *cairn_image_write_to_memory(CairnImage *in, size_t *len);
/* Computes the pixels of `in` straight into `buf` (`len` bytes: width x height x bands x the sample size), without
   the intermediate copy `cairn_image_write_to_memory` makes. 0 on success, -1 on a size mismatch or an error. */
int cairn_image_write_into(CairnImage *in, void *buf, size_t len);
/* The bytes the packed pixels of `in` take. */
size_t cairn_image_byte_count(CairnImage *in);

/* HEIF container check through libheif: the number of top-level images (>= 0), or
 * -1 when the container holds no image item (no meta/pitm/iinf/iloc/...), -2 when it is otherwise unreadable. */
int cairn_heif_top_level_image_count(const void *buf, size_t len);

/* For `cairn doctor`: the libvips version ("8.14.1"), whether a loader is present ("heifload_buffer"),
 * (the deferred modules are loaded first) and libheif's version (NULL when libheif is not installed). Call
 * cairn_vips_init first. */
const char *cairn_vips_version_string(void);
int cairn_vips_has_operation(const char *name);
const char *cairn_heif_version_string(void);

#endif
