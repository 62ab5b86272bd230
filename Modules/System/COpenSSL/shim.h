// OpenSSL libcrypto for Swift: the EVP cipher API (AES-128-CTR frame crypto)
// and the random number generator (AES keys, IV masks).
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>

// Initialises libcrypto without its atexit() cleanup: a process that exits
// while a media thread still encrypts would otherwise have the library's
// locks freed under that thread (OpenSSL: OPENSSL_INIT_NO_ATEXIT exists for
// "applications which have threads that may still be running at exit").
static inline int copenssl_init_without_atexit(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

#endif
