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
/// x509-validation's default checks without the host name: the leaf is v3 and valid now, its issuer
/// is the anchor's subject, and the anchor's key signed it. (The anchor's own extensions and dates
/// are not checked there, so not here either.)
public enum ServerChainCheck {
    /// Returns the leaf certificate, whose key signs the handshake's session key.
    public static func validate(chain: [[UInt8]], keyHash: [UInt8]) throws(ServerIdentityProblem) -> Certificate {
        let identityIndex: Int, anchorIndex: Int
        switch chain.count {
        case 0, 1: throw .emptyChain
        case 2: (identityIndex, anchorIndex) = (1, 1)
        case 3: (identityIndex, anchorIndex) = (1, 2)
        case 4: (identityIndex, anchorIndex) = (1, 3)
        default: throw .chainTooLong(chain.count)
        }
        let presented = SHA256Digest.of(chain[identityIndex])
        guard presented == keyHash else { throw .wrongIdentity(expected: Base64URL.encode(keyHash), presented: Base64URL.encode(presented)) }
        let leaf: Certificate, anchor: Certificate
        do {
            leaf = try Certificate(der: chain[0])
            anchor = try Certificate(der: chain[anchorIndex])
        } catch {
            throw .unreadable(error.description)
        }
        guard X509_get_version(leaf.x509) == 2 else { throw .leafNotV3 }
        guard X509_cmp_current_time(X509_get0_notBefore(leaf.x509)) < 0, X509_cmp_current_time(X509_get0_notAfter(leaf.x509)) > 0 else {
            throw .leafNotValidNow
        }
        guard X509_NAME_cmp(X509_get_issuer_name(leaf.x509), X509_get_subject_name(anchor.x509)) == 0 else { throw .issuerMismatch }
        guard let anchorKey = X509_get0_pubkey(anchor.x509), X509_verify(leaf.x509, anchorKey) == 1 else {
            ERR_clear_error()
            throw .badCertificateSignature
        }
        return leaf
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

