#ifndef CAIRN_NATIVE_LOADER_H
#define CAIRN_NATIVE_LOADER_H
/* Native libraries that only some commands use (libvips and libheif, Tesseract, pango and cairo, libxml2,
 * libarchive, libnotify, libmicrohttpd, dlib with LAPACK and BLAS) are not linked into cairn: each is opened with
 * dlopen the first time one of its functions is called, so a command that needs none of them starts without
 * loading them and their dependencies (about 120 shared libraries of the 141 a fully linked cairn loads). Each
 * adapter calls its library through stubs that look the function up here once (the `*_lazy.h` header or
 * `*_stubs.c` file beside its code; DlibShim's `dlib_stubs.cpp`). */
#ifdef __cplusplus
extern "C" {
#endif

/* `soname` ("libvips.so.42") opened once per process and kept open (lazy binding, global symbols: its own
 * dependencies can be found by name afterwards), or NULL when it cannot be opened. */
void *cairn_native_open(const char *soname);

/* `cairn_native_open` keeping the library's symbols, and its dependencies', to itself (RTLD_LOCAL): a library
 * opened after it does not search them for each symbol it binds (libvips opened after Tesseract: ~9 ms with
 * Tesseract's symbols global, ~6 ms without). Its functions are found through its handle (`cairn_native_symbol`
 * does), not by name in the whole process. Whichever of the two opens a library first decides. */
void *cairn_native_open_local(const char *soname);

/* 1 when `soname` can be opened (it is, as a side effect), 0 when it is not installed. */
int cairn_native_available(const char *soname);

/* The address of `symbol` in `soname` (or in a library it depends on). When the library or the symbol is
 * missing, says which on stderr, with the command that installs what Cairn needs, and ends the process with
 * status 70 (EX_SOFTWARE): nothing can be done with a function that is not there. */
void *cairn_native_symbol(const char *soname, const char *symbol);

/* Whether Tesseract and libnotify can be opened: TextRecognition and Notifications check first and report an
 * engine or a service that is not there, as they did when a missing library kept cairn from starting. Tesseract is
 * opened then (its symbols local) with the functions that start a recogniser looked up (`CAIRN_NATIVE_BIND`): a
 * thread that starts one while another opens libvips does not wait for that. */
int cairn_tesseract_available(void);
/* The address of `name` in Tesseract or a library it depends on (OpenMP's functions), NULL when there is none or
 * Tesseract is not installed. Tesseract is opened with its symbols kept local (`cairn_native_open_local`). */
void *cairn_tesseract_symbol(const char *name);
int cairn_notify_available(void);
/* Keeps Leptonica (opened with Tesseract) from printing its messages on stderr, for the whole process. */
void cairn_leptonica_silence(void);
/* Whether libmicrohttpd can be opened: `cairn doctor` reports it without ending the process when it is not. */
int cairn_microhttpd_available(void);
/* Whether GnuTLS and libqrencode (the phone session, PhoneLink) can be opened: `cairn doctor` reports them. */
int cairn_gnutls_available(void);
int cairn_qrencode_available(void);
/* Whether pango and cairo (reports), libxml2 and libarchive (health imports) can be opened: `cairn doctor`. */
int cairn_pangocairo_available(void);
int cairn_libxml2_available(void);
int cairn_libarchive_available(void);
/* Whether libzbar (barcodes read from a photo, Barcodes) can be opened: `cairn doctor` reports it. */
int cairn_zbar_available(void);

/* The function pointer `name` (of its own type) kept in `cache`, a static of that type: looked up in `soname` on
 * first use. */
#define CAIRN_NATIVE_CACHED(soname, name, cache) \
    ({ \
        __typeof__(&name) cairn_native_fn_ = __atomic_load_n(&(cache), __ATOMIC_ACQUIRE); \
        if (!cairn_native_fn_) { \
            cairn_native_fn_ = (__typeof__(&name))cairn_native_symbol(soname, #name); \
            __atomic_store_n(&(cache), cairn_native_fn_, __ATOMIC_RELEASE); \
        } \
        cairn_native_fn_; \
    })

/* A function pointer of `name`'s own type, looked up once (per use site) in `soname`. `name` must be declared
 * by the library's header: the compiler checks every call against it, as for a linked library. */
#define CAIRN_NATIVE_FUNCTION(soname, name) \
    (*({ \
        static __typeof__(&name) cairn_native_cached_; \
        CAIRN_NATIVE_CACHED(soname, name, cairn_native_cached_); \
    }))

/* A definition of `name` (declared by the library's header) that calls the library's own: for code that cannot
 * use the macro above (Swift calls C functions by their names). `params` and `args` are parenthesised lists.
 * Hidden (never exported, so the libraries' own calls never come back through it) and weak (two stub files may
 * both need a GLib function; the linker keeps one). The library's function is looked up on the first call, or
 * before it by `CAIRN_NATIVE_BIND`. */
#define CAIRN_NATIVE_STUB(soname, ret, name, params, args) \
    static __typeof__(&name) cairn_native_stub_##name; \
    __attribute__((weak, visibility("hidden"))) ret name params { \
        return (*CAIRN_NATIVE_CACHED(soname, name, cairn_native_stub_##name)) args; \
    }
#define CAIRN_NATIVE_STUB_VOID(soname, name, params, args) \
    static __typeof__(&name) cairn_native_stub_##name; \
    __attribute__((weak, visibility("hidden"))) void name params { \
        (*CAIRN_NATIVE_CACHED(soname, name, cairn_native_stub_##name)) args; \
    }
/* Looks up now the function a stub above (in the same file) calls. `dlsym` waits while another thread's `dlopen`
 * loads a library (the dynamic loader holds one lock for both, for the whole load): a thread that is to call a
 * stub beside such a load has its function looked up before the load starts. */
#define CAIRN_NATIVE_BIND(soname, name) ((void)CAIRN_NATIVE_CACHED(soname, name, cairn_native_stub_##name))

#ifdef __cplusplus
}
#endif

#endif
