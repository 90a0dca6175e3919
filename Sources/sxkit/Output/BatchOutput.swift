import SXFileEncryption
import SXCore
import SXTerminal
import SXCrypto

/// Renders a batch report: aligned text, or one JSON object a line under --json.
enum BatchOutput {
    /// Prints the report and returns the exit status it implies (`ExitRule.items`).
    static func render(_ report: BatchReport, verb: String, options: GlobalOptions, seconds: Double) -> ExitStatus {
        let out = ConsoleOutput.standardOutput
        let status = ExitRule.items(done: report.done, failed: report.failed)
        if options.json {
            for item in report.items {
                // `status` is the verb (`encrypted`, `decrypted`, `verified`), `skipped` or `failed`.
                let status = item.status == .done ? verb : item.status.rawValue
                JSONDocument.event(FileEvent(path: item.source, output: item.destination, status: status, bytes: item.bytes,
                                             ended: item.status, message: item.message))
            }
            let counts = [verb: report.done, "skipped": report.skipped, "failed": report.failed]
            JSONDocument.event(BatchSummary(operation: verb, counts: counts, bytes: report.bytes,
                                            recoveredFiles: report.recoveredFromInterruptedRun, seconds: JSONTime.seconds(seconds)))
            return status
        }
        if report.recoveredFromInterruptedRun > 0 {
            ConsoleOutput.standardError.writeLine("sxkit: an earlier run was interrupted; settled \(report.recoveredFromInterruptedRun) file(s) it left in flight (all keys kept)")
        }
        for item in report.items {
            switch item.status {
            case .failed:
                var reason = item.message ?? "unknown error"
                // Library errors name their path; do not print it twice.
                if reason.hasPrefix("'\(item.source)': ") { reason.removeFirst(item.source.count + 4) }
                ConsoleOutput.standardError.writeLine("failed   \(item.source): \(reason)")
            case .skipped where !options.quiet:
                out.writeLine("skipped  \(item.source): \(item.message ?? "")")
            case .done where item.message != nil && !options.quiet:
                // Done, with something the user should know (a file in an earlier sxkit's format).
                out.writeLine("note     \(item.source): \(item.message!)")
            case .done where options.verbose:
                let arrow = item.destination.map { $0 == item.source ? "" : " -> \($0)" } ?? ""
                out.writeLine("\(verb)  \(item.source)\(arrow)  (\(ByteCount.format(item.bytes)))")
            default:
                break
            }
        }
        if !options.quiet {
            let rate = seconds > 0 ? "  \(ByteCount.format(Int64(Double(report.bytes) / seconds)))/s" : ""
            var line = "\(verb) \(report.done) file(s), \(ByteCount.format(report.bytes)) in \(String(format: "%.2f", seconds)) s\(rate)"
            if report.skipped > 0 { line += "; \(report.skipped) skipped" }
            if report.failed > 0 { line += "; \(report.failed) FAILED (listed above)" }
            out.writeLine(line)
        }
        return status
    }

    /// Runs a batch under a progress display (when `showsProgress`), prints its report, and ends
    /// the command with the status `ExitRule.items` gives (3 when some items failed and some were
    /// done, 1 when none was done).
    static func run(label: String, verb: String, options: GlobalOptions, showsProgress: Bool = true,
                    _ work: (ProgressTracker) throws -> BatchReport) throws {
        let tracker = ProgressTracker(label: label)
        let ticker = showsProgress ? options.startProgress(tracker) : nil
        let result = Result { try timed { try work(tracker) } }
        ticker?.stop()
        let (report, seconds) = try result.get()
        let status = render(report, verb: verb, options: options, seconds: seconds)
        if status != .ok { throw CommandFailure(status: status) }
    }
}

/// The last line of a batch under --json: how many items ended in each `status`, and the totals.
struct BatchSummary: Encodable {
    let type = "summary"
    /// What was done, as the items' `status` says it (`encrypted`, `decrypted`, `verified`, `exported`).
    var operation: String
    var counts: [String: Int]
    var bytes: Int64
    /// Files an interrupted earlier run had left in flight, settled before this one started.
    var recoveredFiles: Int
    var path: String?
    var warnings: [String]?
    var seconds: Double
}

/// Wall-clock seconds of a piece of work.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try body()
    let d = start.duration(to: clock.now)
    return (value, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
}
