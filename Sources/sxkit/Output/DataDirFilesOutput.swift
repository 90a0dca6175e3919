import ArgumentParser
import SXFileEncryption
import SXCore
import SXTerminal
import SXDatabase

/// Runs `files encrypt|decrypt` on a data directory's files folder and renders what happened:
/// aligned text (problems per file, one summary line), or one JSON object a line under --json.
struct DataDirFilesRun {
    var label: String
    var verb: String
    var options: GlobalOptions

    /// The data directory, after refusing (for writes) or noticing leftovers of an interrupted
    /// passphrase change or archive import.
    static func resolve(_ options: DataDirectoryOptions, writes: Bool) throws -> DataDirectory {
        let dir = options.resolve()
        _ = try DatabaseSelectionOptions.noticingLeftovers(DatabaseSet(dataDirectory: dir), writes: writes)
        return dir
    }

    /// `work` gets the progress tracker and the sink that prints each outcome as it happens (the
    /// report then holds only counts: memory stays flat however many files there are).
    func run(_ work: (ProgressTracker, @escaping @Sendable (ChatFileOutcome) -> Void) throws -> ChatFilesReport) throws {
        let tracker = ProgressTracker(label: label)
        let ticker = options.startProgress(tracker)
        let line = self
        let result = Result { try timed { try work(tracker) { line.render($0) } } }
        ticker?.stop()
        let (report, seconds) = try result.get()
        if options.json { renderJSON(report, seconds: seconds) } else { renderText(report, seconds: seconds) }
        let status = ExitRule.items(done: report.count(.done), failed: report.failures)
        if status != .ok { throw CommandFailure(status: status) }
    }

    /// Outcomes that are not the work itself but worth a line: the user should know.
    private static let reported: Set<ChatFileOutcome.Kind> = [.missing, .unsafePath, .symlink, .notRegular]

    /// The line of one outcome, if it gets one: every outcome under --json; in text, failures (on
    /// stderr), skips worth knowing (unless --quiet), and each file done under --verbose.
    func render(_ o: ChatFileOutcome) {
        let out = ConsoleOutput.standardOutput, err = ConsoleOutput.standardError
        if options.json {
            let ended: BatchItemResult.Status = o.kind.isFailure ? .failed : o.kind == .done ? .done : .skipped
            JSONDocument.event(FileEvent(path: o.path, output: o.destination, fileIds: o.fileIds, status: status(o.kind), bytes: o.bytes,
                                         ended: ended, message: o.message))
        } else if o.kind.isFailure {
            err.writeLine("failed   \(o.path): \(o.message ?? o.kind.rawValue)")
        } else if Self.reported.contains(o.kind), !options.quiet {
            out.writeLine("skipped  \(o.path): \(o.message ?? o.kind.rawValue)")
        } else if o.kind == .done, let note = o.message, !options.quiet {
            // Done, with something the user should know (a file in an earlier sxkit's format).
            out.writeLine("note     \(o.path): \(note)")
        } else if o.kind == .done, options.verbose {
            out.writeLine("\(verb)  \(o.path)\(o.destination.map { " -> \($0)" } ?? "")  (\(ByteCount.format(o.bytes)))")
        }
    }

    func renderText(_ report: ChatFilesReport, seconds: Double) {
        let out = ConsoleOutput.standardOutput, err = ConsoleOutput.standardError
        if report.recovered > 0 {
            err.writeLine("sxkit: an earlier run was interrupted; settled the \(report.recovered) file(s) it left in flight (no key lost)")
        }
        for note in report.recoveryNotes { err.writeLine("sxkit: warning: \(note)") }
        guard !options.quiet else { return }
        let done = report.count(.done)
        let rate = seconds > 0 ? "  \(ByteCount.format(Int64(Double(report.bytesDone) / seconds)))/s, \(Int(Double(done) / seconds)) files/s" : ""
        var line = "\(verb) \(done) file(s), \(ByteCount.format(report.bytesDone)) in \(String(format: "%.2f", seconds)) s\(rate)"
        let others: [(ChatFileOutcome.Kind, String)] = [
            (.alreadyDone, report.operation == "encrypt" ? "already encrypted" : "not encrypted"), (.missing, "missing"),
            (.unsafePath, "unsafe path"), (.symlink, "symlink"), (.notRegular, "not a regular file"),
        ]
        for (kind, name) in others where report.count(kind) > 0 { line += "; \(report.count(kind)) \(name)" }
        if report.failures > 0 { line += "; \(report.failures) FAILED (listed above)" }
        out.writeLine(line)
    }

    func renderJSON(_ report: ChatFilesReport, seconds: Double) {
        var counts: [String: Int] = [:]
        for kind in ChatFileOutcome.Kind.allCases { counts[status(kind)] = report.count(kind) }
        JSONDocument.event(BatchSummary(operation: verb, counts: counts, bytes: report.bytesDone, recoveredFiles: report.recovered,
                                        path: report.filesFolder, warnings: report.recoveryNotes.isEmpty ? nil : report.recoveryNotes,
                                        seconds: JSONTime.seconds(seconds)))
    }

    /// An outcome's `status` under --json: the verb when done (`encrypted`, `decrypted`, `exported`),
    /// `alreadyEncrypted` / `notEncrypted` when there was nothing to do, else the outcome's own word.
    func status(_ kind: ChatFileOutcome.Kind) -> String {
        switch kind {
        case .done: verb
        case .alreadyDone: verb == "encrypted" ? "alreadyEncrypted" : "notEncrypted"
        default: kind.rawValue
        }
    }
}

/// Files per group (journal, DB transaction, flush) for `--data-dir` work. Hidden: a knob for the
/// crash tests, which need several groups from a small data dir; the default suits real use.
struct DataDirGroupOption: ParsableArguments {
    @Option(name: .customLong("group-files"), help: .hidden)
    var groupFiles: Int?

    func validate() throws {
        if let groupFiles, groupFiles < 1 { throw ValidationError("--group-files must be at least 1") }
    }

    func apply(_ work: ChatFilesWork, onOutcome: @escaping @Sendable (ChatFileOutcome) -> Void) -> ChatFilesWork {
        var work = work
        work.onOutcome = onOutcome
        if let groupFiles { work.groupFiles = groupFiles }
        return work
    }
}
