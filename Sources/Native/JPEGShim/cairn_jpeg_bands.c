#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include <turbojpeg.h>
#include "native_loader.h"
#include "cairn_jpeg_bands.h"
#include "cairn_orient.h"

/* libjpeg (libjpeg-turbo's libjpeg.so.62, which libvips loads too) is opened on first use, like libvips
 * (native_loader.h): each name below is the library's own function, looked up once per call site. */
#define CAIRN_JPEG_SONAME "libjpeg.so.62"
_Static_assert(JPEG_LIB_VERSION == 62, "libjpeg's ABI changed: update CAIRN_JPEG_SONAME");
#define CAIRN_JPEG(name) CAIRN_NATIVE_FUNCTION(CAIRN_JPEG_SONAME, name)
#define jpeg_std_error CAIRN_JPEG(jpeg_std_error)
#define jpeg_CreateDecompress CAIRN_JPEG(jpeg_CreateDecompress)
#define jpeg_CreateCompress CAIRN_JPEG(jpeg_CreateCompress)
#define jpeg_destroy_decompress CAIRN_JPEG(jpeg_destroy_decompress)
#define jpeg_destroy_compress CAIRN_JPEG(jpeg_destroy_compress)
#define jpeg_mem_src CAIRN_JPEG(jpeg_mem_src)
#define jpeg_read_header CAIRN_JPEG(jpeg_read_header)
#define jpeg_start_decompress CAIRN_JPEG(jpeg_start_decompress)
#define jpeg_crop_scanline CAIRN_JPEG(jpeg_crop_scanline)
#define jpeg_skip_scanlines CAIRN_JPEG(jpeg_skip_scanlines)
#define jpeg_read_scanlines CAIRN_JPEG(jpeg_read_scanlines)
#define jpeg_finish_decompress CAIRN_JPEG(jpeg_finish_decompress)
#define jpeg_abort_decompress CAIRN_JPEG(jpeg_abort_decompress)
#define jpeg_set_defaults CAIRN_JPEG(jpeg_set_defaults)
#define jpeg_set_quality CAIRN_JPEG(jpeg_set_quality)
#define jpeg_set_colorspace CAIRN_JPEG(jpeg_set_colorspace)
#define jpeg_start_compress CAIRN_JPEG(jpeg_start_compress)
#define jpeg_write_raw_data CAIRN_JPEG(jpeg_write_raw_data)
#define jpeg_finish_compress CAIRN_JPEG(jpeg_finish_compress)
#define jpeg_read_raw_data CAIRN_JPEG(jpeg_read_raw_data)
/* TurboJPEG (the same libjpeg-turbo) converts the half-size copy's planes to RGB, as libjpeg's decoder does. */
#define CAIRN_TURBOJPEG_SONAME "libturbojpeg.so.0"
#define tjInitDecompress CAIRN_NATIVE_FUNCTION(CAIRN_TURBOJPEG_SONAME, tjInitDecompress)
#define tjDecodeYUVPlanes CAIRN_NATIVE_FUNCTION(CAIRN_TURBOJPEG_SONAME, tjDecodeYUVPlanes)
#define tjDestroy CAIRN_NATIVE_FUNCTION(CAIRN_TURBOJPEG_SONAME, tjDestroy)

/* Scanlines asked of the decoder at a time. */
#define LINES 16
/* The most rows of one component in an output MCU row (a vertical factor of 4, times a block). */
#define MAX_MCU_ROWS (4 * DCTSIZE)
/* Rows of the half-size copy converted to RGB at a time. */
#define HALF_ROWS 64

/* Errors and warnings end the turn (as TurboJPEG's TJFLAG_STOPONWARNING), with libjpeg's text. */
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *reason;
    size_t reason_size;
} band_error;

static void say(band_error *error, const char *text) {
    if (error->reason && error->reason_size > 0) snprintf(error->reason, error->reason_size, "%s", text);
}

