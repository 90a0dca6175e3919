import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit db inspect`: a forensic, read-only look at the databases.
struct DatabaseInspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Report everything about the chat and agent databases without changing a byte.",
        discussion: """
        Without a passphrase, encrypted databases are classified but not opened. With one (from \
        --passphrase-file, SXKIT_PASSPHRASE, SXKIT_PASSPHRASE_FILE, --desktop-passphrase or a prompt) \
        the report adds page and cipher settings, row counts, migrations and, for the chat database, \
        the check of its files against the files folder. Nothing is created or modified, not even a \
        -wal/-shm file or a timestamp: a database with a WAL is read from a private copy. Exit \
        status 1 when a passphrase was given that does not open a database (the report is still \
        printed), or when there is no data directory or database file to inspect.
        """
    )

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Also run integrity_check and cipher_integrity_check (reads every page). With --quiet only the findings are printed.")
    var deep = false

    func run() throws {
        let set = try selection.resolveNoticingLeftovers()
        var settingsPath: String?
        if let data = set.dataDirectory, data.layout == .desktop {
            let environment = ProcessInfo.processInfo.environment
            // The settings of the app that uses this folder (Flatpak's included), else the usual place.
            settingsPath = DesktopSettings.path(forDataDirectory: data.root, environment: environment)
                ?? DesktopSettings.defaultPath(environment: environment)
        }
        let inspector = DatabaseInspector(options: .init(deep: deep, filesFolder: selection.dataDirectory.filesDir.map { Path.absolute($0) },
                                                         desktopSettingsPath: settingsPath))
        let report = inspector.inspect(set, passphrase: try optionalPassphrase(set))
        if options.json {
            try JSONDocument.print(Self.document(report))
        } else if options.quiet {
            ConsoleOutput.standardOutput.write(InspectionText.findings(report))
        } else {
            ConsoleOutput.standardOutput.write(InspectionText.render(report, verbose: options.verbose))
        }
        // The report says what it could; a passphrase that opens none of what it should is not done.
        if report.databases.contains(where: { $0.classification == .encryptedWrongPassphrase }) {
            throw CommandFailure(status: .failed)
        }
    }

    /// The `--json` document: the report, its times in ISO 8601 UTC.
    static func document(_ report: DataDirectoryInspection) -> DataDirectoryInspection {
        var report = report
        for i in report.databases.indices {
            if let stamp = report.databases[i].details?.migrations?.lastTimestamp {
                report.databases[i].details?.migrations?.lastTimestamp = JSONTime.iso8601(sqlite: stamp)
            }
        }
        return report
    }

    /// The passphrase when one is needed and available; inspect still reports what it can without one.
    private func optionalPassphrase(_ set: DatabaseSet) throws -> SecretBytes? {
        let encrypted = set.targets.contains { ReadAccess.of($0.path).needsPassphrase }
        guard encrypted else { return nil }
        do {
            return try passphrase.resolve(dataDirectory: set.dataDirectory)
        } catch let error as PassphraseError where error.neededRole != nil {
            return nil
        }
    }
}
