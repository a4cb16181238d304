#ifndef CAIRN_VIPS_LAZY_H
#define CAIRN_VIPS_LAZY_H
/* libvips (with glib and gobject, its dependencies) and libheif are opened when the shim first calls them, not
 * at process start (native_loader.h says why). Included by the shim's .c files after <vips/vips.h> and
 * <libheif/heif.h>: from here on each name the shim calls is the library's own function, looked up once per
 * call site, with the type its header declares (variadic operations included). A function the shim calls that
 * is missing from this list links against nothing and fails the build; keep the list to what the shim calls. */
#include <vips/vips.h>
#include <libheif/heif.h>
#include "native_loader.h"

/* The sonames of the libraries these headers belong to (checked against the headers' versions). */
#define CAIRN_VIPS_SONAME "libvips.so.42"
_Static_assert(VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE == 42, "libvips' soname changed: update CAIRN_VIPS_SONAME");
#define CAIRN_HEIF_SONAME "libheif.so.1"
_Static_assert(LIBHEIF_NUMERIC_VERSION >> 24 == 1, "libheif's soname changed: update CAIRN_HEIF_SONAME");
#define CAIRN_VIPS(name) CAIRN_NATIVE_FUNCTION(CAIRN_VIPS_SONAME, name)
#define CAIRN_HEIF(name) CAIRN_NATIVE_FUNCTION(CAIRN_HEIF_SONAME, name)