static void stop_on_error(j_common_ptr cinfo) {
    band_error *error = (band_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    say(error, text);
    longjmp(error->jump, 1);
}

static void stop_on_warning(j_common_ptr cinfo, int level) {
    if (level < 0) stop_on_error(cinfo);
}

/* TJFLAG_LIMITSCANS: a progressive JPEG of more than 500 scans is refused (a scan bomb). */
static void limit_scans(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > 500) {
        band_error *error = (band_error *)cinfo->err;
        say(error, "Progressive JPEG image has more than 500 scans");
        longjmp(error->jump, 1);
    }
}

/* The encoder's output: one malloc'd buffer grown by half again when full (realloc moves a large block with
 * mremap, so growing does not hold two copies). */
typedef struct {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity;
} growing_destination;

static void destination_start(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean destination_grow(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    size_t used = dest->capacity, capacity = used + used / 2 + 65536;
    unsigned char *grown = realloc(dest->buffer, capacity);
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
    dest->buffer = grown;
    dest->capacity = capacity;
    dest->pub.next_output_byte = grown + used;
    dest->pub.free_in_buffer = capacity - used;
    return TRUE;
}

static void destination_end(j_compress_ptr cinfo) { (void)cinfo; }

/* Everything the turn allocates, on the heap so that it is still known after libjpeg's longjmp. */
typedef struct {
    struct jpeg_decompress_struct decoder;
    struct jpeg_compress_struct encoder;
    band_error error;
    struct jpeg_progress_mgr progress;
    growing_destination destination;
    int decoder_made, encoder_made;
    unsigned char *band;  /* the band's source samples, component after component */
    unsigned char *lines; /* decoded scanlines */
    unsigned char *mcu;   /* one output MCU row, component after component */
    unsigned char *strip; /* one decoded MCU row of raw samples, component after component (the rebuild) */
    unsigned char *halves; /* rows of the half-size copy's planes not yet converted to RGB */
    unsigned char *rgb;   /* the half-size copy */
    tjhandle converter;
    size_t written;
    int width, height, bands;
} work;

/* The picture's geometry, per component: `sx`/`sy` its subsampling against the largest factors; `sw` x `sh`
 * its samples in the source (TurboJPEG's plane sizes without their padding); `len` its rows in the output
 * (source columns for a quarter turn, source rows otherwise) and `cross` its output columns; `th` and `iw`
 * its rows in an output MCU row and the encoder's padded row width. A band covers output rows `s0`..`s1` of
 * each component, written as source positions along the same axis. */
typedef struct {
    int components, orientation, transposing, forward, width, height;
    int sx[3], sy[3], sw[3], sh[3], len[3], cross[3], th[3], iw[3];
    size_t offset[3];
} geometry;

static int refuse(work *w, const char *why) {
    say(&w->error, why);
    return -1;
}

static void start_decoding(work *w, const unsigned char *jpeg, size_t size) {
    jpeg_mem_src(&w->decoder, jpeg, (unsigned long)size);
    jpeg_read_header(&w->decoder, TRUE);
    /* No colour conversion, and chroma repeated rather than interpolated: every source sample is read back
     * exactly as libjpeg's inverse DCT made it, which is what TurboJPEG's decode to planes returns. */
    w->decoder.out_color_space = w->decoder.jpeg_color_space;
    w->decoder.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&w->decoder);
}

