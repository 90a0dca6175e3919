import CSodium
import SXCore

/// X25519 from libsodium: XFTP downloads agree a fresh secret per chunk (simplexmq
/// `src/Simplex/FileTransfer/Client.hs` 277-283, `Server.hs` sendServerFile). The secret is the raw
/// shared point (`C.dh'`), which the secret-box stream then runs through HSalsa20 itself
/// (`Crypto/Lazy.hs` `cbInit` = `sbInit_`).
public enum X25519 {
    public static let keyLength = 32

    public struct KeyPair: Sendable {
        public let publicKey: [UInt8]
        public let privateKey: SecretBytes
    }

    public static func generate() -> KeyPair {
        precondition(SodiumRuntime.started)
        let privateKey = SecretBytes(count: keyLength) { SodiumRuntime.randomBytes($0) }
        return KeyPair(publicKey: publicKey(of: privateKey), privateKey: privateKey)
    }

    public static func publicKey(of privateKey: SecretBytes) -> [UInt8] {
        var publicKey = [UInt8](repeating: 0, count: keyLength)
        privateKey.withUnsafeBytes { _ = crypto_scalarmult_base(&publicKey, $0.bindMemory(to: UInt8.self).baseAddress!) }
        return publicKey
    }

    /// The shared secret, or nil for a peer key that gives the all-zero point (a small-order key).
    public static func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) -> SecretBytes? {
        guard peerPublicKey.count == keyLength else { return nil }
        var ok = false
        let secret = SecretBytes(count: keyLength) { out in
            privateKey.withUnsafeBytes { sk in
                ok = crypto_scalarmult(out.bindMemory(to: UInt8.self).baseAddress!, sk.bindMemory(to: UInt8.self).baseAddress!, peerPublicKey) == 0
            }
        }
        return ok ? secret : nil
    }
}
