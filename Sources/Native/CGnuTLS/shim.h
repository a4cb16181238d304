#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>

/* GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), which Swift cannot import (a function-like macro): the
 * "bits" gnutls_x509_privkey_generate takes to make an ECDSA key on P-256. */
static inline unsigned int cairn_gnutls_p256_bits(void) { return GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1); }