/* Decodes the source again and keeps the band's samples (s0..s1 of each component along the output's row axis). */
static void decode_band(work *w, const geometry *g, const int *s0, const int *s1, const unsigned char *jpeg,
                        size_t size) {
    struct jpeg_decompress_struct *d = &w->decoder;
    int nc = g->components, lo = INT_MAX, hi = 0;
    for (int i = 0; i < nc; i++) {
        int step = g->transposing ? g->sx[i] : g->sy[i];
        if (s0[i] * step < lo) lo = s0[i] * step;
        if ((s1[i] - 1) * step + 1 > hi) hi = (s1[i] - 1) * step + 1;
    }
    start_decoding(w, jpeg, size);
    JDIMENSION xoffset = 0;
    if (g->transposing) {
        /* A quarter turn's band is a run of source columns: only their blocks go through the inverse DCT. */
        JDIMENSION left = (JDIMENSION)lo, width = (JDIMENSION)(hi - lo);
        jpeg_crop_scanline(d, &left, &width);
        xoffset = left;
    } else if (lo > 0) {
        /* A flip's band is a run of source rows: the rows above it are entropy-decoded only. */
        jpeg_skip_scanlines(d, (JDIMENSION)lo);
    }
    size_t stride = (size_t)d->output_width * (size_t)d->output_components;
    JSAMPROW rows[LINES];
    for (int j = 0; j < LINES; j++) rows[j] = w->lines + (size_t)j * stride;
    JDIMENSION last = g->transposing ? d->output_height : (JDIMENSION)hi;
    while (d->output_scanline < last) {
        int first = (int)d->output_scanline;
        JDIMENSION want = last - d->output_scanline < LINES ? last - d->output_scanline : LINES;
        int got = (int)jpeg_read_scanlines(d, rows, want);
        for (int j = 0; j < got; j++) {
            int r = first + j;
            const unsigned char *line = rows[j];
            for (int i = 0; i < nc; i++) {
                if (r % g->sy[i] != 0) continue;
                int row = r / g->sy[i], n = s1[i] - s0[i];
                unsigned char *dst;
                const unsigned char *src;
                size_t step = (size_t)g->sx[i] * (size_t)nc;
                if (g->transposing) {
                    dst = w->band + g->offset[i] + (size_t)row * (size_t)n;
                    src = line + ((size_t)s0[i] * (size_t)g->sx[i] - xoffset) * (size_t)nc + (size_t)i;
                } else {
                    if (row < s0[i] || row >= s1[i]) continue;
                    n = g->sw[i];
                    dst = w->band + g->offset[i] + (size_t)(row - s0[i]) * (size_t)n;
                    src = line + (size_t)i;
                }
                if (step == 1) {
                    memcpy(dst, src, (size_t)n);
                } else {
                    for (int q = 0; q < n; q++) dst[q] = src[(size_t)q * step];
                }
            }
        }
    }
    /* A band that read the whole picture also reads what follows it (as TurboJPEG does): trailing damage
     * raises a warning, which ends the turn. */
    if (d->output_scanline == d->output_height) jpeg_finish_decompress(d);
    else jpeg_abort_decompress(d);
}

/* Turns output MCU rows k0..k1 out of the band and hands them to the encoder. */
static int encode_band(work *w, const geometry *g, const int *s0, const int *s1, int k0, int k1) {
    struct jpeg_compress_struct *c = &w->encoder;
    int nc = g->components;
    JSAMPROW rows[3][MAX_MCU_ROWS];
    JSAMPARRAY planes[3];
    size_t at = 0;
    for (int i = 0; i < nc; i++) {
        for (int j = 0; j < g->th[i]; j++) rows[i][j] = w->mcu + at + (size_t)j * (size_t)g->iw[i];
        planes[i] = rows[i];
        at += (size_t)g->th[i] * (size_t)g->iw[i];
    }
    for (int k = k0; k < k1; k++) {
        for (int i = 0; i < nc; i++) {
            int a = k * g->th[i], e = a + g->th[i] < g->len[i] ? a + g->th[i] : g->len[i];
            /* Source positions of output rows a..e, in the band. */
            int first = (g->forward ? a : g->len[i] - e) - s0[i];
            const unsigned char *band = w->band + g->offset[i];
            int rc;
            if (g->transposing) {
                rc = cairn_orient_plane(band + first, e - a, g->sh[i], s1[i] - s0[i], 1, g->orientation,
                                        rows[i][0], g->iw[i], g->iw[i], g->th[i]);
            } else {
                rc = cairn_orient_plane(band + (size_t)first * (size_t)g->sw[i], g->sw[i], e - a, g->sw[i], 1,
                                        g->orientation, rows[i][0], g->iw[i], g->iw[i], g->th[i]);
            }
            if (rc != 0) return refuse(w, "plane sizes do not match after turning");
        }
        jpeg_write_raw_data(c, planes, (JDIMENSION)(c->max_v_samp_factor * DCTSIZE));
    }
    return 0;
}

/* A work with nothing made yet, or NULL (with the reason) when out of memory. */
static work *new_work(char *reason, size_t reason_size) {
    work *w = calloc(1, sizeof *w);
    if (!w) {
        if (reason && reason_size > 0) snprintf(reason, reason_size, "out of memory");
        return NULL;
    }
    w->error.reason = reason;
    w->error.reason_size = reason_size;
    return w;
}

