// OpenSSL's libssl and its X.509 code, for XFTP's TLS 1.3 (SimpleX servers use Ed448 certificates,
// which BoringSSL does not have) and the tls-unique session id (SSL_get_finished, SSL_get_peer_finished).
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

// Macros Swift cannot import.
static inline long sxkit_BIO_pending(BIO *bio) { return BIO_ctrl_pending(bio); }
static inline int sxkit_SSL_CTX_set_min_tls13(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION); }
static inline int sxkit_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) { return (int)SSL_CTX_add1_chain_cert(ctx, cert); }
static inline int sxkit_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return (int)SSL_CTX_set1_groups_list(ctx, list); }
static inline int sxkit_SSL_CTX_set1_sigalgs_list(SSL_CTX *ctx, const char *list) { return (int)SSL_CTX_set1_sigalgs_list(ctx, list); }
static inline int sxkit_SSL_set_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline void sxkit_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void sxkit_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }

// A server presenting another certificate to clients that send SNI (browsers), as simplexmq's
// servers present their HTTPS credentials (Transport/Server.hs `supportedTLSServerParams`): the
// connection moves to `arg`'s context, which holds that certificate, when a server name came.
static int sxkit_sni_switch(SSL *ssl, int *alert, void *arg) {
    (void)alert;
    if (arg != NULL && SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) != NULL && SSL_set_SSL_CTX(ssl, (SSL_CTX *)arg) == NULL) {
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    return SSL_TLSEXT_ERR_OK;
}
static inline void sxkit_SSL_CTX_switch_on_sni(SSL_CTX *ctx, SSL_CTX *web) {
    SSL_CTX_set_tlsext_servername_callback(ctx, sxkit_sni_switch);
    SSL_CTX_set_tlsext_servername_arg(ctx, web);
}
