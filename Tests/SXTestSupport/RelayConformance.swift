import Foundation
import SXCore
import SXCrypto
import SXTransfer

/// The behaviour every `ChunkRelay` must have, as checks any relay can run: the folder relay's tests
/// run them, and the XFTP client runs the same ones against sxkit's XFTP server on loopback.
///
///     let suite = RelayConformance(scratch: temp.path, makeRelay: { FolderRelay(root: …) }, expireAll: { clock.advance(…) })
///     try await suite.run(.roundTrip)
///
/// Each check throws `RelayConformance.Failure` naming what went wrong.
public struct RelayConformance: Sendable {
    public enum Check: String, CaseIterable, Sendable {
        case roundTrip, roundTripFromMemory, everyRecipientDownloads, wrongRecipientKey, wrongSenderKey, notFoundAfterDelete, deleteIsIdempotent,
             reuploadIsIdempotent, sizeMismatchRefused, digestMismatchRefused, notDownloadableBeforeUpload, unknownIdNotFound,
             oversizedRefused, expired
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ check: Check, _ message: String) { description = "\(check.rawValue): \(message)" }
    }

    /// A folder the checks may write source and downloaded files into.
    public let scratch: String
    public let makeRelay: @Sendable () async throws -> any ChunkRelay
    /// Makes every chunk created so far expire (advance the relay's clock); nil skips `.expired`.
    public let expireAll: (@Sendable () async throws -> Void)?
    /// The largest chunk the relay accepts; `.oversizedRefused` offers one byte more.
    public let maxChunkSize: Int64

    /// The relay refuses an unknown, deleted or expired chunk and a wrong key alike (XFTP's AUTH):
    /// `.accessRefused` then stands for `.wrongKey` and `.chunkNotFound`, and a delete with a wrong key
    /// cannot be told from a delete of a chunk already gone.
    public let refusalsAreIndistinct: Bool

    public init(scratch: String, maxChunkSize: Int64 = 4 << 20, refusalsAreIndistinct: Bool = false,
                makeRelay: @escaping @Sendable () async throws -> any ChunkRelay, expireAll: (@Sendable () async throws -> Void)? = nil) {
        self.scratch = scratch
        self.refusalsAreIndistinct = refusalsAreIndistinct
        self.maxChunkSize = maxChunkSize
        self.makeRelay = makeRelay
        self.expireAll = expireAll
    }

    /// Runs one check; returns false when the check was skipped (no `expireAll` for `.expired`).
    @discardableResult
    public func run(_ check: Check) async throws -> Bool {
        let relay = try await makeRelay()
        let bytes = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let source = Path.join(scratch, "source-\(check.rawValue)")
        // Some padding before the chunk, so offsets are exercised.
        try Data([1, 2, 3] + bytes).write(to: URL(fileURLWithPath: source))
        let request = ChunkCreateRequest(size: Int64(bytes.count), digest: SHA256Digest.of(bytes), senderKey: [], recipientKeys: [])
        /// Creates the chunk with fresh Ed25519 keys (the relay gets the public halves), as a sender does.
        func make(_ request: ChunkCreateRequest = request) async throws -> (sender: ChunkReplica, recipients: [ChunkReplica]) {
            let senderKey = ReplicaKey.generate(), recipientKeys = [ReplicaKey.generate(), ReplicaKey.generate()]
            var request = request
            request.senderKey = senderKey.ed25519PublicKey!
            request.senderPrivateKey = senderKey
            request.recipientKeys = recipientKeys.map { $0.ed25519PublicKey! }
            let created = try await relay.create(request)
            guard created.recipientIds.count == recipientKeys.count else { throw Failure(check, "create returned \(created.recipientIds.count) recipient ids") }
            return (ChunkReplica(id: created.senderId, key: senderKey), zip(created.recipientIds, recipientKeys).map { ChunkReplica(id: $0, key: $1) })
        }
        let out = Path.join(scratch, "out-\(check.rawValue)")
        func fail(_ message: String) -> Failure { Failure(check, message) }
        func expect(_ error: RelayError, _ body: () async throws -> Void) async throws {
            do {
                try await body()
            } catch let thrown as RelayError {
                let indistinct = refusalsAreIndistinct && thrown.isAccessRefused && (error.isWrongKey || error.isGoneFromRelay)
                guard indistinct || Self.sameCase(thrown, error) else { throw fail("expected \(error), got \(thrown)") }
                return
            }
            throw fail("expected \(error), but it succeeded")
        }

        switch check {
        case .roundTrip:
            let created = try await make()
            guard created.sender.id != created.recipients[0].id else { throw fail("create returned the same id twice") }
            // Ids as an XFTP server mints them: 16 random bytes (simplexmq Server/Main.hs 279).
            guard ([created.sender] + created.recipients).allSatisfy({ $0.id.count == 16 }) else { throw fail("ids are not 16 bytes") }
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await relay.download(created.recipients[0], to: out)
            guard try Self.read(out) == bytes else { throw fail("downloaded bytes differ") }
        case .roundTripFromMemory:
            // What a send does: the chunk straight from memory; a wrong size or wrong bytes are refused.
            let created = try await make()
            try await expect(.sizeRejected(relay: "", id: "", size: 0, limit: 0)) { try await relay.upload(created.sender, bytes: Array(bytes.dropLast())) }
            var flipped = bytes
            flipped[100] ^= 1
            try await expect(.digestMismatch(relay: "", id: "")) { try await relay.upload(created.sender, bytes: flipped) }
            try await relay.upload(created.sender, bytes: bytes)
            try await relay.download(created.recipients[1], to: out)
            guard try Self.read(out) == bytes else { throw fail("downloaded bytes differ") }
        case .everyRecipientDownloads:
            let created = try await make()
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            for recipient in created.recipients {
                try await relay.download(recipient, to: out)
                guard try Self.read(out) == bytes else { throw fail("recipient \(recipient.idText) got different bytes") }
            }
        case .wrongRecipientKey:
            let created = try await make()
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await expect(.wrongKey(relay: "", id: "")) {
                try await relay.download(ChunkReplica(id: created.recipients[0].id, key: Self.key()), to: out)
            }
            // Another recipient's key does not open this replica either.
            try await expect(.wrongKey(relay: "", id: "")) {
                try await relay.download(ChunkReplica(id: created.recipients[0].id, key: created.recipients[1].key), to: out)
            }
        case .wrongSenderKey:
            let created = try await make()
            try await expect(.wrongKey(relay: "", id: "")) {
                try await relay.upload(ChunkReplica(id: created.sender.id, key: Self.key()), from: source, offset: 3, length: Int64(bytes.count))
            }
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            if !refusalsAreIndistinct {
                try await expect(.wrongKey(relay: "", id: "")) { try await relay.delete(ChunkReplica(id: created.sender.id, key: Self.key())) }
            }
            try await relay.download(created.recipients[0], to: out)
        case .notFoundAfterDelete:
            let created = try await make()
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await relay.delete(created.sender)
            for recipient in created.recipients {
                try await expect(.chunkNotFound(relay: "", id: "")) { try await relay.download(recipient, to: out) }
            }
        case .deleteIsIdempotent:
            let created = try await make()
            try await relay.delete(created.sender)
            try await relay.delete(created.sender)
        case .reuploadIsIdempotent:
            let created = try await make()
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await relay.download(created.recipients[1], to: out)
            guard try Self.read(out) == bytes else { throw fail("bytes differ after a second upload") }
        case .sizeMismatchRefused:
            let created = try await make()
            try await expect(.sizeRejected(relay: "", id: "", size: 0, limit: 0)) {
                try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count) - 1)
            }
            try await expect(.chunkNotFound(relay: "", id: "")) { try await relay.download(created.recipients[0], to: out) }
        case .digestMismatchRefused:
            let created = try await make()
            try await expect(.digestMismatch(relay: "", id: "")) {
                try await relay.upload(created.sender, from: source, offset: 2, length: Int64(bytes.count))
            }
            // A refused upload is never downloadable.
            try await expect(.chunkNotFound(relay: "", id: "")) { try await relay.download(created.recipients[0], to: out) }
        case .notDownloadableBeforeUpload:
            let created = try await make()
            try await expect(.chunkNotFound(relay: "", id: "")) { try await relay.download(created.recipients[0], to: out) }
        case .unknownIdNotFound:
            try await expect(.chunkNotFound(relay: "", id: "")) {
                try await relay.download(ChunkReplica(id: [UInt8](repeating: 0, count: 16), key: Self.key()), to: out)
            }
            try await expect(.chunkNotFound(relay: "", id: "")) {
                try await relay.download(ChunkReplica(id: Array("../../etc/passwd".utf8), key: Self.key()), to: out)
            }
        case .oversizedRefused:
            var big = request
            big.size = maxChunkSize + 1
            try await expect(.sizeRejected(relay: "", id: "", size: 0, limit: 0)) { _ = try await make(big) }
        case .expired:
            guard let expireAll else { return false }
            let created = try await make()
            try await relay.upload(created.sender, from: source, offset: 3, length: Int64(bytes.count))
            try await expireAll()
            try await expect(.chunkNotFound(relay: "", id: "")) { try await relay.download(created.recipients[0], to: out) }
        }
        return true
    }

    static func key() -> ReplicaKey { ReplicaKey.generate() }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Same enum case, whatever the associated values.
    static func sameCase(_ a: RelayError, _ b: RelayError) -> Bool {
        switch (a, b) {
        case (.chunkNotFound, .chunkNotFound), (.wrongKey, .wrongKey), (.sizeRejected, .sizeRejected), (.digestMismatch, .digestMismatch),
             (.storageFull, .storageFull), (.unavailable, .unavailable), (.protocolError, .protocolError):
            return true
        default:
            return false
        }
    }
}

/// A chunk created the way a sender creates one: fresh Ed25519 keys, the public halves to the relay,
/// the relay's ids paired with the private halves.
public struct CreatedReplicas: Sendable {
    public let sender: ChunkReplica
    public let recipients: [ChunkReplica]
}

extension ChunkRelay {
    public func createWithFreshKeys(size: Int64, digest: [UInt8], recipients: Int = 1) async throws -> CreatedReplicas {
        let senderKey = ReplicaKey.generate()
        let recipientKeys = (0..<recipients).map { _ in ReplicaKey.generate() }
        let created = try await create(ChunkCreateRequest(size: size, digest: digest, senderKey: senderKey.ed25519PublicKey!,
                                                          recipientKeys: recipientKeys.map { $0.ed25519PublicKey! }, senderPrivateKey: senderKey))
        return CreatedReplicas(sender: ChunkReplica(id: created.senderId, key: senderKey),
                               recipients: zip(created.recipientIds, recipientKeys).map { ChunkReplica(id: $0, key: $1) })
    }
}

extension RelayError {
    var isAccessRefused: Bool {
        if case .accessRefused = self { return true }
        return false
    }

    var isWrongKey: Bool {
        if case .wrongKey = self { return true }
        return false
    }
}
