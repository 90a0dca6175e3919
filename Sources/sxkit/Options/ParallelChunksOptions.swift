import ArgumentParser
import SXTransfer

/// `--parallel` and `--retry`: how many chunks a transfer moves at once, and how many times each
/// network operation is tried (transfer and migrate, both directions).
struct ParallelChunksOptions: ParsableArguments {
    @Option(name: .customLong("parallel"), help: "Chunks uploaded or downloaded at once (1-32).")
    var parallel = 4

    @Option(name: .customLong("retry"), help: "Attempts per network operation before giving up (1-20), as the xftp CLI's --retry.")
    var retry = TransferPolicy.defaultAttempts

    func validate() throws {
        if parallel < 1 || parallel > 32 { throw ValidationError("--parallel must be between 1 and 32") }
        if retry < 1 || retry > 20 { throw ValidationError("--retry must be between 1 and 20") }
    }

    var policy: TransferPolicy { TransferPolicy(parallelChunks: parallel, attempts: retry) }
}
