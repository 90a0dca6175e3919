import SXCore

/// The key and nonce of one CryptoFile (FORMATS §5/§6). In JSON: `{"fileKey": …, "fileNonce": …}`,
/// base64url with padding; in the chat DB: raw BLOBs.
public struct CryptoFileArgs: Sendable, Codable, Equatable {
    public static let keyLength = 32
    public static let nonceLength = 24

    public let key: SecretBytes
    public let nonce: [UInt8]

    public init(key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == Self.keyLength else { throw CryptoFileError.badArguments("fileKey must be \(Self.keyLength) bytes, got \(key.count)") }
        guard nonce.count == Self.nonceLength else { throw CryptoFileError.badArguments("fileNonce must be \(Self.nonceLength) bytes, got \(nonce.count)") }
        self.key = SecretBytes(key)
        self.nonce = nonce
    }

    /// A fresh random key and nonce from libsodium's CSPRNG; never reused.
    public static func random() -> CryptoFileArgs {
        let key = SecretBytes(count: keyLength) { SodiumRuntime.randomBytes($0) }
        var nonce = [UInt8](repeating: 0, count: nonceLength)
        nonce.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
        return CryptoFileArgs(checkedKey: key, nonce: nonce)
    }

    init(checkedKey: SecretBytes, nonce: [UInt8]) {
        key = checkedKey
        self.nonce = nonce
    }

    enum CodingKeys: String, CodingKey { case fileKey, fileNonce }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let keyText = try c.decode(String.self, forKey: .fileKey)
        let nonceText = try c.decode(String.self, forKey: .fileNonce)
        guard var key = Base64URL.decode(keyText) else { throw CryptoFileError.badArguments("fileKey is not padded base64url") }
        defer { Wipe.array(&key) }
        guard let nonce = Base64URL.decode(nonceText) else { throw CryptoFileError.badArguments("fileNonce is not padded base64url") }
        try self.init(key: key, nonce: nonce)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key.withUnsafeBytes { Base64URL.encode($0) }, forKey: .fileKey)
        try c.encode(Base64URL.encode(nonce), forKey: .fileNonce)
    }

    public static func == (a: CryptoFileArgs, b: CryptoFileArgs) -> Bool {
        a.key.constantTimeEquals(b.key) && a.nonce == b.nonce
    }
}
