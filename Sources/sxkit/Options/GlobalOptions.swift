import ArgumentParser
import SXCore
import SXTerminal

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).")
    var quiet = false

    @Flag(name: [.short, .long], help: "Also print every item done and the details the summary leaves out.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other") }
    }

    /// A progress display suited to where output goes: a bar on a terminal's stderr, JSON event
    /// lines under --json, nothing otherwise.
    func startProgress(_ tracker: ProgressTracker) -> ProgressTicker? {
        if json { return ProgressTicker(tracker: tracker, renderer: JSONProgressLines(output: .standardOutput), interval: .seconds(1)) }
        if quiet || !ConsoleOutput.standardError.isTerminal { return nil }
        return ProgressTicker(tracker: tracker, renderer: TerminalProgressBar(output: .standardError))
    }
}

/// `--jobs`: how many files are worked on at once.
struct JobsOption: ParsableArguments {
    // Optional rather than defaulted, so generated docs do not embed this machine's core count.
    @Option(name: [.customShort("j"), .customLong("jobs")], help: "Files processed at once (default: the number of cores).")
    var requested: Int?

    var jobs: Int { requested ?? ParallelWork.defaultJobs }

    func validate() throws {
        if let requested, requested < 1 { throw ValidationError("--jobs must be at least 1") }
    }
}
