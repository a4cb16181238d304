#include <stddef.h>
#include <string.h>
#include "cairn_orient.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Tile side for the 90-degree turns: a tile reads 8 bytes from each of TILE source rows per 8-row band, so one
 * 64-byte line per source row (16 KiB) serves 8 bands from L1. Measured on 12 MP planes: 64 -> 14 ms, 256 -> 6 ms. */
#define TILE 256

/* One 8x8 block of a transposing turn: output rows y..y+7, columns x..x+7. Output (x+i, y+k) is source byte
 * origin + (x+i)*xstep + (y+k)*ystep with ystep = +1 or -1, so each output column i is 8 adjacent source bytes. */
static inline void block8(const unsigned char *origin, ptrdiff_t xstep, ptrdiff_t ystep, int x, int y,
                          unsigned char *dst, ptrdiff_t dstride) {
    ptrdiff_t first = ystep > 0 ? y : -(ptrdiff_t)(y + 7);
#if defined(__SSE2__)
    __m128i a[8];
    for (int i = 0; i < 8; i++) a[i] = _mm_loadl_epi64((const __m128i *)(origin + (ptrdiff_t)(x + i) * xstep + first));
    __m128i b0 = _mm_unpacklo_epi8(a[0], a[1]), b1 = _mm_unpacklo_epi8(a[2], a[3]);
    __m128i b2 = _mm_unpacklo_epi8(a[4], a[5]), b3 = _mm_unpacklo_epi8(a[6], a[7]);
    __m128i c0 = _mm_unpacklo_epi16(b0, b1), c1 = _mm_unpackhi_epi16(b0, b1);
    __m128i c2 = _mm_unpacklo_epi16(b2, b3), c3 = _mm_unpackhi_epi16(b2, b3);
    __m128i d[4] = { _mm_unpacklo_epi32(c0, c2), _mm_unpackhi_epi32(c0, c2),
                     _mm_unpacklo_epi32(c1, c3), _mm_unpackhi_epi32(c1, c3) };
    /* d[j] holds source byte 2j of every line, then byte 2j+1. */
    for (int j = 0; j < 4; j++) {
        int k0 = 2 * j, k1 = 2 * j + 1;
        int r0 = ystep > 0 ? k0 : 7 - k0, r1 = ystep > 0 ? k1 : 7 - k1;
        _mm_storel_epi64((__m128i *)(dst + (ptrdiff_t)(y + r0) * dstride + x), d[j]);
        _mm_storel_epi64((__m128i *)(dst + (ptrdiff_t)(y + r1) * dstride + x), _mm_unpackhi_epi64(d[j], d[j]));
    }
#else
    for (int i = 0; i < 8; i++) {
        const unsigned char *s = origin + (ptrdiff_t)(x + i) * xstep + first;
        for (int k = 0; k < 8; k++) dst[(ptrdiff_t)(y + (ystep > 0 ? k : 7 - k)) * dstride + x + i] = s[k];
    }
#endif
}

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
                int x = 0;
#if defined(__SSE2__)
                /* 16 bytes at a time: load the 16 source bytes ending at s - x, reverse them. */
                for (; x + 16 <= ow; x += 16) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(s - x - 15));
                    v = _mm_shuffle_epi32(v, 0x1B);
                    v = _mm_shufflelo_epi16(v, 0xB1);
                    v = _mm_shufflehi_epi16(v, 0xB1);
                    v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
                    _mm_storeu_si128((__m128i *)(d + x), v);
                }
#endif
                for (; x < ow; x++) d[x] = s[-x];
            } else {
                for (int x = 0; x < ow; x++) memcpy(d + (ptrdiff_t)x * b, s - (ptrdiff_t)x * b, (size_t)bpp);
            }
        }
    } else if (bpp == 1) {
        /* Transposing turns: tile by tile so the source rows a tile reads stay in cache, 8x8 blocks inside. */
        for (int ty = 0; ty < oh; ty += TILE) {
            int ty1 = ty + TILE < oh ? ty + TILE : oh;
            for (int tx = 0; tx < ow; tx += TILE) {
                int tx1 = tx + TILE < ow ? tx + TILE : ow;
                int y = ty;
                for (; y + 8 <= ty1; y += 8) {
                    int x = tx;
                    for (; x + 8 <= tx1; x += 8) block8(origin, xstep, ystep, x, y, dst, dstride);
                    for (int yy = y; yy < y + 8; yy++) {
                        unsigned char *d = dst + (ptrdiff_t)yy * dstride;
                        for (int xx = x; xx < tx1; xx++) d[xx] = origin[xx * xstep + yy * ystep];
                    }
                }
                for (; y < ty1; y++) {
                    unsigned char *d = dst + (ptrdiff_t)y * dstride;
                    for (int x = tx; x < tx1; x++) d[x] = origin[x * xstep + y * ystep];
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
