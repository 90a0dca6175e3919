import ArgumentParser
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit db status`: where each database's migrations stand against SimpleX's list, without changing anything.
struct DatabaseStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say which of SimpleX's migrations each database has, and what migrate would do.",
        discussion: """
        Read-only: the databases are opened immutable (or read from a private copy when they have a \
        WAL), so not a byte of them changes. For each database: the migrations it records, how many \
        of them are in the list (SimpleX's own, which sxkit knows by name, plus any --migrations), \
        the newest, whether the database is newer than sxkit knows (rows after the list's last \
        name, from a newer SimpleX Chat), which rows can go down (the database stores their down \
        SQL), what is pending, and what migrate would do. --verbose lists every migration: applied \
        (in the list and the database), pending (list only) or db-only (database only). Exit \
        status 0 when every database could be read, 1 otherwise.
        """
    )

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var lists: MigrationListOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        try lists.validate(with: selection)
    }

    /// What was found for one database: `status` when it was read, else `error`.
    struct Report {
        var database: DatabaseTarget
        var list: String
        var cipher: CipherFormat?
        var status: MigrationStatus?
        var error: String?

        /// The entry of the `--json` document, its times in ISO 8601 UTC.
        var document: Document {
            var status = status
            if var s = status {
                s.migrations = s.migrations.map { var entry = $0; entry.appliedAt = entry.appliedAt.map { JSONTime.iso8601(sqlite: $0) }; return entry }
                s.summary.newestAppliedAt = s.summary.newestAppliedAt.map { JSONTime.iso8601(sqlite: $0) }
                status = s
            }
            return Document(database: database, list: list, cipher: cipher, migrationStatus: status, error: error)
        }
    }

    struct Document: Encodable {
        var database: DatabaseTarget
        var list: String
        var cipher: CipherFormat?
        var migrationStatus: MigrationStatus?
        var error: String?
    }

    func run() throws {
        let work = try lists.resolve(selection, writes: false)
        let secret = try passphrase.resolve()
        let reports = work.map { item in
            do {
                let (status, cipher) = try Migrator(migrations: item.list).status(file: item.target.path, passphrase: secret)
                return Report(database: item.target, list: item.listDescription, cipher: cipher, status: status)
            } catch {
                return Report(database: item.target, list: item.listDescription, error: ErrorSentence.text(for: error))
            }
        }
        if options.json {
            try JSONDocument.print(["databases": reports.map(\.document)])
        } else {
            for (report, label) in zip(reports, paddedLabels(reports.map(\.database))) {
                render(report, label: label)
            }
        }
        if reports.contains(where: { $0.error != nil }) { throw CommandFailure(status: .failed) }
    }

    private func render(_ report: Report, label: String) {
        let out = ConsoleOutput.standardOutput
        guard let status = report.status else {
            (options.quiet ? ConsoleOutput.standardError : out).writeLine("\(label)  cannot read: \(PassphraseText.withHints(report.error ?? ""))")
            return
        }
        if options.quiet { return }
        out.writeLine("\(label)  \(report.database.path)  (\(Self.cipherName(report.cipher)))")
        for (name, value) in MigrationText.summary(status, list: report.list) {
            out.writeLine("  " + name.padding(toLength: 17, withPad: " ", startingAt: 0) + " " + value)
        }
        if options.verbose { renderEntries(status) }
    }

    /// Every migration of either list, one a line.
    private func renderEntries(_ status: MigrationStatus) {
        let out = ConsoleOutput.standardOutput
        let nameWidth = status.migrations.map(\.name.count).max() ?? 0
        let tsWidth = max(status.migrations.compactMap(\.appliedAt).map(\.count).max() ?? 0, 1)
        for entry in status.migrations {
            let state = Self.stateWord(entry.state).padding(toLength: 8, withPad: " ", startingAt: 0)
            let name = entry.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let ts = (entry.appliedAt ?? "-").padding(toLength: tsWidth, withPad: " ", startingAt: 0)
            out.writeLine("  \(state)  \(name)  \(ts)  \(entry.canGoDown ? "can go down" : "no down")")
        }
    }

    static func stateWord(_ state: MigrationStatus.State) -> String {
        switch state {
        case .applied: "applied"
        case .pending: "pending"
        case .dbOnly: "db-only"
        }
    }

    static func cipherName(_ cipher: CipherFormat?) -> String {
        switch cipher {
        case .plaintext?: "not encrypted"
        case .sqlcipher4?: "SQLCipher 4"
        case .sqlcipher3?: "SQLCipher 3 settings"
        case nil: "unknown"
        }
    }
}
