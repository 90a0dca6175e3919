import Foundation
import SXCore
import SXDatabase

/// A count of files and their apparent size.
public struct Usage: Sendable, Codable, Equatable {
    public var count: Int
    public var bytes: Int64
    public init(count: Int = 0, bytes: Int64 = 0) {
        self.count = count
        self.bytes = bytes
    }
    public mutating func add(_ size: Int64) {
        count += 1
        bytes += size
    }
    public static func + (a: Usage, b: Usage) -> Usage { Usage(count: a.count + b.count, bytes: a.bytes + b.bytes) }
}

/// `sxkit storage`: where the space of a data directory goes (issue 6, item 1).
public struct StorageReport: Sendable, Codable, Equatable {
    public struct DatabaseUsage: Sendable, Codable, Equatable {
        public var path: String
        public var role: String
        public var exists: Bool
        public var bytes: Int64
        /// Nil when there is no such companion.
        public var wal: Int64?
        public var shm: Int64?
        public var total: Int64
    }

    public struct FilesUsage: Sendable, Codable, Equatable {
        public var folder: String
        public var exists: Bool
        /// Every regular file in the folder.
        public var total: Usage
        /// The split needs the chat database; nil when it could not be read (see `findings`).
        public var referencedEncrypted: Usage?
        public var referencedPlaintext: Usage?
        /// Bytes: the sizes the chat database recorded for them.
        public var referencedMissing: Usage?
        public var orphans: Usage?
        /// `.sxkit-tmp-*` files of interrupted writes (counted with the leftovers too).
        public var interruptedWrites: Usage
        /// Referenced paths that are symlinks on disk: not followed, not counted as present.
        public var referencedSymlinks: Int
        public var otherSymlinks: Int
        public var symlinkExamples: [String]
        /// Rows whose `file_path` is absolute or contains `..`: never followed.
        public var unsafePaths: Int
        public var unsafePathExamples: [String]
        public var missingExamples: [String]
    }

    public struct FolderUsage: Sendable, Codable, Equatable {
        public var path: String
        public var exists: Bool
        public var files: Usage
        public var symlinks: Int
    }

    /// What one clean-up target would remove.
    public struct Reclaim: Sendable, Codable, Equatable {
        /// The target's name: temp, orphans, leftovers, all-files or everything.
        public var target: String
        public var usage: Usage
        /// Why the target cannot run now, if it cannot.
        public var blockedBy: String?

        /// `category`, as `clean`'s own report names the same thing.
        enum CodingKeys: String, CodingKey {
            case usage, blockedBy
            case target = "category"
        }
    }

    public var root: String
    public var layout: DataDirectoryLayout
    public var databases: [DatabaseUsage]
    public var files: FilesUsage?
    public var tempFolders: [FolderUsage]
    public var assets: FolderUsage?
    public var wallpapers: FolderUsage?
    public var leftovers: [Leftover]
    public var reclaimable: [Reclaim]
    /// Databases, files, temp, assets and leftovers together.
    public var total: Usage
    public var findings: [String]
    /// Interrupted operations whose files are kept until their recovery settles them.
    public var interruptions: [Interruption]
}

extension StorageReport {
    static let exampleLimit = 10

    /// Builds the report from a scan. Reads only: nothing is created or modified.
    public static func build(_ scan: DataDirectoryScan) -> StorageReport {
        let dir = scan.directory
        var findings: [String] = []
        let databases = dir.databases.enumerated().map { i, path in
            let size = POSIXFile.linkStatus(path).map { Int64($0.st_size) }
            let wal = POSIXFile.linkStatus(DataDirectoryNames.wal(of: path)).map { Int64($0.st_size) }
            let shm = POSIXFile.linkStatus(DataDirectoryNames.shm(of: path)).map { Int64($0.st_size) }
            return DatabaseUsage(path: path, role: i == 0 ? "chat" : "agent", exists: size != nil, bytes: size ?? 0,
                                 wal: wal, shm: shm, total: (size ?? 0) + (wal ?? 0) + (shm ?? 0))
        }
        if let error = scan.referencesUnavailable {
            findings.append(error.reportSentence)
        } else if scan.references == nil, POSIXFile.linkStatus(dir.chatDatabase) == nil {
            findings.append("there is no chat database: files cannot be told referenced or orphaned")
        }
        let files = scan.files.map { filesUsage($0, scan: scan, findings: &findings) }
        var temp: [FolderUsage] = []
        for folder in scan.temp { temp.append(folderUsage(folder)) }
        let assets = scan.assets.map(folderUsage)
        var wallpapers: FolderUsage?
        // Wallpapers live inside the assets folder: reported on their own, counted once.
        if let walked = scan.assets, let wallpaperFolder = dir.wallpapersFolder,
           let prefix = Path.relative(wallpaperFolder, inside: walked.path), !prefix.isEmpty {
            var usage = Usage(), links = 0
            for entry in walked.entries where entry.relativePath.hasPrefix(prefix + "/") {
                if entry.kind == .file { usage.add(entry.size) } else if entry.kind == .symlink { links += 1 }
            }
            wallpapers = FolderUsage(path: wallpaperFolder, exists: POSIXFile.linkStatus(wallpaperFolder) != nil, files: usage, symlinks: links)
        }
        for path in scan.unreadable { findings.append("'\(path)' could not be read; its contents are not counted") }
        for interruption in scan.interruptions {
            findings.append("\(interruption.summary): its files are kept until its recovery settles it")
        }
        let leftovers = scan.leftovers
        let plans = CleanPlanner.reclaimable(scan)
        var total = Usage()
        for db in databases where db.exists {
            total.add(db.bytes)
            if let wal = db.wal { total.add(wal) }
            if let shm = db.shm { total.add(shm) }
        }
        total = total + (files?.total ?? Usage()) + temp.reduce(Usage()) { $0 + $1.files } + (assets?.files ?? Usage())
        for leftover in leftovers { total = total + Usage(count: leftover.count, bytes: leftover.bytes) }
        return StorageReport(root: dir.root, layout: dir.layout, databases: databases, files: files, tempFolders: temp,
                             assets: assets, wallpapers: wallpapers, leftovers: leftovers, reclaimable: plans, total: total,
                             findings: findings, interruptions: scan.interruptions)
    }

