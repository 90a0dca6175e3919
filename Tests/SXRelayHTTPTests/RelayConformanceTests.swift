import Testing
import SXTestSupport
@testable import SXRelayServer

/// The HTTP client against `sxkit relay serve`'s server passes the same checks as the folder relay.
struct RelayConformanceTests {
    @Test("the HTTP relay passes the relay conformance check", arguments: RelayConformance.Check.allCases)
    func conformance(check: RelayConformance.Check) async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), expiry: .seconds(3600))
        defer { Task { await relay.stop() } }
        let suite = RelayConformance(scratch: folder.path, makeRelay: { relay.client },
                                     expireAll: { relay.clock.advance(seconds: 3601) })
        #expect(try await suite.run(check))
    }
}
