import CLibSSL
import SXCore

/// An Ed25519 or Ed448 private key in OpenSSL, for TLS certificates and the handshake's signed key.
/// OpenSSL's EVP_PKEY is safe to use from several threads once made (it is only read), hence
/// `@unchecked Sendable`; it is freed with the last reference.
public final class SigningKey: @unchecked Sendable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case ed25519, ed448

        var nid: Int32 { self == .ed25519 ? NID_ED25519 : NID_ED448 }
        public var signedKeyAlgorithm: SignedDHKey.SignatureAlgorithm { self == .ed25519 ? .ed25519 : .ed448 }
    }

    let pkey: OpaquePointer
    public let algorithm: Algorithm

    init(owning pkey: OpaquePointer) throws(OpenSSLFailure) {
        switch EVP_PKEY_get_base_id(pkey) {
        case NID_ED25519: algorithm = .ed25519
        case NID_ED448: algorithm = .ed448
        default:
            EVP_PKEY_free(pkey)
            throw OpenSSLFailure("reading the key (it is neither Ed25519 nor Ed448)")
        }
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    public static func generate(_ algorithm: Algorithm) throws(OpenSSLFailure) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_id(algorithm.nid, nil) else { throw OpenSSLFailure("making a key") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key else { throw OpenSSLFailure("making a key") }
        return try SigningKey(owning: key)
    }

    /// Reads a PEM private key (PKCS#8, as `openssl genpkey` writes it).
    public static func fromPEM(_ pem: [UInt8]) throws(OpenSSLFailure) -> SigningKey {
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw OpenSSLFailure("reading the private key") }
        return try SigningKey(owning: key)
    }

    public func pem() throws(OpenSSLFailure) -> [UInt8] {
        try MemoryBIO.collect("writing the private key") { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) == 1 }
    }

    public func sign(_ message: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLFailure("signing") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, pkey) == 1 else { throw OpenSSLFailure("signing") }
        var length = 0
        var signature = [UInt8](repeating: 0, count: 114)
        length = signature.count
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw OpenSSLFailure("signing") }
        return Array(signature.prefix(length))
    }
}

/// Verifies an Ed25519 or Ed448 signature with an OpenSSL public key.
enum SignatureCheck {
    static func verify(_ signature: [UInt8], of message: [UInt8], key: OpaquePointer) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let ok = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return ok
    }
}

/// A memory BIO's bytes after `write` filled it.
enum MemoryBIO {
    static func collect(_ operation: String, _ write: (OpaquePointer) -> Bool) throws(OpenSSLFailure) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLFailure(operation) }
        defer { BIO_free(bio) }
        guard write(bio) else { throw OpenSSLFailure(operation) }
        var bytes = [UInt8](repeating: 0, count: Int(sxkit_BIO_pending(bio)))
        let read = BIO_read(bio, &bytes, Int32(bytes.count))
        return Array(bytes.prefix(Int(max(read, 0))))
    }
}

extension SigningKey {
    /// The OpenSSL EVP_PKEY, for a TLS context (which takes its own reference).
    public var handle: OpaquePointer { pkey }
}

extension XFTPPublicKey {
    /// Whether `signature` is this Ed25519 or Ed448 key's signature of `message` (OpenSSL). X25519
    /// keys authorise by a DH authenticator, not a signature: false.
    public func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        let nid: Int32
        switch algorithm {
        case .ed25519: nid = NID_ED25519
        case .ed448: nid = NID_ED448
        case .x25519, .x448: return false
        }
        guard let key = EVP_PKEY_new_raw_public_key(nid, nil, raw, raw.count) else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_free(key) }
        return SignatureCheck.verify(signature, of: message, key: key)
    }
}

/// Signing with a raw Ed448 private key (a chunk key from a description), through OpenSSL.
public enum RawSigningKey {
    public static func sign(_ message: [UInt8], ed448 raw: [UInt8]) throws(OpenSSLFailure) -> [UInt8] {
        guard let pkey = EVP_PKEY_new_raw_private_key(NID_ED448, nil, raw, raw.count) else { throw OpenSSLFailure("reading an Ed448 key") }
        return try SigningKey(owning: pkey).sign(message)
    }
}
