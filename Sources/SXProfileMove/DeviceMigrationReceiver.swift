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
        if !options.replaceExisting, !interrupted, let existing = ArchiveImport.existingProfile(dataDirectory) {
            throw ProfileMoveError.profileExists(root: dataDirectory.root, database: existing)
        }
        let work = Path.join(options.tempRoot, "sxkit-migrate-receive-" + Hex.encode(SHA256Digest.of(description.digest).prefix(8)))
        try Folders.create(work, permissions: 0o700)
        var receiver = TransferReceiver(options: .init(destination: work, tempRoot: options.tempRoot, policy: options.policy), relays: relays)
        receiver.decryptProgress = decryptProgress
        // A received archive is placed only once verified, so one waiting here is complete: an earlier
        // run stopped before (or during) the import.
        var archive = Self.receivedArchive(in: work)
        var downloaded = 0
        if archive == nil {
            let transfer = try await receiver.receive(description, path: path, events: events)
            archive = transfer.path
            downloaded = transfer.chunksDownloaded
        }
        CrashPoint.reach("migrate-receive-downloaded")
        let bytes = Int64(try POSIXFile.status(archive!).st_size)
        // Whether a profile there may be replaced was settled above, before anything was downloaded.
        let report = try ArchiveImport.run(archive: archive!, into: dataDirectory, passphrase: passphrase, replaceExisting: true,
                                           tempRoot: options.tempRoot, progress: importProgress)
        try? Folders.remove(work)
        return Result(archiveName: Path.basename(archive!), archiveBytes: bytes, chunksDownloaded: downloaded, importReport: report)
    }

    static func receivedArchive(in work: String) -> String? {
        guard let names = try? Folders.names(in: work),
              let name = names.sorted().first(where: { $0.hasSuffix(".zip") && !$0.hasPrefix(".") }) else { return nil }
        let path = Path.join(work, name)
        guard let st = POSIXFile.linkStatus(path), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return path
    }
}