/* Destroys what libjpeg made and frees everything the work holds. */
static void end_work(work *w) {
    if (w->decoder_made) jpeg_destroy_decompress(&w->decoder);
    if (w->encoder_made) jpeg_destroy_compress(&w->encoder);
    free(w->destination.buffer);
    free(w->band);
    free(w->lines);
    free(w->mcu);
    free(w->strip);
    free(w->halves);
    free(w->rgb);
    if (w->converter) tjDestroy(w->converter);
    free(w);
}

/* libjpeg's decoder and encoder made, errors and warnings ending the work (`w->error.jump`), scan bombs refused. */
static void start_work(work *w) {
    struct jpeg_decompress_struct *d = &w->decoder;
    struct jpeg_compress_struct *c = &w->encoder;
    d->err = jpeg_std_error(&w->error.pub);
    w->error.pub.error_exit = stop_on_error;
    w->error.pub.emit_message = stop_on_warning;
    c->err = &w->error.pub;
    jpeg_create_decompress(d);
    w->decoder_made = 1;
    w->progress.progress_monitor = limit_scans;
    d->progress = &w->progress;
    jpeg_create_compress(c);
    w->encoder_made = 1;
}

/* Starts the work (`start_work`), reads the header of `jpeg` and fills the subsampling of `g` (cleared first: `sx`,
 * `sy`, `components`); `csx` x `csy` is the chroma's (1 x 1 for grey). Refuses what TurboJPEG's planar path does
 * not take. */
static int read_sampling(work *w, const unsigned char *jpeg, size_t size, geometry *g, int *csx, int *csy) {
    struct jpeg_decompress_struct *d = &w->decoder;
    start_work(w);
    memset(g, 0, sizeof *g);
    jpeg_mem_src(d, jpeg, (unsigned long)size);
    jpeg_read_header(d, TRUE);
    int nc = d->num_components;
    if (!((d->jpeg_color_space == JCS_YCbCr && nc == 3) || (d->jpeg_color_space == JCS_GRAYSCALE && nc == 1)))
        return refuse(w, "not a YCbCr or greyscale JPEG");
    for (int i = 0; i < nc; i++) {
        int h = d->comp_info[i].h_samp_factor, v = d->comp_info[i].v_samp_factor;
        if (h <= 0 || v <= 0 || d->max_h_samp_factor % h != 0 || d->max_v_samp_factor % v != 0)
            return refuse(w, "an unusual subsampling");
        g->sx[i] = d->max_h_samp_factor / h;
        g->sy[i] = d->max_v_samp_factor / v;
    }
    *csx = nc == 3 ? g->sx[1] : 1;
    *csy = nc == 3 ? g->sy[1] : 1;
    int known = (*csx == 1 && *csy == 1) || (*csx == 2 && *csy == 1) || (*csx == 2 && *csy == 2) ||
                (*csx == 1 && *csy == 2) || (*csx == 4 && *csy == 1);
    if (g->sx[0] != 1 || g->sy[0] != 1 || (nc == 3 && (g->sx[2] != *csx || g->sy[2] != *csy)) || !known)
        return refuse(w, "an unusual subsampling");
    g->components = nc;
    return 0;
}

/* The encoder, set up as TurboJPEG 2.1's tjCompressFromYUVPlanes does (setCompDefaults): the same tables, DCT,
 * colour space and sampling factors (`h` x `v` for luma, 1 x 1 for chroma), so the file is the one the planar path
 * makes; raw planes in, output into a buffer of `capacity` bytes that grows. */
