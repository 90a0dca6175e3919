import ArgumentParser
import SXTransfer

/// `--parallel`: how many chunks a transfer moves at once (transfer and migrate, both directions).
struct ParallelChunksOptions: ParsableArguments {
    @Option(name: .customLong("parallel"), help: "Chunks uploaded or downloaded at once (1-32).")
    var parallel = 4

    func validate() throws {
        if parallel < 1 || parallel > 32 { throw ValidationError("--parallel must be between 1 and 32") }
    }

    var policy: TransferPolicy { TransferPolicy(parallelChunks: parallel) }
}
