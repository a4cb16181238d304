// Debian builds libxml2 with ICU, so its encoding.h includes the system's <unicode/ucnv.h>. Swift's Foundation
// carries its own ICU headers (_FoundationICU) with a different UErrorCode; a module that sees both fails to
// build, depending on the order clang loads them. Cairn never touches libxml2's converter structs (only pointers
// to its parser context), so the ICU part of the headers is switched off here: xmlversion.h is read first, then
// LIBXML_ICU_ENABLED is undefined before any header that would pull ICU in.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