static int start_encoder(work *w, int components, int width, int height, int h, int v, int quality, size_t capacity) {
    struct jpeg_compress_struct *c = &w->encoder;
    c->image_width = (JDIMENSION)width;
    c->image_height = (JDIMENSION)height;
    c->in_color_space = JCS_RGB;
    c->input_components = 3;
    jpeg_set_defaults(c);
    jpeg_set_quality(c, quality, TRUE);
    c->dct_method = quality >= 96 ? JDCT_ISLOW : JDCT_FASTEST;
    jpeg_set_colorspace(c, components == 1 ? JCS_GRAYSCALE : JCS_YCbCr);
    c->comp_info[0].h_samp_factor = h;
    c->comp_info[0].v_samp_factor = v;
    for (int i = 1; i < 3; i++) c->comp_info[i].h_samp_factor = c->comp_info[i].v_samp_factor = 1;
    c->raw_data_in = TRUE;
    w->destination.capacity = capacity > 65536 ? capacity : 65536;
    w->destination.buffer = malloc(w->destination.capacity);
    if (!w->destination.buffer) return refuse(w, "out of memory");
    w->destination.pub.init_destination = destination_start;
    w->destination.pub.empty_output_buffer = destination_grow;
    w->destination.pub.term_destination = destination_end;
    c->dest = &w->destination.pub;
    jpeg_start_compress(c, TRUE);
    return 0;
}

static int turn(work *w, const unsigned char *jpeg, size_t size, int orientation, int quality, size_t band_bytes) {
    struct jpeg_decompress_struct *d = &w->decoder;
    struct jpeg_compress_struct *c = &w->encoder;
    /* The source's geometry. */
    geometry g;
    int csx, csy;
    if (read_sampling(w, jpeg, size, &g, &csx, &csy) != 0) return -1;
    int nc = g.components;
    g.orientation = orientation;
    g.transposing = orientation >= 5;
    /* Output row y is source row (or column) y for these; the last one backwards for the others. */
    g.forward = orientation == 2 || orientation == 5 || orientation == 6;
    if (g.transposing && csx == 4) return refuse(w, "4:1:1 cannot make a quarter turn");
    int width = (int)d->image_width, height = (int)d->image_height;
    g.width = g.transposing ? height : width;
    g.height = g.transposing ? width : height;
    for (int i = 0; i < nc; i++) {
        g.sw[i] = (width + g.sx[i] - 1) / g.sx[i];
        g.sh[i] = (height + g.sy[i] - 1) / g.sy[i];
        g.len[i] = g.transposing ? g.sw[i] : g.sh[i];
        g.cross[i] = g.transposing ? g.sh[i] : g.sw[i];
    }
    jpeg_abort_decompress(d);

    if (start_encoder(w, nc, g.width, g.height, g.transposing ? csy : csx, g.transposing ? csx : csy, quality,
                      size) != 0) return -1;

    size_t mcu_bytes = 0, row_bytes = 0;
    for (int i = 0; i < nc; i++) {
        g.th[i] = c->comp_info[i].v_samp_factor * DCTSIZE;
        g.iw[i] = (int)c->comp_info[i].width_in_blocks * DCTSIZE;
        if (g.th[i] > MAX_MCU_ROWS || g.iw[i] < g.cross[i]) return refuse(w, "unexpected encoder geometry");
        mcu_bytes += (size_t)g.th[i] * (size_t)g.iw[i];
        row_bytes += (size_t)g.th[i] * (size_t)g.cross[i];
    }
    int rows_per_mcu = c->max_v_samp_factor * DCTSIZE;
    int mcu_rows = (g.height + rows_per_mcu - 1) / rows_per_mcu;

    /* Bands of whole MCU rows, as few as `band_bytes` allows, of even size. */
    size_t most = band_bytes / row_bytes;
    if (most < 1) most = 1;
    int bands = (int)(((size_t)mcu_rows + most - 1) / most);
    int per_band = (mcu_rows + bands - 1) / bands;
    size_t band_size = 0;
    for (int i = 0; i < nc; i++) {
        int rows = per_band * g.th[i] < g.len[i] ? per_band * g.th[i] : g.len[i];
        g.offset[i] = band_size;
        band_size += (size_t)rows * (size_t)g.cross[i];
    }
    w->band = malloc(band_size);
    w->lines = malloc((size_t)LINES * (size_t)width * (size_t)nc);
    w->mcu = malloc(mcu_bytes);
    if (!w->band || !w->lines || !w->mcu) return refuse(w, "out of memory");

    for (int b = 0; b < bands; b++) {
        int k0 = b * per_band, k1 = k0 + per_band < mcu_rows ? k0 + per_band : mcu_rows;
        if (k0 >= k1) break;
        int s0[3] = { 0 }, s1[3] = { 0 };
        for (int i = 0; i < nc; i++) {
            int a = k0 * g.th[i], e = k1 * g.th[i] < g.len[i] ? k1 * g.th[i] : g.len[i];
            s0[i] = g.forward ? a : g.len[i] - e;
            s1[i] = g.forward ? e : g.len[i] - a;
        }
        decode_band(w, &g, s0, s1, jpeg, size);
        if (encode_band(w, &g, s0, s1, k0, k1) != 0) return -1;
    }
    jpeg_finish_compress(c);
    w->written = w->destination.capacity - w->destination.pub.free_in_buffer;
    w->width = g.width;
    w->height = g.height;
    w->bands = bands;
    return 0;
}

