#ifndef CAIRN_VIPSSHIM_UMBRELLA_H
#define CAIRN_VIPSSHIM_UMBRELLA_H
/* The VipsShim module: every header Swift sees, listed here so a new header is never missed by a cached,
 * generated module map. */
#include "vips_shim.h"
#include "vips_ocr_shim.h"
#endif
