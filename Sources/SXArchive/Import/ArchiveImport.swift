import Foundation
import SXCore
import SXDatabase

public struct ArchiveImportReport: Sendable, Equatable, Codable {
    /// Non-fatal problems (FORMATS §5): files not imported, files replaced.
    public var archiveErrors: [ArchiveError]
    /// Entries imported (databases, files and wallpapers).
    public var entries: Int
    /// Uncompressed bytes written into the data directory.
    public var bytes: Int64
    public var seconds: Double
    /// The `<db>.bak` backups of the databases that were replaced.
    public var backups: [String]
    /// Where the previous files folder and wallpapers were moved (nothing of them is deleted).
    public var previousFolders: [String]
    /// What an earlier interrupted import had left, settled before this one started.
    public var recovery: ImportRecoveryReport?
    /// The earlier import was of this same archive and recovery finished it: nothing more was
    /// imported (`entries` and `bytes` are 0), so nothing was imported twice.
    public var finishedInterruptedImport: Bool

    public init(archiveErrors: [ArchiveError], entries: Int, bytes: Int64, seconds: Double, backups: [String],
                previousFolders: [String], recovery: ImportRecoveryReport?, finishedInterruptedImport: Bool = false) {
        self.finishedInterruptedImport = finishedInterruptedImport
        self.archiveErrors = archiveErrors
        self.entries = entries
        self.bytes = bytes
        self.seconds = seconds
        self.backups = backups
        self.previousFolders = previousFolders
        self.recovery = recovery
    }
}

/// `archive import` (FORMATS §8): the archive's profile replaces the data directory's — the databases
/// (the previous ones kept as `<db>.bak`, as simplex-chat's `Archive.hs` does), and the files folder and
/// wallpapers as a whole (the previous ones moved aside into one folder, reported).
///
/// 1. settle an interrupted import; refuse while a passphrase change is unfinished, and over a
///    profile already in the data directory unless `replaceExisting` (the one overwrite rule);
/// 2. check the archive (fatal on anything hostile); refuse while the databases are open elsewhere,
///    while a `<db>.bak` is in the way, or without the space;
/// 3. test the passphrase on private copies of the archive's databases under $TMPDIR — they keep
///    the passphrase they were exported with — before the data directory is touched;
/// 4. extract into a staging folder inside the data directory, each file flushed;
/// 5. write the journal (point of no return), then `ImportSwap` puts everything in place.
///
/// A failure before 5 deletes the staging folder: the data directory is as it was. A crash before 5
/// leaves only the staging folder (rolled back by recovery); from 5 on, recovery finishes the swap.
public enum ArchiveImport {
    /// The `CrashPoint` names on the way, in order (`SXKIT_CRASH_AT` kills the process there).
    public static let crashPoints = [
        "import.staging-created", "import.entry-staged", "import.staged", "import.journal-written",
        "import.db-backed-up", "import.chat-db-swapped", "import.agent-db-swapped", "import.folder-replaced",
        "import.files-moved", "import.staging-removed",
    ]

