/* GnuTLS (the phone session's certificate, PhoneLink), opened on first use (native_loader.h): libmicrohttpd opens
 * it too, for its TLS daemon. The functions PhoneLink calls, written by scripts/native-stubs.py; the compiler checks
 * each stub against the header (read as CGnuTLS's shim reads it). */
#include "../CGnuTLS/shim.h"
#include "native_loader.h"

#define SONAME "libgnutls.so.30"

int cairn_gnutls_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_privkey_init, (gnutls_x509_privkey_t *key), (key))
CAIRN_NATIVE_STUB_VOID(SONAME, gnutls_x509_privkey_deinit, (gnutls_x509_privkey_t key), (key))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_privkey_generate, (gnutls_x509_privkey_t key, gnutls_pk_algorithm_t algo, unsigned int bits, unsigned int flags), (key, algo, bits, flags))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_privkey_export, (gnutls_x509_privkey_t key, gnutls_x509_crt_fmt_t format, void *output_data, size_t *output_data_size), (key, format, output_data, output_data_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_privkey_import, (gnutls_x509_privkey_t key, const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format), (key, data, format))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_init, (gnutls_x509_crt_t *cert), (cert))
CAIRN_NATIVE_STUB_VOID(SONAME, gnutls_x509_crt_deinit, (gnutls_x509_crt_t cert), (cert))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_version, (gnutls_x509_crt_t crt, unsigned int version), (crt, version))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_serial, (gnutls_x509_crt_t cert, const void *serial, size_t serial_size), (cert, serial, serial_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_activation_time, (gnutls_x509_crt_t cert, time_t act_time), (cert, act_time))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_expiration_time, (gnutls_x509_crt_t cert, time_t exp_time), (cert, exp_time))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_dn, (gnutls_x509_crt_t crt, const char *dn, const char **err), (crt, dn, err))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_key, (gnutls_x509_crt_t crt, gnutls_x509_privkey_t key), (crt, key))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_subject_alt_name, (gnutls_x509_crt_t crt, gnutls_x509_subject_alt_name_t type, const void *data, unsigned int data_size, unsigned int flags), (crt, type, data, data_size, flags))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_key_usage, (gnutls_x509_crt_t crt, unsigned int usage), (crt, usage))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_key_purpose_oid, (gnutls_x509_crt_t cert, const void *oid, unsigned int critical), (cert, oid, critical))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_set_basic_constraints, (gnutls_x509_crt_t crt, unsigned int ca, int pathLenConstraint), (crt, ca, pathLenConstraint))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_sign2, (gnutls_x509_crt_t crt, gnutls_x509_crt_t issuer, gnutls_x509_privkey_t issuer_key, gnutls_digest_algorithm_t dig, unsigned int flags), (crt, issuer, issuer_key, dig, flags))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_export, (gnutls_x509_crt_t cert, gnutls_x509_crt_fmt_t format, void *output_data, size_t *output_data_size), (cert, format, output_data, output_data_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_import, (gnutls_x509_crt_t cert, const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format), (cert, data, format))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_get_fingerprint, (gnutls_x509_crt_t cert, gnutls_digest_algorithm_t algo, void *buf, size_t *buf_size), (cert, algo, buf, buf_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_get_subject_alt_name, (gnutls_x509_crt_t cert, unsigned int seq, void *san, size_t *san_size, unsigned int *critical), (cert, seq, san, san_size, critical))
CAIRN_NATIVE_STUB(SONAME, time_t, gnutls_x509_crt_get_expiration_time, (gnutls_x509_crt_t cert), (cert))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_pubkey_init, (gnutls_pubkey_t *key), (key))
CAIRN_NATIVE_STUB_VOID(SONAME, gnutls_pubkey_deinit, (gnutls_pubkey_t key), (key))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_pubkey_import_x509, (gnutls_pubkey_t key, gnutls_x509_crt_t crt, unsigned int flags), (key, crt, flags))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_pubkey_export, (gnutls_pubkey_t key, gnutls_x509_crt_fmt_t format, void *output_data, size_t *output_data_size), (key, format, output_data, output_data_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_hash_fast, (gnutls_digest_algorithm_t algorithm, const void *text, size_t textlen, void *digest), (algorithm, text, textlen, digest))
CAIRN_NATIVE_STUB(SONAME, const char *, gnutls_strerror, (int error), (error))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_privkey_get_key_id, (gnutls_x509_privkey_t key, unsigned int flags, unsigned char *output_data, size_t *output_data_size), (key, flags, output_data, output_data_size))
CAIRN_NATIVE_STUB(SONAME, int, gnutls_x509_crt_get_key_id, (gnutls_x509_crt_t crt, unsigned int flags, unsigned char *output_data, size_t *output_data_size), (crt, flags, output_data, output_data_size))
CAIRN_NATIVE_STUB(SONAME, const char *, gnutls_check_version, (const char *req_version), (req_version))
