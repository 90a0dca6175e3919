import Foundation
import SXArchive
import SXCore
import SXCrypto
import SXDatabase
import SXTransfer

/// `migrate send`: a consistent chat archive of a data directory, sent as one relay transfer. The
/// archive is exported once into a work folder under the temp folder and kept there until the send
/// completes, so an interrupted migration resumes the same upload (same bytes, same chunks) instead
/// of exporting a different archive; `fresh` throws that work away and exports again.
public struct DeviceMigrationSender: Sendable {
    public struct Options: Sendable {
        public var recipients: Int
        /// Where the sender and recipient descriptions go.
        public var descriptionFolder: String
        /// The temp folder holding the archive and the transfer's resume state.
        public var tempRoot: String
        /// Export again even when an archive from an interrupted run is waiting.
        public var fresh: Bool
        /// Allow an archive above the 1 GiB soft limit, up to the 5 GiB hard limit.
        public var aboveSoftLimit: Bool
        public var policy: TransferPolicy
        /// Also make the link (and, for a description of several chunks, the redirect it needs) that
        /// the SimpleX apps' "Migrate from another device" accepts: for XFTP servers only, which the
        /// apps can reach.
        public var appLink = false
        /// The link's `data=` JSON: the network settings a receiving app is told (`MigrationLink.data`).
        public var linkData = MigrationLink.defaultData
        /// Send databases that have no passphrase (the apps refuse to import them).
        public var allowUnencrypted = false

        public init(recipients: Int = 1, descriptionFolder: String, tempRoot: String, fresh: Bool = false, aboveSoftLimit: Bool = false,
                    policy: TransferPolicy = TransferPolicy()) {
            self.recipients = recipients
            self.descriptionFolder = descriptionFolder
            self.tempRoot = tempRoot
            self.fresh = fresh
            self.aboveSoftLimit = aboveSoftLimit
            self.policy = policy
        }
    }

    public struct Result: Sendable {
        /// The export's report; nil when an archive exported by an interrupted run was sent.
        public var export: ChatArchiveExportReport?
        /// When the archive that was sent was exported.
        public var exportedAt: Date
        public var archiveBytes: Int64
        public var transfer: TransferSender.Result
        /// The apps' link, when asked for; also written to `linkFile` (0600).
        public var link: String?
        public var linkFile: String?
        /// The redirect's sender description (it cancels the redirect), when the link needed one.
        public var redirectSenderDescription: String?
    }

    public let dataDirectory: DataDirectory
    public let passphrase: SecretBytes
    public let relays: [any ChunkRelay]
    public let options: Options

    public init(dataDirectory: DataDirectory, passphrase: SecretBytes, relays: [any ChunkRelay], options: Options) {
        self.dataDirectory = dataDirectory
        self.passphrase = passphrase
        self.relays = relays
        self.options = options
    }

    /// The work folder of this data directory's migration (one per data directory).
    public var workFolder: String {
        Path.join(options.tempRoot, "sxkit-migrate-send-" + Hex.encode(SHA256Digest.of(Array(dataDirectory.root.utf8)).prefix(8)))
    }

