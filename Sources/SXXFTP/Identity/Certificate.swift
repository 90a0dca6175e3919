import CLibSSL
import SXCore
import SXCrypto

/// An X.509 certificate in OpenSSL, kept with its DER. Read-only once made, hence `@unchecked Sendable`.
public final class Certificate: @unchecked Sendable {
    let x509: OpaquePointer
    public let der: [UInt8]

    init(owning x509: OpaquePointer) throws(OpenSSLFailure) {
        self.x509 = x509
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else {
            X509_free(x509)
            throw OpenSSLFailure("encoding a certificate")
        }
        der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        CRYPTO_free(out, #fileID, #line)
    }

    deinit { X509_free(x509) }

    public convenience init(der: [UInt8]) throws(OpenSSLFailure) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw OpenSSLFailure("reading a certificate") }
        try self.init(owning: parsed)
    }

    public static func fromPEM(_ pem: [UInt8]) throws(OpenSSLFailure) -> Certificate {
        let parsed: OpaquePointer? = pem.withUnsafeBytes { bytes in
            let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else { throw OpenSSLFailure("reading a certificate") }
        return try Certificate(owning: parsed)
    }

    public func pem() throws(OpenSSLFailure) -> [UInt8] {
        try MemoryBIO.collect("writing a certificate") { PEM_write_bio_X509($0, x509) == 1 }
    }

    /// The SHA-256 of the DER: an XFTP server's key hash when this is its identity certificate
    /// (simplexmq `Crypto.hs` `signedFingerprint`, `getFingerprint … HashSHA256`).
    public var fingerprint: [UInt8] { SHA256Digest.of(der) }

    /// Verifies an Ed25519/Ed448 signature with this certificate's public key.
    public func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let key = X509_get0_pubkey(x509) else { return false }
        return SignatureCheck.verify(signature, of: message, key: key)
    }

    /// Issues a certificate for `key`, signed by `issuerKey` (self-signed when `issuer` is nil), as
    /// simplexmq's `createServerX509` has openssl make them (`src/Simplex/Messaging/Server/CLI.hs`
    /// 151-198): X.509 v3, valid for 999,999 days, the CA with `basicConstraints = critical,CA:true`
    /// and key identifiers, the server with `CA:FALSE`, `digitalSignature, nonRepudiation,
    /// keyAgreement` and `serverAuth`.
    static func issue(subject: [(String, String)], key: SigningKey, issuer: Certificate?, issuerKey: SigningKey, isCA: Bool) throws(OpenSSLFailure) -> Certificate {
        guard let x509 = X509_new() else { throw OpenSSLFailure("making a certificate") }
        var serial = [UInt8](repeating: 0, count: 16)
        serial.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
        serial[0] &= 0x7F
        let built: Bool = {
            guard X509_set_version(x509, 2) == 1 else { return false }
            let bn = BN_bin2bn(serial, Int32(serial.count), nil)
            defer { BN_free(bn) }
            guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509)) != nil else { return false }
            guard X509_gmtime_adj(X509_getm_notBefore(x509), 0) != nil,
                  X509_time_adj_ex(X509_getm_notAfter(x509), 999_999, 0, nil) != nil else { return false }
            guard let name = X509_NAME_new() else { return false }
            defer { X509_NAME_free(name) }
            for (field, value) in subject {
                guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, value, -1, -1, 0) == 1 else { return false }
            }
            guard X509_set_subject_name(x509, name) == 1,
                  X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.x509) } ?? name) == 1,
                  X509_set_pubkey(x509, key.pkey) == 1 else { return false }
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, issuer?.x509 ?? x509, x509, nil, nil, 0)
            let extensions: [(Int32, String)] = isCA
                ? [(NID_subject_key_identifier, "hash"), (NID_authority_key_identifier, "keyid:always"), (NID_basic_constraints, "critical,CA:true")]
                : [(NID_basic_constraints, "CA:FALSE"), (NID_key_usage, "digitalSignature,nonRepudiation,keyAgreement"), (NID_ext_key_usage, "serverAuth")]
            for (nid, value) in extensions {
                guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { return false }
                defer { X509_EXTENSION_free(ext) }
                guard X509_add_ext(x509, ext, -1) == 1 else { return false }
            }
            return X509_sign(x509, issuerKey.pkey, nil) > 0
        }()
        guard built else {
            X509_free(x509)
            throw OpenSSLFailure("making a certificate")
        }
        return try Certificate(owning: x509)
    }
}

extension Certificate {
    /// Whether `issuer`'s key signed this certificate.
    public func isSigned(by issuer: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.x509) else { return false }
        defer { ERR_clear_error() }
        return X509_verify(x509, key) == 1
    }
}

extension Certificate {
    /// The certificate's SubjectPublicKeyInfo DER.
    public var publicKeyDER: [UInt8]? {
        guard let key = X509_get0_pubkey(x509) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}

extension Certificate {
    /// The OpenSSL X509, for a TLS context (which takes its own reference).
    public var handle: OpaquePointer { x509 }
}
