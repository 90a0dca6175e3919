import Foundation
import SXCore

/// What an interrupted passphrase change left beside a set's databases.
public struct RekeyLeftovers: OperationLeftovers, Equatable, Codable {
    public static let operation = InterruptedOperation.passphraseChange
    /// The journal, when the run got past its exports.
    public var journal: String?
    /// The phase the journal records: `backup` (backups being written) or `swap`.
    public var phase: String?
    /// `.exported` copies still waiting beside their databases.
    public var exported: [String]
    /// What happened, in one sentence.
    public var summary: String
}

/// What `recover` found and did.
public struct RekeyRecoveryReport: RecoveryReport, Equatable {
    /// rolledForward: the swap had begun and the remaining new copies were put in place;
    /// rolledBack: no database had been replaced, and the new copies and backups were deleted.
    public typealias Action = RecoveryAction
    public var action: Action
    /// What was found, in one sentence.
    public var found: String
    /// What was done, in one sentence.
    public var done: String
    /// Databases replaced by their new copy.
    public var replaced: [String]
    /// Files deleted.
    public var removed: [String]
    /// What happened to the desktop app's stored passphrase, when the change had it to put in step.
    public var desktopSettings: DesktopSettingsOutcome? = nil
}

/// Finds and settles what an interrupted `db rekey` left: from the journal's `swap` phase on it rolls
/// forward (no passphrase needed: the new copies were verified before the journal was written);
/// before it, the originals were never touched and it rolls back. Either way every database ends on
/// one passphrase, the same for all.
public enum RekeyRecovery {
    /// The interrupted change to settle, when leftovers are present, else nil (see `LeftoverPolicy`).
    /// Only looks for files (no database is opened), so every `db` command can afford it.
    public static func pending(for set: DatabaseSet) -> PendingRecovery? {
        guard journalPath(for: set) != nil || set.targets.contains(where: { RekeyFiles.exists(RekeyFiles.exported($0.path)) }) else {
            return nil
        }
        return PendingRecovery(operation: RekeyLeftovers.operation,
                               summary: (try? leftovers(in: set))??.summary ?? "an interrupted passphrase change left files beside the databases")
    }

    /// The leftovers beside `set`, or nil when there are none.
    public static func leftovers(in set: DatabaseSet) throws -> RekeyLeftovers? {
        let journalFile = journalPath(for: set)
        let journal = try journalFile.map(RekeyJournal.read)
        let databases = journal?.databases ?? set.targets.map(\.path)
        let exported = databases.map(RekeyFiles.exported).filter(RekeyFiles.exists)
        guard journalFile != nil || !exported.isEmpty else { return nil }
        let summary: String
        switch journal?.phase {
        case RekeyJournal.swapPhase?:
            let done = databases.count - exported.count
            summary = exported.isEmpty
                ? "an interrupted passphrase change had replaced every database but not yet removed its backups"
                : "an interrupted passphrase change had replaced \(done) of \(databases.count) databases with their new copies"
        case RekeyJournal.backupPhase?:
            summary = "an interrupted passphrase change was copying backups; no database had been replaced"
        default:
            summary = "an interrupted passphrase change had written \(exported.count) new \(exported.count == 1 ? "copy" : "copies") (.exported); no database had been replaced"
        }
        return RekeyLeftovers(journal: journalFile, phase: journal?.phase, exported: exported, summary: summary)
    }

    /// Settles the leftovers of an interrupted change, if any. Refuses while another program has a
    /// database open.
    public static func recover(_ set: DatabaseSet) throws -> RekeyRecoveryReport {
        guard let found = try leftovers(in: set) else {
            return RekeyRecoveryReport(action: .none, found: "nothing to recover", done: "nothing was changed", replaced: [], removed: [])
        }
        let journal = try found.journal.map(RekeyJournal.read)
        let databases = journal?.databases ?? set.targets.map(\.path)
        for database in databases where LockProbe.isInUse(database) {
            throw RekeyError.databaseInUse(path: database)
        }
        if let journal, journal.phase == RekeyJournal.swapPhase, let path = found.journal {
            return try rollForward(journal, journalPath: path, found: found.summary)
        }
        return try rollBack(databases, journal: journal, journalPath: found.journal, found: found.summary)
    }

