import ArgumentParser
import SXArchive
import SXCore
import SXTerminal

/// `sxkit archive import`: replace a data directory's databases and files with a chat archive's.
struct ArchiveImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a chat archive into a data directory.",
        discussion: """
        The archive is checked first and refused whole when anything in it is hostile or damaged; \
        entries outside the chat archive layout that are not hostile (a folder inside the files folder, \
        an unknown file) are skipped and reported, as SimpleX's own import ignores them. The passphrase \
        is that of the archive's databases (they keep the one they had when exported); it is tested \
        before the data directory is touched. Afterwards the data directory holds exactly the \
        archive's profile: the current databases are kept as <db>.bak (with their -wal/-shm as \
        <db>.bak-wal/-shm), and the current files folder and wallpapers are moved aside whole into \
        <prefix>_previous_<time>/ in the data directory (reported; nothing is deleted). The import \
        refuses over a profile already in the data directory unless --force, and while a .bak is in the way or while SimpleX Chat has the databases open. A killed \
        import is finished or rolled back by the next import or by `sxkit archive recover`; the next \
        import of the same archive (same path, size and modification time) finds that import finished \
        and does not import it a second time. Exit \
        status 3 when some entries were not imported (each is named, with the bare file name).
        """
    )

    @Argument(help: "The chat archive (ZIP).", completion: .file())
    var archive: String

    @Flag(name: .long, help: "Import over a profile already in the data directory (its databases are kept as .bak).")
    var force = false

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let data = dataDirectory.resolve()
        let secret = try passphrase.resolve()
        let tracker = ProgressTracker(label: "import")
        // --json prints one document; progress lines on stdout would break it.
        let ticker = options.json ? nil : options.startProgress(tracker)
        let result = Result { try ArchiveImport.run(archive: Path.absolute(archive), into: data, passphrase: secret, replaceExisting: force, progress: tracker) }
        ticker?.stop()
        let report = try result.get()
        if options.json {
            try JSONDocument.print(report)
        } else {
            let out = ConsoleOutput.standardOutput
            if let recovery = report.recovery, !options.quiet {
                out.writeLine("Found: \(recovery.found). Recovered: \(recovery.done).")
            }
            for error in report.archiveErrors {
                ConsoleOutput.standardError.writeLine("sxkit: \(error.sentence)")
            }
            if report.finishedInterruptedImport {
                if !options.quiet {
                    out.writeLine("The interrupted import of \(archive) is complete in \(data.root); nothing was imported twice.")
                    if !report.backups.isEmpty {
                        out.writeLine("The previous databases are kept as \(report.backups.joined(separator: ", ")); they open with the previous passphrase.")
                    }
                }
            } else if !options.quiet {
                let seconds = String(format: "%.2f", report.seconds)
                out.writeLine("Imported \(report.entries) entries (\(ByteCount.format(report.bytes))) into \(data.root) in \(seconds) s.")
                if !report.backups.isEmpty {
                    out.writeLine("The previous databases are kept as \(report.backups.joined(separator: ", ")); they open with the previous passphrase.")
                }
                if !report.previousFolders.isEmpty {
                    out.writeLine("The previous files and wallpapers were moved to \(report.previousFolders.joined(separator: " and ")).")
                }
                if !report.archiveErrors.isEmpty { out.writeLine("\(report.archiveErrors.count) problem(s), listed above.") }
            }
        }
        if !report.archiveErrors.isEmpty { throw CommandFailure(status: ExitRule.done(withErrors: report.archiveErrors.count)) }
    }
}
