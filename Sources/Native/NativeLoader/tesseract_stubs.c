/* Tesseract's C API, opened on first use (native_loader.h): the functions TextRecognition calls, written by
 * scripts/native-stubs.py; the compiler checks each stub against <tesseract/capi.h>. */
#include <tesseract/capi.h>
#include <tesseract/version.h>
#include <dlfcn.h>
#include "native_loader.h"

#define SONAME "libtesseract.so.5"
_Static_assert(TESSERACT_MAJOR_VERSION == 5, "Tesseract's soname changed: update SONAME");

/* Leptonica, Tesseract's image library (loaded with it): its messages go to stderr, which Tesseract's debug_file
 * does not reach ("Error in boxClipToRectangle: box outside rectangle" while Tesseract reads some photos). Its
 * function is found through Tesseract's handle, like OpenMP's, so Leptonica stays local with Tesseract. */
#include <leptonica/allheaders.h>

void cairn_leptonica_silence(void) {
    __typeof__(&setMsgSeverity) set = (__typeof__(&setMsgSeverity))cairn_tesseract_symbol("setMsgSeverity");
    if (set) set(L_SEVERITY_NONE);
}

CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPIClear, (TessBaseAPI *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, TessBaseAPI *, TessBaseAPICreate, (void), ())
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPIDelete, (TessBaseAPI *handle), (handle))
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPIEnd, (TessBaseAPI *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, TessResultIterator *, TessBaseAPIGetIterator, (TessBaseAPI *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, int, TessBaseAPIInit2, (TessBaseAPI *handle, const char *datapath, const char *language, TessOcrEngineMode oem), (handle, datapath, language, oem))
CAIRN_NATIVE_STUB(SONAME, int, TessBaseAPIMeanTextConf, (TessBaseAPI *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, int, TessBaseAPIRecognize, (TessBaseAPI *handle, ETEXT_DESC *monitor), (handle, monitor))
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPISetImage, (TessBaseAPI *handle, const unsigned char *imagedata, int width, int height, int bytes_per_pixel, int bytes_per_line), (handle, imagedata, width, height, bytes_per_pixel, bytes_per_line))
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPISetPageSegMode, (TessBaseAPI *handle, TessPageSegMode mode), (handle, mode))
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPISetRectangle, (TessBaseAPI *handle, int left, int top, int width, int height), (handle, left, top, width, height))
CAIRN_NATIVE_STUB_VOID(SONAME, TessBaseAPISetSourceResolution, (TessBaseAPI *handle, int ppi), (handle, ppi))
CAIRN_NATIVE_STUB(SONAME, int, TessBaseAPISetVariable, (TessBaseAPI *handle, const char *name, const char *value), (handle, name, value))
CAIRN_NATIVE_STUB_VOID(SONAME, TessDeleteText, (const char *text), (text))
CAIRN_NATIVE_STUB(SONAME, int, TessPageIteratorBoundingBox, (const TessPageIterator *handle, TessPageIteratorLevel level, int *left, int *top, int *right, int *bottom), (handle, level, left, top, right, bottom))
CAIRN_NATIVE_STUB(SONAME, int, TessPageIteratorIsAtBeginningOf, (const TessPageIterator *handle, TessPageIteratorLevel level), (handle, level))
CAIRN_NATIVE_STUB(SONAME, float, TessResultIteratorConfidence, (const TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
CAIRN_NATIVE_STUB_VOID(SONAME, TessResultIteratorDelete, (TessResultIterator *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, TessPageIterator *, TessResultIteratorGetPageIterator, (TessResultIterator *handle), (handle))
CAIRN_NATIVE_STUB(SONAME, char *, TessResultIteratorGetUTF8Text, (const TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
CAIRN_NATIVE_STUB(SONAME, int, TessResultIteratorNext, (TessResultIterator *handle, TessPageIteratorLevel level), (handle, level))
CAIRN_NATIVE_STUB(SONAME, const char *, TessVersion, (void), ())

/* Opens Tesseract, its symbols kept local (native_loader.h: libvips, opened next, binds its own ~3 ms sooner), and
 * looks up what `TextRecognizer.init` calls (the stubs above): a scan starts Tesseract on one thread while the
 * other opens libvips, and Tesseract's start would otherwise wait the whole load (~11 ms) at its first call. */
int cairn_tesseract_available(void) {
    if (!cairn_native_open_local(SONAME)) return 0;
    CAIRN_NATIVE_BIND(SONAME, TessBaseAPICreate);
    CAIRN_NATIVE_BIND(SONAME, TessBaseAPIInit2);
    CAIRN_NATIVE_BIND(SONAME, TessBaseAPIDelete);
    CAIRN_NATIVE_BIND(SONAME, TessBaseAPISetPageSegMode);
    CAIRN_NATIVE_BIND(SONAME, TessBaseAPISetVariable);
    return 1;
}

void *cairn_tesseract_symbol(const char *name) {
    void *handle = cairn_native_open_local(SONAME);
    return handle ? dlsym(handle, name) : NULL;
}
