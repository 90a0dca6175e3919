import SXCore
import SXCrypto

/// The private key that grants the use of one chunk on a relay: an `APrivateAuthKey` in SimpleX's
/// terms, written in file descriptions as base64url of its DER PKCS#8 `OneAsymmetricKey`
/// (simplexmq `src/Simplex/Messaging/Crypto.hs` `encodePrivKey`, 1489-1497). SimpleX always makes
/// Ed25519 keys (48 bytes of DER: the prefix `302e020100300506032b657004220420` and the 32-byte
/// seed, 64 base64url characters starting `MC4CAQAwBQYDK2VwBCIEI`); its parser also takes X25519
/// and Ed448 auth keys (`Crypto.hs` 481-493, 1504-1537), which are kept as they are.
public struct ReplicaKey: Sendable, Hashable, CustomStringConvertible {
    public enum Algorithm: String, Sendable, CaseIterable {
        case ed25519, x25519, ed448

        /// The DER of a private key is this prefix and the raw key (RFC 8410, no attributes, no public key).
        var derPrefix: [UInt8] {
            switch self {
            case .ed25519: [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
            case .x25519: [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x04, 0x22, 0x04, 0x20]
            case .ed448: [0x30, 0x47, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x71, 0x04, 0x3B, 0x04, 0x39]
            }
        }

        var rawLength: Int { self == .ed448 ? 57 : 32 }
    }

    public let algorithm: Algorithm
    /// The raw private key (for Ed25519, the 32-byte seed).
    public let raw: [UInt8]

    /// A fresh Ed25519 key, as SimpleX's clients make for every chunk replica.
    public static func generate() -> ReplicaKey { ReplicaKey(algorithm: .ed25519, raw: Ed25519.randomSeed()) }

    public static func ed25519(seed: [UInt8]) -> ReplicaKey {
        precondition(seed.count == Ed25519.seedLength)
        return ReplicaKey(algorithm: .ed25519, raw: seed)
    }

    private init(algorithm: Algorithm, raw: [UInt8]) {
        self.algorithm = algorithm
        self.raw = raw
    }

    /// Parses DER; nil when it is not one of the three private keys in its plain RFC 8410 form.
    public init?(der: [UInt8]) {
        guard let algorithm = Algorithm.allCases.first(where: { der.count == $0.derPrefix.count + $0.rawLength && der.starts(with: $0.derPrefix) }) else {
            return nil
        }
        self.init(algorithm: algorithm, raw: Array(der.dropFirst(algorithm.derPrefix.count)))
    }

    public var der: [UInt8] { algorithm.derPrefix + raw }

    /// The description form: base64url of the DER, padded (Ed25519 needs no padding).
    public var text: String { Base64URL.encode(der) }

    /// The Ed25519 public key the relay keeps for the chunk (nil for other algorithms).
    public var ed25519PublicKey: [UInt8]? { algorithm == .ed25519 ? Ed25519.publicKey(seed: raw) : nil }

    /// Never the key itself.
    public var description: String { "\(algorithm.rawValue) key" }
}
