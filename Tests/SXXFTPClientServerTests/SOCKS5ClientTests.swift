import CSodium
import Foundation
import NIOCore
import NIOEmbedded
@testable import SXXFTPClient
import Testing
import SXTestSupport

/// The SOCKS5 client: its bytes against RFC 1928 / RFC 1929 written out by hand, the isolation
/// username against libsodium's SHA-256 and Foundation's base64, and the handler's exchange with a
/// scripted proxy on an embedded channel.
@Suite(.ownThreads)
struct SOCKS5ClientTests {
    static let credentials = SOCKSCredentials(username: Array("user".utf8), password: [])!

    @Test func messagesAreTheRFCsBytes() throws {
        #expect(SOCKS5Messages.greeting(credentials: nil) == [0x05, 0x01, 0x00])
        #expect(SOCKS5Messages.greeting(credentials: Self.credentials) == [0x05, 0x01, 0x02])
        #expect(SOCKS5Messages.authentication(Self.credentials) == [0x01, 0x04, 0x75, 0x73, 0x65, 0x72, 0x00])
        let withPassword = SOCKSCredentials(username: [0x61], password: [0x62, 0x63])!
        #expect(SOCKS5Messages.authentication(withPassword) == [0x01, 0x01, 0x61, 0x02, 0x62, 0x63])
        // CONNECT, domain "a.onion", port 443.
        #expect(throws: SOCKSFailure.unusableTarget(String(repeating: "a", count: 256))) {
            try SOCKS5Messages.connect(host: String(repeating: "a", count: 256), port: 443)
        }
        #expect(try SOCKS5Messages.connect(host: "a.onion", port: 443) == [0x05, 0x01, 0x00, 0x03, 0x07, 0x61, 0x2E, 0x6F, 0x6E, 0x69, 0x6F, 0x6E, 0x01, 0xBB])
        #expect(SOCKSCredentials(username: [], password: []) == nil)
        #expect(SOCKSCredentials(username: [UInt8](repeating: 0x61, count: 256), password: []) == nil)
    }

    @Test func repliesAreMeasuredByTheirAddressType() throws {
        #expect(try SOCKS5Messages.methodReply([0x05][...]) == .incomplete)
        #expect(try SOCKS5Messages.methodReply([0x05, 0x02][...]) == .complete(length: 2, code: 2))
        #expect(throws: SOCKSFailure.notSOCKS5) { try SOCKS5Messages.methodReply([0x04, 0x00][...]) }
        #expect(try SOCKS5Messages.authenticationReply([0x01, 0x01][...]) == .complete(length: 2, code: 1))
        let ipv4: [UInt8] = [0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90]
        #expect(try SOCKS5Messages.connectReply(ipv4[...].dropLast()) == .incomplete)
        #expect(try SOCKS5Messages.connectReply(ipv4[...]) == .complete(length: 10, code: 0))
        let ipv6: [UInt8] = [0x05, 0x05, 0x00, 0x04] + [UInt8](repeating: 0, count: 16) + [0x00, 0x50]
        #expect(try SOCKS5Messages.connectReply(ipv6[...]) == .complete(length: 22, code: 5))
        let domain: [UInt8] = [0x05, 0x00, 0x00, 0x03, 0x03, 0x61, 0x62, 0x63, 0x00, 0x50]
        #expect(try SOCKS5Messages.connectReply(domain[...]) == .complete(length: 10, code: 0))
        #expect(throws: SOCKSFailure.malformed("a bound address of type 9")) { try SOCKS5Messages.connectReply([0x05, 0x00, 0x00, 0x09, 0x00][...]) }
    }

    @Test func theIsolationUsernameIsBase64OfTheSessionsSHA256() {
        let session = Array("session token".utf8)
        var digest = [UInt8](repeating: 0, count: 32)
        #expect(crypto_hash_sha256(&digest, session, UInt64(session.count)) == 0)
        #expect(SOCKSProxy.isolationUsername(session: session) == Data(digest).base64EncodedString())
        #expect(SOCKSProxy.isolationUsername(session: session).count == 44)
        let proxy = SOCKSProxy("127.0.0.1:9050")!
        #expect(proxy.authentication == .isolateByAuth)
        #expect(proxy.credentials(session: session) == SOCKSCredentials(username: Array(Data(digest).base64EncodedString().utf8), password: []))
        // One run, one username; another session, another.
        #expect(proxy.credentials() == proxy.credentials())
        #expect(proxy.credentials() != proxy.credentials(session: session))
        #expect(SOCKSProxy("@127.0.0.1:9050")?.credentials() == nil)
    }

    @Test func proxyAddressesAreParsedAsSimpleXWritesThem() {
        #expect(SOCKSProxy("127.0.0.1:9050") == SOCKSProxy(host: "127.0.0.1", port: 9050, authentication: .isolateByAuth))
        #expect(SOCKSProxy("@[::1]:9150") == SOCKSProxy(host: "::1", port: 9150, authentication: .none))
        #expect(SOCKSProxy("@[::1]:9150")?.description == "@[::1]:9150")
        // Credentials would be a secret on the command line; malformed addresses are refused.
        for bad in ["user:pass@127.0.0.1:9050", "@", "@:9050", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "tor"] {
            #expect(SOCKSProxy(bad) == nil, "\(bad)")
        }
    }

    /// The whole exchange with a scripted proxy: greeting, authentication, CONNECT; writes made
    /// meanwhile (a TLS hello) are held until the proxy has connected, and bytes the proxy sends
    /// after its reply reach the next handler.
    @Test func theHandlerAuthenticatesConnectsThenStepsAside() throws {
        let channel = EmbeddedChannel()
        let handler = SOCKS5ClientHandler(host: "example.onion", port: 443, credentials: Self.credentials)
        try channel.pipeline.syncOperations.addHandler(handler)
        let connected = handler.connected
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9050)).wait()
        #expect(try outbound(channel) == [0x05, 0x01, 0x02])
        let held = channel.writeAndFlush(ByteBuffer(bytes: [0x16, 0x03, 0x01]))
        #expect(try outbound(channel) == nil, "a write before the proxy connected went out")
        try channel.writeInbound(ByteBuffer(bytes: [0x05, 0x02]))
        #expect(try outbound(channel) == [0x01, 0x04, 0x75, 0x73, 0x65, 0x72, 0x00])
        try channel.writeInbound(ByteBuffer(bytes: [0x01, 0x00]))
        #expect(try outbound(channel) == [0x05, 0x01, 0x00, 0x03, 0x0D] + Array("example.onion".utf8) + [0x01, 0xBB])
        // The reply, split, with the server's first bytes behind it.
        try channel.writeInbound(ByteBuffer(bytes: [0x05, 0x00, 0x00, 0x01, 127]))
        #expect(try outbound(channel) == nil)
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 1, 0x1F, 0x90, 0xAA, 0xBB]))
        #expect(try outbound(channel) == [0x16, 0x03, 0x01])
        #expect(throws: Never.self) { try held.wait() }
        #expect(try channel.readInbound(as: ByteBuffer.self).map { Array($0.readableBytesView) } == [0xAA, 0xBB])
        #expect(throws: Never.self) { try connected.wait() }
        // Gone from the pipeline: what follows passes untouched.
        try channel.writeAndFlush(ByteBuffer(bytes: [0x01])).wait()
        #expect(try outbound(channel) == [0x01])
        _ = try channel.finish()
    }

    @Test(arguments: [
        ([0x05, 0xFF] as [UInt8], SOCKSFailure.noAcceptableMethod(offered: 2)),
        ([0x05, 0x02, 0x01, 0x01], SOCKSFailure.credentialsRefused),
        ([0x05, 0x02, 0x01, 0x00, 0x05, 0x04, 0x00, 0x01, 0, 0, 0, 0, 0, 0], SOCKSFailure.connectRefused(code: 4)),
    ])
    func aRefusalFailsWithItsReasonAndClosesTheChannel(answers: [UInt8], failure: SOCKSFailure) throws {
        let channel = EmbeddedChannel()
        let handler = SOCKS5ClientHandler(host: "example.onion", port: 443, credentials: Self.credentials)
        try channel.pipeline.syncOperations.addHandler(handler)
        let connected = handler.connected
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9050)).wait()
        let held = channel.writeAndFlush(ByteBuffer(bytes: [0x16]))
        try channel.writeInbound(ByteBuffer(bytes: answers))
        #expect(throws: failure) { try connected.wait() }
        #expect(throws: failure) { try held.wait() }
        #expect(!channel.isActive)
        #expect(failure.description.hasPrefix("it "))
    }

    @Test func aProxyThatHangsUpIsNamedAsSuch() throws {
        let channel = EmbeddedChannel()
        let handler = SOCKS5ClientHandler(host: "example.onion", port: 443, credentials: nil)
        try channel.pipeline.syncOperations.addHandler(handler)
        let connected = handler.connected
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9050)).wait()
        #expect(try outbound(channel) == [0x05, 0x01, 0x00])
        try channel.close().wait()
        #expect(throws: SOCKSFailure.malformed("nothing before the connection closed")) { try connected.wait() }
    }

    private func outbound(_ channel: EmbeddedChannel) throws -> [UInt8]? {
        var all: [UInt8]?
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { all = (all ?? []) + Array(buffer.readableBytesView) }
        return all
    }
}