/* A block of `size` bytes from the heap rather than from a mapping of its own, for the half-size copy. glibc maps every
 * block above its mmap threshold (128 KiB at first) and unmaps it when it is freed, so the analysis copy, the
 * thumbnail, the comparison and the photo store's read-back, all made after the copy is freed, faulted in fresh pages
 * (2.1k of a 12 MP skin log's 10.9k page faults, about 3 ms). When a mapped block is freed, glibc raises the threshold
 * to its size (mallopt(3): the dynamic mmap threshold, up to 32 MiB), as it does anyway once the copy itself is freed:
 * a slightly larger block mapped and freed first (never touched, so no page is faulted in) raises it before the copy
 * is made, and the copy's pages stay in the heap for what follows. */
static unsigned char *heap_block(size_t size) {
    void *volatile raise = malloc(size + 65536);
    free(raise);
    return malloc(size);
}

/* The half-size copy's samples of one decoded MCU row: `rows` rows from `first` on, of each component (`box` 2: the
 * mean of each 2 x 2 of samples, rounded; 1: the samples as they are), then converted to RGB whenever HALF_ROWS
 * rows are ready or the picture ends. */
static int halve_strip(work *w, JSAMPARRAY *strip, const int *box, int nc, int hw, int hh, int first, int rows) {
    for (int r = 0; r < rows && first + r < hh; r++) {
        int y = first + r, at = y % HALF_ROWS;
        for (int i = 0; i < nc; i++) {
            unsigned char *dst = w->halves + ((size_t)i * HALF_ROWS + (size_t)at) * (size_t)hw;
            if (box[i] == 1) {
                memcpy(dst, strip[i][r], (size_t)hw);
            } else {
                const unsigned char *a = strip[i][2 * r], *b = strip[i][2 * r + 1];
                for (int x = 0; x < hw; x++) dst[x] = (unsigned char)((a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1] + 2) >> 2);
            }
        }
        if (at == HALF_ROWS - 1 || y == hh - 1) {
            int top = y - at, count = at + 1, strides[3] = { hw, hw, hw };
            const unsigned char *planes[3];
            for (int i = 0; i < 3; i++) planes[i] = w->halves + (size_t)i * HALF_ROWS * (size_t)hw;
            if (tjDecodeYUVPlanes(w->converter, planes, strides, TJSAMP_444, w->rgb + (size_t)top * (size_t)hw * 3, hw,
                                  0, count, TJPF_RGB, 0) != 0) return refuse(w, "the half-size copy could not be converted");
        }
    }
    return 0;
}

