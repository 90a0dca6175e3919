import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import SXCore
import SXTerminal
import SXTransfer

struct TransferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Send and receive files as chunked, encrypted relay transfers (SimpleX's relay file format).",
        discussion: """
        Chunks go to XFTP servers (SimpleX's file relays: the presets, or your own with `sxkit relay \
        serve`) or to a folder on any mounted disk or share (offline moves). The sender \
        gets a sender description (keep it: it cancels the transfer) and one description per recipient; \
        whoever holds a recipient description can download the file, so hand it over privately.
        """,
        subcommands: [TransferPlanCommand.self, TransferSendCommand.self, TransferReceiveCommand.self,
                      TransferInfoCommand.self, TransferCancelCommand.self]
    )
}

/// A description as a link: `simplex` (`simplex:/file#/?desc=…`) or `web` (the xftp CLI's
/// `https://<host>/#…`); `transfer info --link` and `transfer send --link` take it.
enum LinkForm: String, ExpressibleByArgument, CaseIterable {
    case simplex, web

    var kind: SendLinks.Kind {
        switch self {
        case .simplex: .simplex
        case .web: .web
        }
    }
}

/// Where transfers keep their work folders (encrypted copies, downloaded chunks, resume state).
struct TransferTempOptions: ParsableArguments {
    @Option(name: .customLong("temp-dir"), help: ArgumentHelp(
        "Folder for work files and resume state (default: the data directory's temp folder, else $TMPDIR/sxkit-transfers).",
        valueName: "dir"), completion: .directory)
    var tempDir: String?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The SimpleX data directory whose temp folder holds the work files (default: $SXKIT_DATA_DIR, else the desktop app's).",
        valueName: "dir"), completion: .directory)
    var dataDir: String?

    /// A stable folder, so that running the same transfer again finds its state.
    func resolve() throws -> String {
        let folder: String
        if let tempDir {
            folder = Path.absolute(tempDir)
        } else {
            let data = DataDirectory.resolve(explicit: dataDir)
            if POSIXFile.exists(data.root) {
                folder = data.primaryTempFolder
            } else {
                folder = Path.join(PrivateFolder.systemTemp, "sxkit-transfers-\(getuid())")
            }
        }
        try Folders.create(folder, permissions: 0o700)
        return folder
    }
}

/// Runs async library work from a synchronous command and waits for it.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}

/// Shows transfer events: JSON lines on stdout under --json; otherwise a progress bar on a
/// terminal's stderr and warnings on stderr. Phases that follow the transfer (a receive's
/// decryption, a migration's import) get their own trackers and take over the same bar as they start.
final class TransferEventDisplay: Sendable {
    private let json: Bool
    private let quiet: Bool
    private let tracker: ProgressTracker
    private let phases: ProgressPhases
    /// With phases after the transfer's completion event (an import), the command stops the bar.
    private let stopsOnCompletion: Bool
    private let ticker = Mutex<ProgressTicker?>(nil)
    private let shown = Mutex<Int64>(0)

    /// `following`: trackers of the phases after the download or upload, in order.
    /// `afterCompletion`: some of them come after the completion event.
    init(options: GlobalOptions, label: String, following: [ProgressTracker] = [], afterCompletion: Bool = false) {
        json = options.json
        quiet = options.quiet
        tracker = ProgressTracker(label: label)
        phases = ProgressPhases([tracker] + following)
        stopsOnCompletion = !afterCompletion
        // A resumed run may have nothing to transfer, and so no start event: the bar starts now.
        if afterCompletion { startBar() }
    }

    var handler: TransferEventHandler { { [self] in self.show($0) } }

    func show(_ event: TransferEvent) {
        if json {
            ConsoleOutput.standardOutput.writeLine(event.json)
            return
        }
        switch event {
        case .sndFileStart(_, _, let total, _), .rcvFileStart(let total, _):
            tracker.setTotals(items: nil, bytes: total)
            startBar()
        case .sndFileProgressXFTP(let done, _), .rcvFileProgressXFTP(let done, _):
            let delta = shown.withLock { old in defer { old = max(old, done) }; return max(0, done - old) }
            tracker.addBytes(delta)
        case .sndFileWarning(let warning), .rcvFileWarning(let warning):
            if !quiet { ConsoleOutput.standardError.writeLine("sxkit: warning: \(warning)") }
        case .sndFileCompleteXFTP, .rcvFileComplete:
            if stopsOnCompletion { stop() }
        case .sndFileError, .rcvFileError, .rcvFileSndCancelled:
            stop()
        }
    }

    private func startBar() {
        guard !json, !quiet, ConsoleOutput.standardError.isTerminal else { return }
        let phases = self.phases
        ticker.withLock { current in
            if current == nil { current = ProgressTicker(snapshot: { phases.snapshot() }, renderer: TerminalProgressBar(output: .standardError)) }
        }
    }

    func stop() {
        let current = ticker.withLock { t in defer { t = nil }; return t }
        current?.stop()
    }
}
