// OpenSSL's libcrypto, for SHA-256 and SHA-512 only (the ciphers are libsodium's). SQLCipher already
// loads this library into the process.
#include <openssl/evp.h>
#include <openssl/crypto.h>
