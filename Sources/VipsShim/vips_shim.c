#include <vips/vips.h>
#include "vips_shim.h"

int cairn_vips_init(void) { return VIPS_INIT("cairn"); }
