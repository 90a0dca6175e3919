import Foundation
import SXCore
import SXDatabase

/// What `sxkit clean` is asked to remove (issue 6, item 2).
public struct CleanTargets: Sendable, Equatable, Codable {
    /// Everything in the temp folders (files and symlinks themselves, never what they point to).
    public var temp = false
    /// With `temp`: only what was last modified more than this many seconds ago.
    public var olderThanSeconds: Int64?
    /// Files in the files folder that the chat database does not reference.
    public var orphans = false
    /// Backups, journals and temp files earlier operations left (never ones a recovery still needs).
    public var leftovers = false
    /// Every file in the files folder, referenced or not; the databases stay (the app's "delete files").
    public var allFiles = false
    /// Databases, files, temp, assets and leftovers (the app's "delete all").
    public var everything = false

    public init(temp: Bool = false, olderThanSeconds: Int64? = nil, orphans: Bool = false, leftovers: Bool = false,
                allFiles: Bool = false, everything: Bool = false) {
        self.temp = temp
        self.olderThanSeconds = olderThanSeconds
        self.orphans = orphans
        self.leftovers = leftovers
        self.allFiles = allFiles
        self.everything = everything
    }

    public var isEmpty: Bool { !(temp || orphans || leftovers || allFiles || everything) }
}

/// The groups removals are planned and reported in. Referenced CryptoFiles and referenced plaintext
/// files are separate groups, so a report says how many of each went.
public enum CleanCategory: String, Sendable, Codable, CaseIterable {
    case temp
    case orphans
    case leftovers
    case encryptedFiles = "encrypted-files"
    case plaintextFiles = "plaintext-files"
    case assets
    case databases
}

/// One entry to remove, with what it was when planned: it is removed only if it still is.
public struct CleanItem: Sendable, Codable, Equatable {
    public var category: CleanCategory
    /// The folder `relativePath` is resolved in, one component at a time, never through a symlink.
    public var base: String
    public var relativePath: String
    public var kind: FolderEntry.Kind
    public var size: Int64
    public var device: UInt64
    public var inode: UInt64
    /// A files-folder entry that must still be unreferenced by the chat database when it is removed.
    public var mustStayUnreferenced: Bool

    public var path: String { Path.join(base, relativePath) }

    init(_ category: CleanCategory, base: String, _ entry: FolderEntry, mustStayUnreferenced: Bool = false) {
        self.category = category
        self.base = base
        relativePath = entry.relativePath
        kind = entry.kind
        size = entry.size
        device = entry.device
        inode = entry.inode
        self.mustStayUnreferenced = mustStayUnreferenced
    }
}

/// The total of one category.
public struct CategoryUsage: Sendable, Codable, Equatable {
    public var category: CleanCategory
    public var usage: Usage
}

/// What a clean would remove, computed from a scan (a snapshot: the executor re-checks every entry).
public struct CleanPlan: Sendable, Codable {
    public var root: String
    public var targets: CleanTargets
    /// Entries to remove. Folders (kind `directory`) are removed only when they end up empty.
    public var items: [CleanItem]
    /// Per category, files and symlinks (folders are not counted).
    public var totals: [CategoryUsage]
    /// What was deliberately left out, one sentence each.
    public var kept: [String]

    public var total: Usage { totals.reduce(Usage()) { $0 + $1.usage } }
    public var removesDatabases: Bool { targets.everything }
}

/// Turns a scan and targets into a plan, enforcing the rules that decide what may be removed.
enum CleanPlanner {
    struct Outline {
        var totals: [CleanCategory: Usage] = [:]
        var kept: [String] = []
    }

    static func plan(_ scan: DataDirectoryScan, _ targets: CleanTargets, now: Int64) throws -> CleanPlan {
        var items: [CleanItem] = []
        let outline = try walk(scan, targets, now: now) { items.append($0) }
        return CleanPlan(root: scan.directory.root, targets: targets, items: items,
                         totals: CleanCategory.allCases.compactMap { c in outline.totals[c].map { CategoryUsage(category: c, usage: $0) } },
                         kept: outline.kept)
    }

