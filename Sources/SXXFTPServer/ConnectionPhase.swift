import Synchronization
import SXCore
import SXCrypto
import SXXFTP

/// Where one connection's handshake is (simplexmq `Server.hs` 122-124, 170-236): nothing yet; the
/// server handshake sent with this X25519 key; or accepted at a version.
final class ConnectionPhase: Sendable {
    enum Phase: Sendable {
        case new
        case handshakeSent(X25519.KeyPair)
        case accepted(version: UInt16, key: X25519.KeyPair)
    }

    private let phase = Mutex(Phase.new)

    var current: Phase { phase.withLock { $0 } }

    /// The key of the handshake sent, making one the first time; a repeated hello gets the same key,
    /// and a hello on an accepted session (a browser's) puts it back to waiting for the client's
    /// handshake, with the key it had.
    func keyForHello() -> X25519.KeyPair {
        phase.withLock { phase in
            switch phase {
            case .new:
                let key = X25519.generate()
                phase = .handshakeSent(key)
                return key
            case .handshakeSent(let key):
                return key
            case .accepted(_, let key):
                phase = .handshakeSent(key)
                return key
            }
        }
    }

    func accept(version: UInt16, key: X25519.KeyPair) { phase.withLock { $0 = .accepted(version: version, key: key) } }
}
