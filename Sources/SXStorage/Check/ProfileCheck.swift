import Foundation
import Synchronization
import SXCore
import SXDatabase
import SXFileEncryption

/// `sxkit check` (as `restic check`): whether a profile is whole. Both databases are opened with the
/// passphrase and checked by SQLite (`DatabaseHealthCheck`); the chat database's `files` rows are
/// held against the files folder through the one classifier (`FilesTableReferences`); with
/// `readData` every CryptoFile's tag is verified with its key (`ChatCryptoFiles.verify`, the code
/// `files verify --data-dir` runs); orphans and leftovers are listed. Read-only throughout: the
/// databases are opened `immutable=1` or from a private copy when they have a WAL, files are only read.
///
/// The verdict (`whole`): true only when both databases open and pass their checks, no referenced
/// file is missing, no row's path leaves the files folder, no CryptoFile fails its tag, and no
/// interrupted passphrase change or archive import is pending (its recovery will change the
/// databases). Orphans and the leftovers of finished operations (backups, temp files) are
/// warnings: like restic's unreferenced packs they take space but lose nothing.
public struct ProfileCheck: Sendable {
    public var directory: DataDirectory
    /// The databases' passphrase; nil when none was given (plaintext databases need none).
    public var passphrase: SecretBytes?
    /// `integrity_check` and `cipher_integrity_check` instead of `quick_check`.
    public var deep = false
    /// Verify every CryptoFile's tag (reads every encrypted byte).
    public var readData = false
    public var jobs = ParallelWork.defaultJobs
    /// Counts the CryptoFiles verified (with `readData`).
    public var progress: ProgressTracker?
    /// Where private snapshots of WAL databases are made (default $TMPDIR).
    public var tempRoot: String?

    public init(directory: DataDirectory, passphrase: SecretBytes?, deep: Bool = false, readData: Bool = false,
                jobs: Int = ParallelWork.defaultJobs, progress: ProgressTracker? = nil) {
        self.directory = directory
        self.passphrase = passphrase
        self.deep = deep
        self.readData = readData
        self.jobs = jobs
        self.progress = progress
    }

    /// What the chat database's `files` table says, read in one pass on the checked connection.
    private struct FilesRows: Sendable {
        var references = FilesTableReferences()
        var cryptoFiles = ChatCryptoFiles()
        var unsafePaths: [String] = []
    }

