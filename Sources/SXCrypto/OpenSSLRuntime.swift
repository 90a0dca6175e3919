import CLibCrypto

/// OpenSSL's process-wide state, kept until the process ends.
///
/// By default OpenSSL 3 frees that state from an atexit handler (`OPENSSL_cleanup`), which runs when
/// the main thread calls `exit` while other threads may still be using it: an event loop closing a
/// TLS connection, a digest on a worker thread. State freed under another thread corrupts the heap,
/// and the process aborts at its very end (`malloc_consolidate(): unaligned fastbin chunk
/// detected`, seen once in `make stress` and once in 50 concurrent receives, each after the file was
/// in place). The operating system reclaims the memory anyway.
public enum OpenSSLRuntime {
    /// Must come before any other OpenSSL call (OpenSSL's `OPENSSL_init_crypto`: options other than
    /// the defaults take effect only on the first initialisation). True when OpenSSL took it.
    @discardableResult
    public static func keepStateUntilExit() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
