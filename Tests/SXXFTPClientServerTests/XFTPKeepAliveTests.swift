import Foundation
import NIOCore
import Testing
import SXTestSupport
@testable import SXXFTPClient

/// The client's connections carry TCP keep-alive as SimpleX's clients set it (30 s idle, 15 s
/// between probes, 4 probes), read back from the kernel: a peer that vanishes is found out.
@Suite(.ownThreads) struct XFTPKeepAliveTests {
    @Test func aConnectionKeepsItselfAliveAsSimpleXsClientsDo() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address)
        let channel = connection.channel
        #expect(try await channel.getOption(.socketOption(.so_keepalive)).get() != 0)
        #expect(try await channel.getOption(KeepAlive.idle).get() == 30)
        #expect(try await channel.getOption(KeepAlive.interval).get() == 15)
        #expect(try await channel.getOption(KeepAlive.count).get() == 4)
        await connection.close()
        await server.stop()
    }
}
