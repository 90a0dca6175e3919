import FuzzSupport
import SXArchive
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// A chat archive's ZIP structure as `archive list`, `verify` and `import` read it before anything
/// is extracted: the end records (classic and ZIP64), the central directory, and each entry's local
/// header checked against it. The reader takes a path, so each input is written to a scratch file.
@main
enum FuzzZip: FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        let path = FuzzScratch.file("archive.zip", bytes)
        _ = try? ZipDirectory.read(path, maxEntries: ArchiveLimits().maxEntries)
    }

    /// Archives as `archive export` writes them (ZipWriter): stored and deflated entries, an empty
    /// one, and the layout's names.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(name: String, bytes: [UInt8])] = []
        let entries: [[(String, [UInt8], ZipMethod)]] = [
            [("simplex_v1_chat.db", Array(repeating: 0x41, count: 300), .deflate)],
            [("simplex_v1_chat.db", Array("SQLite format 3\0".utf8), .stored),
             ("simplex_v1_agent.db", Array(repeating: 0, count: 64), .deflate),
             ("simplex_v1_files/photo.jpg", [], .stored)],
        ]
        for (index, archive) in entries.enumerated() {
            let path = Path.join(FuzzScratch.path, "seed.zip")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileSystemError("create", path: path) }
            defer { close(fd) }
            let writer = try ZipWriter(descriptor: fd, path: path)
            for (name, content, method) in archive {
                try writer.beginEntry(name: name, size: Int64(content.count), modified: timespec(tv_sec: 1_700_000_000, tv_nsec: 0),
                                      permissions: 0o644, method: method)
                try content.withUnsafeBytes { try writer.write($0) }
                try writer.finishEntry()
            }
            try writer.close()
            seeds.append(("archive-\(index + 1).zip", try FileBytes.read(path, limit: 1 << 20)))
        }
        return seeds
    }
}
