import ArgumentParser
import SXCore
import SXDatabase
import SXStorage
import SXTerminal

/// `sxkit check`: is the profile whole (as `restic check`).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Say whether a profile is whole: databases, referenced files, CryptoFile tags, orphans, leftovers.",
        discussion: """
        Opens both databases with the passphrase and runs quick_check on each (--deep: integrity_check \
        and cipher_integrity_check, which reads and authenticates every page); checks that every file \
        the chat database references is in the files folder (a row whose path is absolute or climbs \
        out with .. is reported and never followed); with --read-data verifies every CryptoFile's tag \
        with its key from the chat database, streamed and --jobs at a time; lists orphans (files no \
        row references) and leftovers of earlier operations. Read-only: not a byte nor a timestamp of \
        the profile changes (a database with a WAL is read from a private copy). \
        The profile is whole when both databases pass, no referenced file is missing, no path leaves \
        the files folder, no tag fails and no interrupted passphrase change or archive import is \
        pending; orphans and other leftovers are warnings. Exit status 0 when whole, 3 when the check \
        ran and found it not whole (each problem named), 1 when it could not check (a wrong \
        passphrase, not a data directory).
        """
    )

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions

    @Flag(name: .long, help: "Run integrity_check and cipher_integrity_check instead of quick_check (reads every page).")
    var deep = false

    @Flag(name: .customLong("read-data"), help: "Verify every CryptoFile's tag with its key from the chat database (reads every encrypted byte).")
    var readData = false

    @OptionGroup var jobs: JobsOption
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let dir = try dataDirectory.resolveExisting(databases: false)
        let encrypted = dir.databases.contains { ReadAccess.of($0).needsPassphrase }
        let key = encrypted ? try passphrase.resolve(dataDirectory: dir) : nil
        let tracker = ProgressTracker(label: "check")
        // A bar on a terminal while the tags are read; --json is one document, so no progress lines.
        let ticker = readData && !options.json ? options.startProgress(tracker) : nil
        let result = Result {
            try ProfileCheck(directory: dir, passphrase: key, deep: deep, readData: readData, jobs: jobs.jobs, progress: tracker).run()
        }
        ticker?.stop()
        let report = try result.get()
        if options.json {
            try JSONDocument.print(report)
        } else {
            ConsoleOutput.standardOutput.write(CheckText.render(report, quiet: options.quiet, verbose: options.verbose))
        }
        if !report.whole { throw CommandFailure(status: .partial) }
    }
}
