import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// `sxkit db migrate`: bring each database's schema to SimpleX's migration list, as the core would (FORMATS §4).
struct DatabaseMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Revert migrations newer than SimpleX's list with the database's own down SQL, or apply pending ones given their SQL.",
        discussion: """
        Compares each database's migrations table with SimpleX's list (sxkit knows SimpleX's chat and \
        agent migrations by name; --migrations adds SQL and more migrations) as the core does: name \
        by name from the first. Migrations the database has after the list's last (it was migrated \
        by a newer SimpleX Chat) are reverted, newest first, each in its own transaction, by running \
        the down SQL the database stored for them, as the core does; a row without down SQL stops \
        everything (noDown). Pending up migrations run each in its own transaction, then VACUUM; \
        sxkit does not carry SimpleX's SQL, so an up migration it has no SQL for (given as \
        NAME.up.sql with --migrations) is refused and nothing is run: let SimpleX Chat apply it. \
        A database with no migration recorded is migrated up without asking; anything else needs \
        --confirm. Before the first change to an existing database, a copy is written to \
        <db>.migration-backup (or --backup-path). The database is opened with the core's settings \
        (foreign keys, secure delete, auto_vacuum FULL); the chat core's own SQL functions \
        (migrate_relations_vector, set_member_vector_new_relation) are not there, so SQL that calls \
        them fails and is rolled back. --json prints each database's DBMigrationResult as the chat \
        core returns it: ok, invalidConfirmation, errorNotADatabase {dbFile}, errorMigration {dbFile, \
        migrationError}, errorSQL {dbFile, migrationSQLError}; errorKeychain and unknown are the \
        apps' own, never printed here. Exit status 0 when every database ends up migrated or had \
        nothing to do, 1 otherwise (each database's line says why).
        """
    )

    enum Confirm: String, ExpressibleByArgument, CaseIterable {
        case yesUp, yesUpDown, error, console
    }

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var lists: MigrationListOptions

    @Option(name: .customLong("confirm"), help: ArgumentHelp(
        "yesUp: apply up migrations; yesUpDown: also revert; error: run nothing that needs confirming; console: ask (y/N). Default: console when stdin and stderr are a terminal, else error.",
        valueName: "mode"))
    var confirm: Confirm?

    @Option(name: .customLong("backup-path"), help: ArgumentHelp(
        "Where the copy made before changing a database goes (default: <db>.migration-backup beside it). With a data directory: an existing folder that receives <name>.migration-backup for each database.",
        valueName: "path"), completion: .file())
    var backupPath: String?

    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try lists.validate(with: selection)
        if confirm == .console, isatty(STDIN_FILENO) != 1 {
            throw ValidationError("--confirm console needs a terminal on stdin to ask; use --confirm yesUp, yesUpDown or error")
        }
    }

    /// One database's line of the `--json` document.
    struct Report: Encodable {
        var database: DatabaseTarget
        var migrationResult: DBMigrationResult
        var applied: [String]
        var reverted: [String]
        /// Up migrations that were due but that sxkit has no SQL for (so none was run).
        var withoutSQL: [String]
        /// The copy made before the first change.
        var backup: String?
        var message: String
    }

    func run() throws {
        let work = try lists.resolve(selection, writes: true)
        let secret = try passphrase.resolve()
        let mode = confirm ?? (isatty(STDIN_FILENO) == 1 && ConsoleOutput.standardError.isTerminal ? .console : .error)
        let backups = try backupPolicies(work.map(\.target))
        var reports: [Report] = []
        for (item, backup) in zip(work, backups) {
            let outcome = Migrator(migrations: item.list).migrate(
                file: item.target.path, passphrase: secret, confirmation: confirmation(mode, for: item.target), backup: backup)
            reports.append(Report(database: item.target, migrationResult: outcome.result, applied: outcome.applied,
                                  reverted: outcome.reverted, withoutSQL: outcome.withoutSQL, backup: outcome.backupPath,
                                  message: MigrationText.describe(outcome)))
        }
        if options.json {
            try JSONDocument.print(["databases": reports])
        } else {
            for (report, label) in zip(reports, paddedLabels(reports.map(\.database))) {
                let line = "\(label)  \(PassphraseText.withHints(report.message))"
                if !report.migrationResult.isOK {
                    (options.quiet ? ConsoleOutput.standardError : ConsoleOutput.standardOutput).writeLine(line)
                } else if !options.quiet {
                    ConsoleOutput.standardOutput.writeLine(line)
                }
            }
        }
        if reports.contains(where: { !$0.migrationResult.isOK }) { throw CommandFailure(status: .failed) }
    }

    private func confirmation(_ mode: Confirm, for target: DatabaseTarget) -> MigrationConfirmation {
        switch mode {
        case .yesUp: .yesUp
        case .yesUpDown: .yesUpDown
        case .error: .error
        case .console: .console { work in Self.ask(MigrationText.question(work, database: target)) }
        }
    }

    /// y/N on stderr, the answer from stdin; anything but y or yes (or end of input) is no.
    private static func ask(_ question: String) -> Bool {
        ConsoleOutput.standardError.write(question + " [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    private func backupPolicies(_ targets: [DatabaseTarget]) throws -> [MigrationBackupPolicy] {
        guard let backupPath else { return targets.map { _ in .besideDatabase } }
        if selection.databaseFile != nil { return [.at(Path.absolute(backupPath))] }
        guard let st = POSIXFile.linkStatus(backupPath), st.st_mode & S_IFMT == S_IFDIR else {
            throw UsageError("with a data directory, --backup-path must be an existing folder (it receives one backup per database): '\(backupPath)'")
        }
        return targets.map { .at(Path.join(Path.absolute(backupPath), Path.basename($0.path) + MigrationBackupPolicy.suffix)) }
    }
}
