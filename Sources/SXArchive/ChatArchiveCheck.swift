import SXCore

/// A chat archive that passed the check: every entry is inside the layout, none is hostile, and the
/// declared sizes are within the caps. Extraction follows `items` (local-header order).
public struct ChatArchivePlan: Sendable {
    public struct Item: Sendable, Equatable {
        public var record: ZipEntryRecord
        /// Nil for one of the layout's directory entries (which carry no data).
        public var entry: ChatArchiveEntry?
    }

    public var archivePath: String
    public var archiveSize: Int64
    public var items: [Item]

    /// Declared uncompressed bytes of all entries.
    public var totalBytes: Int64 { items.reduce(0) { $0 + $1.record.uncompressedSize } }
    /// Entries that carry data (directory entries excluded).
    public var dataItems: [Item] { items.filter { $0.entry != nil } }
    public func item(_ entry: ChatArchiveEntry) -> Item? { items.first { $0.entry == entry } }
}

/// The check every archive passes before anything else happens (no writes): hostile names, links,
/// devices, duplicates (also by case and Unicode normalisation), names outside the layout,
/// encryption, zip-bomb caps on the declared sizes, a structure that disagrees with itself, and the
/// two databases. Each refusal is one sentence naming the entry.
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
            let entry = try check(record, limits: limits)
            guard names.insert(Array(record.name.utf8)).inserted else {
                throw ArchiveFailure("entry '\(record.name)' appears twice in the archive; refusing it, since which copy wins would depend on the tool")
            }
            let key = ArchiveEntryName.collisionKey(record.name)
            if let other = keys[key] {
                throw ArchiveFailure("entries '\(other)' and '\(record.name)' would be the same file on a case-insensitive or Unicode-normalising file system; refusing the archive")
            }
            keys[key] = record.name
            total += record.uncompressedSize
            guard total <= limits.maxTotalBytes else {
                throw ArchiveFailure("the archive would expand to more than \(ByteCount.format(limits.maxTotalBytes)) (reached at entry '\(record.name)'); refusing a likely zip bomb")
            }
            items.append(ChatArchivePlan.Item(record: record, entry: entry))
        }
        if total > limits.ratioThresholdBytes, total > limits.maxRatio * max(directory.fileSize, 1) {
            throw ArchiveFailure("the archive (\(ByteCount.format(directory.fileSize))) would expand to \(ByteCount.format(total)), more than \(limits.maxRatio):1; refusing a likely zip bomb")
        }
        for required in [ChatArchiveEntry.chatDatabase, .agentDatabase] where !items.contains(where: { $0.entry == required }) {
            throw ArchiveFailure("the archive has no \(required.entryName): it is not a chat archive (a chat archive holds both databases)")
        }
        return ChatArchivePlan(archivePath: path, archiveSize: directory.fileSize, items: items)
    }

    /// The layout entry of one record, or the sentence that refuses it.
    static func check(_ record: ZipEntryRecord, limits: ArchiveLimits) throws -> ChatArchiveEntry? {
        let name = record.name
        if let problem = ArchiveEntryName.problem(name) {
            throw ArchiveFailure("entry '\(Self.printable(name))' is refused: \(problem)")
        }
        if let mode = record.unixMode {
            switch mode & 0o170000 {
            case 0o120000: throw ArchiveFailure("entry '\(name)' is a symbolic link; a chat archive holds only regular files")
            case 0o020000, 0o060000: throw ArchiveFailure("entry '\(name)' is a device file; a chat archive holds only regular files")
            case 0o010000: throw ArchiveFailure("entry '\(name)' is a FIFO; a chat archive holds only regular files")
            case 0o140000: throw ArchiveFailure("entry '\(name)' is a socket; a chat archive holds only regular files")
            case 0o040000 where !record.isDirectory:
                throw ArchiveFailure("entry '\(name)' is a directory that is not in the chat archive layout")
            case 0, 0o100000, 0o040000: break
            default: throw ArchiveFailure("entry '\(name)' has an unknown file type (mode \(String(mode, radix: 8)))")
            }
        }
        if record.isEncrypted {
            throw ArchiveFailure("entry '\(name)' is encrypted; chat archives are not, and sxkit does not import encrypted entries")
        }
        if record.isDirectory {
            guard layoutDirectories.contains(name) else {
                throw ArchiveFailure("entry '\(name)' is a directory that is not in the chat archive layout")
            }
            guard record.uncompressedSize == 0 else { throw ArchiveFailure("directory entry '\(name)' carries data") }
            return nil
        }
        guard let entry = ChatArchiveEntry(entryName: name) else {
            throw ArchiveFailure("entry '\(name)' is outside the chat archive layout (expected \(layoutDescription))")
        }
        guard record.method == 0 || record.method == 8 else {
            throw ArchiveFailure("entry '\(name)' is compressed with method \(record.method); chat archives use deflate (8) or none (0)")
        }
        if record.method == 0, record.compressedSize != record.uncompressedSize {
            throw ArchiveFailure("entry '\(name)' is stored uncompressed, yet declares \(record.compressedSize) bytes stored for \(record.uncompressedSize): the archive is damaged or forged")
        }
        if record.uncompressedSize > limits.ratioThresholdBytes,
           record.uncompressedSize > limits.maxRatio * max(record.compressedSize, 1) {
            throw ArchiveFailure("entry '\(name)' would expand from \(ByteCount.format(record.compressedSize)) to \(ByteCount.format(record.uncompressedSize)), more than \(limits.maxRatio):1; refusing a likely zip bomb")
        }
        return entry
    }

    /// A name with control characters escaped, so that a refusal cannot rewrite the user's terminal.
    static func printable(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