    /// Calls `add` for each entry the targets remove and returns the totals. The rules:
    /// - a file the chat DB references is removed only by `allFiles`/`everything`;
    /// - symlinks are removed (the link itself) only inside a temp folder;
    /// - nothing a recovery still needs is removed: with an interrupted operation, `leftovers` and
    ///   `everything` refuse;
    /// - orphans need the chat database (the scan opened it, or threw).
    static func walk(_ scan: DataDirectoryScan, _ targets: CleanTargets, now: Int64, add: (CleanItem) -> Void) throws -> Outline {
        let dir = scan.directory
        var outline = Outline()
        func take(_ item: CleanItem) {
            add(item)
            if item.kind != .directory { outline.totals[item.category, default: Usage()].add(item.size) }
        }
        if (targets.leftovers || targets.everything), let first = scan.interruptions.first {
            throw CareError.interrupted(summary: first.summary, operation: first.operation)
        }
        let filesTargets = targets.orphans || targets.allFiles || targets.everything
        if filesTargets, scan.references == nil {
            if let error = scan.referencesUnavailable { throw error }
            if targets.orphans, !(targets.allFiles || targets.everything) { throw CareError.chatDatabaseMissing(database: dir.chatDatabase) }
        }
        if filesTargets || targets.leftovers, let files = scan.files {
            var symlinks = 0
            for entry in files.entries {
                let everyFile = targets.allFiles || targets.everything
                switch FilesGroup.of(entry, references: scan.references) {
                case .classified(.orphan) where everyFile || targets.orphans:
                    take(CleanItem(.orphans, base: files.path, entry, mustStayUnreferenced: !everyFile))
                case .classified(.referenced(encrypted: true)) where everyFile: take(CleanItem(.encryptedFiles, base: files.path, entry))
                case .classified(.referenced(encrypted: false)) where everyFile: take(CleanItem(.plaintextFiles, base: files.path, entry))
                case .atomicTemp where (everyFile || targets.leftovers) && TempOwnership.isStale(Path.join(files.path, entry.relativePath)):
                    take(CleanItem(.leftovers, base: files.path, entry, mustStayUnreferenced: !everyFile))
                case .classified(.folder) where everyFile: take(CleanItem(.plaintextFiles, base: files.path, entry))
                case .classified(.symlink): symlinks += 1
                default: break
                }
            }
            if symlinks > 0, filesTargets {
                outline.kept.append("\(symlinks) symlink(s) in the files folder are kept: links are removed only inside a temp folder, and never followed")
            }
        }
        if targets.temp || targets.everything {
            let cutoff = targets.everything ? nil : targets.olderThanSeconds.map { now - $0 }
            var newer = Usage()
            for folder in scan.temp {
                for entry in folder.entries {
                    switch entry.kind {
                    case .file, .symlink:
                        if let cutoff, entry.modified > cutoff { newer.add(entry.size); continue }
                        take(CleanItem(.temp, base: folder.path, entry))
                    case .directory: take(CleanItem(.temp, base: folder.path, entry))
                    case .other: break
                    }
                }
            }
            if newer.count > 0 {
                outline.kept.append("\(newer.count) temp file(s) (\(ByteCount.format(newer.bytes))) modified more recently than the age given are kept")
            }
        }
        if targets.everything, let assets = scan.assets {
            for entry in assets.entries where entry.kind == .file || entry.kind == .directory {
                take(CleanItem(.assets, base: assets.path, entry))
            }
        } else if targets.leftovers, let assets = scan.assets {
            for entry in assets.entries where entry.kind == .file && LeftoverFinder.isAtomicTemp(Path.basename(entry.relativePath))
                && TempOwnership.isStale(Path.join(assets.path, entry.relativePath)) {
                take(CleanItem(.leftovers, base: assets.path, entry))
            }
        }
        if targets.leftovers || targets.everything {
            for leftover in scan.leftovers where !leftover.neededForRecovery {
                guard let st = POSIXFile.linkStatus(leftover.path) else { continue }
                let entry = FolderEntry(relativePath: Path.basename(leftover.path), st)
                if entry.kind == .directory, leftover.kind == LeftoverFinder.killedRunFolder {
                    // Everything in it, then the folder itself once emptied.
                    let base = Path.parent(leftover.path)
                    _ = FolderWalker.walk(leftover.path) { inner in
                        var moved = inner
                        moved.relativePath = Path.join(entry.relativePath, inner.relativePath)
                        // A symlink is never removed outside a temp folder: the folder then stays.
                        if moved.kind == .file || moved.kind == .directory { take(CleanItem(.leftovers, base: base, moved)) }
                    }
                    take(CleanItem(.leftovers, base: base, entry))
                    continue
                }
                guard entry.kind == .file else {
                    outline.kept.append("'\(leftover.path)' is a \(entry.kind.rawValue), not a file: kept")
                    continue
                }
                take(CleanItem(.leftovers, base: Path.parent(leftover.path), entry))
            }
        }
        if targets.everything {
            for database in dir.databases {
                for path in [database] + DataDirectoryNames.companions(of: database) {
                    guard let st = POSIXFile.linkStatus(path) else { continue }
                    let entry = FolderEntry(relativePath: Path.basename(path), st)
                    guard entry.kind == .file else { continue }
                    take(CleanItem(.databases, base: Path.parent(path), entry))
                }
            }
        }
        return outline
    }

    /// What each target alone would reclaim now, for the storage report.
    static func reclaimable(_ scan: DataDirectoryScan) -> [StorageReport.Reclaim] {
        let now = Int64(time(nil))
        let targets: [(String, CleanTargets)] = [
            ("temp", CleanTargets(temp: true)), ("orphans", CleanTargets(orphans: true)),
            ("leftovers", CleanTargets(leftovers: true)), ("all-files", CleanTargets(allFiles: true)),
            ("everything", CleanTargets(everything: true)),
        ]
        return targets.map { name, target in
            do {
                let outline = try walk(scan, target, now: now) { _ in }
                return StorageReport.Reclaim(target: name, usage: outline.totals.values.reduce(Usage(), +), blockedBy: nil)
            } catch let error as CareError {
                return StorageReport.Reclaim(target: name, usage: Usage(), blockedBy: error.blockedSentence)
            } catch {
                return StorageReport.Reclaim(target: name, usage: Usage(), blockedBy: ErrorCause.text(of: error))
            }
        }
    }
}

extension CareError {
    /// Why a clean-up target cannot run, in a few words for the storage report.
    var blockedSentence: String {
        switch self {
        case .passphraseNeeded: "needs the chat database's passphrase"
        case .wrongPassphrase(let database): PassphraseWording.wrong(database)
        case .chatDatabaseMissing: "needs the chat database"
        case .interrupted(_, let operation): "an interrupted \(operation.noun) must be settled first"
        case .inUse: "the app has the databases open"
        default: "\(self)"
        }
    }
}
