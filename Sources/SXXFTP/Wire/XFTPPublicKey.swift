/// A public key as XFTP carries it: the DER of its X.509 SubjectPublicKeyInfo (RFC 8410), inside a
/// ByteString (simplexmq `src/Simplex/Messaging/Crypto.hs` 550-570 `instance Encoding APublicAuthKey`,
/// `APublicDhKey` = `smpEncode . encodePubKey`; 605-606 `encodePubKey` = the X.509 `PubKey`'s DER).
/// Chunk keys are Ed25519 (sender, recipients), download keys X25519; server certificates may also
/// be Ed448 (SimpleX's default for new servers, `Server/Main.hs` 375-381).
public struct XFTPPublicKey: Sendable, Hashable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case ed25519, x25519, ed448, x448

        /// RFC 8410: SEQUENCE { SEQUENCE { OID 1.3.101.x }, BIT STRING (0 unused bits) key }.
        var derPrefix: [UInt8] {
            switch self {
            case .ed25519: [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
            case .x25519: [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00]
            case .ed448: [0x30, 0x43, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x71, 0x03, 0x3A, 0x00]
            case .x448: [0x30, 0x42, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6F, 0x03, 0x39, 0x00]
            }
        }

        public var keyLength: Int {
            switch self {
            case .ed25519, .x25519: 32
            case .ed448: 57
            case .x448: 56
            }
        }
    }

    public let algorithm: Algorithm
    public let raw: [UInt8]

    public init(_ algorithm: Algorithm, raw: [UInt8]) {
        precondition(raw.count == algorithm.keyLength)
        self.algorithm = algorithm
        self.raw = raw
    }

    public static func ed25519(_ raw: [UInt8]) -> XFTPPublicKey { XFTPPublicKey(.ed25519, raw: raw) }
    public static func x25519(_ raw: [UInt8]) -> XFTPPublicKey { XFTPPublicKey(.x25519, raw: raw) }

    public var der: [UInt8] { algorithm.derPrefix + raw }

    /// Parses the DER of one of the four key types; anything else is refused.
    public init(der: [UInt8]) throws(XFTPWireError) {
        guard let algorithm = Algorithm.allCases.first(where: { der.count == $0.derPrefix.count + $0.keyLength && der.starts(with: $0.derPrefix) }) else {
            throw .invalid(field: "public key", reason: "not the DER of an Ed25519, X25519, Ed448 or X448 key")
        }
        self.init(algorithm, raw: Array(der.dropFirst(algorithm.derPrefix.count)))
    }

    /// Parses and requires one algorithm.
    public init(der: [UInt8], expecting algorithm: Algorithm, field: String) throws(XFTPWireError) {
        let key: XFTPPublicKey
        do { key = try XFTPPublicKey(der: der) } catch { throw .invalid(field: field, reason: "not the DER of an \(algorithm.rawValue) key") }
        guard key.algorithm == algorithm else { throw .invalid(field: field, reason: "an \(key.algorithm.rawValue) key where \(algorithm.rawValue) is required") }
        self = key
    }

    /// An authorisation key (`APublicAuthKey`): Ed25519, Ed448 or X25519, not X448 (simplexmq
    /// `Crypto.hs` 481-486).
    public init(authKey der: [UInt8]) throws(XFTPWireError) {
        let key = try XFTPPublicKey(der: der)
        guard key.algorithm != .x448 else { throw .invalid(field: "authorisation key", reason: "X448 keys do not authorise commands") }
        self = key
    }
}