    public func send(exportProgress: ProgressTracker? = nil, events: @escaping TransferEventHandler = { _ in }) async throws -> Result {
        // A description folder that cannot be one is found before the export, not after the upload.
        try OutputFolder.check(options.descriptionFolder)
        if !options.allowUnencrypted, try DatabaseFileKind.classify(path: dataDirectory.chatDatabase) == .plaintextSQLite {
            throw ProfileMoveError.databasesUnencrypted(database: dataDirectory.chatDatabase)
        }
        let work = workFolder
        // A finished migration killed while its work folder was being removed left it renamed.
        try? Folders.remove(work + Self.sentSuffix)
        let markerPath = Path.join(work, MigrationExportMarker.fileName)
        if options.fresh { try? Folders.remove(work) }
        var export: ChatArchiveExportReport?
        var marker = try MigrationExportMarker.load(markerPath)
        if let m = marker, m.dataDirectory != dataDirectory.root || POSIXFile.linkStatus(m.archive) == nil { marker = nil }
        if marker == nil {
            try? Folders.remove(work)
            try Folders.create(work, permissions: 0o700)
            var now = Date()
            // Archives are named by the second, as the apps name them: a migration that finished in
            // this same second (its run killed while it cleaned up, then run again) has descriptions
            // under this name, so this one waits for the next second and its own name.
            for _ in 0..<3 where POSIXFile.linkStatus(Path.join(options.descriptionFolder, MigrationExportMarker.archiveName(exportedAt: now) + ".sender.yaml")) != nil {
                let next = (now.timeIntervalSince1970 + 1).rounded(.down)
                try await Task.sleep(for: .milliseconds(max(1, Int((next - Date().timeIntervalSince1970) * 1000) + 1)))
                now = Date()
            }
            let archive = Path.join(work, MigrationExportMarker.archiveName(exportedAt: now))
            let exporter = ChatArchiveExporter(dataDirectory: dataDirectory, passphrase: passphrase)
            export = try exporter.export(to: archive, progress: exportProgress)
            let written = MigrationExportMarker(dataDirectory: dataDirectory.root, archive: archive, exportedAt: now)
            try written.save(markerPath)
            marker = written
            CrashPoint.reach("migrate-send-exported")
        }
        let archive = marker!.archive
        let bytes = Int64(try POSIXFile.status(archive).st_size)
        var sendOptions = TransferSender.Options(recipients: options.recipients, aboveSoftLimit: options.aboveSoftLimit,
                                                 descriptionFolder: options.descriptionFolder, tempRoot: work, policy: options.policy)
        // The send's state stays with the archive until the migration is done: a rerun after a kill
        // in between finds the descriptions the send's own and finishes.
        sendOptions.keepsWorkFolder = true
        let sender = TransferSender(relays: relays, options: sendOptions)
        let transfer = try await sender.send(file: archive, events: events)
        var result = Result(export: export, exportedAt: marker!.exportedAt, archiveBytes: bytes, transfer: transfer)
        if options.appLink {
            var linked = try FileDescription.load(transfer.recipientDescriptions[0])
            if MigrationLink.needsRedirect(linked) {
                let senderPath = Path.join(options.descriptionFolder, Path.basename(archive) + ".redirect.sender.yaml")
                linked = try await TransferSender.sendRedirect(for: linked, relays: relays, senderDescriptionPath: senderPath,
                                                               folder: Path.join(work, "redirect"), policy: options.policy)
                result.redirectSenderDescription = senderPath
            }
            let link = MigrationLink.make(linked, data: options.linkData)
            let linkFile = Path.join(options.descriptionFolder, Path.basename(archive) + ".link.txt")
            try AtomicFileWriter.write(Array((link + "\n").utf8), to: linkFile, mode: 0o600)
            result.link = link
            result.linkFile = linkFile
        }
        // Sent: the archive (every file of the profile, readable) must not outlive the migration.
        // Renamed first, in one step: a kill while it is removed leaves no half of it for a rerun
        // to take for a migration still to finish.
        CrashPoint.reach("migrate-send-sent")
        if rename(work, work + Self.sentSuffix) == 0 {
            CrashPoint.reach("migrate-send-renamed")
            try? Folders.remove(work + Self.sentSuffix)
        } else {
            try? Folders.remove(work)
        }
        return result
    }

    static let sentSuffix = ".sent"
}

/// Written once the archive is complete: a rerun sends this archive rather than exporting again.
struct MigrationExportMarker: Codable, Sendable {
    static let fileName = "export.json"

    var dataDirectory: String
    var archive: String
    var exportedAt: Date

    /// Named as the app names its archives.
    static func archiveName(exportedAt: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HHmmss"
        return "simplex-chat.\(format.string(from: exportedAt)).zip"
    }

    static func load(_ path: String) throws -> MigrationExportMarker? {
        guard let bytes = try? FileBytes.read(path, limit: 1 << 16) else { return nil }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(MigrationExportMarker.self, from: data)
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        try AtomicFileWriter.write(Array(try encoder.encode(self)), to: path, mode: 0o600)
    }
}
