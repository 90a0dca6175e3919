import Foundation
import SXCore
import SXCrypto

/// What the relay keeps about one chunk, on disk as `meta/<senderId>.json` (0600). Keys themselves
/// are never stored: only their SHA-256, which is enough to check a presented key.
struct ChunkRecord: Codable, Sendable, Equatable {
    struct Recipient: Codable, Sendable, Equatable {
        var id: String
        /// base64url(SHA-256(key)).
        var keyHash: String
    }

    var senderId: String
    var senderKeyHash: String
    var recipients: [Recipient]
    var size: Int64
    /// base64url(SHA-256 of the chunk's bytes), as declared by the sender.
    var digest: String
    var created: Date

    static func keyHash(_ key: [UInt8]) -> String {
        Base64URL.encode(SHA256Digest.of(key))
    }

    /// Compares the hash of `presented` with a stored hash without an early exit, so the time taken
    /// says nothing about how many leading bytes matched.
    static func keyMatches(_ presented: [UInt8], storedHash: String) -> Bool {
        let candidate = Array(keyHash(presented).utf8), stored = Array(storedHash.utf8)
        guard candidate.count == stored.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<candidate.count { difference |= candidate[i] ^ stored[i] }
        return difference == 0
    }
}

/// Why the store refused a request; the routes turn each into an HTTP status.
enum StoreFailure: Error, Equatable {
    case badRequest(String)
    case notFound
    case wrongKey
    /// Bigger than the relay's per-chunk cap.
    case tooLarge(limit: Int64)
    /// The bytes offered are not the size declared at create.
    case sizeMismatch(declared: Int64)
    case lengthRequired
    case digestMismatch
    case full
    case io(String)
}