    public static func run(archive: String, into data: DataDirectory, passphrase: SecretBytes,
                           replaceExisting: Bool = false, limits: ArchiveLimits = ArchiveLimits(), tempRoot: String? = nil,
                           progress: ProgressTracker? = nil) throws -> ArchiveImportReport {
        let clock = ContinuousClock(), start = clock.now
        // Private copies an earlier import killed while testing the passphrase left behind (never a live run's).
        PrivateFolder.removeStale(label: "import", in: tempRoot ?? PrivateFolder.systemTemp)
        // An interrupted import is this command's own to settle; an interrupted passphrase change is not.
        let recovery = ImportRecovery.leftovers(root: data.root, prefix: data.prefix) == nil ? nil : try ImportRecovery.recover(data)
        let identity = ImportedArchive.of(archive)
        if let recovery, recovery.action == .rolledForward, let identity, recovery.archive == identity {
            // A rerun after a kill past the point of no return: recovery just finished this very
            // import. Importing again would make `.bak` copies of the databases it brought.
            let backups = data.databases.map(ImportFiles.backup).filter(ImportFiles.exists)
            return ArchiveImportReport(archiveErrors: recovery.archiveErrors, entries: 0, bytes: 0, seconds: seconds(since: start, clock),
                                       backups: backups, previousFolders: [], recovery: recovery, finishedInterruptedImport: true)
        }
        _ = try LeftoverPolicy.check(RekeyRecovery.pending(for: DatabaseSet(dataDirectory: data)), writes: true)
        // An import that was interrupted was allowed to replace what is there; its rerun finishes it.
        if !replaceExisting, recovery == nil, let existing = existingProfile(data) {
            throw ArchiveFailure.profileExists(root: data.root, database: Path.basename(existing))
        }
        let plan = try ChatArchiveCheck.run(archive, limits: limits)
        try checkDestination(data, plan: plan, limits: limits)
        let databaseBytes = plan.items.filter { $0.entry?.databaseRole != nil }.reduce(0) { $0 + $1.record.uncompressedSize }
        progress?.setTotals(items: plan.dataItems.count, bytes: plan.totalBytes + databaseBytes)
        try testPassphrase(plan, passphrase: passphrase, tempRoot: tempRoot, limits: limits, progress: progress)

        let staging = ImportFiles.staging(root: data.root)
        let (entries, bytes, stagingErrors) = try stage(plan, into: staging, data: data, progress: progress)
        let journalPath = ImportFiles.journal(root: data.root, prefix: data.prefix)
        let journal = ImportJournal(phase: ImportJournal.swapPhase, databases: data.databases, staging: staging,
                                    filesFolder: data.filesFolder, wallpapersFolder: data.wallpapersFolder,
                                    previousFolder: ImportFiles.previousFolder(root: data.root, prefix: data.prefix), archive: identity)
        do {
            try journal.write(to: journalPath)
        } catch {
            try? ImportFiles.removeTree(staging)
            throw translate(error)
        }
        CrashPoint.reach("import.journal-written")
        let outcome: ImportSwap.Outcome
        do {
            outcome = try ImportSwap.complete(journal, journalPath: journalPath)
        } catch {
            throw ArchiveFailure.importInterrupted(cause: ErrorCause.text(of: error))
        }
        return ArchiveImportReport(archiveErrors: plan.skippedErrors + stagingErrors + outcome.archiveErrors, entries: entries, bytes: bytes,
                                   seconds: seconds(since: start, clock), backups: outcome.backups,
                                   previousFolders: outcome.previousFolders, recovery: recovery)
    }

