/* libqrencode (the phone session's QR code, PhoneLink), opened on first use (native_loader.h). The functions
 * PhoneLink calls, written by scripts/native-stubs.py; the compiler checks each stub against the header. */
#include "../CQREncode/shim.h"
#include "native_loader.h"

#define SONAME "libqrencode.so.4"

int cairn_qrencode_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB(SONAME, QRcode *, QRcode_encodeString, (const char *string, int version, QRecLevel level, QRencodeMode hint, int casesensitive), (string, version, level, hint, casesensitive))
CAIRN_NATIVE_STUB_VOID(SONAME, QRcode_free, (QRcode *qrcode), (qrcode))
CAIRN_NATIVE_STUB(SONAME, char *, QRcode_APIVersionString, (void), ())
