#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>
#include <libheif/heif.h>
#include "vips_shim.h"
#include "vips_lazy.h"

static void cairn_quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/* libvips' optional loaders (HEIC, JPEG XL, ImageMagick, PDF, OpenSlide) are modules that vips_init loads from
 * its libdir, with their own dependencies: half of libvips' start-up (about 30 ms of CPU), paid by every command
 * that touches a JPEG. Cairn reads JPEG, PNG and WebP with libvips' built-in loaders, so the modules are loaded
 * when a file is not one of those (`cairn_loader_for_buffer`) or when asked what libvips can read. */
static char modules_dir[4096];
static int modules_deferred;
static pthread_once_t modules_once = PTHREAD_ONCE_INIT;

/* The directory vips_init would load modules from: vips-modules-MAJOR.MINOR beside libvips itself. */
static int find_modules_dir(void) {
    Dl_info info;
    if (!dladdr((void *)&vips_init, &info) || !info.dli_fname) return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return -1;
    int n = snprintf(modules_dir, sizeof modules_dir, "%.*s/vips-modules-%d.%d", (int)(slash - info.dli_fname),
                     info.dli_fname, vips_version(0), vips_version(1));
    return n > 0 && n < (int)sizeof modules_dir ? 0 : -1;
}

/* What vips_init does with the modules it finds (each opened once, lazily bound; a module that fails to load is
 * skipped, as libvips skips it). */
static void load_modules(void) {
    GDir *dir = g_dir_open(modules_dir, 0, NULL);
    if (!dir) return;
    const char *name;
    while ((name = g_dir_read_name(dir))) {
        size_t length = strlen(name);
        if (length < 4 || strcmp(name + length - 3, ".so") != 0) continue;
        char path[sizeof modules_dir + 256];
        if (snprintf(path, sizeof path, "%s/%s", modules_dir, name) >= (int)sizeof path) continue;
        g_module_open(path, G_MODULE_BIND_LAZY);
    }
    g_dir_close(dir);
}

void cairn_vips_load_modules(void) {
    if (modules_deferred) pthread_once(&modules_once, load_modules);
}

static int start_result = -1;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void start_vips(void) {
    /* libvips is opened here, on first use (vips_lazy.h); without it, libvips "failed to start". */
    if (!cairn_native_available(CAIRN_VIPS_SONAME)) return;
    /* vips_init loads modules from $VIPSHOME/lib/vips-modules-M.m and, when VIPSHOME is unset, sets it to its
     * install prefix itself (g_setenv). Cairn sets it first to the modules' own directory, under which vips_init
     * finds no lib/ (a path only whoever can replace the modules can create), loads them later when needed, and
     * unsets it again once libvips has started, so a process Cairn starts (a test's or a benchmark's `vips`)
     * finds its modules. A VIPSHOME the user set is left alone (modules load at start then, as before). */
    if (!getenv("VIPSHOME") && find_modules_dir() == 0 && setenv("VIPSHOME", modules_dir, 0) == 0) modules_deferred = 1;
    int failed = VIPS_INIT("cairn");
    if (modules_deferred) unsetenv("VIPSHOME");
    if (failed) return;
    /* Cairn opens each photo once: the operation cache would only hold pixels and input buffers alive. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    /* Loader warnings (e.g. "premature end of JPEG file") would go to stderr; failures still arrive as errors. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, cairn_quiet_log, NULL);
    start_result = 0;
}

/* Once per process: a second caller (doctor's status check beside a photo being read) waits for the first to
 * finish instead of finding libvips half started (vips_init returns at once while another thread is in it). */
int cairn_vips_init(void) {
    pthread_once(&start_once, start_vips);
    return start_result;
}

char *cairn_vips_error_take(void) { return vips_error_buffer_copy(); }
void cairn_vips_thread_shutdown(void) { vips_thread_shutdown(); }
void cairn_vips_set_concurrency(int threads) { vips_concurrency_set(threads > 0 ? threads : 1); }
int cairn_vips_concurrency(void) { return vips_concurrency_get(); }
void cairn_free(void *p) { g_free(p); }

const char *cairn_loader_for_buffer(const void *buf, size_t len) {
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader || !modules_deferred) return loader;
    /* Not JPEG, PNG or WebP (or damaged): ask again with every loader libvips has. */
    vips_error_clear();
    cairn_vips_load_modules();
    return vips_foreign_find_load_buffer(buf, len);
}