    /// Checks the profile. Throws when it cannot be checked at all: not a data directory, or a
    /// passphrase that opens neither database (or none given for encrypted ones). Everything else,
    /// damage included, is in the report.
    public func run() throws -> ProfileCheckReport {
        try DataDirectoryScan.checkLayout(directory)
        let targets = DatabaseSet(dataDirectory: directory).targets
        let rowsBox = Mutex<FilesRows?>(nil)
        // Independent, and most of their time is SQLCipher's key derivation: one core each.
        let databases = ParallelWork.map(count: targets.count, jobs: targets.count) { i in
            DatabaseHealthCheck.run(targets[i], passphrase: passphrase, deep: deep, tempRoot: tempRoot) { db in
                guard targets[i].role == .chat else { return }
                var rows = FilesRows()
                try ChatFilesTable.forEach(in: db) { record in
                    rows.references.add(record)
                    rows.cryptoFiles.add(record)
                    if record.hasUnsafePath, let stored = record.storedPath { rows.unsafePaths.append(stored) }
                }
                rowsBox.withLock { $0 = rows }
            }
        }
        try refuseUncheckable(databases)
        var report = ProfileCheckReport(root: directory.root, databases: databases, files: nil, cryptoFiles: nil,
                                        orphans: [], leftovers: [], interruptions: [], problems: [], warnings: [], whole: false)
        let folder = directory.filesFolder ?? Path.join(directory.root, "files")
        var atomicTemps: [Leftover] = []
        if let rows = rowsBox.withLock({ $0 }) {
            var entries: [FolderEntry] = []
            let walked = FolderWalker.walk(folder) { entries.append($0) } == .walked
            if !walked { entries = [] }
            let missing = rows.references.missing(from: entries)
            report.files = FilesSummary(folder: folder, folderExists: walked, referenced: rows.references.byPath.count,
                                        present: rows.references.byPath.count - missing.count, missing: missing,
                                        escapingPaths: rows.unsafePaths,
                                        encrypted: rows.references.byPath.values.filter(\.encrypted).count)
            for entry in entries.sorted(by: { $0.relativePath < $1.relativePath }) where rows.references.classify(entry) == .orphan {
                if LeftoverFinder.isAtomicTemp(Path.basename(entry.relativePath)) {
                    atomicTemps.append(Leftover(path: Path.join(folder, entry.relativePath), kind: "temp file of an interrupted write",
                                                count: 1, bytes: entry.size, neededForRecovery: false))
                } else {
                    report.orphans.append(entry.relativePath)
                }
            }
            if readData {
                let verified = rows.cryptoFiles.verify(filesFolder: folder, jobs: jobs, progress: progress)
                report.cryptoFiles = CryptoFilesSummary(
                    verified: verified.done,
                    failed: verified.items.filter { $0.status == .failed }.map {
                        TagFailure(path: Self.relative($0.source, to: folder), reason: Self.reason($0.message ?? "failed", path: $0.source))
                    })
            }
        }
        report.interruptions = LeftoverFinder.interruptions(directory)
        // Private folders of killed runs in $TMPDIR are sxkit's, not this profile's: `storage` lists them.
        report.leftovers = LeftoverFinder.find(directory, interrupted: !report.interruptions.isEmpty)
            .filter { $0.kind != LeftoverFinder.killedRunFolder } + atomicTemps
        report.judge()
        return report
    }

    /// One passphrase opens both databases. When it opens neither, it is the wrong one and nothing
    /// can be checked; when it opens one, the other is reported (a different passphrase, or a
    /// damaged first page: SQLCipher cannot tell them apart).
    private func refuseUncheckable(_ databases: [DatabaseHealth]) throws {
        let present = databases.filter { $0.status != .missing && $0.status != .notADatabase }
        if let needed = present.first(where: { $0.status == .passphraseNeeded }) {
            throw ProfileCheckError.passphraseNeeded(database: needed.database.path)
        }
        if !present.isEmpty, present.allSatisfy({ $0.status == .wrongPassphrase }) {
            throw ProfileCheckError.wrongPassphrase(database: present[0].database.path)
        }
    }

    static func relative(_ path: String, to folder: String) -> String {
        path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
    }

    /// A failure's reason without the path the library's wording starts with (it is named already)
    /// and without its note that nothing was decrypted (`check` never decrypts).
    static func reason(_ message: String, path: String) -> String {
        var reason = message.hasPrefix("'\(path)': ") ? String(message.dropFirst(path.count + 4)) : message
        if reason.hasSuffix("; no plaintext was written") { reason.removeLast("; no plaintext was written".count) }
        return reason
    }
}

/// What `sxkit check` found. Field names are the `--json` document's.
public struct ProfileCheckReport: Sendable, Codable, Equatable {
    public var root: String
    /// The chat database, then the agent database.
    public var databases: [DatabaseHealth]
    /// Nil when the chat database's `files` table could not be read (its problem says why).
    public var files: FilesSummary?
    /// Only when the data was read (`readData`).
    public var cryptoFiles: CryptoFilesSummary?
    /// Files in the files folder that no row references (relative names).
    public var orphans: [String]
    /// Files earlier operations left in the data directory.
    public var leftovers: [Leftover]
    /// Interrupted operations whose recovery is pending.
    public var interruptions: [Interruption]
    /// Why the profile is not whole, one sentence each; empty when it is.
    public var problems: [String]
    /// What takes space or wants attention but loses nothing.
    public var warnings: [String]
    public var whole: Bool

