#ifndef CAIRN_SQLITE_CIPHER_SHIM_H
#define CAIRN_SQLITE_CIPHER_SHIM_H

/* An SQLite VFS that wraps the default (unix) VFS and hands every database page, and the page of every WAL
 * frame, to a sealing and an opening function on its way to and from the disk. The shim only cuts files into
 * pages and builds each page's associated data; the cryptography is the caller's (Swift, the Encryption module).
 * The page layout is documented in docs/ENCRYPTION.md ("Database pages"). */

/* The page size every encrypted database uses, and the bytes reserved at the end of each page. */
#define CAIRN_CIPHER_PAGE_SIZE 4096
#define CAIRN_CIPHER_RESERVED_BYTES 40
/* The associated data of a page: 16 bytes (kind, 3 zero bytes, page number, WAL salts or zeros). */
#define CAIRN_CIPHER_AD_BYTES 16

/* Seals (or opens) one page in place: `page` is CAIRN_CIPHER_PAGE_SIZE bytes whose last
 * CAIRN_CIPHER_RESERVED_BYTES bytes hold (or receive) the nonce and the tag. Returns 0 on success; an opening
 * function returns non-zero when the page does not authenticate. */
typedef int (*cairn_cipher_page_function)(void *context, unsigned char *page, const unsigned char *associated_data);

/* Registers a VFS named `name` (not made the default) whose files are sealed and opened with `seal`/`open` and
 * `context`. Only a main database file and its WAL can be opened through it: a rollback journal, a super-journal
 * or a temporary file is refused (SQLITE_CANTOPEN), so none is ever written in the clear (use WAL and
 * temp_store = MEMORY). Returns an SQLite result code. */
int cairn_cipher_vfs_register(const char *name, void *context, cairn_cipher_page_function seal,
                              cairn_cipher_page_function open);

/* Unregisters and frees the VFS named `name` (registered by the function above); every connection through it
 * must be closed. Returns an SQLite result code. */
int cairn_cipher_vfs_unregister(const char *name);

/* The associated data of database page `page_number` (1-based) or of a WAL frame's page (`salts` the WAL header's
 * 8 bytes at offset 16, which every valid frame header repeats; NULL for a database page), written to `out`
 * (CAIRN_CIPHER_AD_BYTES). */
void cairn_cipher_associated_data(unsigned int page_number, const unsigned char *salts, unsigned char *out);

#endif