/* "memory": a photo opened for reading at random is decoded into memory, never into a temporary file. Without
 * it libvips decodes any image of more than 100 MB of pixels (about 33 MP) to an unlinked file in /tmp, mode 0644:
 * the photo's pixels would reach the disk outside the vault. Not for sequential reads: "memory" makes libvips
 * decode the whole image first even then (8.14), where a sequential read streams and needs no temporary image. */
CairnImage *cairn_image_new_from_buffer(const void *buf, size_t len, int sequential) {
    return vips_image_new_from_buffer(buf, len, "",
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", VIPS_FAIL_ON_TRUNCATED,
        "memory", !sequential,
        NULL);
}

CairnImage *cairn_jpeg_new_from_buffer_shrunk(const void *buf, size_t len, int sequential, int shrink) {
    return vips_image_new_from_buffer(buf, len, "",
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", VIPS_FAIL_ON_TRUNCATED,
        "shrink", shrink,
        "memory", !sequential,
        NULL);
}

int cairn_read_rows_in_strips(CairnImage *in, int rows) {
    VipsRegion *region = vips_region_new(in);
    if (!region) return -1;
    const int strip = 64;
    for (int top = 0; top < rows; top += strip) {
        VipsRect rect = { 0, top, vips_image_get_width(in), VIPS_MIN(strip, rows - top) };
        if (vips_region_prepare(region, &rect)) { g_object_unref(region); return -1; }
    }
    g_object_unref(region);
    return 0;
}

CairnImage *cairn_image_new_from_rgb(const void *pixels, size_t len, int width, int height) {
    VipsImage *raw = vips_image_new_from_memory_copy(pixels, len, width, height, 3, VIPS_FORMAT_UCHAR);
    if (!raw) return NULL;
    VipsImage *out = NULL;
    int rc = vips_copy(raw, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(raw);
    return rc ? NULL : out;
}

void cairn_image_unref(CairnImage *image) { if (image) g_object_unref(image); }

int cairn_image_width(CairnImage *image) { return vips_image_get_width(image); }
int cairn_image_height(CairnImage *image) { return vips_image_get_height(image); }
int cairn_image_bands(CairnImage *image) { return vips_image_get_bands(image); }
int cairn_image_orientation(CairnImage *image) { return vips_image_get_orientation(image); }

int cairn_image_get_blob(CairnImage *image, const char *name, const void **data, size_t *len) {
    if (vips_image_get_typeof(image, name) == 0) return -1;
    return vips_image_get_blob(image, name, data, len);
}

CairnImage *cairn_autorot(CairnImage *in) {
    VipsImage *out = NULL;
    return vips_autorot(in, &out, NULL) ? NULL : out;
}

CairnImage *cairn_extract_area(CairnImage *in, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    return vips_extract_area(in, &out, left, top, width, height, NULL) ? NULL : out;
}

CairnImage *cairn_to_srgb8(CairnImage *in) {
    VipsImage *cur = in;
    g_object_ref(cur);
    VipsImage *next = NULL;

    if (vips_image_get_typeof(cur, VIPS_META_ICC_NAME)) {
        /* Convert from the embedded profile to sRGB so colours survive the profile being stripped. */
        if (vips_icc_transform(cur, &next, "srgb", "embedded", TRUE,
                               "intent", VIPS_INTENT_PERCEPTUAL, "depth", 8, NULL)) {
            vips_error_clear();
            next = NULL; /* an unusable profile: fall back to the plain colour-space conversion below */
        } else {
            g_object_unref(cur); cur = next; next = NULL;
        }
    }
    if (vips_image_get_interpretation(cur) != VIPS_INTERPRETATION_sRGB ||
        (vips_image_get_bands(cur) != 3 && vips_image_get_bands(cur) != 4)) {
        if (vips_colourspace(cur, &next, VIPS_INTERPRETATION_sRGB, NULL)) { g_object_unref(cur); return NULL; }
        g_object_unref(cur); cur = next; next = NULL;
    }
    if (vips_image_hasalpha(cur)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int rc = vips_flatten(cur, &next, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        if (rc) { g_object_unref(cur); return NULL; }
        g_object_unref(cur); cur = next; next = NULL;
    }
    if (vips_image_get_bands(cur) > 3) {
        if (vips_extract_band(cur, &next, 0, "n", 3, NULL)) { g_object_unref(cur); return NULL; }
        g_object_unref(cur); cur = next; next = NULL;
    }
    if (vips_image_get_format(cur) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(cur, &next, NULL)) { g_object_unref(cur); return NULL; }
        g_object_unref(cur); cur = next; next = NULL;
    }
    return cur;
}

CairnImage *cairn_thumbnail_buffer(const void *buf, size_t len, int width, int height) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &out, width,
                              "height", height,
                              "size", VIPS_SIZE_DOWN,
                              /* 8.14: thumbnail's own "fail_on" does not reach the loader; this does. */
                              "option_string", "fail_on=truncated",
                              NULL)) return NULL;
    return out;
}

