import SXCore

/// A chat archive that passed the check: every entry is inside the layout, none is hostile, and the
/// declared sizes are within the caps. Extraction follows `items` (local-header order).
public struct ChatArchivePlan: Sendable {
    public struct Item: Sendable, Equatable {
        public var record: ZipEntryRecord
        /// Nil for one of the layout's directory entries (which carry no data), and for an entry
        /// outside the layout that is skipped.
        public var entry: ChatArchiveEntry?
        /// Why the entry is left out: it is outside the layout but not hostile (SimpleX's import
        /// ignores such entries, simplex-chat `Archive.hs` `importArchive`).
        public var skipped: String?
    }

    public var archivePath: String
    public var archiveSize: Int64
    public var items: [Item]

    /// Declared uncompressed bytes of the entries extracted (summed without overflow by the check).
    public var totalBytes: Int64 { items.filter { $0.skipped == nil }.reduce(0) { $0 + $1.record.uncompressedSize } }
    /// Entries that carry data (directory entries excluded).
    public var dataItems: [Item] { items.filter { $0.entry != nil } }
    public func item(_ entry: ChatArchiveEntry) -> Item? { items.first { $0.entry == entry } }

    /// One `import` ArchiveError per entry left out, in archive order.
    public var skippedErrors: [ArchiveError] {
        items.compactMap { item in item.skipped.map { .import(importError: "'\(item.record.name)' \($0); it was skipped, as SimpleX's own import ignores it") } }
    }
}

/// The check every archive passes before anything else happens (no writes): hostile names, links,
/// devices, duplicates (also by case and Unicode normalisation), encryption, zip-bomb caps on the
/// declared sizes, a structure that disagrees with itself, and the two databases. Each refusal is
/// one sentence naming the entry. Entries outside the layout that are not hostile (a folder inside
/// the files folder, an unknown file at the top) are not refused: they are marked skipped.
public enum ChatArchiveCheck {
    /// Directory entries a ZIP tool writes for the layout's folders.
    public static let layoutDirectories: Set<String> = [
        ChatArchiveEntry.filesFolderName + "/", ChatArchiveEntry.prefix + "_assets/", ChatArchiveEntry.wallpapersFolderName + "/",
    ]

    static let layoutDescription = "\(ChatArchiveEntry.chatDatabaseName), \(ChatArchiveEntry.agentDatabaseName), \(ChatArchiveEntry.filesFolderName)/<name> or \(ChatArchiveEntry.wallpapersFolderName)/<name>"

    public static func run(_ path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ChatArchivePlan {
        let directory = try ZipDirectory.read(path, maxEntries: limits.maxEntries)
        var items: [ChatArchivePlan.Item] = []
        // Bytes, not Strings: Swift compares strings by canonical equivalence, which would hide NFC/NFD twins.
        var names = Set<[UInt8]>()
        var keys: [String: String] = [:]
        var total: Int64 = 0
        for record in directory.entries {
            let checked = try check(record, limits: limits)
            guard names.insert(Array(record.name.utf8)).inserted else {
                throw ArchiveFailure.entryRefused(entry: record.name, .appearsTwice)
            }
            let key = ArchiveEntryName.collisionKey(record.name)
            if let other = keys[key] {
                throw ArchiveFailure.entryRefused(entry: record.name, .collides(earlier: other))
            }
            keys[key] = record.name
            if case .skipped(let reason) = checked {
                items.append(ChatArchivePlan.Item(record: record, entry: nil, skipped: reason))
                continue
            }
            let (sum, overflow) = total.addingReportingOverflow(record.uncompressedSize)
            guard !overflow, sum <= limits.maxTotalBytes else {
                throw ArchiveFailure.zipBomb(.expandsBeyondLimit(limit: limits.maxTotalBytes, reachedAt: record.name))
            }
            total = sum
            if case .entry(let entry) = checked {
                items.append(ChatArchivePlan.Item(record: record, entry: entry))
            } else {
                items.append(ChatArchivePlan.Item(record: record, entry: nil))
            }
        }
        let (archiveBound, boundOverflow) = limits.maxRatio.multipliedReportingOverflow(by: max(directory.fileSize, 1))
        if total > limits.ratioThresholdBytes, !boundOverflow, total > archiveBound {
            throw ArchiveFailure.zipBomb(.archiveRatio(archiveBytes: directory.fileSize, expandedBytes: total, ratio: limits.maxRatio))
        }
        for required in [ChatArchiveEntry.chatDatabase, .agentDatabase] where !items.contains(where: { $0.entry == required }) {
            throw ArchiveFailure.notAChatArchive(missing: required.entryName)
        }
        return ChatArchivePlan(archivePath: path, archiveSize: directory.fileSize, items: items)
    }

    /// What one record is to an import.
    enum Checked: Equatable {
        case entry(ChatArchiveEntry)
        /// A directory entry of the layout (no data).
        case layoutDirectory
        /// Outside the layout, not hostile: left out, with the reason.
        case skipped(String)
    }

    /// What one record is, or the sentence that refuses it.
    static func check(_ record: ZipEntryRecord, limits: ArchiveLimits) throws -> Checked {
        let name = record.name
        if let problem = ArchiveEntryName.problem(name) {
            throw ArchiveFailure.entryRefused(entry: name, .unsafeName(reason: problem))
        }
        if let mode = record.unixMode {
            switch mode & 0o170000 {
            case 0o120000: throw ArchiveFailure.entryNotRegular(entry: name, kind: "symbolic link")
            case 0o020000, 0o060000: throw ArchiveFailure.entryNotRegular(entry: name, kind: "device file")
            case 0o010000: throw ArchiveFailure.entryNotRegular(entry: name, kind: "FIFO")
            case 0o140000: throw ArchiveFailure.entryNotRegular(entry: name, kind: "socket")
            case 0o040000 where !record.isDirectory:
                throw ArchiveFailure.entryRefused(entry: name, .directoryWithoutSlash)
            case 0, 0o100000, 0o040000: break
            default: throw ArchiveFailure.entryRefused(entry: name, .unknownFileType(mode: mode))
            }
        }
        if record.isEncrypted {
            throw ArchiveFailure.entryRefused(entry: name, .encrypted)
        }
        if record.isDirectory {
            guard record.uncompressedSize == 0 else { throw ArchiveFailure.entryRefused(entry: name, .directoryWithData) }
            return layoutDirectories.contains(name) ? .layoutDirectory : .skipped("is a folder outside the chat archive layout")
        }
        guard let entry = ChatArchiveEntry(entryName: name) else {
            return .skipped("is outside the chat archive layout (\(layoutDescription))")
        }
        guard record.method == 0 || record.method == 8 else {
            throw ArchiveFailure.entryRefused(entry: name, .unsupportedMethod(record.method))
        }
        if record.method == 0, record.compressedSize != record.uncompressedSize {
            throw ArchiveFailure.entryRefused(entry: name, .storedSizeMismatch(stored: record.compressedSize, size: record.uncompressedSize))
        }
        let (ratioBound, ratioOverflow) = limits.maxRatio.multipliedReportingOverflow(by: max(record.compressedSize, 1))
        if record.uncompressedSize > limits.ratioThresholdBytes, !ratioOverflow, record.uncompressedSize > ratioBound {
            throw ArchiveFailure.zipBomb(.entryRatio(entry: name, compressed: record.compressedSize, uncompressed: record.uncompressedSize, ratio: limits.maxRatio))
        }
        return .entry(entry)
    }

    /// A name with control characters escaped, so that a refusal cannot rewrite the user's terminal.
    static func printable(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
