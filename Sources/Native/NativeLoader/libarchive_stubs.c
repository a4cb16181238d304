/* libarchive (the Apple Health export.zip, read without extracting), opened on first use (native_loader.h): the
 * functions HealthExport calls, written by scripts/native-stubs.py; the compiler checks each stub against the
 * headers. */
#include <archive.h>
#include <archive_entry.h>
#include "native_loader.h"

#define SONAME "libarchive.so.13"
_Static_assert(ARCHIVE_VERSION_NUMBER / 1000000 == 3, "libarchive's soname changed: update SONAME");

int cairn_libarchive_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB(SONAME, const char *, archive_entry_pathname, (struct archive_entry *a0), (a0))
CAIRN_NATIVE_STUB(SONAME, la_int64_t, archive_filter_bytes, (struct archive *a0, int a1), (a0, a1))
CAIRN_NATIVE_STUB(SONAME, la_ssize_t, archive_read_data, (struct archive *a0, void *a1, size_t a2), (a0, a1, a2))
CAIRN_NATIVE_STUB(SONAME, int, archive_read_data_skip, (struct archive *a0), (a0))
CAIRN_NATIVE_STUB(SONAME, int, archive_read_free, (struct archive *a0), (a0))
CAIRN_NATIVE_STUB(SONAME, struct archive *, archive_read_new, (void), ())
CAIRN_NATIVE_STUB(SONAME, int, archive_read_next_header, (struct archive *a0, struct archive_entry **a1), (a0, a1))
CAIRN_NATIVE_STUB(SONAME, int, archive_read_open_filename, (struct archive *a0, const char *_filename, size_t _block_size), (a0, _filename, _block_size))
CAIRN_NATIVE_STUB(SONAME, int, archive_read_open_memory, (struct archive *a0, const void *buff, size_t size), (a0, buff, size))
CAIRN_NATIVE_STUB(SONAME, int, archive_read_support_format_zip, (struct archive *a0), (a0))