CairnImage *cairn_thumbnail_rgb(const void *pixels, size_t len, int w, int h, int width, int height) {
    VipsImage *raw = vips_image_new_from_memory(pixels, len, w, h, 3, VIPS_FORMAT_UCHAR);
    if (!raw) return NULL;
    VipsImage *srgb = NULL, *out = NULL;
    int rc = vips_copy(raw, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(raw);
    if (rc) return NULL;
    /* vips_thumbnail_image's resize (8.14, thumbnail.c: vips_thumbnail_calculate_shrink with VIPS_SIZE_DOWN, then
     * vips_resize), called directly: the thumbnail operation first puts its input through vips_sequential, a line
     * cache that copies every row of pixels already in memory (800 px from a 12 MP photo's half-size copy: 17.8 ms
     * against 12.4, the same bytes). Its colour-space steps do nothing to 8-bit sRGB. */
    double hshrink = (double)w / width, vshrink = (double)h / height;
    if (hshrink < vshrink) hshrink = vshrink;
    else vshrink = hshrink;
    hshrink = VIPS_MIN(VIPS_MAX(1.0, hshrink), w);
    vshrink = VIPS_MIN(VIPS_MAX(1.0, vshrink), h);
    rc = vips_resize(srgb, &out, 1.0 / hshrink, "vscale", 1.0 / vshrink, NULL);
    g_object_unref(srgb);
    return rc ? NULL : out;
}

CairnImage *cairn_resize_exact(CairnImage *in, int width, int height) {
    VipsImage *out = NULL;
    return vips_thumbnail_image(in, &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", TRUE, NULL) ? NULL : out;
}

/* libvips 8.14 reduces an 8-bit image vertically with its vector code (orc) and horizontally with plain C
 * (reduceh.cpp), about five times slower: 800 x 600 to 512 x 384, 4.5 ms against 0.9. So the horizontal reduce is made
 * a vertical one: reduce vertically, turn a quarter (from memory, so nothing is computed twice), reduce vertically,
 * turn back. The same lanczos3 kernel and centres as vips_resize's reduceh, with the vector path's 6-bit
 * coefficients instead of 12-bit ones: against cairn_resize_exact, RMS 0.2-0.5 of a level and at most 4 on photos,
 * up to 9 at a test texture's hard edges. That holds for the shrinks a thumbnail makes here (under 2: from the 800 px analysis
 * copy, or from a decode libjpeg scaled to at least the thumbnail's size); the 6-bit coefficients' error grows with
 * the kernel's length, so a larger shrink is left to cairn_resize_exact. */
CairnImage *cairn_thumbnail_shrink(CairnImage *in, int width, int height) {
    int w = vips_image_get_width(in), h = vips_image_get_height(in);
    if (width < 1 || height < 1 || width > w || height > h) return NULL;
    if (w >= 2 * width || h >= 2 * height || vips_image_get_format(in) != VIPS_FORMAT_UCHAR)
        return cairn_resize_exact(in, width, height);
    VipsImage *t[5] = { NULL, NULL, NULL, NULL, NULL }, *out = NULL;
    int failed = height < h ? vips_reducev(in, &t[0], (double)h / height, "kernel", VIPS_KERNEL_LANCZOS3, NULL)
                            : vips_copy(in, &t[0], NULL);
    if (!failed && width == w) {
        out = t[0];
        t[0] = NULL;
    } else if (!failed) {
        failed = !(t[1] = vips_image_copy_memory(t[0])) || vips_rot(t[1], &t[2], VIPS_ANGLE_D90, NULL) ||
                 vips_reducev(t[2], &t[3], (double)w / width, "kernel", VIPS_KERNEL_LANCZOS3, NULL) ||
                 vips_rot(t[3], &t[4], VIPS_ANGLE_D270, NULL);
        if (!failed) {
            out = t[4];
            t[4] = NULL;
        }
    }
    for (int i = 0; i < 5; i++) if (t[i]) g_object_unref(t[i]);
    return out;
}

int cairn_jpegsave_buffer(CairnImage *in, int quality, void **buf, size_t *len) {
    /* Chroma subsampling stays on: 8.14's "auto" turns it off at Q >= 90, which makes files larger and slower
     * to write for no visible gain on photos. */
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE,
                                "subsample_mode", VIPS_FOREIGN_SUBSAMPLE_ON, NULL);
}

void *cairn_image_write_to_memory(CairnImage *in, size_t *len) {
    return vips_image_write_to_memory(in, len);
}

int cairn_image_write_into(CairnImage *in, void *buf, size_t len) {
    size_t need = VIPS_IMAGE_SIZEOF_LINE(in) * (size_t)vips_image_get_height(in);
    if (len != need) return -1;
    VipsImage *out = vips_image_new_from_memory(buf, len, vips_image_get_width(in), vips_image_get_height(in),
                                                vips_image_get_bands(in), vips_image_get_format(in));
    if (!out) return -1;
    int rc = vips_image_write(in, out);
    g_object_unref(out);
    return rc == 0 ? 0 : -1;
}

size_t cairn_image_byte_count(CairnImage *in) {
    return VIPS_IMAGE_SIZEOF_LINE(in) * (size_t)vips_image_get_height(in);
}

int cairn_heif_top_level_image_count(const void *buf, size_t len) {
    if (!cairn_native_available(CAIRN_HEIF_SONAME)) return -2;
    struct heif_context *ctx = heif_context_alloc();
    if (!ctx) return -2;
    struct heif_error err = heif_context_read_from_memory_without_copy(ctx, buf, len, NULL);
    int result;
    if (err.code == heif_error_Ok) {
        result = heif_context_get_number_of_top_level_images(ctx);
    } else if (err.code == heif_error_Invalid_input &&
               (err.subcode == heif_suberror_No_meta_box || err.subcode == heif_suberror_No_hdlr_box ||
                err.subcode == heif_suberror_No_pitm_box || err.subcode == heif_suberror_No_ipma_box ||
                err.subcode == heif_suberror_No_iloc_box || err.subcode == heif_suberror_No_iinf_box ||
                err.subcode == heif_suberror_No_iprp_box || err.subcode == heif_suberror_No_pict_handler)) {
        result = -1;
    } else {
        result = -2;
    }
    heif_context_free(ctx);
    return result;
}

const char *cairn_vips_version_string(void) { return vips_version_string(); }

int cairn_vips_has_operation(const char *name) {
    cairn_vips_load_modules();
    return vips_type_find("VipsOperation", name) != 0;
}

const char *cairn_heif_version_string(void) {
    return cairn_native_available(CAIRN_HEIF_SONAME) ? heif_get_version() : NULL;
}
