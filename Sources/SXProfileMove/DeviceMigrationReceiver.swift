import Foundation
import SXArchive
import SXCore
import SXCrypto
import SXTransfer

/// `migrate receive`: downloads a migration archive from its recipient description (every chunk and
/// the whole file verified, as any transfer), then imports it with all of the archive import's
/// safety: the archive's databases must open with the passphrase before anything in the data
/// directory is touched, existing databases are kept as `.bak`, a crash is settled by recovery.
public struct DeviceMigrationReceiver: Sendable {
    public struct Options: Sendable {
        /// Where the downloaded chunks and the archive wait (the target's temp folder or --temp-dir).
        public var tempRoot: String
        /// Import over a data directory that already holds a profile (its databases become `.bak`).
        public var replaceExisting: Bool
        public var policy: TransferPolicy
        /// Called once it is known the archive must be downloaded, before anything is created: it
        /// may refuse (a link whose sender reaches its servers through Tor, received without a
        /// proxy). A rerun that needs no download never calls it.
        public var beforeDownloading: (@Sendable () throws -> Void)?

        public init(tempRoot: String, replaceExisting: Bool = false, policy: TransferPolicy = TransferPolicy()) {
            self.tempRoot = tempRoot
            self.replaceExisting = replaceExisting
            self.policy = policy
        }
    }

    public struct Result: Sendable {
        /// The archive as received (deleted once imported).
        public var archiveName: String
        public var archiveBytes: Int64
        /// Chunks downloaded by this run: 0 when an interrupted run had already received the archive.
        public var chunksDownloaded: Int
        public var importReport: ArchiveImportReport
        /// The import an earlier, killed run had begun was finished (or found finished); nothing
        /// was imported a second time.
        public var finishedInterruptedImport = false
        /// An earlier run, killed or not, had imported this migration into this data directory, and
        /// its databases are as that import left them: the archive was not downloaded again, nor imported.
        public var alreadyImported = false
    }

    public let dataDirectory: DataDirectory
    public let passphrase: SecretBytes
    public let relays: @Sendable (RelayAddress) throws -> any ChunkRelay
    public let options: Options

    public init(dataDirectory: DataDirectory, passphrase: SecretBytes, options: Options,
                relays: @escaping @Sendable (RelayAddress) throws -> any ChunkRelay) {
        self.dataDirectory = dataDirectory
        self.passphrase = passphrase
        self.options = options
        self.relays = relays
    }

