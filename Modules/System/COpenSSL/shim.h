// OpenSSL libcrypto for Swift: the EVP cipher API (AES-128-CTR frame crypto)
// and the random number generator (AES keys, IV masks).
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>

#endif
