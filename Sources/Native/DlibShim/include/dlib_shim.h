#ifndef CAIRN_DLIB_SHIM_H
#define CAIRN_DLIB_SHIM_H
/* A plain C API over dlib's HOG frontal face detector and 68-point shape predictor.
   No C++ exception crosses this boundary: every function catches and reports through `err`. */
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/** Number of landmark points per face (iBUG 300-W scheme). */
#define CAIRN_LANDMARK_COUNT 68

/** One detected face: its box and its 68 points, in the pixel coordinates of the image passed in
    (top-left origin). `score` is the detector's confidence (higher is surer; 0 is its threshold). */
typedef struct cairn_face {
    float left, top, width, height;
    float score;
    float x[CAIRN_LANDMARK_COUNT];
    float y[CAIRN_LANDMARK_COUNT];
} cairn_face;

/** 1 when dlib's library (libdlib, with the LAPACK and BLAS it links) can be opened, 0 when it is not installed.
    It is opened on first use (dlib_stubs.cpp), not linked: check this before `cairn_landmarker_open`, which would
    otherwise end the process when dlib is missing. */
int cairn_dlib_available(void);

/** The version of dlib ("19.24.0") whose templates the shim was compiled from (dlib has no run-time version
    call; the library's name is tied to this version when the shim is compiled). */
const char *cairn_dlib_version(void);

/** An opaque detector: the face detector plus the loaded shape predictor. */
typedef struct cairn_landmarker cairn_landmarker;

/** Loads the face detector and the shape predictor model at `model_path`. With `cache_path` (may be NULL), reads
    both from that cache file when it was made from this model file (its size and modification time), else loads
    them the slow way and writes the cache (best effort: a cache that cannot be written is not an error).
    `*used_cache` (may be NULL) says whether the cache was read. Returns NULL on failure with a message in `err`. */
cairn_landmarker *cairn_landmarker_open(const char *model_path, const char *cache_path, int *used_cache,
                                        char *err, size_t errlen);

/** Finds faces in a row-major RGB buffer (3 bytes per pixel, `width * height * 3` bytes).
    `upsample` (0-2) doubles the image that many times before detection, to find smaller faces.
    Writes up to `max_faces` faces (largest first) and returns how many were found in total
    (may exceed `max_faces`), or -1 on error with a message in `err`. Calls are serialised per handle. */
int cairn_landmarker_detect(cairn_landmarker *handle, const unsigned char *rgb, int width, int height,
                            int upsample, cairn_face *faces, int max_faces, char *err, size_t errlen);

/** Releases the handle (NULL is allowed). */
void cairn_landmarker_close(cairn_landmarker *handle);

#ifdef __cplusplus
}
#endif
#endif