    static func folderUsage(_ walked: DataDirectoryScan.WalkedFolder) -> FolderUsage {
        var usage = Usage(), links = 0
        for entry in walked.entries {
            if entry.kind == .file { usage.add(entry.size) } else if entry.kind == .symlink { links += 1 }
        }
        return FolderUsage(path: walked.path, exists: walked.outcome == .walked, files: usage, symlinks: links)
    }

    static func filesUsage(_ walked: DataDirectoryScan.WalkedFolder, scan: DataDirectoryScan, findings: inout [String]) -> FilesUsage {
        let references = scan.references
        var usage = FilesUsage(folder: walked.path, exists: walked.outcome == .walked, total: Usage(),
                               referencedEncrypted: nil, referencedPlaintext: nil, referencedMissing: nil, orphans: nil,
                               interruptedWrites: Usage(), referencedSymlinks: 0, otherSymlinks: 0, symlinkExamples: [],
                               unsafePaths: references?.unsafePaths ?? 0, unsafePathExamples: references?.unsafePathExamples ?? [],
                               missingExamples: [])
        switch walked.outcome {
        case .walked: break
        case .missing: findings.append("the files folder '\(walked.path)' does not exist")
        case .notAFolder(let kind):
            findings.append("the files folder '\(walked.path)' is a \(kind.rawValue), not a folder: it is not followed")
        }
        var encrypted = Usage(), plaintext = Usage(), orphans = Usage()
        for entry in walked.entries {
            if entry.kind == .file { usage.total.add(entry.size) }
            switch FilesGroup.of(entry, references: references) {
            case .classified(.referenced(encrypted: true)): encrypted.add(entry.size)
            case .classified(.referenced(encrypted: false)): plaintext.add(entry.size)
            case .classified(.orphan): orphans.add(entry.size)
            case .atomicTemp: usage.interruptedWrites.add(entry.size)
            case .classified(.symlink(let referenced)):
                if referenced { usage.referencedSymlinks += 1 } else { usage.otherSymlinks += 1 }
                if usage.symlinkExamples.count < exampleLimit { usage.symlinkExamples.append(entry.relativePath) }
            case .classified(.folder), .classified(.other): break
            }
        }
        if let references {
            usage.referencedEncrypted = encrypted
            usage.referencedPlaintext = plaintext
            usage.orphans = orphans
            var missing = Usage()
            for path in references.missing(from: walked.entries) {
                missing.add(references.byPath[path]?.recordedSize ?? 0)
                if usage.missingExamples.count < exampleLimit { usage.missingExamples.append(path) }
            }
            usage.referencedMissing = missing
            if usage.referencedSymlinks > 0 {
                findings.append("\(usage.referencedSymlinks) referenced file(s) in the files folder are symlinks (e.g. '\(usage.symlinkExamples[0])'): not followed, counted as missing, never removed")
            }
            if references.unsafePaths > 0 {
                findings.append("\(references.unsafePaths) row(s) of the files table name a path outside the files folder (e.g. '\(references.unsafePathExamples[0])'): never followed")
            }
        } else if usage.total.count > 0 {
            usage.orphans = nil
        }
        if usage.otherSymlinks > 0, usage.referencedSymlinks == 0 {
            findings.append("\(usage.otherSymlinks) symlink(s) in the files folder (e.g. '\(usage.symlinkExamples[0])'): not followed, never removed")
        }
        return usage
    }
}

extension CareError {
    /// The sentence for the storage report, which goes on without the chat database.
    var reportSentence: String {
        switch self {
        case .passphraseNeeded(let database):
            "'\(Path.basename(database))' is encrypted and no passphrase was given: the files folder is not split into referenced and orphaned files"
        case .wrongPassphrase(let database):
            PassphraseWording.wrong(database) + ", so the files folder is not split into referenced and orphaned files"
        default:
            "\(self)"
        }
    }
}
