import Synchronization
import Testing
import SXTestSupport
import SXTransfer
import SXXFTPClient
import SXXFTPServer

/// sxkit's XFTP client, as a relay, against sxkit's XFTP server passes the checks the folder relay
/// passes (XFTP's AUTH standing for both "not found" and "wrong key").
@Suite(.ownThreads) struct XFTPRelayConformanceTests {
    final class Clock: Sendable {
        let now = Mutex<Int64>(1_800_000_000)
        func read() -> Int64 { now.withLock { $0 } }
        func advance(_ seconds: Int64) { now.withLock { $0 += seconds } }
    }

    @Test("sxkit's XFTP server and client pass the relay conformance checks", arguments: RelayConformance.Check.allCases)
    func conformance(check: RelayConformance.Check) async throws {
        let folder = try TempFolder()
        let clock = Clock()
        let server = try await XFTPTestServer(folder: folder) { configuration in configuration.now = { clock.read() } }
        let relay = XFTPChunkRelay(server: server.address)
        let suite = RelayConformance(scratch: folder.path, refusalsAreIndistinct: true, makeRelay: { relay }, expireAll: {
            clock.advance(50 * 3600)
            server.server.sweepExpired()
        })
        #expect(try await suite.run(check))
        await server.stop()
    }
}
