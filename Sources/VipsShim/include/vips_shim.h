#ifndef CAIRN_VIPS_SHIM_H
#define CAIRN_VIPS_SHIM_H
/* Non-variadic wrappers around libvips operations (Swift cannot call variadic C). */
int cairn_vips_init(void);
#endif
