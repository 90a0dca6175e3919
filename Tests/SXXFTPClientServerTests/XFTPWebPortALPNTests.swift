import Foundation
import Testing
import SXTestSupport
import SXTransfer
@testable import SXXFTPClient

/// The preset operators' servers are reached as SimpleX's apps reach them by default, offering ALPN
/// `http/1.1` (simplexmq `FileTransfer/Client.hs` 136, `Messaging/Client.hs` 721-730); other servers
/// are offered `xftp/1` (`FileTransfer/Transport.hs` 111).
@Suite(.ownThreads) struct XFTPWebPortALPNTests {
    private func address(_ text: String) throws -> XFTPServerAddress { try XFTPServerAddress.parse(text).get() }

    @Test func theDecisionFollowsTheAddresssFirstHost() throws {
        for preset in XFTPPresets.servers { #expect(XFTPConnection.reachedAsWebSite(try address(preset)), "\(preset)") }
        let key = "da1aH3nOT-9G8lV7bWamhxpDYdJ1xmW7j3JpGaDR5Ug="
        #expect(XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@xftp1.simplexonflux.com:5443")))
        // By suffix with the dot, as `isPresetDomain` matches the apps' `presetDomains`; the first
        // host decides, even when an onion one is used.
        #expect(XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@a.b.simplex.im")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@files.mysimplex.im")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@simplex.im")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@files.example.org,xftp1.simplex.im")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@blisztokwh6alt5oem45f2eksm2xdowxszmhjesntcyolmhutoon7sid.onion,xftp1.simplex.im")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@127.0.0.1:5443")))
        #expect(!XFTPConnection.reachedAsWebSite(try address("xftp://\(key)@simplex.im.example.org")))
    }

    @Test func aConnectionOfferingOnlyHTTP11CompletesTheHandshake() async throws {
        let server = try await XFTPTestServer()
        let connection = try await withDeadline(seconds: 20, onTimeout: { XFTPClientError.timedOut(server: "test", seconds: 20) }) {
            try await XFTPConnection.connect(server.address, host: server.address.hosts[0], context: XFTPConnection.webPortTLSContext.get(),
                                             name: "test", web: false, proxy: nil, silenceLimit: .seconds(60))
        }
        #expect(connection.session.alpn == "http/1.1")
        try await connection.ping()
        await connection.close()
        let other = try await XFTPConnection.open(server.address)
        #expect(other.session.alpn == "xftp/1")
        await other.close()
        await server.stop()
    }
}
