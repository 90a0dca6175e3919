import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SXCore
import SXTransfer
#if canImport(Glibc)
import Glibc
#endif

/// A ChunkRelay on an `sxkit relay serve` server (see HTTPRelayWire), over AsyncHTTPClient.
///
/// One HTTPClient (with its connection pool) per instance; call `shutdown()` when done (or use
/// `HTTPChunkRelay.with(url:)`, which does) to wait for it to close; dropping the last reference
/// closes it in the background. Uploads are streamed in 256 KiB buffers; a download lands in the
/// caller's buffer (a chunk is at most 4 MiB), so memory per request in flight stays bounded.
///
/// Failures: an HTTP answer becomes the matching RelayError; anything that kept the exchange from
/// completing (connection refused or reset, timeouts) becomes `.unavailable`, which callers retry.
/// Local file problems are thrown as FileSystemError.
public final class HTTPChunkRelay: ChunkRelay {
    public struct Timeouts: Sendable {
        /// Establishing a connection.
        public var connect: Duration
        /// The longest silence while waiting for or reading a response.
        public var idle: Duration
        /// A whole request, body included.
        public var request: Duration

        public init(connect: Duration = .seconds(10), idle: Duration = .seconds(30), request: Duration = .seconds(600)) {
            self.connect = connect
            self.idle = idle
            self.request = request
        }
    }

    /// The relay's base URL, e.g. `http://127.0.0.1:43117` (no trailing slash).
    public let url: String
    public var address: RelayAddress { .sxkit(url) }
    private let timeouts: Timeouts
    private let client: HTTPClient

    static let bufferSize = 256 * 1024
    private static let maxAnswer = 64 * 1024

    /// - Throws: RelayError.protocolError when `url` is not an http:// or https:// URL.
    public init(url: String, timeouts: Timeouts = Timeouts()) throws {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        guard let parsed = URL(string: base), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil,
              parsed.query == nil, parsed.fragment == nil else {
            throw RelayError.protocolError(relay: url, reason: "'\(url)' is not an http:// or https:// relay address")
        }
        self.url = base
        self.timeouts = timeouts
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: TimeAmount(timeouts.connect), read: TimeAmount(timeouts.idle))
        configuration.timeout.write = TimeAmount(timeouts.idle)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the connection pool and waits until it is closed.
    public func shutdown() async {
        try? await client.shutdown()
    }

    deinit {
        // Dropped without shutdown(): close the pool in the background (a second shutdown of an
        // already closed client only reports an error, which is ignored).
        client.shutdown { _ in }
    }

    /// Runs `body` with a relay that is shut down afterwards, however `body` ends.
    public static func with<T: Sendable>(url: String, timeouts: Timeouts = Timeouts(),
                                         _ body: (HTTPChunkRelay) async throws -> T) async throws -> T {
        let relay = try HTTPChunkRelay(url: url, timeouts: timeouts)
        do {
            let result = try await body(relay)
            await relay.shutdown()
            return result
        } catch {
            await relay.shutdown()
            throw error
        }
    }

    // MARK: ChunkRelay

