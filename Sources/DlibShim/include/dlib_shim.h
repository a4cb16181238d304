#ifndef CAIRN_DLIB_SHIM_H
#define CAIRN_DLIB_SHIM_H
/* A plain C API over dlib's face detector and 68-point shape predictor (placeholder until it lands). */
#ifdef __cplusplus
extern "C" {
#endif
int cairn_dlib_version(void);
#ifdef __cplusplus
}
#endif
#endif
