import CSodium

/// SimpleX's secret box computed straight from libsodium, without any of sxkit's stream code: the
/// independent reference the tests compare sxkit's output with.
///
/// SimpleX (simplexmq `Crypto/Lazy.hs` `sbInit_`; `xftp-web/src/crypto/secretbox.ts` `sbInit`):
/// K1 = HSalsa20(K, 16 zero bytes), then NaCl's secretbox with K1; the 16-byte tag goes after the
/// ciphertext instead of before it. sxkit before 0.2.0 used K itself (`earlierSxkit`).
public enum IndependentSecretBox {
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], earlierSxkit: Bool = false) -> [UInt8] {
        precondition(sodium_init() >= 0 && key.count == 32 && nonce.count == 24)
        let boxKey = earlierSxkit ? key : hsalsa20Zero(key)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        _ = crypto_secretbox_detached(&ciphertext, &tag, plaintext, UInt64(plaintext.count), nonce, boxKey)
        return ciphertext + tag
    }

    /// The plaintext of `sealed` (ciphertext, then the tag), or nil when the tag does not match.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], earlierSxkit: Bool = false) -> [UInt8]? {
        precondition(sodium_init() >= 0 && key.count == 32 && nonce.count == 24)
        guard sealed.count >= 16 else { return nil }
        let boxKey = earlierSxkit ? key : hsalsa20Zero(key)
        let ciphertext = Array(sealed.dropLast(16)), tag = Array(sealed.suffix(16))
        var plain = [UInt8](repeating: 0, count: ciphertext.count)
        guard crypto_secretbox_open_detached(&plain, ciphertext, tag, UInt64(ciphertext.count), nonce, boxKey) == 0 else { return nil }
        return plain
    }

    /// HSalsa20(key, 16 zero bytes).
    public static func hsalsa20Zero(_ key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_core_hsalsa20(&out, [UInt8](repeating: 0, count: 16), key, nil)
        return out
    }

    /// An X25519 key pair (public, secret).
    public static func x25519KeyPair() -> (public: [UInt8], secret: [UInt8]) {
        var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 32)
        _ = crypto_box_keypair(&pk, &sk)
        return (pk, sk)
    }

    /// The raw X25519 shared secret (what SimpleX calls `DhSecretX25519`).
    public static func dhSecret(publicKey: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_scalarmult(&out, secretKey, publicKey)
        return out
    }

    /// NaCl's `crypto_box` with the DH of the two keys, tag moved last: what `cbInit` must equal.
    public static func boxSeal(_ plaintext: [UInt8], publicKey: [UInt8], secretKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var shared = [UInt8](repeating: 0, count: 32)
        _ = crypto_box_beforenm(&shared, publicKey, secretKey)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        _ = crypto_box_detached_afternm(&ciphertext, &tag, plaintext, UInt64(plaintext.count), nonce, shared)
        return ciphertext + tag
    }
}
