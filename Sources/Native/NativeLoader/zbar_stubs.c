/* libzbar (barcodes read from a photo, the Barcodes adapter), opened on first use (native_loader.h). The functions
 * Barcodes calls, written by scripts/native-stubs.py; the compiler checks each stub against the header. */
#include "../CZBar/shim.h"
#include "native_loader.h"

#define SONAME "libzbar.so.0"

int cairn_zbar_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB(SONAME, zbar_image_scanner_t *, zbar_image_scanner_create, (void), ())
CAIRN_NATIVE_STUB_VOID(SONAME, zbar_image_scanner_destroy, (zbar_image_scanner_t *scanner), (scanner))
CAIRN_NATIVE_STUB(SONAME, int, zbar_image_scanner_set_config, (zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value), (scanner, symbology, config, value))
CAIRN_NATIVE_STUB(SONAME, zbar_image_t *, zbar_image_create, (void), ())
CAIRN_NATIVE_STUB_VOID(SONAME, zbar_image_destroy, (zbar_image_t *image), (image))
CAIRN_NATIVE_STUB_VOID(SONAME, zbar_image_set_format, (zbar_image_t *image, unsigned long format), (image, format))
CAIRN_NATIVE_STUB_VOID(SONAME, zbar_image_set_size, (zbar_image_t *image, unsigned int width, unsigned int height), (image, width, height))
CAIRN_NATIVE_STUB_VOID(SONAME, zbar_image_set_data, (zbar_image_t *image, const void *data, unsigned long data_byte_length, zbar_image_cleanup_handler_t *cleanup_hndlr), (image, data, data_byte_length, cleanup_hndlr))
CAIRN_NATIVE_STUB(SONAME, int, zbar_scan_image, (zbar_image_scanner_t *scanner, zbar_image_t *image), (scanner, image))
CAIRN_NATIVE_STUB(SONAME, const zbar_symbol_t *, zbar_image_first_symbol, (const zbar_image_t *image), (image))
CAIRN_NATIVE_STUB(SONAME, const zbar_symbol_t *, zbar_symbol_next, (const zbar_symbol_t *symbol), (symbol))
CAIRN_NATIVE_STUB(SONAME, zbar_symbol_type_t, zbar_symbol_get_type, (const zbar_symbol_t *symbol), (symbol))
CAIRN_NATIVE_STUB(SONAME, const char *, zbar_symbol_get_data, (const zbar_symbol_t *symbol), (symbol))
CAIRN_NATIVE_STUB(SONAME, int, zbar_version, (unsigned int *major, unsigned int *minor, unsigned int *patch), (major, minor, patch))
