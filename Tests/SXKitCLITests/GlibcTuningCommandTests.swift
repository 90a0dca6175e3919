import Foundation
import Testing
import SXTestSupport

/// The bulk-transfer commands start themselves again with glibc's `rep movsb` threshold raised (see
/// `CopyTuning` in the sxkit target): checked on a running `relay serve`, in its environment as the
/// kernel holds it, with and without tunables set by the user.
@Suite(.ownThreads)
struct CopyTuningCommandTests {
    static let setting = "glibc.cpu.x86_rep_movsb_threshold=1073741824"

    /// The environment block a relay started with `given` runs with, as the kernel holds it (glibc
    /// cuts `GLIBC_TUNABLES` there at each tunable it reads, writing a NUL over the ':', so the block
    /// is checked as bytes).
    private func runningEnvironment(given: String?) throws -> String {
        let folder = try TempFolder()
        // The address is printed once the relay runs: by then it is the restarted process.
        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519"],
                                     environment: ["GLIBC_TUNABLES": given])
        #expect(relay.address.hasPrefix("xftp://"), "\(relay.address)")
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(relay.process.processIdentifier)/environ"))
        return "|" + String(decoding: environ.map { $0 == 0 ? UInt8(ascii: "|") : $0 }, as: UTF8.self)
    }

    @Test func theRelayRunsWithTheThresholdRaised() throws {
        #if arch(x86_64)
        #expect(try runningEnvironment(given: nil).contains("|GLIBC_TUNABLES=" + Self.setting + "|"))
        // The user's other tunables are kept, and a threshold the user chose is left as it is.
        #expect(try runningEnvironment(given: "glibc.malloc.arena_max=2").contains("|GLIBC_TUNABLES=glibc.malloc.arena_max=2|" + Self.setting + "|"))
        let own = try runningEnvironment(given: "glibc.cpu.x86_rep_movsb_threshold=4096")
        #expect(own.contains("|GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4096|") && !own.contains("1073741824"))
        #else
        #expect(try !runningEnvironment(given: nil).contains("GLIBC_TUNABLES"))
        #endif
    }
}