/* gobject.h makes g_object_ref a macro that keeps the argument's type; the shim only passes VipsImage *. */
#undef g_object_ref
#define g_object_ref CAIRN_VIPS(g_object_ref)
#define g_dir_close CAIRN_VIPS(g_dir_close)
#define g_dir_open CAIRN_VIPS(g_dir_open)
#define g_dir_read_name CAIRN_VIPS(g_dir_read_name)
#define g_free CAIRN_VIPS(g_free)
#define g_log CAIRN_VIPS(g_log)
#define g_log_set_handler CAIRN_VIPS(g_log_set_handler)
#define g_module_open CAIRN_VIPS(g_module_open)
#define g_object_unref CAIRN_VIPS(g_object_unref)
#define vips_andimage CAIRN_VIPS(vips_andimage)
#define vips_area_unref CAIRN_VIPS(vips_area_unref)
#define vips_array_double_new CAIRN_VIPS(vips_array_double_new)
#define vips_array_double_newv CAIRN_VIPS(vips_array_double_newv)
#define vips_autorot CAIRN_VIPS(vips_autorot)
#define vips_avg CAIRN_VIPS(vips_avg)
#define vips_cache_set_max CAIRN_VIPS(vips_cache_set_max)
#define vips_cache_set_max_files CAIRN_VIPS(vips_cache_set_max_files)
#define vips_cache_set_max_mem CAIRN_VIPS(vips_cache_set_max_mem)
#define vips_cast CAIRN_VIPS(vips_cast)
#define vips_cast_uchar CAIRN_VIPS(vips_cast_uchar)
#define vips_colourspace CAIRN_VIPS(vips_colourspace)
#define vips_concurrency_get CAIRN_VIPS(vips_concurrency_get)
#define vips_concurrency_set CAIRN_VIPS(vips_concurrency_set)
#define vips_copy CAIRN_VIPS(vips_copy)
#define vips_divide CAIRN_VIPS(vips_divide)
#define vips_draw_flood CAIRN_VIPS(vips_draw_flood)
#define vips_draw_rect CAIRN_VIPS(vips_draw_rect)
#define vips_embed CAIRN_VIPS(vips_embed)
#define vips_equal_const1 CAIRN_VIPS(vips_equal_const1)
#define vips_error CAIRN_VIPS(vips_error)
#define vips_error_buffer_copy CAIRN_VIPS(vips_error_buffer_copy)
#define vips_error_clear CAIRN_VIPS(vips_error_clear)
#define vips_extract_area CAIRN_VIPS(vips_extract_area)
#define vips_extract_band CAIRN_VIPS(vips_extract_band)
#define vips_flatten CAIRN_VIPS(vips_flatten)
#define vips_foreign_find_load_buffer CAIRN_VIPS(vips_foreign_find_load_buffer)
#define vips_format_sizeof_unsafe CAIRN_VIPS(vips_format_sizeof_unsafe)
#define vips_gaussblur CAIRN_VIPS(vips_gaussblur)
#define vips_getpoint CAIRN_VIPS(vips_getpoint)
#define vips_hist_find CAIRN_VIPS(vips_hist_find)
#define vips_icc_transform CAIRN_VIPS(vips_icc_transform)
#define vips_ifthenelse CAIRN_VIPS(vips_ifthenelse)
#define vips_image_copy_memory CAIRN_VIPS(vips_image_copy_memory)
#define vips_image_get_bands CAIRN_VIPS(vips_image_get_bands)
#define vips_image_get_blob CAIRN_VIPS(vips_image_get_blob)
#define vips_image_get_format CAIRN_VIPS(vips_image_get_format)
#define vips_image_get_height CAIRN_VIPS(vips_image_get_height)
#define vips_image_get_interpretation CAIRN_VIPS(vips_image_get_interpretation)
#define vips_image_get_orientation CAIRN_VIPS(vips_image_get_orientation)
#define vips_image_get_typeof CAIRN_VIPS(vips_image_get_typeof)
#define vips_image_get_width CAIRN_VIPS(vips_image_get_width)
#define vips_image_hasalpha CAIRN_VIPS(vips_image_hasalpha)
#define vips_image_new_from_buffer CAIRN_VIPS(vips_image_new_from_buffer)
#define vips_image_new_from_memory CAIRN_VIPS(vips_image_new_from_memory)
#define vips_image_new_from_memory_copy CAIRN_VIPS(vips_image_new_from_memory_copy)
#define vips_image_write CAIRN_VIPS(vips_image_write)
#define vips_image_write_to_memory CAIRN_VIPS(vips_image_write_to_memory)
#define vips_init CAIRN_VIPS(vips_init)
#define vips_jpegsave_buffer CAIRN_VIPS(vips_jpegsave_buffer)
#define vips_linear1 CAIRN_VIPS(vips_linear1)
#define vips_max CAIRN_VIPS(vips_max)
#define vips_moreeq_const1 CAIRN_VIPS(vips_moreeq_const1)
#define vips_multiply CAIRN_VIPS(vips_multiply)
#define vips_notequal_const1 CAIRN_VIPS(vips_notequal_const1)
#define vips_orimage CAIRN_VIPS(vips_orimage)
#define vips_project CAIRN_VIPS(vips_project)
#define vips_rank CAIRN_VIPS(vips_rank)
#define vips_region_new CAIRN_VIPS(vips_region_new)
#define vips_region_prepare CAIRN_VIPS(vips_region_prepare)
#define vips_resize CAIRN_VIPS(vips_resize)
#define vips_reducev CAIRN_VIPS(vips_reducev)
#define vips_rot CAIRN_VIPS(vips_rot)
#define vips_rotate CAIRN_VIPS(vips_rotate)
#define vips_shrink CAIRN_VIPS(vips_shrink)
#define vips_subtract CAIRN_VIPS(vips_subtract)
#define vips_thread_shutdown CAIRN_VIPS(vips_thread_shutdown)
#define vips_thumbnail_buffer CAIRN_VIPS(vips_thumbnail_buffer)
#define vips_thumbnail_image CAIRN_VIPS(vips_thumbnail_image)
#define vips_type_find CAIRN_VIPS(vips_type_find)
#define vips_version CAIRN_VIPS(vips_version)
#define vips_version_string CAIRN_VIPS(vips_version_string)
#define heif_context_alloc CAIRN_HEIF(heif_context_alloc)
#define heif_context_free CAIRN_HEIF(heif_context_free)
#define heif_context_get_number_of_top_level_images CAIRN_HEIF(heif_context_get_number_of_top_level_images)
#define heif_context_read_from_memory_without_copy CAIRN_HEIF(heif_context_read_from_memory_without_copy)
#define heif_get_version CAIRN_HEIF(heif_get_version)

#endif
