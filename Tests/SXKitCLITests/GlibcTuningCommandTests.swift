import Foundation
import Testing
import SXTestSupport

/// The bulk-transfer commands start themselves again with glibc tunables set (see `GlibcTuning` in
/// the sxkit target): checked on a running `relay serve`, in its environment as the kernel holds it,
/// with and without tunables set by the user. (What the heap tunables save shows only over hundreds of
/// MB, with glibc's thresholds left to adapt, which no explicit setting reproduces: measured in
/// notes/xftp-throughput.md rather than here.)
@Suite(.ownThreads)
struct GlibcTuningCommandTests {
    static let copy = "glibc.cpu.x86_rep_movsb_threshold=1073741824"
    static let heap = ["glibc.malloc.mmap_threshold=8388608", "glibc.malloc.trim_threshold=8388608", "glibc.malloc.arena_max=1"]
    #if arch(x86_64)
    static let all = [copy] + heap
    #else
    static let all = heap
    #endif

    /// The environment block a relay started with `given` runs with, as the kernel holds it, each
    /// variable and each tunable between bars (glibc may cut `GLIBC_TUNABLES` at each tunable it
    /// reads, writing a NUL over the ':', so the block is read as bytes and both count as a bar).
    private func runningEnvironment(given: String?) throws -> String {
        let folder = try TempFolder()
        // The address is printed once the relay runs: by then it is the restarted process.
        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519"],
                                     environment: ["GLIBC_TUNABLES": given])
        #expect(relay.address.hasPrefix("xftp://"), "\(relay.address)")
        return try Self.environmentBlock(of: relay.process.processIdentifier)
    }

    /// `/proc/PID/environ` with each NUL and ':' as a bar: variables and tunables between bars.
    static func environmentBlock(of pid: Int32) throws -> String {
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        return "|" + String(decoding: environ.map { $0 == 0 || $0 == UInt8(ascii: ":") ? UInt8(ascii: "|") : $0 }, as: UTF8.self)
    }

    @Test func theRelayRunsWithTheTunablesSet() throws {
        #expect(try runningEnvironment(given: nil).contains("|GLIBC_TUNABLES=" + Self.all.joined(separator: "|") + "|"))
        // The user's other tunables are kept, and a value the user chose is left as it is.
        #expect(try runningEnvironment(given: "glibc.malloc.tcache_count=16")
            .contains("|GLIBC_TUNABLES=glibc.malloc.tcache_count=16|" + Self.all.joined(separator: "|") + "|"))
        let own = try runningEnvironment(given: "glibc.malloc.mmap_threshold=4096")
        #expect(own.contains("|GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096|") && !own.contains("mmap_threshold=8388608"), "\(own)")
        #if arch(x86_64)
        #expect(own.contains("|" + Self.copy + "|"))
        #endif
    }

    /// A send's process: the copy threshold only (x86-64), no heap tunables (its HTTP/2 decoder sees
    /// only short answers). Read while it waits on a server that never answers its TLS handshake.
    @Test func aSendRunsWithoutTheHeapTunables() throws {
        let folder = try TempFolder()
        let silent = try OccupiedLoopbackPort()
        let source = try folder.write("a.bin", testBytes(1000, seed: 2))
        let keyHash = Data(repeating: 7, count: 32).base64EncodedString()
        let send = try CLI.start(["transfer", "send", source, "--server", "xftp://\(keyHash)@127.0.0.1:\(silent.port)",
                                  "-o", folder.path, "--temp-dir", folder.path, "--retry", "1"], environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"])
        defer { kill(send.processIdentifier, SIGKILL); send.waitUntilExit() }
        var environment = ""
        for _ in 0..<100 {
            environment = (try? Self.environmentBlock(of: send.processIdentifier)) ?? ""
            #if arch(x86_64)
            if environment.contains(Self.copy) { break }
            #else
            break
            #endif
            usleep(50_000)
        }
        #expect(environment.contains("|GLIBC_TUNABLES=glibc.malloc.arena_max=4|"), "\(environment)")
        #expect(!environment.contains("mmap_threshold") && !environment.contains("trim_threshold"), "\(environment)")
        #if arch(x86_64)
        #expect(environment.contains("|" + Self.copy + "|"), "\(environment)")
        #endif
    }
}
