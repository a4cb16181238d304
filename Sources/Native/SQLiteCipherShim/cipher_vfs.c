/* The cipher VFS: see include/SQLiteCipherShim.h and docs/ENCRYPTION.md ("Database pages"). Every call it does
 * not need to change goes to the default VFS unchanged. */
#include "SQLiteCipherShim.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define PAGE CAIRN_CIPHER_PAGE_SIZE
#define RESERVED CAIRN_CIPHER_RESERVED_BYTES
#define WAL_HEADER 32
#define FRAME_HEADER 24
#define FRAME (FRAME_HEADER + PAGE)

typedef struct CipherVfs {
    sqlite3_vfs base;
    sqlite3_vfs *root;
    void *context;
    cairn_cipher_page_function seal;
    cairn_cipher_page_function open;
    char name[80];
} CipherVfs;

typedef struct CipherFile {
    sqlite3_file base;
    CipherVfs *vfs;
    sqlite3_file *real;
    int isWal;
    unsigned char page[PAGE];
} CipherFile;

#define REAL(p) ((p)->real->pMethods)

void cairn_cipher_associated_data(unsigned int page_number, const unsigned char *salts, unsigned char *out) {
    memset(out, 0, CAIRN_CIPHER_AD_BYTES);
    out[0] = salts ? 2 : 1;
    out[4] = (unsigned char)(page_number >> 24);
    out[5] = (unsigned char)(page_number >> 16);
    out[6] = (unsigned char)(page_number >> 8);
    out[7] = (unsigned char)page_number;
    if (salts) memcpy(out + 8, salts, 8);
}

static unsigned int bigEndian32(const unsigned char *bytes) {
    return ((unsigned int)bytes[0] << 24) | ((unsigned int)bytes[1] << 16) | ((unsigned int)bytes[2] << 8) | bytes[3];
}

/* An opened page's nonce and tag bytes read as zeros, as SQLite left them: its WAL frame checksums are computed
 * over the whole page it hands over, reserved bytes included, and recovery after a crash computes them again
 * over the page read back. Pages it reads hold zeros there, so pages it writes do too. */
static void clearReserved(unsigned char *page) { memset(page + PAGE - RESERVED, 0, RESERVED); }

/* Page 1's header must say 4096-byte pages with 40 reserved bytes, or content would sit where the nonce and tag
 * go: such a page is never written, to the file or to the WAL (a backup from a database laid out otherwise). */
static int firstPageFits(const unsigned char *page) {
    return page[16] == (PAGE >> 8) && page[17] == (PAGE & 0xff) && page[20] == RESERVED;
}

/* MARK: the main database file: whole pages, page number = offset / PAGE + 1 */