    public func receive(_ description: FileDescription, path: String, decryptProgress: ProgressTracker? = nil,
                        importProgress: ProgressTracker? = nil, events: @escaping TransferEventHandler = { _ in }) async throws -> Result {
        // An interrupted import of this migration put databases in place already; the import settles it.
        let interrupted = ImportRecovery.leftovers(root: dataDirectory.root, prefix: dataDirectory.prefix) != nil
        // One work folder per migration and target: the mark in it speaks of that data directory only.
        let identity = description.digest + Array("\n\(dataDirectory.root)\n\(dataDirectory.prefix)".utf8)
        let work = Path.join(options.tempRoot, "sxkit-migrate-receive-" + Hex.encode(SHA256Digest.of(identity).prefix(8)))
        // A received archive is placed only once verified, so one waiting here is complete: an earlier
        // run stopped before (or during) the import.
        var archive = Self.receivedArchive(in: work)
        // The mark sits beside the work folder, not in it, and goes last: while it is there, a rerun
        // knows the import began, even once the archive it came from is deleted.
        let mark = work + ImportBegan.suffix
        // What the import left once it finished (written before the mark goes, see ImportDone).
        let doneRecord = work + ImportDone.suffix
        if let began = ImportBegan.read(mark) {
            if let finished = try finishInterruptedImport(work: work, mark: mark, began: began, interrupted: interrupted) { return finished }
            // Rolled back, or never got past its checks: imported afresh (the earlier run settled
            // whether a profile there may be replaced).
            ImportBegan.remove(mark)
        } else if !interrupted, let done = ImportDone.read(doneRecord), done.matches(dataDirectory) {
            // Asked to replace the profile or not: the profile there is the one this migration
            // brought, untouched since, and importing it again would only make backups of itself.
            return Result(archiveName: done.archiveName, archiveBytes: done.archiveBytes, chunksDownloaded: 0,
                          importReport: ArchiveImportReport(archiveErrors: done.archiveErrors, entries: 0, bytes: 0, seconds: 0,
                                                            backups: Self.backupPaths(of: dataDirectory),
                                                            previousFolders: [], recovery: nil),
                          alreadyImported: true)
        } else if !options.replaceExisting, !interrupted, let existing = ArchiveImport.existingProfile(dataDirectory) {
            // A record that no longer matches is left for the next import to replace (--force): it
            // speaks of databases no longer as they were, and nothing reads it but this check.
            throw ProfileMoveError.profileExists(root: dataDirectory.root, database: existing)
        }
        ImportDone.remove(doneRecord)
        if archive == nil { try options.beforeDownloading?() }
        try Folders.create(work, permissions: 0o700)
        var receiver = TransferReceiver(options: .init(destination: work, tempRoot: options.tempRoot, policy: options.policy), relays: relays)
        receiver.decryptProgress = decryptProgress
        // A run killed once the archive was in place, before its chunks were removed, left them:
        // the archive is whole, so they are of no more use.
        if archive != nil { receiver.removeLeftovers(of: description, keepingRedirect: false) }
        var downloaded = 0
        if archive == nil {
            // The archive, then its import, which needs at least the archive's bytes again (its
            // entries uncompressed); the temp folder is the data directory's own unless told otherwise.
            try FreeSpace.require([(description.size, options.tempRoot), (description.size, dataDirectory.root)],
                                  for: "receiving and importing the migration archive of '\(path)'")
            do {
                let transfer = try await receiver.receive(description, path: path, events: events)
                archive = transfer.path
                downloaded = transfer.chunksDownloaded
            } catch let error as FileSystemError where error.isNoSpace {
                // A full disk: the chunks and plaintext kept so far would only hold on to the space
                // the user must free; the relays still have them (nothing was acknowledged but a
                // redirect's chunk, whose small description is kept). The work folder holds nothing
                // else yet: no archive was placed in it.
                receiver.removeLeftovers(of: description, keepingRedirect: true)
                try? Folders.remove(work)
                throw error
            }
        }
        CrashPoint.reach("migrate-receive-downloaded")
        let bytes = Int64(try POSIXFile.status(archive!).st_size)
        // Written before the import starts, so that a rerun after a kill finishes that import instead
        // of importing a second time over it (its databases would become `.bak` copies of themselves).
        let leftovers = ImportRecovery.leftovers(root: dataDirectory.root, prefix: dataDirectory.prefix)
        try ImportBegan(profileExisted: ArchiveImport.existingProfile(dataDirectory) != nil || leftovers != nil,
                        backupsExisted: Self.backups(of: dataDirectory), archiveBytes: bytes, archiveName: Path.basename(archive!)).write(mark)
        CrashPoint.reach("migrate-receive-mark-written")
        let report: ArchiveImportReport
        do {
            // Whether a profile there may be replaced was settled above, before anything was downloaded.
            report = try ArchiveImport.run(archive: archive!, into: dataDirectory, passphrase: passphrase, replaceExisting: true,
                                           tempRoot: options.tempRoot, progress: importProgress)
        } catch let error as ArchiveFailure {
            // Refused or failed with nothing changed (the interrupted case is settled by a rerun): the
            // next run imports afresh, from the archive kept in the work folder.
            if case .importInterrupted = error { throw error }
            ImportBegan.remove(mark)
            throw Self.sayingWhereTheArchiveIs(error, archive: archive!, root: dataDirectory.root)
        } catch {
            ImportBegan.remove(mark)
            throw error
        }
        CrashPoint.reach("migrate-receive-imported")
        Self.removeWork(work, mark: mark, done: ImportDone(archiveName: Path.basename(archive!), archiveBytes: bytes,
                                                           archiveErrors: report.archiveErrors, data: dataDirectory))
        return Result(archiveName: Path.basename(archive!), archiveBytes: bytes, chunksDownloaded: downloaded, importReport: report)
    }

