import Foundation
import Synchronization
import SXCore
import SXDatabase

/// Everything storage and clean need to know about a data directory, gathered in one pass: the
/// chat DB's references and the files-folder walk run in parallel (SQLCipher's key derivation and
/// the directory reads overlap), then the temp and assets folders and the leftovers are walked.
public struct DataDirectoryScan: Sendable {
    public struct WalkedFolder: Sendable {
        public var path: String
        public var outcome: WalkOutcome
        public var entries: [FolderEntry]
    }

    public var directory: DataDirectory
    /// Nil when there is no chat database, or (for the storage report) when it could not be read.
    public var references: FilesTableReferences?
    /// Why `references` is nil although the chat database exists (storage only; clean throws).
    public var referencesUnavailable: CareError?
    public var files: WalkedFolder?
    public var temp: [WalkedFolder]
    public var assets: WalkedFolder?
    public var leftovers: [Leftover]
    public var interruptions: [Interruption]
    /// Folders that could not be opened while walking.
    public var unreadable: [String]

    /// Refuses a folder that does not look like this layout: it must be a folder holding the chat
    /// database or the files folder.
    public static func checkLayout(_ dir: DataDirectory) throws {
        guard let st = try? POSIXFile.status(dir.root), (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CareError.notADataDirectory(root: dir.root, reason: "it is not a folder")
        }
        let hasChat = POSIXFile.linkStatus(dir.chatDatabase).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
        let hasFiles = dir.filesFolder.flatMap(POSIXFile.linkStatus).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
        guard hasChat || hasFiles else {
            let files = dir.filesFolder.map { " and no files folder \(Path.basename($0))" } ?? ""
            throw CareError.notADataDirectory(root: dir.root, reason: "no \(Path.basename(dir.chatDatabase))\(files)")
        }
        // A files or temp folder (given with --files-dir/--temp-dir) that holds the databases would make
        // them orphans or temp files, and a temp folder holding the files or assets folder would make
        // referenced files temp files: refused outright.
        for folder in [dir.filesFolder].compactMap({ $0 }) + dir.tempFolders where contains(folder, dir.chatDatabase) {
            throw CareError.notADataDirectory(root: dir.root, reason: "the folder '\(folder)' holds the databases, so it cannot be a files or temp folder")
        }
        for temp in dir.tempFolders {
            for kept in [dir.filesFolder, dir.assetsFolder].compactMap({ $0 }) where contains(temp, kept) {
                throw CareError.notADataDirectory(root: dir.root, reason: "the temp folder '\(temp)' holds '\(kept)', so it cannot be a temp folder")
            }
        }
    }

    /// True when `path` is `folder` or lies below it.
    static func contains(_ folder: String, _ path: String) -> Bool {
        let folder = Path.absolute(folder), path = Path.absolute(path)
        return path == folder || Path.relative(path, inside: folder) != nil
    }

    /// Scans `dir`. With `requireReferences`, an unreadable chat database throws (clean); without,
    /// the scan goes on and says why the split is missing (storage).
    public static func scan(_ dir: DataDirectory, passphrase: SecretBytes?, requireReferences: Bool) throws -> DataDirectoryScan {
        try checkLayout(dir)
        let referencesBox = Mutex<Result<FilesTableReferences?, CareError>>(.success(nil))
        let filesBox = Mutex<WalkedFolder?>(nil)
        let unreadableBox = Mutex<[String]>([])
        ParallelWork.forEach(count: 2, jobs: 2) { job in
            if job == 0 {
                let result: Result<FilesTableReferences?, CareError>
                do {
                    result = .success(try ChatFileReferences.read(chatDatabase: dir.chatDatabase, passphrase: passphrase))
                } catch let error as CareError {
                    result = .failure(error)
                } catch {
                    result = .failure(.chatDatabaseUnreadable(database: dir.chatDatabase, cause: ErrorCause.text(of: error)))
                }
                referencesBox.withLock { $0 = result }
            } else if let folder = dir.filesFolder {
                let walked = walk(folder) { path in unreadableBox.withLock { $0.append(path) } }
                filesBox.withLock { $0 = walked }
            }
        }
        var scan = DataDirectoryScan(directory: dir, references: nil, referencesUnavailable: nil, files: filesBox.withLock { $0 },
                                     temp: [], assets: nil, leftovers: [], interruptions: [], unreadable: [])
        switch referencesBox.withLock({ $0 }) {
        case .success(let references): scan.references = references
        case .failure(let error):
            // The storage report goes on without a passphrase, but a wrong one is said loudly.
            if requireReferences { throw error }
            if case .wrongPassphrase = error { throw error }
            scan.referencesUnavailable = error
        }
        var unreadable = unreadableBox.withLock { $0 }
        for folder in dir.tempFolders {
            scan.temp.append(walk(folder) { unreadable.append($0) })
        }
        scan.assets = dir.assetsFolder.map { walk($0) { unreadable.append($0) } }
        scan.interruptions = LeftoverFinder.interruptions(dir)
        scan.leftovers = LeftoverFinder.find(dir, interrupted: !scan.interruptions.isEmpty)
        scan.unreadable = unreadable
        return scan
    }

    static func walk(_ folder: String, unreadable: (String) -> Void) -> WalkedFolder {
        var entries: [FolderEntry] = []
        let outcome = FolderWalker.walk(folder, unreadable: unreadable) { entries.append($0) }
        return WalkedFolder(path: folder, outcome: outcome, entries: entries)
    }
}

/// How the files folder's entries fall into the report's groups: the one classifier's classes
/// (`FilesTableReferences.classify`), with an orphan named like an interrupted atomic write told
/// apart as a leftover.
enum FilesGroup: Equatable {
    case classified(FilesFolderClass)
    case atomicTemp

    /// Without references (no chat database) every regular file is unreferenced.
    static func of(_ entry: FolderEntry, references: FilesTableReferences?) -> FilesGroup {
        let found = (references ?? FilesTableReferences()).classify(entry)
        if found == .orphan, LeftoverFinder.isAtomicTemp(Path.basename(entry.relativePath)) { return .atomicTemp }
        return .classified(found)
    }
}