static int rebuild(work *w, const unsigned char *jpeg, size_t size, int quality, int want_half) {
    struct jpeg_decompress_struct *d = &w->decoder;
    struct jpeg_compress_struct *c = &w->encoder;
    geometry g;
    int csx, csy;
    if (read_sampling(w, jpeg, size, &g, &csx, &csy) != 0) return -1;
    int nc = g.components, width = (int)d->image_width, height = (int)d->image_height;
    /* Raw samples as the inverse DCT makes them, as TurboJPEG's decode to planes reads them. */
    d->raw_data_out = TRUE;
    d->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(d);
    if (start_encoder(w, nc, width, height, csx, csy, quality, size) != 0) return -1;

    /* Per component: the decoder's rows per MCU row and padded row width; TurboJPEG's plane (luma padded to whole
     * chroma samples, as tjPlaneWidth/tjPlaneHeight), which its encoder pads out to whole blocks by repeating the
     * last column and row; the encoder's rows per MCU row (a decoded MCU row holds `k` of them) and padded width. */
    int dth[3], diw[3], pw[3], ph[3], k = 0;
    int lw = (width + csx - 1) / csx * csx, lh = (height + csy - 1) / csy * csy;
    size_t strip_bytes = 0, mcu_bytes = 0;
    for (int i = 0; i < nc; i++) {
        dth[i] = d->comp_info[i].v_samp_factor * DCTSIZE;
        diw[i] = (int)d->comp_info[i].width_in_blocks * DCTSIZE;
        pw[i] = i == 0 ? lw : lw / csx;
        ph[i] = i == 0 ? lh : lh / csy;
        g.th[i] = c->comp_info[i].v_samp_factor * DCTSIZE;
        g.iw[i] = (int)c->comp_info[i].width_in_blocks * DCTSIZE;
        if (dth[i] > MAX_MCU_ROWS || dth[i] % g.th[i] != 0 || (i > 0 && dth[i] / g.th[i] != k) || pw[i] > diw[i] ||
            pw[i] > g.iw[i]) return refuse(w, "unexpected decoder geometry");
        k = dth[i] / g.th[i];
        strip_bytes += (size_t)dth[i] * (size_t)diw[i];
        mcu_bytes += (size_t)g.th[i] * (size_t)g.iw[i];
    }

    /* The half-size copy, when libjpeg's decode at half size needs no upsampling: each component is then made at
     * half size either by the full inverse DCT (4:2:0 chroma: the decoded samples themselves) or by the 4x4 reduced
     * one (luma), for which the mean of each 2 x 2 of decoded samples stands in. */
    int box[3] = { 0 }, hw = (width + 1) / 2, hh = (height + 1) / 2, half = want_half && nc == 3;
    for (int i = 0; i < nc && half; i++) {
        int h = d->comp_info[i].h_samp_factor, v = d->comp_info[i].v_samp_factor, ssize = DCTSIZE / 2;
        /* libjpeg-turbo's choice of inverse DCT size at half scale (jdmaster.c, jpeg_calc_output_dimensions). */
        while (ssize < DCTSIZE && (d->max_h_samp_factor * (DCTSIZE / 2)) % (h * ssize * 2) == 0 &&
               (d->max_v_samp_factor * (DCTSIZE / 2)) % (v * ssize * 2) == 0) ssize *= 2;
        box[i] = DCTSIZE / ssize;
        if (h * ssize != d->max_h_samp_factor * (DCTSIZE / 2) || v * ssize != d->max_v_samp_factor * (DCTSIZE / 2) ||
            dth[i] / box[i] != dth[0] / box[0]) half = 0;
    }

    w->strip = malloc(strip_bytes);
    w->mcu = malloc(mcu_bytes);
    if (!w->strip || !w->mcu) return refuse(w, "out of memory");
    if (half) {
        w->halves = malloc((size_t)3 * HALF_ROWS * (size_t)hw);
        w->rgb = heap_block((size_t)hw * (size_t)hh * 3);
        w->converter = tjInitDecompress();
        if (!w->halves || !w->rgb || !w->converter) return refuse(w, "out of memory");
    }
    JSAMPROW strip_rows[3][MAX_MCU_ROWS], mcu_rows[3][MAX_MCU_ROWS];
    JSAMPARRAY strip[3], planes[3];
    size_t at = 0, mcu_at = 0;
    for (int i = 0; i < nc; i++) {
        for (int j = 0; j < dth[i]; j++) strip_rows[i][j] = w->strip + at + (size_t)j * (size_t)diw[i];
        for (int j = 0; j < g.th[i]; j++) mcu_rows[i][j] = w->mcu + mcu_at + (size_t)j * (size_t)g.iw[i];
        strip[i] = strip_rows[i];
        planes[i] = mcu_rows[i];
        at += (size_t)dth[i] * (size_t)diw[i];
        mcu_at += (size_t)g.th[i] * (size_t)g.iw[i];
    }
    int rows_per_mcu = c->max_v_samp_factor * DCTSIZE;
    int total = (height + rows_per_mcu - 1) / rows_per_mcu, m = 0;
    for (int s = 0; d->output_scanline < d->output_height; s++) {
        jpeg_read_raw_data(d, strip, (JDIMENSION)(d->max_v_samp_factor * DCTSIZE));
        for (int j = 0; j < k && m < total; j++, m++) {
            for (int i = 0; i < nc; i++) {
                int crow = m * g.th[i], rows = ph[i] - crow < g.th[i] ? ph[i] - crow : g.th[i];
                if (rows <= 0 || cairn_orient_plane(strip[i][j * g.th[i]], pw[i], rows, diw[i], 1, 1, planes[i][0],
                                                    g.iw[i], g.iw[i], g.th[i]) != 0)
                    return refuse(w, "unexpected decoder geometry");
            }
            jpeg_write_raw_data(c, planes, (JDIMENSION)rows_per_mcu);
        }
        if (half && halve_strip(w, strip, box, nc, hw, hh, s * (dth[0] / box[0]), dth[0] / box[0]) != 0) return -1;
    }
    if (m != total) return refuse(w, "unexpected decoder geometry");
    /* What follows the picture is read too (as TurboJPEG does): trailing damage raises a warning, which ends it. */
    jpeg_finish_decompress(d);
    jpeg_finish_compress(c);
    w->written = w->destination.capacity - w->destination.pub.free_in_buffer;
    w->width = width;
    w->height = height;
    return half ? 1 : 0;
}

