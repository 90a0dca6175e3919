import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// glibc (2.33 and later on x86-64) copies blocks from 2 KiB up to about the L2 size with
/// `rep movsb`. On AMD Zen that instruction runs more than 20 times slower when the destination sits
/// a few bytes past the source modulo 4 KiB: on this project's build machine (AMD EPYC, Debian 12,
/// glibc 2.36) a 16 KiB copy with the two 16 bytes apart modulo 4 KiB ran at 1.9 GB/s, at 52 GB/s
/// otherwise. That is the usual case for the heap buffers that SwiftNIO, its HTTP/2 decoder and
/// OpenSSL copy between, so a transfer spent a quarter of its CPU time in those copies.
///
/// glibc reads its tunables only when a process starts, so the commands that move bulk data over
/// the network start themselves once more with `glibc.cpu.x86_rep_movsb_threshold` above any copy
/// they make: glibc then copies with vector loads and stores, as fast as `rep movsb` at its best on
/// every x86-64 CPU. The same process image, arguments, descriptors and environment (plus that
/// tunable); nothing has been read or written yet. A tunable already set by the user is left as it
/// is, and a failed exec just goes on without it.
enum CopyTuning {
    static let tunable = "glibc.cpu.x86_rep_movsb_threshold"
    /// Above any single copy these commands make (chunks are at most 4 MiB).
    static let threshold = 1 << 30

    /// The `GLIBC_TUNABLES` value to start with, or nil when nothing is to change.
    static func tunables(current: String?) -> String? {
        let setting = "\(tunable)=\(threshold)"
        guard let current, !current.isEmpty else { return setting }
        if current.split(separator: ":").contains(where: { $0.hasPrefix(tunable + "=") }) { return nil }
        return current + ":" + setting
    }

    /// The commands that move bulk data through TLS and HTTP/2.
    static func applies(to command: any ParsableCommand) -> Bool {
        command is RelayServeCommand || command is TransferSendCommand || command is TransferReceiveCommand
            || command is MigrateSendCommand || command is MigrateReceiveCommand
    }

    /// Starts the process again with the tunable set, when this is x86-64 and it is not set yet.
    /// Returns only when it did not (other CPUs, already set, or the exec failed).
    static func restartIfNeeded() {
        #if arch(x86_64)
        let original = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let value = tunables(current: original), setenv("GLIBC_TUNABLES", value, 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the exec failed (no /proc, say). Run on as before, and let children inherit
        // what this process started with.
        if let original { setenv("GLIBC_TUNABLES", original, 1) } else { unsetenv("GLIBC_TUNABLES") }
        #endif
    }
}