    /// An import that stopped before changing anything, told with where the received archive waits:
    /// its relays may have forgotten it (acknowledged), so it is the one copy here. A rerun into the
    /// same data directory imports it when what stopped the import can change (the passphrase, the
    /// space, a database in use); an archive refused for what it holds stays refused, and may be
    /// deleted. Failures that call for the import's recovery first are left as they are.
    static func sayingWhereTheArchiveIs(_ error: ArchiveFailure, archive: String, root: String) -> any Error {
        switch error {
        case .importBlocked, .importInterrupted, .databaseInUse(_, true):
            return error
        case .archivedDatabaseUnusable(_, _, .wrongPassphrase, _), .archivedDatabaseUnusable(_, _, .notEncrypted, _), .notEnoughSpace, .noSpaceToImport,
             .databaseInUse, .backupInTheWay, .unreadable, .unwritable, .writerOutOfMemory:
            return ProfileMoveError.importStoppedArchiveKept(reason: error.description, remedy: error.remedy, archive: archive, root: root)
        default:
            return ProfileMoveError.archiveRefusedArchiveKept(reason: error.description, archive: archive)
        }
    }

    /// Once imported: the work folder (the archive first, the largest), then the record of the
    /// finished import, then the mark. A kill anywhere leaves the mark or the record, and the rerun
    /// reports the import done instead of refusing the profile it brought, or importing the archive a
    /// second time over it. A record that cannot be written (a full disk) leaves the mark in place,
    /// which says as much to a rerun.
    static func removeWork(_ work: String, mark: String, done: ImportDone) {
        if let archive = receivedArchive(in: work) { unlink(archive) }
        CrashPoint.reach("migrate-receive-archive-removed")
        try? Folders.remove(work)
        CrashPoint.reach("migrate-receive-work-removed")
        guard (try? done.write(work + ImportDone.suffix)) != nil else { return }
        CrashPoint.reach("migrate-receive-record-written")
        ImportBegan.remove(mark)
        CrashPoint.reach("migrate-receive-mark-removed")
    }

    /// A rerun after a run that was killed once its import had begun: the import is settled, not
    /// started again. With the import's journal it is finished forward (as the import's recovery
    /// does); with only its staging folder it is rolled back and the caller imports again (nil). With
    /// neither, the import either finished (the profile it brought is there: done) or never got past
    /// its checks (nil: the caller imports).
    func finishInterruptedImport(work: String, mark: String, began: ImportBegan, interrupted: Bool) throws -> Result? {
        PrivateFolder.removeStale(label: "import", in: options.tempRoot)
        let clock = ContinuousClock(), start = clock.now
        var recovery: ImportRecoveryReport?
        if interrupted {
            recovery = try ImportRecovery.recover(dataDirectory)
            guard recovery?.action == .rolledForward else { return nil }
        } else {
            // Over a profile, a finished import left `.bak` backups; backups already there would have
            // made the import refuse, so then it cannot have finished.
            let imported = began.profileExisted
                ? !began.backupsExisted && Self.backups(of: dataDirectory)
                : ArchiveImport.existingProfile(dataDirectory) != nil
            guard imported else { return nil }
        }
        // A record written before the kill describes the databases as the import left them; the app
        // may have written to them since, so it is kept rather than taken again now.
        let done = ImportDone.read(work + ImportDone.suffix)
            ?? ImportDone(archiveName: began.archiveName, archiveBytes: began.archiveBytes, archiveErrors: recovery?.archiveErrors ?? [], data: dataDirectory)
        Self.removeWork(work, mark: mark, done: done)
        let elapsed = start.duration(to: clock.now)
        let report = ArchiveImportReport(archiveErrors: recovery?.archiveErrors ?? [], entries: 0, bytes: 0,
                                         seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                                         backups: Self.backupPaths(of: dataDirectory), previousFolders: [], recovery: recovery)
        return Result(archiveName: began.archiveName, archiveBytes: began.archiveBytes, chunksDownloaded: 0, importReport: report,
                      finishedInterruptedImport: true)
    }

    /// Whether any of the data directory's databases has a `.bak` backup.
    static func backups(of data: DataDirectory) -> Bool {
        !backupPaths(of: data).isEmpty
    }

    /// The `.bak` backups the data directory's databases have.
    static func backupPaths(of data: DataDirectory) -> [String] {
        data.databases.map(DataDirectoryNames.backup(of:)).filter { POSIXFile.linkStatus($0) != nil }
    }

    static func receivedArchive(in work: String) -> String? {
        guard let names = try? Folders.names(in: work),
              let name = names.sorted().first(where: { $0.hasSuffix(".zip") && !$0.hasPrefix(".") }) else { return nil }
        let path = Path.join(work, name)
        guard let st = POSIXFile.linkStatus(path), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return path
    }
}