int cairn_jpeg_turn_in_bands(const unsigned char *jpeg, size_t size, int orientation, int quality,
                             size_t band_bytes, unsigned char **out, size_t *out_size, int *out_width,
                             int *out_height, int *bands, char *reason, size_t reason_size) {
    if (reason && reason_size > 0) reason[0] = 0;
    if (!jpeg || size == 0 || orientation < 2 || orientation > 8 || quality < 1 || quality > 100 || !out ||
        !out_size || !out_width || !out_height || !bands) {
        if (reason && reason_size > 0) snprintf(reason, reason_size, "invalid argument");
        return -1;
    }
    *out = NULL;
    *out_size = 0;
    work *w = new_work(reason, reason_size);
    if (!w) return -1;
    int rc = -1;
    if (setjmp(w->error.jump) == 0) rc = turn(w, jpeg, size, orientation, quality, band_bytes);
    if (rc == 0) {
        *out = w->destination.buffer;
        *out_size = w->written;
        *out_width = w->width;
        *out_height = w->height;
        *bands = w->bands;
        w->destination.buffer = NULL;
    }
    end_work(w);
    return rc;
}

int cairn_jpeg_rebuild_upright(const unsigned char *jpeg, size_t size, int quality, int want_half, unsigned char **out,
                               size_t *out_size, int *out_width, int *out_height, unsigned char **half,
                               int *half_width, int *half_height, char *reason, size_t reason_size) {
    if (reason && reason_size > 0) reason[0] = 0;
    if (!jpeg || size == 0 || quality < 1 || quality > 100 || !out || !out_size || !out_width || !out_height ||
        (want_half && (!half || !half_width || !half_height))) {
        if (reason && reason_size > 0) snprintf(reason, reason_size, "invalid argument");
        return -1;
    }
    *out = NULL;
    *out_size = 0;
    if (half) *half = NULL;
    work *w = new_work(reason, reason_size);
    if (!w) return -1;
    int rc = -1;
    if (setjmp(w->error.jump) == 0) rc = rebuild(w, jpeg, size, quality, want_half);
    if (rc >= 0) {
        *out = w->destination.buffer;
        *out_size = w->written;
        *out_width = w->width;
        *out_height = w->height;
        w->destination.buffer = NULL;
        if (rc == 1) {
            *half = w->rgb;
            *half_width = (w->width + 1) / 2;
            *half_height = (w->height + 1) / 2;
            w->rgb = NULL;
        }
        rc = 0;
    }
    end_work(w);
    return rc;
}
