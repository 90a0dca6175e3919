import CLibSSL
import SXCore
import SXCrypto

/// Why a server's certificates do not prove the identity its address names.
public enum ServerIdentityProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyChain
    case chainTooLong(Int)
    /// The identity certificate's SHA-256 is not the address's key hash: another server, or a
    /// machine in the middle.
    case wrongIdentity(expected: String, presented: String)
    case leafNotV3
    case leafNotValidNow
    case issuerMismatch
    case issuerNotValidNow
    case issuerNotAnAuthority
    case badCertificateSignature
    case unreadable(String)
    case badSignedKey(String)

    public var description: String {
        switch self {
        case .emptyChain: "the server presented no certificate chain, or only one certificate"
        case .chainTooLong(let count): "the server presented \(count) certificates; SimpleX servers present 2 to 4"
        case .wrongIdentity(let expected, let presented):
            "the server's identity certificate has fingerprint \(presented), not \(expected) as its address says: it is another server, or the connection is intercepted"
        case .leafNotV3: "the server's TLS certificate is not X.509 version 3"
        case .leafNotValidNow: "the server's TLS certificate is expired or not yet valid"
        case .issuerMismatch: "the server's TLS certificate was not issued by its identity certificate"
        case .issuerNotValidNow: "a certificate between the server's TLS certificate and its identity is expired or not yet valid"
        case .issuerNotAnAuthority: "a certificate between the server's TLS certificate and its identity may not issue certificates"
        case .badCertificateSignature: "the server's TLS certificate is not signed by its identity certificate's key"
        case .unreadable(let reason): "the server's certificate cannot be read: \(reason)"
        case .badSignedKey(let reason): "the server's signed session key is not valid: \(reason)"
        }
    }
}

/// The checks a SimpleX client makes of an XFTP server's chain (simplexmq
/// `src/Simplex/Messaging/Transport/Client.hs` 311-320 `validateCertificateChain`,
/// `Transport/Shared.hs` 27-41 `chainIdCaCerts` and `x509validate`): the identity certificate is the
/// second of the chain, the trust anchor its last; the identity's SHA-256 must be the key hash; then
/// x509-validation's default checks without the host name, with the anchor as the only trusted
/// certificate (x509-validation 1.6 `doCheckChain`): the leaf is v3; from the leaf up, each
/// certificate is valid now and signed by its issuer, which is the anchor when the anchor's subject is
/// its issuer's name, else a certificate of the chain by that name that may issue certificates
/// (`checkCA`: basic constraints CA, key usage allowing certificate signing if it has one, within
/// any path length). The anchor's own extensions and dates are not checked there, so not here either.
/// SimpleX's servers present [leaf, identity]; the longer chains are those `chainIdCaCerts` names
/// (an operator's certificate, a network's).
public enum ServerChainCheck {
    /// Returns the leaf certificate, whose key signs the handshake's session key.
    public static func validate(chain: [[UInt8]], keyHash: [UInt8]) throws(ServerIdentityProblem) -> Certificate {
        switch chain.count {
        case 0, 1: throw .emptyChain
        case 2...4: break
        default: throw .chainTooLong(chain.count)
        }
        let presented = SHA256Digest.of(chain[1])
        guard presented == keyHash else { throw .wrongIdentity(expected: Base64URL.encode(keyHash), presented: Base64URL.encode(presented)) }
        let certificates: [Certificate]
        do { certificates = try chain.map { der throws(OpenSSLFailure) in try Certificate(der: der) } } catch { throw .unreadable(error.description) }
        let leaf = certificates[0], anchor = certificates[certificates.count - 1]
        guard X509_get_version(leaf.x509) == 2 else { throw .leafNotV3 }
        // The certificates the path may still pass through: the chain past the leaf, each used once.
        var candidates = Array(certificates.dropFirst())
        var current = leaf
        for level in 0..<certificates.count {
            guard current.isValidNow else { throw level == 0 ? .leafNotValidNow : .issuerNotValidNow }
            let issuerName = current.issuerNameDER
            if issuerName == anchor.subjectNameDER {
                guard current.isSigned(by: anchor) else { throw .badCertificateSignature }
                return leaf
            }
            guard issuerName != current.subjectNameDER,
                  let found = candidates.firstIndex(where: { $0.subjectNameDER == issuerName }) else {
                throw .issuerMismatch
            }
            let issuer = candidates.remove(at: found)
            guard issuer.mayIssue(atLevel: level) else { throw .issuerNotAnAuthority }
            guard current.isSigned(by: issuer) else { throw .badCertificateSignature }
            current = issuer
        }
        throw .issuerMismatch
    }

    /// Checks the handshake's signed X25519 key against the leaf certificate (simplexmq
    /// `Client.hs` 185 `C.verifyX509`) and returns the key.
    public static func verifySignedKey(_ der: [UInt8], leaf: Certificate) throws(ServerIdentityProblem) -> XFTPPublicKey {
        let signed: SignedDHKey
        do { signed = try SignedDHKey.parse(der) } catch { throw .badSignedKey(error.description) }
        guard leaf.verify(signed.signature, of: signed.signedObject) else { throw .badSignedKey("its signature does not verify with the TLS certificate's key") }
        return signed.dhKey
    }
}

extension Certificate {
    /// Names compared as x509-validation compares them: exactly, as encoded (OpenSSL's
    /// `X509_NAME_cmp` would also match names that differ in case or string type).
    var subjectNameDER: [UInt8] { Self.der(of: X509_get_subject_name(x509)) }
    var issuerNameDER: [UInt8] { Self.der(of: X509_get_issuer_name(x509)) }

    private static func der(of name: OpaquePointer?) -> [UInt8] {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard let name, X509_NAME_get0_der(name, &bytes, &length) == 1, let bytes else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Within its not-before and not-after times (x509-validation `checkExpiry`, `checkFuture`).
    var isValidNow: Bool {
        X509_cmp_current_time(X509_get0_notBefore(x509)) < 0 && X509_cmp_current_time(X509_get0_notAfter(x509)) > 0
    }

    /// x509-validation's `checkCA` for an issuer `level` steps above the leaf's (0 for the leaf's
    /// own): basic constraints with CA true; key usage, if there is one, allowing certificate
    /// signing; a path length, if there is one, of at least `level`.
    func mayIssue(atLevel level: Int) -> Bool {
        let flags = X509_get_extension_flags(x509)
        // An extension OpenSSL could not read (a negative path length among them) is refused, as
        // x509-validation refuses what it cannot parse.
        guard flags & UInt32(EXFLAG_CA) != 0, flags & UInt32(EXFLAG_INVALID) == 0 else { return false }
        if flags & UInt32(EXFLAG_KUSAGE) != 0, X509_get_key_usage(x509) & UInt32(KU_KEY_CERT_SIGN) == 0 { return false }
        let pathLength = X509_get_pathlen(x509)
        return pathLength < 0 || pathLength >= level
    }
}
