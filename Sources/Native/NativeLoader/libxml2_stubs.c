/* libxml2 (the Apple Health export's XML, streamed), opened on first use (native_loader.h): the functions
 * HealthExport calls, written by scripts/native-stubs.py; the compiler checks each stub against the headers
 * (read as CLibXML2's shim reads them, without ICU). */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/entities.h>
#include <libxml/SAX2.h>
#include "native_loader.h"

#define SONAME "libxml2.so.2"
_Static_assert(LIBXML_VERSION / 10000 == 2, "libxml2's soname changed: update SONAME");

int cairn_libxml2_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB(SONAME, xmlParserCtxtPtr, xmlCreatePushParserCtxt, (xmlSAXHandlerPtr sax, void *user_data, const char *chunk, int size, const char *filename), (sax, user_data, chunk, size, filename))
CAIRN_NATIVE_STUB(SONAME, int, xmlCtxtUseOptions, (xmlParserCtxtPtr ctxt, int options), (ctxt, options))
CAIRN_NATIVE_STUB_VOID(SONAME, xmlFreeParserCtxt, (xmlParserCtxtPtr ctxt), (ctxt))
CAIRN_NATIVE_STUB(SONAME, xmlEntityPtr, xmlGetPredefinedEntity, (const xmlChar *name), (name))
CAIRN_NATIVE_STUB_VOID(SONAME, xmlInitParser, (void), ())
CAIRN_NATIVE_STUB(SONAME, int, xmlParseChunk, (xmlParserCtxtPtr ctxt, const char *chunk, int size, int terminate), (ctxt, chunk, size, terminate))
CAIRN_NATIVE_STUB_VOID(SONAME, xmlStopParser, (xmlParserCtxtPtr ctxt), (ctxt))
CAIRN_NATIVE_STUB(SONAME, int, xmlSAX2GetLineNumber, (void *ctx), (ctx))
