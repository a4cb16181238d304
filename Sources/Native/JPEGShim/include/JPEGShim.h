#ifndef CAIRN_JPEGSHIM_UMBRELLA_H
#define CAIRN_JPEGSHIM_UMBRELLA_H
/* The JPEGShim module: every header Swift sees, listed here so a new header is never missed by a cached,
 * generated module map. */
#include "cairn_orient.h"
#include "cairn_jpeg_bands.h"
#endif
