import SXCore

/// Walks a checked archive's entries through libarchive, in step with the plan, and enforces the
/// caps on the bytes that actually come out: a header that lies about a size cannot get past,
/// because reading stops the moment an entry yields more than it declared. Memory stays flat: one
/// 1 MiB buffer, whatever the archive's size.
final class ChatArchiveReader {
    let plan: ChatArchivePlan
    private let stream: ZipStreamReader
    private let progress: ProgressTracker?
    private var index = -1
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private(set) var bytesRead: Int64 = 0

    init(plan: ChatArchivePlan, progress: ProgressTracker? = nil) throws {
        self.plan = plan
        self.progress = progress
        stream = try ZipStreamReader(path: plan.archivePath)
    }

    /// Advances to the next entry; nil after the last. libarchive must see the same entries as the check.
    func next() throws -> ChatArchivePlan.Item? {
        guard let header = try stream.next() else {
            guard index + 1 == plan.items.count else {
                throw ArchiveFailure.damaged(.fewerEntriesRead(read: index + 1, listed: plan.items.count))
            }
            return nil
        }
        index += 1
        guard index < plan.items.count else {
            throw ArchiveFailure.damaged(.moreEntriesRead)
        }
        let item = plan.items[index]
        let name = item.record.name
        if let seen = header.name, seen != name, seen + "/" != name {
            throw ArchiveFailure.entryRefused(entry: name, .readsBackNamed(seen))
        }
        if header.isHardLink { throw ArchiveFailure.entryNotRegular(entry: name, kind: "hard link") }
        if header.isEncrypted { throw ArchiveFailure.entryRefused(entry: name, .encrypted) }
        // A skipped entry is never extracted; it need only be a file or a folder (links and devices were refused).
        let expectedType: UInt32 = item.entry == nil ? 0o040000 : 0o100000
        guard header.fileType == expectedType || (item.skipped != nil && [0o040000, 0o100000].contains(header.fileType)) else {
            throw ArchiveFailure.entryRefused(entry: name, .readsBackAsType(mode: header.fileType))
        }
        return item
    }

    /// Streams the current entry to `sink` in pieces. Returns nil when the entry is intact, or a
    /// sentence when its data is damaged (bad CRC, short) — `sink` may then have seen part of it.
    /// Throws when the entry yields more than it declared (a zip bomb), and for what `sink` throws.
    func readData(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> String? {
        let record = plan.items[index].record
        var count: Int64 = 0
        while true {
            let chunk: ZipStreamReader.Chunk
            do {
                chunk = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            } catch let failure as ArchiveFailure {
                // libarchive cannot go on past a broken deflate stream: the whole reading stops here.
                throw ArchiveFailure.entryRefused(entry: record.name, .dataUnreadable(cause: failure.message))
            }
            switch chunk {
            case .bytes(let n):
                count += Int64(n)
                guard count <= record.uncompressedSize else {
                    throw ArchiveFailure.zipBomb(.inflatesBeyondDeclared(entry: record.name, declared: record.uncompressedSize))
                }
                try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                bytesRead += Int64(n)
                progress?.addBytes(Int64(n))
            case .end:
                guard count == record.uncompressedSize else {
                    return "the entry holds \(count) bytes, but its headers declare \(record.uncompressedSize)"
                }
                return nil
            case .damaged(let message):
                return message.hasPrefix("ZIP bad CRC") ? "its data is damaged (\(message))" : message
            }
        }
    }
}
