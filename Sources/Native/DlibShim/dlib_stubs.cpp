// dlib, opened on first use (native_loader.h). The shim's dlib code is templates, compiled into the shim itself;
// what they call of dlib's compiled library is listed here, each a stub that looks the function up in libdlib the
// first time it is called (with LAPACK and BLAS, which libdlib links, and `cairn_native_symbol` searches too).
// Linked instead, libdlib and its 10 dependencies (LAPACK, BLAS, gfortran, libpng, libjpeg...) cost every cairn
// process the dynamic loader's time, for the one command that finds faces.
//
// The link checks this list: a function the shim calls and no stub defines is an undefined symbol (libdlib is
// not on the link line). When it fails after a change to the shim, add the function here.
#include "dlib_shim.h"

#include <dlib/matrix/lapack/gesdd.h>
#include <dlib/matrix/lapack/gesvd.h>
#include <dlib/matrix/matrix_blas_bindings.h>
#include <dlib/revision.h>

#include "native_loader.h"

#define SONAME "libdlib.so.19.1"
// Debian names dlib 19.24's library libdlib.so.19.1; another dlib has another name.
static_assert(DLIB_MAJOR_VERSION == 19 && DLIB_MINOR_VERSION == 24, "dlib's soname changed: update SONAME");

extern "C" int cairn_dlib_available(void) { return cairn_native_available(SONAME); }

#define CAIRN_DLIB_STRING(x) #x
#define CAIRN_DLIB_VERSION(major, minor, patch) CAIRN_DLIB_STRING(major) "." CAIRN_DLIB_STRING(minor) "." CAIRN_DLIB_STRING(patch)
extern "C" const char *cairn_dlib_version(void) {
    return CAIRN_DLIB_VERSION(DLIB_MAJOR_VERSION, DLIB_MINOR_VERSION, DLIB_PATCH_VERSION);
}

// LAPACK and BLAS, as dlib's headers declare them (the compiler checks each stub against that declaration).
namespace dlib { namespace blas_bindings { extern "C" {
CAIRN_NATIVE_STUB_VOID(SONAME, cblas_dgemm,
    (const CBLAS_ORDER Order, const CBLAS_TRANSPOSE TransA, const CBLAS_TRANSPOSE TransB, const CBLAS_INT_TYPE M,
     const CBLAS_INT_TYPE N, const CBLAS_INT_TYPE K, const double alpha, const double *A, const CBLAS_INT_TYPE lda,
     const double *B, const CBLAS_INT_TYPE ldb, const double beta, double *C, const CBLAS_INT_TYPE ldc),
    (Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
}}}
namespace dlib { namespace lapack { namespace binding { extern "C" {
CAIRN_NATIVE_STUB_VOID(SONAME, dgesvd_,
    (const char *jobu, const char *jobvt, const integer *m, const integer *n, double *a, const integer *lda,
     double *s, double *u, const integer *ldu, double *vt, const integer *ldvt, double *work, const integer *lwork,
     integer *info),
    (jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info))
CAIRN_NATIVE_STUB_VOID(SONAME, dgesdd_,
    (char const *jobz, const integer *m, const integer *n, double *a, const integer *lda, double *s, double *u,
     const integer *ldu, double *vt, const integer *ldvt, double *work, const integer *lwork, integer *iwork,
     integer *info),
    (jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info))
}}}}

// dlib's own compiled functions: only `get_frontal_face_detector()` calls them (it decodes and decompresses the
// detector built into dlib's header). They are C++ members, so each stub is named by its mangled symbol, the name
// the shim's code calls (which fixes the parameter types); `self` is the object (`this`), references are
// pointers, as the Itanium C++ ABI passes them.
extern "C" {
#define CAIRN_DLIB_MEMBER(ret, symbol, params, args) \
    ret symbol params; \
    CAIRN_NATIVE_STUB(SONAME, ret, symbol, params, args)
#define CAIRN_DLIB_MEMBER_VOID(symbol, params, args) \
    void symbol params; \
    CAIRN_NATIVE_STUB_VOID(SONAME, symbol, params, args)

// dlib::base64::base64(), ~base64(), and decode(std::istream&, std::ostream&) const.
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib6base64C1Ev, (void *self), (self))
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib6base64D1Ev, (void *self), (self))
CAIRN_DLIB_MEMBER_VOID(_ZNK4dlib6base646decodeERSiRSo, (const void *self, void *in, void *out), (self, in, out))
// dlib::entropy_decoder_kernel_2::entropy_decoder_kernel_2(), ~entropy_decoder_kernel_2(),
// set_stream(std::istream&), decode(uint32 low, uint32 high) and get_target(uint32 total) (returns uint32).
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib24entropy_decoder_kernel_2C1Ev, (void *self), (self))
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib24entropy_decoder_kernel_2D1Ev, (void *self), (self))
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib24entropy_decoder_kernel_210set_streamERSi, (void *self, void *in), (self, in))
CAIRN_DLIB_MEMBER_VOID(_ZN4dlib24entropy_decoder_kernel_26decodeEjj, (void *self, uint32_t low, uint32_t high),
                       (self, low, high))
CAIRN_DLIB_MEMBER(uint32_t, _ZN4dlib24entropy_decoder_kernel_210get_targetEj, (void *self, uint32_t total),
                  (self, total))
}
