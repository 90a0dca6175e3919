import SXCore
import SXDatabase

/// What an interrupted `archive import` left in a data directory.
public struct ImportLeftovers: OperationLeftovers, Equatable, Codable {
    public static let operation = InterruptedOperation.archiveImport
    public var journal: String?
    public var staging: String?
    /// What was found, in one sentence.
    public var summary: String
}

public struct ImportRecoveryReport: RecoveryReport, Equatable {
    /// rolledForward: the swap had begun and was finished (the data directory is the archive's);
    /// rolledBack: only the staging folder existed and was deleted (the data directory is as it was).
    public typealias Action = RecoveryAction
    public var action: Action
    public var found: String
    public var done: String
    /// Non-fatal problems met while finishing the swap.
    public var archiveErrors: [ArchiveError]
    /// The archive whose import was finished, when its journal names it.
    public var archive: ImportedArchive?
}

/// Finds and settles what an interrupted import left: with a journal (the swap had begun) it
/// finishes the swap; with only a staging folder it deletes it. Needs no passphrase.
public enum ImportRecovery {
    /// The leftovers in the data directory at `root`, or nil. Only looks for two names, so every
    /// command can afford it.
    public static func leftovers(root: String, prefix: String = DataDirectory.defaultPrefix) -> ImportLeftovers? {
        let journal = ImportFiles.journal(root: root, prefix: prefix), staging = ImportFiles.staging(root: root)
        let hasJournal = ImportFiles.exists(journal), hasStaging = ImportFiles.exists(staging)
        guard hasJournal || hasStaging else { return nil }
        let summary = hasJournal
            ? "an interrupted archive import had begun replacing the data in '\(root)'"
            : "an interrupted archive import left its staging folder in '\(root)'; nothing there had been replaced"
        return ImportLeftovers(journal: hasJournal ? journal : nil, staging: hasStaging ? staging : nil, summary: summary)
    }

    /// The interrupted import to settle, for commands that notice leftovers (see `LeftoverPolicy`), else nil.
    public static func pending(root: String, prefix: String = DataDirectory.defaultPrefix) -> PendingRecovery? {
        leftovers(root: root, prefix: prefix).map(PendingRecovery.init)
    }

    public static func recover(_ data: DataDirectory) throws -> ImportRecoveryReport {
        PrivateFolder.removeStale(label: "import", in: PrivateFolder.systemTemp)
        guard let found = leftovers(root: data.root, prefix: data.prefix) else {
            return ImportRecoveryReport(action: .none, found: "nothing to recover", done: "nothing was changed", archiveErrors: [])
        }
        let journal = try found.journal.map(ImportJournal.read)
        for database in journal?.databases ?? data.databases where LockProbe.isInUse(database) {
            throw ArchiveFailure.databaseInUse(path: database, settling: true)
        }
        if let journal, let path = found.journal {
            let outcome = try ImportSwap.complete(journal, journalPath: path)
            // Into an empty data directory there was no old profile to keep (the backups may have
            // been made before the kill, so they are looked for rather than taken from the outcome).
            var kept: [String] = []
            if journal.databases.contains(where: { ImportFiles.exists(ImportFiles.backup($0)) }) { kept.append("the old databases are kept as .bak") }
            if !outcome.previousFolders.isEmpty {
                kept.append("the previous files and wallpapers are in " + outcome.previousFolders.map { "'\($0)'" }.joined(separator: " and "))
            }
            return ImportRecoveryReport(action: .rolledForward, found: found.summary,
                                        done: "finished the import: the data directory now holds the archive's databases and files"
                                            + (kept.isEmpty ? "" : " (" + kept.joined(separator: "; ") + ")"),
                                        archiveErrors: outcome.archiveErrors, archive: journal.archive)
        }
        try ImportFiles.removeTree(ImportFiles.staging(root: data.root))
        return ImportRecoveryReport(action: .rolledBack, found: found.summary,
                                    done: "rolled back: deleted the staging folder; the data directory is as it was before the import",
                                    archiveErrors: [])
    }
}
