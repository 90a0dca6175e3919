import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
import SXCore
import SXTestSupport
import SXXFTP
@testable import SXXFTPTransport

/// The sessions a server's connections reported.
final class SessionLog: Sendable {
    let sessions = Mutex<[TLSSession]>([])
    var first: TLSSession? { sessions.withLock { $0.first } }
}

/// Echoes what it reads, and keeps the session its TLS handler reported.
private final class EchoHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let log: SessionLog

    init(log: SessionLog) { self.log = log }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let session = event as? TLSSession { log.sessions.withLock { $0.append(session) } }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// Collects what it reads until `expected` bytes arrived.
private final class CollectHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let expected: Int
    var bytes: [UInt8] = []
    let done: EventLoopPromise<[UInt8]>

    init(expected: Int, done: EventLoopPromise<[UInt8]>) {
        self.expected = expected
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
        if bytes.count >= expected { done.succeed(bytes) }
    }
}

@Suite(.ownThreads) struct TLSHandlerTests {
    final class Server: Sendable {
        let channel: any Channel
        let sessions = SessionLog()
        let identity: ServerIdentity
        var port: Int { channel.localAddress!.port! }

        init(algorithm: SigningKey.Algorithm) async throws {
            identity = try ServerIdentity.create(commonName: "127.0.0.1", algorithm: algorithm).identity
            let context = try TLSContext.server(identity: identity)
            let sessions = self.sessions
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(TLSHandler(context: context))
                        try child.pipeline.syncOperations.addHandler(EchoHandler(log: sessions))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        func stop() async throws { try await channel.close() }
    }

    @Test(arguments: SigningKey.Algorithm.allCases)
    func bothEndsAgreeOnTheSessionAndTheServerIdentity(algorithm: SigningKey.Algorithm) async throws {
        let server = try await Server(algorithm: algorithm)
        let clientContext = try TLSContext.client()
        let payload = (0..<100_000).map { UInt8($0 % 251) }
        let group = MultiThreadedEventLoopGroup.singleton
        let done = group.next().makePromise(of: [UInt8].self)
        let tls = FutureBox()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try TLSHandler(context: clientContext)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    tls.set(handler.established)
                    try channel.pipeline.syncOperations.addHandler(CollectHandler(expected: payload.count, done: done))
                }
            }
            .connect(host: "127.0.0.1", port: server.port).get()
        // Written before the handshake is done: held, then sent.
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: payload))
        let session = try await tls.get().get()
        #expect(try await done.futureResult.get().prefix(payload.count) == payload[...])
        #expect(session.alpn == TLSContext.xftpALPN)
        #expect(session.tlsUnique.count == 32)
        let leaf = try ServerChainCheck.validate(chain: session.peerChain, keyHash: server.identity.keyHash)
        #expect(leaf.der == server.identity.certificate.der)
        try await channel.close()
        let serverSession = try #require(server.sessions.first)
        #expect(serverSession.tlsUnique == session.tlsUnique)
        #expect(serverSession.alpn == TLSContext.xftpALPN)
        try await server.stop()
    }

    /// Python's ssl module, an independent TLS client on OpenSSL, reports the same tls-unique
    /// (RFC 5929: the first Finished of a full handshake, the client's) as sxkit's server computes.
    @Test func tlsUniqueMatchesPythonsChannelBinding() async throws {
        let server = try await Server(algorithm: .ed448)
        let script = """
        import socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.set_alpn_protocols(["xftp/1"])
        with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as raw:
            with context.wrap_socket(raw) as tls:
                tls.sendall(b"ping")
                tls.recv(4)
                print(tls.get_channel_binding("tls-unique").hex(), tls.selected_alpn_protocol(), tls.version(), tls.cipher()[0])
        """
        let printed = try Self.python(script, arguments: [String(server.port)])
        let fields = printed.split(separator: " ").map(String.init)
        try #require(fields.count >= 4)
        let serverSession = try #require(server.sessions.first)
        #expect(fields[0] == Hex.encode(serverSession.tlsUnique))
        #expect(fields[1] == "xftp/1")
        #expect(fields[2] == "TLSv1.3")
        try await server.stop()
    }

    /// What the server chooses for each list a client offers, asked by Python's ssl module: simplexmq's
    /// preference, xftp/1, then h2, then http/1.1 (`Server/Main.hs` 319), which SimpleX's native clients
    /// offer alone for servers on the web port (`FileTransfer/Client.hs` 136); nothing for a list
    /// without any of them.
    @Test func theServerChoosesAsSimplexmqDoes() async throws {
        let server = try await Server(algorithm: .ed25519)
        let script = """
        import socket, ssl, sys
        for offer in sys.argv[2:]:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            context.set_alpn_protocols(offer.split(","))
            with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as raw:
                with context.wrap_socket(raw) as tls:
                    tls.sendall(b"ping")
                    tls.recv(4)
                    print(offer, tls.selected_alpn_protocol())
        """
        let offers = ["http/1.1", "h2,http/1.1", "http/1.1,h2,xftp/1", "xftp/1", "spdy/3"]
        let printed = try Self.python(script, arguments: [String(server.port)] + offers)
        #expect(printed.split(separator: "\n").map(String.init) == [
            "http/1.1 http/1.1", "h2,http/1.1 h2", "http/1.1,h2,xftp/1 xftp/1", "xftp/1 xftp/1", "spdy/3 None",
        ], "\(printed)")
        try await server.stop()
    }

    /// What a Python script prints (its exit status expected 0).
    static func python(_ script: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return printed
    }
}

final class FutureBox: Sendable {
    private let future = Mutex<EventLoopFuture<TLSSession>?>(nil)
    func set(_ value: EventLoopFuture<TLSSession>) { future.withLock { $0 = value } }
    func get() -> EventLoopFuture<TLSSession> { future.withLock { $0! } }
}