    /// Puts the remaining new copies in place, removes the backups unless they are to be kept, then the journal.
    static func rollForward(_ journal: RekeyJournal, journalPath: String, found: String) throws -> RekeyRecoveryReport {
        var replaced: [String] = [], removed: [String] = []
        for database in journal.databases where RekeyFiles.exists(RekeyFiles.exported(database)) {
            try replace(database, with: RekeyFiles.exported(database))
            replaced.append(database)
        }
        if !journal.keepBackup {
            for database in journal.databases where RekeyFiles.exists(RekeyFiles.backup(database)) {
                try RekeyFiles.secureRemove(RekeyFiles.backup(database))
                removed.append(RekeyFiles.backup(database))
            }
        } else {
            RekeyFiles.protectKeptBackups(journal.databases)
        }
        let settings = journal.desktopSettings.map(installSettings)
        try finish(journalPath)
        removed.append(journalPath)
        let kept = journal.keepBackup ? "; the backups (.bak) were kept and still open with the old passphrase" : ""
        return RekeyRecoveryReport(action: .rolledForward, found: found,
                                   done: "finished the change: every database now opens with the new passphrase\(kept)",
                                   replaced: replaced, removed: removed, desktopSettings: settings)
    }

    /// Puts the staged desktop settings in place (the databases already are). Never throws: a
    /// settings file that changed meanwhile or cannot be replaced is reported with what to do, and
    /// its staged file is kept for the user.
    static func installSettings(_ staged: RekeyJournal.StagedDesktopSettings) -> DesktopSettingsOutcome {
        do {
            return try DesktopSettings.install(stagedFor: staged.path, expecting: staged.identity)
                ? DesktopSettings.doneOutcome(staged.path, staged.kind)
                : DesktopSettings.changedMeanwhileOutcome(staged.path, staged.kind)
        } catch {
            return DesktopSettings.notInstalledOutcome(staged.path, reason: "\(error)")
        }
    }

    /// Deletes the new copies and (when the journal says they were ours) the backups; the originals
    /// were never replaced.
    static func rollBack(_ databases: [String], journal: RekeyJournal?, journalPath: String?, found: String) throws -> RekeyRecoveryReport {
        var removed: [String] = []
        func delete(_ path: String) throws {
            guard RekeyFiles.exists(path) else { return }
            try RekeyFiles.remove(path)
            removed.append(path)
        }
        // Staged desktop settings go with the rest of the run: the databases keep the old passphrase.
        if let settings = journal?.desktopSettings {
            for partial in AtomicFileWriter.staleTempFiles(of: DesktopSettings.stagedPath(for: settings.path)) { try delete(partial) }
            try delete(DesktopSettings.stagedPath(for: settings.path))
        }
        for database in databases {
            for partial in AtomicFileWriter.staleTempFiles(of: RekeyFiles.backup(database)) { try delete(partial) }
            if journal != nil { try delete(RekeyFiles.backup(database)) }
            let exported = RekeyFiles.exported(database)
            for companion in RekeyFiles.companions(exported) { try delete(companion) }
        }
        if let journalPath { try delete(journalPath) }
        // The copies go last: while any is left, the leftovers stay visible to the next run.
        for database in databases { try delete(RekeyFiles.exported(database)) }
        for folder in Set(databases.map(Path.parent)) { try POSIXFile.fsyncDirectory(folder) }
        return RekeyRecoveryReport(action: .rolledBack, found: found,
                                   done: "rolled back: the databases were never replaced and still open with the old passphrase",
                                   replaced: [], removed: removed)
    }

    /// Moves `exported` over `database`. The database's WAL must be empty: frames or an index left
    /// beside the new file would be read as its own, so they go first.
    static func replace(_ database: String, with exported: String) throws {
        if let size = RekeyFiles.size(DataDirectoryNames.wal(of: database)), size > 0 {
            throw RekeyError.writtenAfterInterruption(path: database)
        }
        try RekeyFiles.remove(DataDirectoryNames.wal(of: database))
        try RekeyFiles.remove(DataDirectoryNames.shm(of: database))
        guard rename(exported, database) == 0 else { throw FileSystemError("replace", path: database) }
        try POSIXFile.fsyncDirectory(Path.parent(database))
    }

    /// Deletes the journal durably.
    static func finish(_ journalPath: String) throws {
        try RekeyFiles.remove(journalPath)
        try POSIXFile.fsyncDirectory(Path.parent(journalPath))
    }

    /// The journal that covers `set`: beside its first database, or, for an agent database given on
    /// its own, beside the chat database it travels with.
    static func journalPath(for set: DatabaseSet) -> String? {
        var candidates = [RekeyFiles.journal(set)]
        for target in set.targets where target.path.hasSuffix("_agent.db") {
            candidates.append(DataDirectoryNames.rekeyJournal(of: String(target.path.dropLast("_agent.db".count)) + "_chat.db"))
        }
        return candidates.first(where: RekeyFiles.exists)
    }
}
