#ifndef CAIRN_ORIENT_H
#define CAIRN_ORIENT_H
/* Turning pixel planes upright by their EXIF orientation (no library needed; used by Imaging's TurboJPEG path,
 * where each Y/Cb/Cr plane is turned on its own and for the thumbnail's packed RGB, and by the turn in bands). */

/* Writes `src` (sw x sh samples of `bpp` bytes each, rows `sstride` bytes apart) turned upright for EXIF
 * `orientation` 1-8 into `dst` (rows `dstride` bytes apart). The turned picture is sw x sh for 1-4 and
 * sh x sw for 5-8. When `pad_w` x `pad_h` is larger than the turned picture, its last column and last row are
 * repeated out to that size (JPEG encoders read whole blocks). Returns 0, or -1 for arguments that do not fit. */
int cairn_orient_plane(const unsigned char *src, int sw, int sh, int sstride, int bpp, int orientation,
                       unsigned char *dst, int dstride, int pad_w, int pad_h);

#endif
