/// The server's X25519 key signed by its TLS certificate's key, as the Haskell `x509` package's
/// `objectToSignedExact` writes a `SignedExact PubKey` (simplexmq `src/Simplex/Messaging/Crypto.hs`
/// 1193-1201 `signX509`, used by `src/Simplex/FileTransfer/Server.hs` 203):
///
///     SEQUENCE {
///       SEQUENCE { SubjectPublicKeyInfo }      the signed bytes: objectToSignedExact wraps toASN1,
///                                              and a PubKey's toASN1 is itself a SEQUENCE
///       SEQUENCE { OID 1.3.101.112 (Ed25519) or 1.3.101.113 (Ed448) }
///       BIT STRING signature
///     }
///
/// SimpleX's TypeScript client reads both the wrapped and a bare SPKI (xftp-web
/// `src/protocol/handshake.ts` 175-220); so does this parser.
public struct SignedDHKey: Sendable, Equatable {
    public enum SignatureAlgorithm: String, Sendable {
        case ed25519, ed448

        var oidLastByte: UInt8 { self == .ed25519 ? 0x70 : 0x71 }
        public var signatureLength: Int { self == .ed25519 ? 64 : 114 }
    }

    /// The bytes the signature covers.
    public var signedObject: [UInt8]
    public var dhKey: XFTPPublicKey
    public var algorithm: SignatureAlgorithm
    public var signature: [UInt8]

    /// The bytes to sign for `dhKey` (the wrapped SPKI).
    public static func objectToSign(_ dhKey: XFTPPublicKey) -> [UInt8] { DER.element(tag: 0x30, dhKey.der) }

    /// Builds the DER from the key and the signature of `objectToSign(dhKey)`.
    public static func encode(dhKey: XFTPPublicKey, algorithm: SignatureAlgorithm, signature: [UInt8]) -> [UInt8] {
        let algorithmId = DER.element(tag: 0x30, [0x06, 0x03, 0x2B, 0x65, algorithm.oidLastByte])
        let bitString = DER.element(tag: 0x03, [0x00] + signature)
        return DER.element(tag: 0x30, objectToSign(dhKey) + algorithmId + bitString)
    }

    public static func parse(_ der: [UInt8]) throws(XFTPWireError) -> SignedDHKey {
        let field = "signed server key"
        var position = 0
        let outer = try DER.read(der, at: &position, field: field)
        guard outer.tag == 0x30, position == der.count else { throw .invalid(field: field, reason: "not one DER SEQUENCE") }
        let inner = Array(outer.content)
        var at = 0
        let object = try DER.read(inner, at: &at, field: field)
        let algorithmId = try DER.read(inner, at: &at, field: field)
        let bits = try DER.read(inner, at: &at, field: field)
        guard object.tag == 0x30, algorithmId.tag == 0x30, bits.tag == 0x03, at == inner.count else {
            throw .invalid(field: field, reason: "not SEQUENCE { object, algorithm, BIT STRING }")
        }
        let algorithm: SignatureAlgorithm
        switch Array(algorithmId.content) {
        case [0x06, 0x03, 0x2B, 0x65, 0x70]: algorithm = .ed25519
        case [0x06, 0x03, 0x2B, 0x65, 0x71]: algorithm = .ed448
        default: throw .invalid(field: field, reason: "the signature algorithm is neither Ed25519 nor Ed448")
        }
        guard bits.content.first == 0, bits.content.count == algorithm.signatureLength + 1 else {
            throw .invalid(field: field, reason: "the signature is not one \(algorithm.rawValue) signature")
        }
        // The SPKI itself, or the SEQUENCE that wraps it.
        var keyDER = Array(object.whole)
        if keyDER.count != XFTPPublicKey.Algorithm.x25519.derPrefix.count + 32 {
            var p = 0
            let spki = try DER.read(Array(object.content), at: &p, field: field)
            guard p == object.content.count else { throw .invalid(field: field, reason: "extra bytes around the key") }
            keyDER = Array(spki.whole)
        }
        let dhKey = try XFTPPublicKey(der: keyDER, expecting: .x25519, field: field)
        return SignedDHKey(signedObject: Array(object.whole), dhKey: dhKey, algorithm: algorithm, signature: Array(bits.content.dropFirst()))
    }
}