    /// Fills `problems`, `warnings` and `whole` from the findings (see `ProfileCheck`).
    mutating func judge() {
        problems = []
        warnings = []
        for database in databases where !database.isOK {
            let count = database.problems.count > 1 ? " (\(database.problems.count) problems; the first)" : ""
            problems.append("\(database.database.label): \(database.status.phrase)" + (database.problems.first.map { "\(count): \($0)" } ?? ""))
        }
        if let files {
            if !files.missing.isEmpty {
                problems.append("\(files.missing.count) referenced file(s) missing: \(Self.list(files.missing))")
            }
            if !files.escapingPaths.isEmpty {
                problems.append("\(files.escapingPaths.count) file row(s) whose path leaves the files folder (never followed): \(Self.list(files.escapingPaths))")
            }
        } else if databases.first(where: { $0.database.role == .chat })?.status != .missing {
            problems.append("the chat database's files table could not be read, so the files were not checked")
        } else {
            problems.append("without the chat database the files cannot be checked")
        }
        if let failed = cryptoFiles?.failed, !failed.isEmpty {
            problems.append("\(failed.count) CryptoFile(s) failed their tag check: \(Self.list(failed.map(\.path)))")
        }
        for interruption in interruptions {
            problems.append("\(interruption.summary): its recovery is pending")
        }
        if !orphans.isEmpty { warnings.append("\(orphans.count) orphan(s) in the files folder (no row references them): \(Self.list(orphans))") }
        if !leftovers.isEmpty {
            let bytes = leftovers.reduce(Int64(0)) { $0 + $1.bytes }
            warnings.append("\(leftovers.count) leftover(s) of earlier operations, \(ByteCount.format(bytes))")
        }
        whole = problems.isEmpty
    }

    /// Names for a sentence: all of a few, the first ones of many.
    static func list(_ names: [String], limit: Int = 10) -> String {
        names.count <= limit ? names.joined(separator: ", ") : names.prefix(limit).joined(separator: ", ") + ", … (\(names.count - limit) more)"
    }
}

/// The chat database's `files` rows against the files folder.
public struct FilesSummary: Sendable, Codable, Equatable {
    public var folder: String
    public var folderExists: Bool
    /// Distinct relative paths the rows name (however many rows name each).
    public var referenced: Int
    public var present: Int
    /// Referenced paths that are not regular files in the folder (missing, or only a symlink), sorted.
    public var missing: [String]
    /// `file_path` values, as stored, that are absolute or climb out with `..`: never followed.
    public var escapingPaths: [String]
    /// Referenced paths some row holds a key for (CryptoFiles).
    public var encrypted: Int
}

/// The tags of the CryptoFiles, with `readData`.
public struct CryptoFilesSummary: Sendable, Codable, Equatable {
    public var verified: Int
    public var failed: [TagFailure]
}

public struct TagFailure: Sendable, Codable, Equatable {
    /// Relative to the files folder.
    public var path: String
    /// Wrong key or tampered (the tag cannot tell them apart), too short to be a CryptoFile, unreadable.
    public var reason: String
}

extension DatabaseHealth.Status {
    /// The status in a few words.
    public var phrase: String {
        switch self {
        case .ok: "ok"
        case .damaged: "DAMAGED"
        case .missing: "missing"
        case .notADatabase: "not a database"
        case .passphraseNeeded: "encrypted (no passphrase given)"
        case .wrongPassphrase: "does not open with the passphrase that opens the other database (another passphrase, or a damaged first page)"
        }
    }
}

/// Why a profile could not be checked at all.
public enum ProfileCheckError: SXError, Equatable {
    case passphraseNeeded(database: String)
    case wrongPassphrase(database: String)

    public var description: String {
        switch self {
        case .passphraseNeeded(let database): "'\(database)' is encrypted: its passphrase is needed to check it; nothing was changed"
        case .wrongPassphrase(let database): PassphraseWording.wrong(database) + "; nothing was changed"
        }
    }

    public var remedy: Remedy? {
        if case .passphraseNeeded = self { return .givePassphrase }
        return nil
    }
}
