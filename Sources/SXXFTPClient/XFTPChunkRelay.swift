import SXCore
import SXCrypto
import SXTransfer
import SXXFTP

/// An XFTP server as a `ChunkRelay`: create is FNEW, upload FPUT, download FGET (then FACK), delete
/// FDEL. One connection per server, shared by every chunk in flight (HTTP/2 streams run side by side),
/// opened again after it fails.
public final class XFTPChunkRelay: ChunkRelay {
    public let server: XFTPServerAddress
    public var address: RelayAddress { .xftp(server) }
    private let connections: ConnectionHolder
    public init(server: XFTPServerAddress, proxy: SOCKSProxy? = nil) {
        self.server = server
        connections = ConnectionHolder(server: server, proxy: proxy)
    }

    private var name: String { XFTPConnection.name(server) }

    /// Runs `body` on the connection, mapping failures to `RelayError` and dropping a connection that failed.
    private func use<R: Sendable>(id: String, _ body: @Sendable (XFTPConnection) async throws -> R) async throws -> R {
        let connection: XFTPConnection
        do { connection = try await connections.get() } catch { throw relayError(error, id: id) }
        do {
            return try await body(connection)
        } catch {
            let mapped = relayError(error, id: id)
            if (mapped as? RelayError)?.isTransient == true { await connections.drop(connection) }
            throw mapped
        }
    }

    private func relayError(_ error: any Error, id: String) -> any Error {
        guard let error = error as? XFTPClientError else { return error }
        switch error {
        case .refused(_, let code):
            switch code {
            case .auth: return RelayError.accessRefused(relay: name, id: id)
            case .noFile: return RelayError.chunkNotFound(relay: name, id: id)
            case .size: return RelayError.sizeRejected(relay: name, id: id, size: 0, limit: ChunkPlan.largestChunkSize)
            case .digest: return RelayError.digestMismatch(relay: name, id: id)
            case .quota: return RelayError.storageFull(relay: name)
            case .timeout, .internal, .fileIO, .session: return RelayError.unavailable(relay: name, reason: error.description)
            default: return RelayError.protocolError(relay: name, reason: error.description)
            }
        case .unreachable(_, let reason): return RelayError.unavailable(relay: name, reason: "cannot connect: \(reason)")
        case .timedOut(_, let seconds): return RelayError.unavailable(relay: name, reason: "no answer within \(seconds) seconds")
        case .wrongIdentity, .handshake, .badResponse, .needsProxy: return RelayError.protocolError(relay: name, reason: error.description)
        }
    }

    public func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk {
        guard request.size > 0, request.size <= Int64(UInt32.max) else {
            throw RelayError.sizeRejected(relay: name, id: "(new)", size: request.size, limit: ChunkPlan.largestChunkSize)
        }
        guard request.senderKey.count == 32, request.recipientKeys.allSatisfy({ $0.count == 32 }), !request.recipientKeys.isEmpty else {
            throw RelayError.protocolError(relay: name, reason: "a chunk needs Ed25519 public keys and at least one recipient")
        }
        guard let senderKey = request.senderPrivateKey, senderKey.ed25519PublicKey == request.senderKey else {
            throw RelayError.protocolError(relay: name, reason: "FNEW must be signed by the sender's private key")
        }
        let basicAuth = server.basicAuth.map { Array($0.utf8) }
        let created = try await use(id: "(new)") { connection in
            try await connection.create(size: UInt32(request.size), digest: request.digest, senderKey: senderKey,
                                        recipientKeys: request.recipientKeys.map { .ed25519($0) }, basicAuth: basicAuth)
        }
        return CreatedChunk(senderId: created.senderId, recipientIds: created.recipientIds)
    }

    public func upload(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) async throws {
        let id = sender.idText
        try await use(id: id) { connection in
            try await connection.upload(senderId: sender.id, senderKey: sender.key, .file(path: file, offset: offset, length: length))
        }
    }

    public func upload(_ sender: ChunkReplica, bytes: [UInt8]) async throws {
        try await use(id: sender.idText) { connection in
            try await connection.upload(senderId: sender.id, senderKey: sender.key, .bytes(bytes))
        }
    }

    public func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws {
        try await use(id: recipient.idText) { connection in
            try await connection.download(recipientId: recipient.id, recipientKey: recipient.key, into: buffer)
        }
    }

    /// FACK, once the whole file is received and verified.
    public func acknowledge(_ recipient: ChunkReplica) async throws {
        try await use(id: recipient.idText) { connection in
            try await connection.acknowledge(recipientId: recipient.id, recipientKey: recipient.key)
        }
    }

    public func delete(_ sender: ChunkReplica) async throws {
        do {
            try await use(id: sender.idText) { connection in try await connection.delete(senderId: sender.id, senderKey: sender.key) }
        } catch RelayError.accessRefused {
            // Already deleted or expired (or the wrong key: XFTP does not say which): nothing left to do.
        }
    }
}

/// The one connection to a server, opened on first use and again after it closes.
actor ConnectionHolder {
    let server: XFTPServerAddress
    let proxy: SOCKSProxy?
    private var connection: XFTPConnection?
    private var opening: Task<XFTPConnection, any Error>?

    init(server: XFTPServerAddress, proxy: SOCKSProxy?) {
        self.server = server
        self.proxy = proxy
    }

    func get() async throws -> XFTPConnection {
        if let connection, connection.isActive { return connection }
        if let opening { return try await opening.value }
        let server = self.server, proxy = self.proxy
        let task = Task { try await XFTPConnection.open(server, proxy: proxy) }
        opening = task
        defer { opening = nil }
        let opened = try await task.value
        connection = opened
        return opened
    }

    func drop(_ failed: XFTPConnection) async {
        if connection === failed { connection = nil }
        await failed.close()
    }
}