static int mainRead(CipherFile *p, unsigned char *out, int amount, sqlite3_int64 offset) {
    sqlite3_int64 end = offset + amount;
    sqlite3_int64 size = -1;
    int shortRead = 0;
    for (sqlite3_int64 start = offset - offset % PAGE; start < end; start += PAGE) {
        int rc = REAL(p)->xRead(p->real, p->page, PAGE, start);
        if (rc == SQLITE_IOERR_SHORT_READ) {
            if (size < 0 && (rc = REAL(p)->xFileSize(p->real, &size)) != SQLITE_OK) return rc;
            if (size > start) return SQLITE_IOERR_DATA; /* a page cut short: the file was truncated */
            memset(p->page, 0, PAGE);                   /* past the end: SQLite expects zeros */
            shortRead = 1;
        } else if (rc != SQLITE_OK) {
            return rc;
        } else {
            unsigned char ad[CAIRN_CIPHER_AD_BYTES];
            cairn_cipher_associated_data((unsigned int)(start / PAGE + 1), NULL, ad);
            if (p->vfs->open(p->vfs->context, p->page, ad) != 0) return SQLITE_IOERR_DATA;
            clearReserved(p->page);
        }
        sqlite3_int64 from = offset > start ? offset : start;
        sqlite3_int64 to = end < start + PAGE ? end : start + PAGE;
        memcpy(out + (from - offset), p->page + (from - start), (size_t)(to - from));
    }
    return shortRead ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

static int mainWrite(CipherFile *p, const unsigned char *in, int amount, sqlite3_int64 offset) {
    if (offset % PAGE != 0 || amount % PAGE != 0) return SQLITE_IOERR_WRITE;
    for (int done = 0; done < amount; done += PAGE) {
        sqlite3_int64 at = offset + done;
        memcpy(p->page, in + done, PAGE);
        if (at == 0 && !firstPageFits(p->page)) return SQLITE_IOERR_WRITE;
        unsigned char ad[CAIRN_CIPHER_AD_BYTES];
        cairn_cipher_associated_data((unsigned int)(at / PAGE + 1), NULL, ad);
        if (p->vfs->seal(p->vfs->context, p->page, ad) != 0) return SQLITE_IOERR_WRITE;
        int rc = REAL(p)->xWrite(p->real, p->page, PAGE, at);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* MARK: the WAL: a 32-byte header, then frames of a 24-byte header and a page. Headers stay as SQLite wrote
 * them (it needs them to recover the log); each frame's page is sealed with the page number of its frame header
 * and the salts of the WAL header. Not the frame header's salts: in a transaction that rewrites a frame it
 * already wrote (a page spilled from the cache, then changed again), SQLite writes the headers of the frames
 * after it with zero salts and checksums and fills them in only at commit. The salts of every valid frame are
 * the WAL header's. */

static sqlite3_int64 frameStart(sqlite3_int64 frame) { return WAL_HEADER + frame * FRAME; }

/* The WAL header's salts (its bytes 16..23), read from the file once per call that needs them. */
static int walSalts(CipherFile *p, unsigned char *salts, int *have) {
    if (*have) return SQLITE_OK;
    int rc = REAL(p)->xRead(p->real, salts, 8, 16);
    if (rc != SQLITE_OK) return rc;
    *have = 1;
    return SQLITE_OK;
}

static int walRead(CipherFile *p, unsigned char *out, int amount, sqlite3_int64 offset) {
    int result = REAL(p)->xRead(p->real, out, amount, offset);
    if (result != SQLITE_OK && result != SQLITE_IOERR_SHORT_READ) return result;
    sqlite3_int64 end = offset + amount;
    sqlite3_int64 available = end; /* where the file's bytes end, within this read */
    if (result == SQLITE_IOERR_SHORT_READ) {
        sqlite3_int64 size;
        int rc = REAL(p)->xFileSize(p->real, &size);
        if (rc != SQLITE_OK) return rc;
        available = size < end ? size : end;
    }
    unsigned char salts[8];
    int haveSalts = 0;
    sqlite3_int64 frame = offset < WAL_HEADER ? 0 : (offset - WAL_HEADER) / FRAME;
    for (;; frame++) {
        sqlite3_int64 header = frameStart(frame), data = header + FRAME_HEADER, dataEnd = data + PAGE;
        if (data >= end) break;
        if (dataEnd <= offset) continue;
        sqlite3_int64 from = offset > data ? offset : data;
        sqlite3_int64 to = end < dataEnd ? end : dataEnd;
        if (dataEnd > available) { /* a frame cut short (a torn write): zeros, so SQLite's checksum ends the log */
            memset(out + (from - offset), 0, (size_t)(to - from));
            continue;
        }
        unsigned char frameHeader[FRAME_HEADER];
        int recovering = header >= offset; /* the whole frame is read: SQLite is recovering the log */
        if (recovering) {
            memcpy(frameHeader, out + (header - offset), FRAME_HEADER);
        } else {
            int rc = REAL(p)->xRead(p->real, frameHeader, FRAME_HEADER, header);
            if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_DATA : rc;
        }
        int whole = data >= offset && dataEnd <= end;
        unsigned char *page = whole ? out + (data - offset) : p->page;
        if (!whole) {
            int rc = REAL(p)->xRead(p->real, p->page, PAGE, data);
            if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_DATA : rc;
        }
        int rc = walSalts(p, salts, &haveSalts);
        if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_DATA : rc;
        unsigned char ad[CAIRN_CIPHER_AD_BYTES];
        cairn_cipher_associated_data(bigEndian32(frameHeader), salts, ad);
        if (p->vfs->open(p->vfs->context, page, ad) != 0) {
            /* While recovering, a page that fails is treated as SQLite treats a frame whose checksum fails: the
             * log ends before it (a write cut by a crash looks the same). Anywhere else it is an error. */
            if (!recovering) return SQLITE_IOERR_DATA;
            memset(page, 0, PAGE);
        } else {
            clearReserved(page);
        }
        if (!whole) memcpy(out + (from - offset), p->page + (from - data), (size_t)(to - from));
    }
    return result;
}

static int walWrite(CipherFile *p, const unsigned char *in, int amount, sqlite3_int64 offset) {
    sqlite3_int64 end = offset + amount, at = offset;
    unsigned char salts[8];
    int haveSalts = 0;
    while (at < end) {
        sqlite3_int64 frame = at < WAL_HEADER ? -1 : (at - WAL_HEADER) / FRAME;
        sqlite3_int64 header = frame < 0 ? 0 : frameStart(frame), data = frame < 0 ? WAL_HEADER : header + FRAME_HEADER;
        if (at < data) { /* the WAL header or a frame header: as written */
            sqlite3_int64 to = end < data ? end : data;
            int rc = REAL(p)->xWrite(p->real, in + (at - offset), (int)(to - at), at);
            if (rc != SQLITE_OK) return rc;
            at = to;
            continue;
        }
        if (at != data || end < data + PAGE) return SQLITE_IOERR_WRITE; /* SQLite writes whole pages */
        unsigned char frameHeader[FRAME_HEADER];
        if (header >= offset) {
            memcpy(frameHeader, in + (header - offset), FRAME_HEADER);
        } else {
            int rc = REAL(p)->xRead(p->real, frameHeader, FRAME_HEADER, header);
            if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_WRITE : rc;
        }
        int rc = walSalts(p, salts, &haveSalts);
        if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_WRITE : rc;
        memcpy(p->page, in + (data - offset), PAGE);
        if (bigEndian32(frameHeader) == 1 && !firstPageFits(p->page)) return SQLITE_IOERR_WRITE;
        unsigned char ad[CAIRN_CIPHER_AD_BYTES];
        cairn_cipher_associated_data(bigEndian32(frameHeader), salts, ad);
        if (p->vfs->seal(p->vfs->context, p->page, ad) != 0) return SQLITE_IOERR_WRITE;
        rc = REAL(p)->xWrite(p->real, p->page, PAGE, data);
        if (rc != SQLITE_OK) return rc;
        at = data + PAGE;
    }
    return SQLITE_OK;
}

/* MARK: io methods */

static int cipherClose(sqlite3_file *file) {
    CipherFile *p = (CipherFile *)file;
    int rc = REAL(p)->xClose(p->real);
    memset(p->page, 0, PAGE);
    return rc;
}

static int cipherRead(sqlite3_file *file, void *out, int amount, sqlite3_int64 offset) {
    CipherFile *p = (CipherFile *)file;
    return p->isWal ? walRead(p, out, amount, offset) : mainRead(p, out, amount, offset);
}

static int cipherWrite(sqlite3_file *file, const void *in, int amount, sqlite3_int64 offset) {
    CipherFile *p = (CipherFile *)file;
    return p->isWal ? walWrite(p, in, amount, offset) : mainWrite(p, in, amount, offset);
}

static int cipherTruncate(sqlite3_file *f, sqlite3_int64 size) { CipherFile *p = (CipherFile *)f; return REAL(p)->xTruncate(p->real, size); }
static int cipherSync(sqlite3_file *f, int flags) { CipherFile *p = (CipherFile *)f; return REAL(p)->xSync(p->real, flags); }
static int cipherFileSize(sqlite3_file *f, sqlite3_int64 *size) { CipherFile *p = (CipherFile *)f; return REAL(p)->xFileSize(p->real, size); }
static int cipherLock(sqlite3_file *f, int level) { CipherFile *p = (CipherFile *)f; return REAL(p)->xLock(p->real, level); }
static int cipherUnlock(sqlite3_file *f, int level) { CipherFile *p = (CipherFile *)f; return REAL(p)->xUnlock(p->real, level); }
static int cipherCheckReservedLock(sqlite3_file *f, int *out) { CipherFile *p = (CipherFile *)f; return REAL(p)->xCheckReservedLock(p->real, out); }
static int cipherFileControl(sqlite3_file *f, int op, void *arg) { CipherFile *p = (CipherFile *)f; return REAL(p)->xFileControl(p->real, op, arg); }
static int cipherSectorSize(sqlite3_file *f) { CipherFile *p = (CipherFile *)f; return REAL(p)->xSectorSize(p->real); }
static int cipherDeviceCharacteristics(sqlite3_file *f) { CipherFile *p = (CipherFile *)f; return REAL(p)->xDeviceCharacteristics(p->real); }
static int cipherShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **out) { CipherFile *p = (CipherFile *)f; return REAL(p)->xShmMap(p->real, region, size, extend, out); }
static int cipherShmLock(sqlite3_file *f, int offset, int n, int flags) { CipherFile *p = (CipherFile *)f; return REAL(p)->xShmLock(p->real, offset, n, flags); }
static void cipherShmBarrier(sqlite3_file *f) { CipherFile *p = (CipherFile *)f; REAL(p)->xShmBarrier(p->real); }
static int cipherShmUnmap(sqlite3_file *f, int deleteFlag) { CipherFile *p = (CipherFile *)f; return REAL(p)->xShmUnmap(p->real, deleteFlag); }

/* Version 2: shared memory for WAL, but no xFetch, so SQLite never memory-maps (and never reads around us). */
static const sqlite3_io_methods cipherIoMethods = {
    2, cipherClose, cipherRead, cipherWrite, cipherTruncate, cipherSync, cipherFileSize, cipherLock, cipherUnlock,
    cipherCheckReservedLock, cipherFileControl, cipherSectorSize, cipherDeviceCharacteristics, cipherShmMap,
    cipherShmLock, cipherShmBarrier, cipherShmUnmap, 0, 0,
};

/* MARK: the VFS */

#define ROOT(vfs) (((CipherVfs *)(vfs))->root)

static int cipherOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    CipherVfs *v = (CipherVfs *)vfs;
    CipherFile *p = (CipherFile *)file;
    memset(p, 0, sizeof(CipherFile));
    /* Only the database and its WAL: a journal or temporary file would hold pages in the clear. */
    if (!(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) return SQLITE_CANTOPEN;
    p->vfs = v;
    p->isWal = (flags & SQLITE_OPEN_WAL) != 0;
    p->real = (sqlite3_file *)&p[1];
    int rc = v->root->xOpen(v->root, name, p->real, flags, outFlags);
    if (rc == SQLITE_OK && p->real->pMethods) p->base.pMethods = &cipherIoMethods;
    return rc;
}

static int cipherDelete(sqlite3_vfs *vfs, const char *name, int syncDir) { return ROOT(vfs)->xDelete(ROOT(vfs), name, syncDir); }
static int cipherAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) { return ROOT(vfs)->xAccess(ROOT(vfs), name, flags, out); }
static int cipherFullPathname(sqlite3_vfs *vfs, const char *name, int n, char *out) { return ROOT(vfs)->xFullPathname(ROOT(vfs), name, n, out); }
static void *cipherDlOpen(sqlite3_vfs *vfs, const char *name) { return ROOT(vfs)->xDlOpen(ROOT(vfs), name); }
static void cipherDlError(sqlite3_vfs *vfs, int n, char *out) { ROOT(vfs)->xDlError(ROOT(vfs), n, out); }
static void (*cipherDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { return ROOT(vfs)->xDlSym(ROOT(vfs), handle, symbol); }
static void cipherDlClose(sqlite3_vfs *vfs, void *handle) { ROOT(vfs)->xDlClose(ROOT(vfs), handle); }
static int cipherRandomness(sqlite3_vfs *vfs, int n, char *out) { return ROOT(vfs)->xRandomness(ROOT(vfs), n, out); }
static int cipherSleep(sqlite3_vfs *vfs, int microseconds) { return ROOT(vfs)->xSleep(ROOT(vfs), microseconds); }
static int cipherCurrentTime(sqlite3_vfs *vfs, double *out) { return ROOT(vfs)->xCurrentTime(ROOT(vfs), out); }
static int cipherGetLastError(sqlite3_vfs *vfs, int n, char *out) { return ROOT(vfs)->xGetLastError(ROOT(vfs), n, out); }
static int cipherCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { return ROOT(vfs)->xCurrentTimeInt64(ROOT(vfs), out); }

int cairn_cipher_vfs_register(const char *name, void *context, cairn_cipher_page_function seal,
                              cairn_cipher_page_function open) {
    sqlite3_vfs *root = sqlite3_vfs_find(NULL);
    if (!root || root->iVersion < 2 || !name || strlen(name) >= sizeof(((CipherVfs *)0)->name)) return SQLITE_MISUSE;
    if (sqlite3_vfs_find(name)) return SQLITE_MISUSE;
    CipherVfs *v = calloc(1, sizeof(CipherVfs));
    if (!v) return SQLITE_NOMEM;
    strcpy(v->name, name);
    v->root = root;
    v->context = context;
    v->seal = seal;
    v->open = open;
    v->base.iVersion = 2;
    v->base.szOsFile = (int)sizeof(CipherFile) + root->szOsFile;
    v->base.mxPathname = root->mxPathname;
    v->base.zName = v->name;
    v->base.xOpen = cipherOpen;
    v->base.xDelete = cipherDelete;
    v->base.xAccess = cipherAccess;
    v->base.xFullPathname = cipherFullPathname;
    v->base.xDlOpen = cipherDlOpen;
    v->base.xDlError = cipherDlError;
    v->base.xDlSym = cipherDlSym;
    v->base.xDlClose = cipherDlClose;
    v->base.xRandomness = cipherRandomness;
    v->base.xSleep = cipherSleep;
    v->base.xCurrentTime = cipherCurrentTime;
    v->base.xGetLastError = cipherGetLastError;
    v->base.xCurrentTimeInt64 = cipherCurrentTimeInt64;
    int rc = sqlite3_vfs_register(&v->base, 0);
    if (rc != SQLITE_OK) free(v);
    return rc;
}

int cairn_cipher_vfs_unregister(const char *name) {
    sqlite3_vfs *vfs = name ? sqlite3_vfs_find(name) : NULL;
    if (!vfs || vfs->xOpen != cipherOpen) return SQLITE_MISUSE;
    int rc = sqlite3_vfs_unregister(vfs);
    if (rc == SQLITE_OK) free(vfs);
    return rc;
}
