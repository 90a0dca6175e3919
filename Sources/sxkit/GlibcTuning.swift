import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The commands that move bulk data over the network start themselves once more with a few glibc
/// tunables set (`tunables(for:)`), because glibc reads its tunables only when a process starts: the same process image,
/// arguments, descriptors and environment (plus `GLIBC_TUNABLES`); nothing has been read or written
/// yet. A tunable the user already set is left as it is, and a failed exec just goes on without.
///
/// - **Copies** (x86-64 only). glibc (2.33 and later) copies blocks from 2 KiB up to about the L2
///   size with `rep movsb`. On AMD Zen that instruction runs more than 20 times slower when the
///   destination sits a few bytes past the source modulo 4 KiB: on this project's build machine (AMD
///   EPYC, Debian 12, glibc 2.36) a 16 KiB copy with the two 16 bytes apart modulo 4 KiB ran at
///   1.9 GB/s, at 52 GB/s otherwise. That is the usual case for the heap buffers that SwiftNIO, its
///   HTTP/2 decoder and OpenSSL copy between, so a transfer spent a quarter of its CPU time in those
///   copies. With `glibc.cpu.x86_rep_movsb_threshold` above any copy these commands make, glibc
///   copies with vector loads and stores, as fast as `rep movsb` at its best on every x86-64 CPU.
/// - **Fresh pages.** glibc's malloc maps a block of 128 KiB or more afresh and unmaps it when freed,
///   and hands free memory at the top of a heap back to the kernel once 128 KiB are free there (both
///   thresholds rise only to the size of what was last freed). SwiftNIO's HTTP/2 decoder copies every
///   received byte into a buffer it then hands on whole and replaces (swift-nio-http2
///   `HTTP2FrameParser.swift`, each state's `accumulate` → `writeImmutableBuffer`), so nearly every
///   received byte landed on a page the kernel had to fault in and zero first: receiving 512 MiB took
///   148 K page faults (578 MiB of fresh pages), the relay storing it 52 K. Blocks up to 8 MiB served
///   from the heap, and up to 8 MiB kept free at a heap's top, bring that to 19 K and 7 K, for 8-10 %
///   less CPU on both sides (16 MiB kept: 15 K and 4 K, for more memory held; 4 MiB: 24 K and 27 K),
///   the clients' peak RSS within a few MB of before, the relay's about 18 MB higher.
/// - **One heap.** glibc gives a thread that allocates while another holds a heap's lock a heap
///   (arena) of its own, up to 8 per core, and each keeps up to the trim threshold free. The relay's
///   event loop allocates the decoder's buffers and its tasks free them, so its heaps multiplied the
///   memory kept: peak RSS 79-90 MB over 1 GiB sends and receives, 64-69 MB with one heap, for the same
///   CPU per transfer and the same speed (a receive client: 90-92 MB, 85-89 MB). Small blocks come
///   from each thread's own cache before any heap's lock is taken (notes/xftp-throughput.md).
enum GlibcTuning {
    struct Tunable: Equatable {
        let name: String
        let value: Int
        var setting: String { "\(name)=\(value)" }
    }

    /// Above any single copy these commands make (chunks are at most 4 MiB).
    static let copyThreshold = Tunable(name: "glibc.cpu.x86_rep_movsb_threshold", value: 1 << 30)
    /// Above the 4 MiB chunk buffers and NIO's largest, so that none of them is a mapping of its own.
    static let mmapThreshold = Tunable(name: "glibc.malloc.mmap_threshold", value: 8 << 20)
    /// A heap keeps about a chunk buffer's worth of freed memory for the next allocations instead of
    /// returning its pages at once.
    static let trimThreshold = Tunable(name: "glibc.malloc.trim_threshold", value: 8 << 20)
    /// One heap for all threads, so that only one keeps memory free.
    static let arenaMax = Tunable(name: "glibc.malloc.arena_max", value: 1)

    /// The tunables for `command` on this machine's architecture, none for a command that moves no
    /// bulk data. The heap's only for the commands that receive bulk data through the HTTP/2 decoder
    /// (the relay, and receives): a sender's decoder sees only the short answers, and a heap that
    /// keeps more took the send client's peak RSS for 1 GiB from 90 to 98 MB for no CPU saved.
    static func tunables(for command: any ParsableCommand) -> [Tunable] {
        let receivesBulk = command is RelayServeCommand || command is TransferReceiveCommand || command is MigrateReceiveCommand
        let sendsBulk = command is TransferSendCommand || command is MigrateSendCommand
        guard receivesBulk || sendsBulk else { return [] }
        var tunables: [Tunable] = []
        #if arch(x86_64)
        tunables.append(copyThreshold)
        #endif
        if receivesBulk { tunables += [mmapThreshold, trimThreshold, arenaMax] }
        return tunables
    }

    /// The `GLIBC_TUNABLES` value to start with, or nil when nothing is to change: `current` with each
    /// of `tunables` that it does not set already appended.
    static func tunables(current: String?, adding tunables: [Tunable]) -> String? {
        let current = current ?? ""
        let given = Set(current.split(separator: ":").map { String($0.prefix { $0 != "=" }) })
        let added = tunables.filter { !given.contains($0.name) }.map(\.setting)
        guard !added.isEmpty else { return nil }
        return ((current.isEmpty ? [] : [current]) + added).joined(separator: ":")
    }

    /// Starts the process again with `command`'s tunables set, when they are not set yet. Returns only
    /// when it did not (none to set, all set already, or the exec failed).
    static func restartIfNeeded(for command: any ParsableCommand) {
        let original = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let value = tunables(current: original, adding: tunables(for: command)), setenv("GLIBC_TUNABLES", value, 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the exec failed (no /proc, say). Run on as before, and let children inherit
        // what this process started with.
        if let original { setenv("GLIBC_TUNABLES", original, 1) } else { unsetenv("GLIBC_TUNABLES") }
    }
}
