import ArgumentParser
import Foundation
import SXArchive
import SXCore
import SXTerminal

/// `sxkit archive verify`: check a chat archive end to end without extracting it.
struct ArchiveVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a chat archive: structure, every entry's CRC, and the two databases.",
        discussion: """
        Refuses hostile archives (names that climb out, links, devices, duplicates, zip bombs, \
        encrypted entries, a central directory that disagrees with the local headers) as import \
        would, then reads every entry in full. The databases are copied to a private folder under \
        $TMPDIR, classified and, when a passphrase is given (--passphrase-file, $SXKIT_PASSPHRASE, \
        $SXKIT_PASSPHRASE_FILE, --desktop-passphrase or --no-passphrase), key-tested and checked with \
        PRAGMA quick_check; the copies are deleted afterwards. Nothing else is written. Exit status 1 \
        when any entry is damaged.
        """
    )

    @Argument(help: "The chat archive (ZIP).", completion: .file())
    var archive: String

    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let secret = passphrase.isGiven ? try passphrase.resolve() : nil
        let tracker = ProgressTracker(label: "verify")
        let ticker = options.json ? nil : options.startProgress(tracker)
        let result = Result { try ArchiveVerify.run(Path.absolute(archive), passphrase: secret, progress: tracker) }
        ticker?.stop()
        let report = try result.get()
        if options.json {
            try JSONDocument.print(VerifyDocument(report))
        } else if !options.quiet || !report.ok {
            render(report, keyTested: secret != nil)
        }
        if !report.ok { throw CommandFailure(status: .failed) }
    }

    func render(_ report: ArchiveVerifyReport, keyTested: Bool) {
        let out = ConsoleOutput.standardOutput
        let width = report.entries.map(\.name.count).max() ?? 0
        // --quiet: only the problems (the entries that failed and the verdict).
        for entry in report.entries where !entry.ok || (!options.quiet && (options.verbose || entry.database != nil)) {
            var detail: [String] = []
            if let db = entry.database {
                detail.append(db.kind)
                if let message = db.keyMessage { detail.append(PassphraseText.withHints(message)) }
                if let quick = db.quickCheck { detail.append("quick_check: \(quick)") }
            }
            if let problem = entry.problem, entry.database?.keyTest == nil || entry.database?.keyTest == .correct { detail.append(problem) }
            let status = entry.ok ? "OK    " : "FAILED"
            let name = entry.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let line = "\(status)  \(name)  \(ByteCount.format(entry.size).leftPadded(to: 9))  \(detail.joined(separator: "; "))"
            out.writeLine(String(line.reversed().drop(while: { $0 == " " }).reversed()))
        }
        if !options.quiet { for error in report.archiveErrors { out.writeLine("note    \(error.sentence)") } }
        let failed = report.entries.filter { !$0.ok }.count
        if failed == 0 {
            let key = keyTested ? "" : " (the passphrase was not tested: give one to test it)"
            out.writeLine("Verified \(report.entries.count) entries, \(ByteCount.format(report.bytes)): the archive is sound\(key).")
        } else {
            out.writeLine("FAILED: \(failed) of \(report.entries.count) entries \(failed == 1 ? "is" : "are") damaged or unreadable (listed above).")
        }
    }
}

/// The `--json` result of `archive verify`.
struct VerifyDocument: Encodable {
    /// The archive verified.
    var path: String
    var ok: Bool
    var entries: [ArchiveVerifyEntry]
    var bytes: Int64
    /// What an import would skip and report.
    var archiveErrors: [ArchiveError]

    init(_ report: ArchiveVerifyReport) {
        path = report.archive
        ok = report.ok
        entries = report.entries
        bytes = report.bytes
        archiveErrors = report.archiveErrors
    }
}

extension PassphraseOptions {
    /// True when a passphrase source was named (an option or the environment), so that a command for
    /// which the passphrase is optional does not prompt for one.
    var isGiven: Bool {
        let environment = ProcessInfo.processInfo.environment
        return file != nil || command != nil || fromDesktopSettings || none
            || environment["SXKIT_PASSPHRASE"] != nil || environment["SXKIT_PASSPHRASE_FILE"] != nil
    }
}