    public func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk {
        let wire = HTTPRelayWire.CreateRequest(
            size: request.size, digest: Base64URL.encode(request.digest),
            senderKey: Base64URL.encode(request.senderKey), recipientKeys: request.recipientKeys.map { Base64URL.encode($0) })
        var http = HTTPClientRequest(url: chunksURL())
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(wire)))
        let answer = try await exchange(http, id: "(new)", size: request.size)
        guard answer.status == 201 || answer.status == 200,
              let created = try? JSONDecoder().decode(HTTPRelayWire.CreateResponse.self, from: Data(answer.body.readableBytesView)),
              created.recipientIds.count == request.recipientKeys.count,
              ([created.senderId] + created.recipientIds).allSatisfy(HTTPRelayWire.isWellFormedId) else {
            throw RelayError.protocolError(relay: url, reason: "unexpected answer to a chunk create (HTTP \(answer.status))")
        }
        return CreatedChunk(senderId: Base64URL.decode(created.senderId)!, recipientIds: created.recipientIds.map { Base64URL.decode($0)! })
    }

    public func upload(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) async throws {
        // Check the range first, so a local problem is reported as one and not as a relay failure.
        let status = try POSIXFile.status(file)
        guard offset >= 0, length > 0, offset + length <= Int64(status.st_size) else {
            throw FileSystemError("read \(length) bytes at offset \(offset) from", path: file, code: EINVAL)
        }
        var http = try request(for: sender, method: .PUT)
        http.headers.add(name: "Content-Type", value: "application/octet-stream")
        http.body = .stream(FileRangeBytes(path: file, offset: offset, length: length, bufferSize: Self.bufferSize),
                            length: .known(length))
        let answer = try await exchange(http, id: sender.idText, size: length)
        guard answer.status == 200 || answer.status == 204 else {
            throw RelayError.protocolError(relay: url, reason: "unexpected answer to an upload (HTTP \(answer.status))")
        }
    }

    public func upload(_ sender: ChunkReplica, bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { throw RelayError.sizeRejected(relay: url, id: sender.idText, size: 0, limit: HTTPRelayWire.largestChunk) }
        var http = try request(for: sender, method: .PUT)
        http.headers.add(name: "Content-Type", value: "application/octet-stream")
        http.body = .stream(MemoryBytes(bytes: bytes, bufferSize: Self.bufferSize), length: .known(Int64(bytes.count)))
        let answer = try await exchange(http, id: sender.idText, size: Int64(bytes.count))
        guard answer.status == 200 || answer.status == 204 else {
            throw RelayError.protocolError(relay: url, reason: "unexpected answer to an upload (HTTP \(answer.status))")
        }
    }

    public func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws {
        let http = try request(for: recipient, method: .GET)
        let response: HTTPClientResponse
        do { response = try await client.execute(http, timeout: TimeAmount(timeouts.request)) } catch { throw transportFailure(error) }
        guard response.status.code == 200 else {
            let body = try? await response.body.collect(upTo: Self.maxAnswer)
            throw failure(status: Int(response.status.code), body: body, id: recipient.idText, size: 0)
        }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init), length > Int64(buffer.capacity) {
            throw RelayError.sizeRejected(relay: url, id: recipient.idText, size: length, limit: Int64(buffer.capacity))
        }
        buffer.removeAll()
        do {
            for try await piece in response.body {
                let fits = piece.withUnsafeReadableBytes { buffer.append($0) }
                guard fits else {
                    throw RelayError.sizeRejected(relay: url, id: recipient.idText, size: Int64(buffer.count + piece.readableBytes),
                                                  limit: Int64(buffer.capacity))
                }
            }
        } catch {
            throw transportFailure(error)
        }
    }

    public func delete(_ sender: ChunkReplica) async throws {
        let answer = try await exchange(try request(for: sender, method: .DELETE), id: sender.idText, size: 0)
        // 404: already deleted or expired, which is what was asked for.
        guard answer.status == 204 || answer.status == 200 || answer.status == 404 else {
            throw RelayError.protocolError(relay: url, reason: "unexpected answer to a delete (HTTP \(answer.status))")
        }
    }

    // MARK: Exchanges

    private func chunksURL(_ id: String? = nil) -> String {
        url + "/" + HTTPRelayWire.chunksPath + (id.map { "/" + $0 } ?? "")
    }

    private func request(for replica: ChunkReplica, method: HTTPMethod) throws -> HTTPClientRequest {
        // An id from a description goes into a URL path: refuse anything that is not an id.
        guard HTTPRelayWire.isWellFormedId(replica.idText) else {
            throw RelayError.chunkNotFound(relay: url, id: replica.idText)
        }
        guard replica.key.algorithm == .ed25519 else { throw RelayError.wrongKey(relay: url, id: replica.idText) }
        var http = HTTPClientRequest(url: chunksURL(replica.idText))
        http.method = method
        // The private key itself, which the relay checks against the public key it was given.
        http.headers.add(name: "Authorization", value: "Bearer " + Base64URL.encode(replica.key.raw))
        return http
    }

    /// Sends `request` and reads a small answer; a 404 on DELETE counts as success (already gone).
    private func exchange(_ request: HTTPClientRequest, id: String, size: Int64) async throws -> (status: Int, body: ByteBuffer) {
        let status: Int, body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeouts.request))
            status = Int(response.status.code)
            body = try await response.body.collect(upTo: Self.maxAnswer)
        } catch {
            throw transportFailure(error)
        }
        if (200..<300).contains(status) || (status == 404 && request.method == .DELETE) { return (status, body) }
        throw failure(status: status, body: body, id: id, size: size)
    }

    private func failure(status: Int, body: ByteBuffer?, id: String, size: Int64) -> RelayError {
        let answer = body.flatMap { try? JSONDecoder().decode(HTTPRelayWire.ErrorBody.self, from: Data($0.readableBytesView)) }
        switch status {
        case 404: return .chunkNotFound(relay: url, id: id)
        case 401, 403: return .wrongKey(relay: url, id: id)
        case 413: return .sizeRejected(relay: url, id: id, size: size, limit: answer?.limit ?? 0)
        case 422: return .digestMismatch(relay: url, id: id)
        case 507: return .storageFull(relay: url)
        case 408, 429, 500...599:
            return .unavailable(relay: url, reason: "HTTP \(status)" + (answer.map { ": \($0.error)" } ?? ""))
        default:
            return .protocolError(relay: url, reason: "HTTP \(status)" + (answer.map { ": \($0.error)" } ?? ""))
        }
    }

    /// What went wrong below HTTP, as a retryable RelayError (local file errors pass through).
    private func transportFailure(_ error: any Error) -> any Error {
        if error is RelayError || error is FileSystemError || error is CancellationError { return error }
        let text = String(describing: error)
        let reason = text.localizedCaseInsensitiveContains("refused") ? "connection refused"
            : text.localizedCaseInsensitiveContains("timeout") ? "timed out"
            : ErrorCause.text(of: error)
        return RelayError.unavailable(relay: url, reason: reason)
    }
}
