import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import SXCore
import SXCrypto
import SXRelayHTTP
import SXTestSupport
import SXTransfer
@testable import SXRelayServer

/// A clock tests move forward to expire chunks without waiting.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func now() -> Date { current.withLock { $0 } }
    func advance(seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A relay server running in this process on a free loopback port, and a client for it.
final class RunningRelay: Sendable {
    let server: RelayServer
    let url: String
    let client: HTTPChunkRelay
    let clock: TestClock
    private let task: Task<Void, any Error>

    var store: String { server.storePath }

    static func start(store: String, clock: TestClock = TestClock(), expiry: Duration = .seconds(3600),
                      sweepInterval: Duration = .seconds(3600), maxChunkSize: Int64 = HTTPRelayWire.largestChunk,
                      maxStoreSize: Int64 = 1 << 30) async throws -> RunningRelay {
        let configuration = RelayServerConfiguration(
            host: "127.0.0.1", port: 0, store: store, expiry: expiry, sweepInterval: sweepInterval,
            maxChunkSize: maxChunkSize, maxStoreSize: maxStoreSize, now: { clock.now() })
        let server = try RelayServer(configuration: configuration)
        let (addresses, continuation) = AsyncStream<String>.makeStream()
        let task = Task { try await server.run { continuation.yield($0) } }
        var iterator = addresses.makeAsyncIterator()
        guard let url = await iterator.next() else { throw CancellationError() }
        return RunningRelay(server: server, url: url, clock: clock, task: task,
                            client: try HTTPChunkRelay(url: url, timeouts: testTimeouts))
    }

    /// Generous: in a parallel run, synchronous tests of other suites can hold every cooperative
    /// thread of this process for minutes, and neither the in-process server nor the code reading a
    /// response (the client stops reading the socket until it does) can run meanwhile. The connect
    /// timeout stays short: a refused connection is retried by the client until it expires.
    static let testTimeouts = HTTPChunkRelay.Timeouts(connect: .seconds(3), idle: .seconds(1800), request: .seconds(3600))

    private init(server: RelayServer, url: String, clock: TestClock, task: Task<Void, any Error>, client: HTTPChunkRelay) {
        self.server = server
        self.url = url
        self.clock = clock
        self.task = task
        self.client = client
    }

    /// Stops the server abruptly (open connections are dropped) and waits until it is down.
    func stopServer() async {
        task.cancel()
        _ = try? await task.value
    }

    func stop() async {
        await stopServer()
        await client.shutdown()
    }

    /// A raw request, for what the client never sends (no listing, bad ids, lying lengths).
    func raw(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
             declaredLength: Int64? = nil) async throws -> (status: Int, body: String) {
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { _ = http.shutdown() as EventLoopFuture<Void> }
        var request = HTTPClientRequest(url: url + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            let chunks = AsyncStream<ByteBuffer> { continuation in
                continuation.yield(ByteBuffer(bytes: body))
                continuation.finish()
            }
            request.body = .stream(chunks, length: declaredLength.map { .known($0) } ?? .unknown)
        }
        do {
            let response = try await http.execute(request, timeout: .seconds(300))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), String(buffer: bytes))
        }
    }
}

/// One chunk's worth of test material: bytes in a file, its digest, fresh keys.
struct TestChunk {
    let path: String
    let bytes: [UInt8]
    let request: ChunkCreateRequest
    let recipients: Int

    init(folder: TempFolder, name: String, size: Int, seed: UInt64, recipients: Int = 1) throws {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        bytes = (0..<size).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return UInt8(truncatingIfNeeded: x)
        }
        path = try folder.write(name, bytes)
        self.recipients = recipients
        // Keys are made at each create (see `create(on:)`); the request's are placeholders for a raw create.
        request = ChunkCreateRequest(size: Int64(size), digest: SHA256Digest.of(bytes),
                                     senderKey: randomKey().ed25519PublicKey!, recipientKeys: (0..<recipients).map { _ in randomKey().ed25519PublicKey! })
    }

    /// Creates the chunk on `relay` with fresh keys, as a sender does.
    func create(on relay: any ChunkRelay) async throws -> CreatedReplicas {
        try await relay.createWithFreshKeys(size: request.size, digest: request.digest, recipients: recipients)
    }
}

func randomKey() -> ReplicaKey { ReplicaKey.generate() }

/// Every regular file below `folder`, recursively.
func filesBelow(_ folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var files: [String] = []
    while let name = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let path = folder + "/" + name
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
    }
    return files
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
