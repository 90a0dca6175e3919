import Foundation
import NIOCore
import NIOPosix
import Testing
import SXCore
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPClient
import SXXFTPTransport

/// A server that completes TLS with a sound identity and then fails the XFTP handshake: by closing
/// the connection (a restart), which is the network failing and worth another try, or by saying
/// nothing, which the connect's deadline ends (the silence limit starts only once the connection is up).
@Suite(.ownThreads) struct XFTPHandshakeCutTests {
    enum Behaviour: Sendable { case closes, saysNothing }

    /// What the server does with the first bytes of HTTP/2 it gets.
    final class CutHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let behaviour: Behaviour
        init(_ behaviour: Behaviour) { self.behaviour = behaviour }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if behaviour == .closes { context.close(promise: nil) }
        }
    }

    struct CuttingServer {
        let channel: any Channel
        let address: XFTPServerAddress

        init(_ behaviour: Behaviour) async throws {
            let identity = try ServerIdentity.create(commonName: "127.0.0.1", algorithm: .ed25519).identity
            let context = try TLSContext.server(identity: identity)
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(TLSHandler(context: context))
                        try child.pipeline.syncOperations.addHandler(CutHandler(behaviour))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(channel.localAddress?.port)
            address = try XFTPServerAddress.parse("xftp://\(Base64URL.encode(identity.keyHash))@127.0.0.1:\(port)").get()
        }
    }

    /// What `open` threw, as its `XFTPClientError` case and message.
    private func openFailure(_ address: XFTPServerAddress, timeoutSeconds: Int, silenceLimit: Duration) async -> String {
        do {
            let connection = try await XFTPConnection.open(address, timeoutSeconds: timeoutSeconds, silenceLimit: silenceLimit)
            await connection.close()
            return "connected"
        } catch let error as XFTPClientError {
            switch error {
            case .unreachable: return "unreachable: \(error)"
            case .timedOut: return "timedOut: \(error)"
            default: return "other: \(error)"
            }
        } catch {
            return "not an XFTPClientError: \(error)"
        }
    }

    @Test func aServerThatClosesDuringTheHandshakeIsUnreachable() async throws {
        let server = try await CuttingServer(.closes)
        let outcome = await openFailure(server.address, timeoutSeconds: 20, silenceLimit: .seconds(60))
        #expect(outcome.hasPrefix("unreachable: ") && outcome.contains("the connection closed during the handshake"), "\(outcome)")
        try await server.channel.close()
    }

    @Test func theSilenceLimitLeavesTheHandshakeToTheConnectDeadline() async throws {
        let server = try await CuttingServer(.saysNothing)
        let started = ContinuousClock.now
        let outcome = await openFailure(server.address, timeoutSeconds: 3, silenceLimit: .seconds(1))
        #expect(outcome.hasPrefix("timedOut: "), "\(outcome)")
        #expect(ContinuousClock.now - started >= .seconds(3))
        try await server.channel.close()
    }
}
