import ArgumentParser
import SXArchive
import SXCore
import SXTerminal

/// `sxkit archive recover`: settle what an interrupted `archive import` left in a data directory.
struct ArchiveRecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish or roll back an interrupted archive import.",
        discussion: """
        If the interrupted import had started putting the archive's data in place, the rest is put in \
        place too (the data directory becomes the archive's; the old databases stay as .bak); \
        otherwise its staging folder is deleted (the data directory is as it was). Needs no \
        passphrase. SimpleX Chat must be closed. The next import does this by itself.
        """
    )

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let report = try ImportRecovery.recover(dataDirectory.resolve())
        if options.json {
            try JSONDocument.print(report)
        } else {
            for error in report.archiveErrors { ConsoleOutput.standardError.writeLine("sxkit: \(error.sentence)") }
            if !options.quiet { RecoveryText.lines(report).forEach(ConsoleOutput.standardOutput.writeLine) }
        }
        if !report.archiveErrors.isEmpty { throw CommandFailure(status: ExitRule.done(withErrors: report.archiveErrors.count)) }
    }
}
