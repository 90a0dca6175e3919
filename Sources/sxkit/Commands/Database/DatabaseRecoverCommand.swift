import ArgumentParser
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit db recover`: settle what an interrupted `db rekey` left beside the databases.
struct DatabaseRecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Finish or roll back an interrupted passphrase change.",
        discussion: """
        If the interrupted run had started replacing databases, the rest are replaced too (every \
        database then opens with the new passphrase), and the desktop app's settings it had prepared \
        are put in place (unless they were written meanwhile: then the prepared file is kept and \
        named); otherwise its new copies and prepared settings are deleted (every database still \
        opens with the old one). Needs no passphrase. SimpleX Chat must be closed.
        """
    )

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let report = try RekeyRecovery.recover(selection.resolveNoticingLeftovers(settlesRekey: true))
        let warnings = report.desktopSettings.flatMap { $0.needsAttention ? [$0.message] : nil } ?? []
        if options.json {
            try JSONDocument.print(WithWarnings(document: report, warnings: warnings))
            return
        } else if !options.quiet {
            RecoveryText.lines(report).forEach(ConsoleOutput.standardOutput.writeLine)
            if report.action != .none, let settings = report.desktopSettings, !settings.needsAttention {
                ConsoleOutput.standardOutput.writeLine(DatabaseRekeyCommand.sentence(settings.message))
            }
        }
        for warning in warnings { ConsoleOutput.standardError.writeLine("sxkit: warning: \(warning)") }
    }
}