    static func seconds(since start: ContinuousClock.Instant, _ clock: ContinuousClock) -> Double {
        let elapsed = start.duration(to: clock.now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The first database of the data directory's profile that exists, nil when it holds none.
    public static func existingProfile(_ data: DataDirectory) -> String? {
        data.databases.first { POSIXFile.linkStatus($0) != nil }
    }

    /// Refusals that need the data directory but change nothing in it.
    static func checkDestination(_ data: DataDirectory, plan: ChatArchivePlan, limits: ArchiveLimits) throws {
        for database in data.databases where LockProbe.isInUse(database) {
            throw ArchiveFailure.databaseInUse(path: database, settling: false)
        }
        for database in data.databases {
            let backup = ImportFiles.backup(database)
            for path in [backup] + DataDirectoryNames.companionSuffixes.map({ backup + $0 }) where ImportFiles.exists(path) {
                throw ArchiveFailure.backupInTheWay(path: path)
            }
        }
        var existing = data.root
        while !ImportFiles.exists(existing), existing != "/" { existing = Path.parent(existing) }
        try limits.requireSpace(plan.totalBytes, at: existing, for: .importing)
    }

    /// Extracts the archive's databases to a private folder and tests `passphrase` on each.
    static func testPassphrase(_ plan: ChatArchivePlan, passphrase: SecretBytes, tempRoot: String?,
                               limits: ArchiveLimits, progress: ProgressTracker?) throws {
        let scratch = try PrivateFolder(label: "import", root: tempRoot)
        defer { scratch.remove() }
        let databaseBytes = plan.items.filter { $0.entry?.databaseRole != nil }.reduce(0) { $0 + $1.record.uncompressedSize }
        try limits.requireSpace(databaseBytes, at: scratch.path, for: .testingPassphrase)
        let reader = try ChatArchiveReader(plan: plan, progress: progress)
        var tested = 0
        while tested < 2, let item = try reader.next() {
            guard let role = item.entry?.databaseRole else { continue }
            let copy = try ExtractedFile(path: Path.join(scratch.path, item.record.name), mode: 0o600)
            defer { copy.discard() }
            if let problem = try reader.readData({ try copy.write($0) }) {
                throw ArchiveFailure.archivedDatabaseDamaged(entry: item.record.name, problem: problem)
            }
            try copy.finish()
            // A kill here leaves the private copy in $TMPDIR: the next import (or recover) removes it.
            CrashPoint.reach("import.passphrase-copy")
            let result = KeyTester.test(DatabaseTarget(role: role, path: copy.path), passphrase: passphrase,
                                        named: item.record.name)
            guard result.outcome == .correct else {
                throw ArchiveFailure.archivedDatabaseUnusable(role: role, entry: item.record.name, outcome: result.outcome, cause: result.message)
            }
            tested += 1
        }
    }

    /// Writes every entry into `staging`, flushed; returns entries and bytes written and the
    /// per-file problems. On failure the staging folder is deleted again.
    static func stage(_ plan: ChatArchivePlan, into staging: String, data: DataDirectory,
                      progress: ProgressTracker?) throws -> (Int, Int64, [ArchiveError]) {
        try Folders.create(data.root, mode: 0o700)  // a profile: owner-only whatever the umask
        guard mkdir(staging, 0o700) == 0 else { throw FileSystemError("create the staging folder", path: staging) }
        var errors: [ArchiveError] = []
        var entries = 0
        do {
            try POSIXFile.fsyncDirectory(data.root)
            CrashPoint.reach("import.staging-created")
            let files = ImportFiles.stagedFiles(staging), wallpapers = ImportFiles.stagedWallpapers(staging)
            for folder in [files, wallpapers] where mkdir(folder, 0o700) != 0 {
                throw FileSystemError("create the staging folder", path: folder)
            }
            var skipped: [String: Int] = [:]
            let reader = try ChatArchiveReader(plan: plan, progress: progress)
            while let item = try reader.next() {
                guard let entry = item.entry else { continue }
                let target: String
                switch entry {
                case .chatDatabase: target = Path.join(staging, Path.basename(data.chatDatabase))
                case .agentDatabase: target = Path.join(staging, Path.basename(data.agentDatabase))
                case .file(let name):
                    guard data.filesFolder != nil else { skipped["files", default: 0] += 1; continue }
                    target = Path.join(files, name)
                case .wallpaper(let name):
                    guard data.wallpapersFolder != nil else { skipped["wallpapers", default: 0] += 1; continue }
                    target = Path.join(wallpapers, name)
                }
                // Plaintext chat files as well as databases: readable by the user only.
                let out = try ExtractedFile(path: target, mode: 0o600)
                let problem: String?
                do {
                    problem = try reader.readData { try out.write($0) }
                    if problem == nil { try out.finish() }
                } catch {
                    out.discard()
                    throw error
                }
                if let problem {
                    out.discard()
                    if entry.databaseRole != nil {
                        throw ArchiveFailure.archivedDatabaseDamaged(entry: item.record.name, problem: problem)
                    }
                    // The bare file name, as simplex-chat's Archive.hs reports a file (`AEFileError {file}`).
                    errors.append(.fileError(file: Path.basename(item.record.name), fileError: "\(problem); the file was not imported"))
                    continue
                }
                entries += 1
                progress?.itemDone()
                CrashPoint.reach("import.entry-staged")
            }
            for (kind, count) in skipped.sorted(by: { $0.key < $1.key }) {
                errors.append(.import(importError: "the data directory has no \(kind) folder (give --\(kind == "files" ? "files" : "assets")-dir): \(count) \(kind == "files" ? "file(s)" : "wallpaper(s)") from the archive were not imported"))
            }
            for folder in [files, wallpapers, staging] { try POSIXFile.fsyncDirectory(folder) }
            CrashPoint.reach("import.staged")
            return (entries, reader.bytesRead, errors)
        } catch {
            try? ImportFiles.removeTree(staging)
            throw translate(error)
        }
    }

    /// Says "no space" as such; other failures keep their own sentence.
    static func translate(_ error: any Error) -> any Error {
        if let error = error as? FileSystemError, error.isNoSpace {
            return ArchiveFailure.noSpaceToImport(cause: ErrorCause.text(of: error))
        }
        return error
    }
}
