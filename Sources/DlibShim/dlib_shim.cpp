#include "dlib_shim.h"
extern "C" int cairn_dlib_version(void) { return 19; }
