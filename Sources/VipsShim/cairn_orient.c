#include <stddef.h>
#include <string.h>
#include "cairn_orient.h"

/* Tile side for the 90-degree turns: 64 source rows of 64 bytes stay in L1 while one tile is written. */
#define TILE 64

int cairn_orient_plane(const unsigned char *src, int sw, int sh, int sstride, int bpp, int orientation,
                       unsigned char *dst, int dstride, int pad_w, int pad_h) {
    if (!src || !dst || sw <= 0 || sh <= 0 || bpp <= 0 || orientation < 1 || orientation > 8) return -1;
    int swapped = orientation >= 5;
    int ow = swapped ? sh : sw, oh = swapped ? sw : sh;
    if (pad_w < ow || pad_h < oh || sstride < sw * bpp || dstride < pad_w * bpp) return -1;

    /* Output sample (x, y) is read from src + base + x * xstep + y * ystep (in bytes). */
    ptrdiff_t ss = sstride, b = bpp, lastRow = (ptrdiff_t)(sh - 1) * ss, lastCol = (ptrdiff_t)(sw - 1) * b;
    ptrdiff_t base = 0, xstep = b, ystep = ss;
    switch (orientation) {
    case 1: base = 0;                 xstep = b;   ystep = ss;  break;
    case 2: base = lastCol;           xstep = -b;  ystep = ss;  break;
    case 3: base = lastRow + lastCol; xstep = -b;  ystep = -ss; break;
    case 4: base = lastRow;           xstep = b;   ystep = -ss; break;
    case 5: base = 0;                 xstep = ss;  ystep = b;   break;
    case 6: base = lastRow;           xstep = -ss; ystep = b;   break;
    case 7: base = lastRow + lastCol; xstep = -ss; ystep = -b;  break;
    case 8: base = lastCol;           xstep = ss;  ystep = -b;  break;
    }
    const unsigned char *origin = src + base;

    if (!swapped) {
        /* Row by row: a copy, or a reversed copy. */
        for (int y = 0; y < oh; y++) {
            const unsigned char *s = origin + y * ystep;
            unsigned char *d = dst + (ptrdiff_t)y * dstride;
            if (xstep == b) {
                memcpy(d, s, (size_t)ow * (size_t)bpp);
            } else if (bpp == 1) {
                for (int x = 0; x < ow; x++) d[x] = s[-x];
            } else {
                for (int x = 0; x < ow; x++) memcpy(d + (ptrdiff_t)x * b, s - (ptrdiff_t)x * b, (size_t)bpp);
            }
        }
    } else if (bpp == 1) {
        /* Transposing turns: tile by tile so the source rows a tile reads stay in cache. */
        for (int ty = 0; ty < oh; ty += TILE) {
            int ty1 = ty + TILE < oh ? ty + TILE : oh;
            for (int tx = 0; tx < ow; tx += TILE) {
                int tx1 = tx + TILE < ow ? tx + TILE : ow;
                for (int y = ty; y < ty1; y++) {
                    const unsigned char *s = origin + y * ystep + tx * xstep;
                    unsigned char *d = dst + (ptrdiff_t)y * dstride;
                    for (int x = tx; x < tx1; x++, s += xstep) d[x] = *s;
                }
            }
        }
    } else {
        for (int ty = 0; ty < oh; ty += TILE) {
            int ty1 = ty + TILE < oh ? ty + TILE : oh;
            for (int tx = 0; tx < ow; tx += TILE) {
                int tx1 = tx + TILE < ow ? tx + TILE : ow;
                for (int y = ty; y < ty1; y++) {
                    const unsigned char *s = origin + y * ystep + tx * xstep;
                    unsigned char *d = dst + (ptrdiff_t)y * dstride + (ptrdiff_t)tx * b;
                    for (int x = tx; x < tx1; x++, s += xstep, d += b) memcpy(d, s, (size_t)bpp);
                }
            }
        }
    }

    /* Edge padding: repeat the last column, then the last row. */
    if (pad_w > ow) {
        for (int y = 0; y < oh; y++) {
            unsigned char *row = dst + (ptrdiff_t)y * dstride;
            for (int x = ow; x < pad_w; x++) memcpy(row + (ptrdiff_t)x * b, row + (ptrdiff_t)(ow - 1) * b, (size_t)bpp);
        }
    }
    for (int y = oh; y < pad_h; y++) {
        memcpy(dst + (ptrdiff_t)y * dstride, dst + (ptrdiff_t)(oh - 1) * dstride, (size_t)pad_w * (size_t)bpp);
    }
    return 0;
}
