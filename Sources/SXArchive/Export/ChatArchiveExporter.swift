import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Choices for `ChatArchiveExporter`.
public struct ChatArchiveExportOptions: Sendable {
    /// Deflate entries that can shrink; false stores every entry as it is.
    public var compress: Bool
    /// Replace an existing archive at the destination (atomically) instead of refusing.
    public var replaceExisting: Bool
    /// How long opening or checkpointing a database waits for another program's lock, each attempt.
    public var busyTimeoutMilliseconds: Int

    public init(compress: Bool = true, replaceExisting: Bool = false, busyTimeoutMilliseconds: Int = 3000) {
        self.compress = compress
        self.replaceExisting = replaceExisting
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }
}

/// What an export did. `archiveErrors` lists what could not be archived; everything else was.
public struct ChatArchiveExportReport: Sendable, Equatable, Encodable {
    public var archive: String
    public var archiveErrors: [ArchiveError] = []
    /// Entries written, databases included.
    public var entries = 0
    /// Bytes read from the data directory.
    public var bytes: Int64 = 0
    /// Size of the archive file.
    public var archiveBytes: Int64 = 0
    public var storedEntries = 0
    public var deflatedEntries = 0
    /// Things deliberately left out, as sentences (folders inside the files folder, temp leftovers).
    public var skipped: [String] = []
    /// Temp files of earlier, killed exports to the same destination that were removed.
    public var removedLeftovers = 0
    public var seconds = 0.0
}

/// Writes a chat archive (FORMATS §8) of a data directory: both databases as one consistent
/// snapshot each, the files folder's top-level files and the wallpapers.
///
/// The archive is built in a temp file beside the destination and renamed over it only when complete
/// and flushed, so nothing partial ever appears under the destination name, also after kill -9. Memory
/// is one fixed buffer plus libarchive's; data of any size streams through.
public struct ChatArchiveExporter: Sendable {
    public let dataDirectory: DataDirectory
    /// Opens the databases (to checkpoint and lock them); the archived bytes keep their own encryption.
    public let passphrase: SecretBytes
    public var options: ChatArchiveExportOptions

    /// Read size of the copy loop: big enough for sequential disk speed, small enough to be irrelevant.
    static let bufferSize = 1 << 20

    public init(dataDirectory: DataDirectory, passphrase: SecretBytes, options: ChatArchiveExportOptions = ChatArchiveExportOptions()) {
        self.dataDirectory = dataDirectory
        self.passphrase = passphrase
        self.options = options
    }

    /// The name an archive gets in a folder given as the destination (`out/`): the time it was
    /// exported, in UTC, without colons (a name every file system takes).
    public static func archiveName(exportedAt date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HHmmss'Z'"
        return "simplex-chat.\(format.string(from: date)).zip"
    }

    /// Writes the archive to `destination`; a destination ending in `/` is a folder (created when
    /// missing) that gets an archive named by `archiveName(exportedAt:)`. Throws (leaving no archive and no temp file) on anything
    /// that would make the archive unusable; per-file problems end up in the report instead.
    public func export(to destination: String, progress: ProgressTracker? = nil) throws -> ChatArchiveExportReport {
        let clock = ContinuousClock(), start = clock.now
        var output = Path.absolute(destination)
        if OutputFolder.isFolderSyntax(destination) {
            try OutputFolder.create(output)
            output = Path.join(output, Self.archiveName(exportedAt: Date()))
        }
        try checkDestination(output)
        for database in dataDirectory.databases where POSIXFile.linkStatus(database) == nil {
            throw ArchiveFailure.exportSource(path: database, problem: .noDatabase)
        }
        var report = ChatArchiveExportReport(archive: output)
        report.removedLeftovers = AtomicFileWriter.removeStaleTempFiles(of: output)

        let temp = try AtomicFileWriter(destination: output, mode: 0o600)
        var plan = ExportPlan.make(dataDirectory)
        plan.exclude(sameFileAs: temp.descriptor)
        report.archiveErrors = plan.errors
        report.skipped = plan.skipped

        let databaseBytes = dataDirectory.databases.reduce(Int64(0)) { $0 + ((try? POSIXFile.status($1).st_size).map(Int64.init) ?? 0) }
        progress?.setTotals(items: 2 + plan.files.count, bytes: databaseBytes + plan.files.reduce(0) { $0 + $1.size })

        let zip = try ZipWriter(descriptor: temp.descriptor, path: output)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var copier = EntryCopier(zip: zip, buffer: buffer, compress: options.compress, progress: progress)

        for (path, entry) in [(dataDirectory.chatDatabase, ChatArchiveEntry.chatDatabase), (dataDirectory.agentDatabase, .agentDatabase)] {
            let snapshot = DatabaseSnapshot(path: path, passphrase: passphrase, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            try snapshot.hold { fd, size in
                let copied = try copier.copy(fd: fd, size: size, status: try fileStatus(fd, path), name: entry.entryName, path: path)
                if let problem = copied.problem { throw ArchiveFailure.exportSource(path: path, problem: .uncopyable(cause: problem)) }
            }
        }
        for file in plan.files {
            if let problem = try copier.copy(file) {
                report.archiveErrors.append(.fileError(file: file.entry.fileName, fileError: problem))
            }
        }
        try zip.close()
        report.entries = copier.entries
        report.bytes = copier.bytesIn
        report.storedEntries = copier.stored
        report.deflatedEntries = copier.deflated
        report.archiveBytes = zip.bytesWritten

        CrashPoint.reach("export.before-rename")
        try temp.finishWriting(flush: true)
        if !options.replaceExisting, POSIXFile.linkStatus(output) != nil {
            temp.abort()
            throw ArchiveFailure.output(path: output, problem: .appearedWhileWriting)
        }
        try temp.publish(flushFolder: true)
        let elapsed = start.duration(to: clock.now)
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }

    private func checkDestination(_ output: String) throws {
        if let st = POSIXFile.linkStatus(output) {
            if st.st_mode & S_IFMT == S_IFDIR { throw ArchiveFailure.output(path: output, problem: .isAFolder) }
            if !options.replaceExisting { throw ArchiveFailure.output(path: output, problem: .exists) }
            if st.st_mode & S_IFMT != S_IFREG { throw ArchiveFailure.output(path: output, problem: .notARegularFile) }
        }
        let folder = Path.parent(output)
        guard let st = try? POSIXFile.status(folder), st.st_mode & S_IFMT == S_IFDIR else {
            throw ArchiveFailure.output(path: folder, problem: .folderMissing)
        }
    }
}

func fileStatus(_ fd: Int32, _ path: String) throws -> stat {
    var st = stat()
    guard fstat(fd, &st) == 0 else { throw FileSystemError("read the status of", path: path) }
    return st
}
