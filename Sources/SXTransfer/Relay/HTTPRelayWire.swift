import Foundation
import SXCore

/// The HTTP relay's wire format, shared by its server (`SXRelayServer`) and client (`SXRelayHTTP`) so
/// the two cannot drift apart. Binary fields are base64url with padding, as everywhere in sxkit.
///
///     POST   /chunks        CreateRequest (Ed25519 public keys) → 201 CreateResponse
///     PUT    /chunks/{id}   Authorization: Bearer <sender private key>, body = exactly `size` bytes → 200
///     GET    /chunks/{id}   Authorization: Bearer <recipient private key> → 200, the bytes
///     DELETE /chunks/{id}   Authorization: Bearer <sender private key> → 204
///
/// A private key is the 32-byte Ed25519 seed; the relay derives its public key and compares it with
/// the one given at create. Ids are 16 random bytes (as XFTP servers mint them), base64url padded.
///
/// Errors: 400 malformed, 403 wrong key, 404 not found (never created, deleted, expired, or not yet
/// completely uploaded; the relay does not say which), 413 too large or Content-Length ≠ declared
/// size, 422 digest mismatch, 507 out of space; the body is an ErrorBody.
public enum HTTPRelayWire {
    public static let chunksPath = "chunks"

    /// Ed25519 keys (public at create, private seeds after); digests are SHA-256.
    public static let keyLength = 32
    public static let digestLength = 32
    /// Random bytes in an id: 16, as simplexmq's XFTP server (`Server/Main.hs` 279 `fileIdSize`).
    public static let idLength = 16
    /// Recipients per chunk: bounds the metadata a single create can make the relay store.
    public static let maxRecipients = 64
    /// The largest chunk of FORMATS §7 (4 MiB), the default per-chunk cap of a relay.
    public static let largestChunk: Int64 = 4 * 1024 * 1024

    public struct CreateRequest: Codable, Sendable, Equatable {
        public var size: Int64
        public var digest: String
        public var senderKey: String
        public var recipientKeys: [String]

        public init(size: Int64, digest: String, senderKey: String, recipientKeys: [String]) {
            self.size = size
            self.digest = digest
            self.senderKey = senderKey
            self.recipientKeys = recipientKeys
        }
    }

    public struct CreateResponse: Codable, Sendable, Equatable {
        public var senderId: String
        public var recipientIds: [String]

        public init(senderId: String, recipientIds: [String]) {
            self.senderId = senderId
            self.recipientIds = recipientIds
        }
    }

    /// Every error response's body. `limit` is set on 413 (the size the relay accepts).
    public struct ErrorBody: Codable, Sendable, Equatable {
        public var error: String
        public var limit: Int64?

        public init(error: String, limit: Int64? = nil) {
            self.error = error
            self.limit = limit
        }
    }

    /// True for a string that can be a chunk id: base64url of exactly `idLength` bytes, padded (so an
    /// id can never name a path outside the relay's store).
    public static func isWellFormedId(_ id: String) -> Bool {
        id.utf8.count == (idLength + 2) / 3 * 4 && Base64URL.decode(id)?.count == idLength
    }
}
