#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// What a `-wal` file holds, read from its bytes (never through SQLite, which would replay or
/// checkpoint it). SQLCipher writes encrypted pages into the WAL, but the frame headers and
/// checksums are SQLite's own, computed over what was written, so the format below applies as is.
///
/// WAL format (sqlite.org/fileformat.html#the_write_ahead_log): a 32-byte header (magic, version,
/// page size, checkpoint sequence, two salts, two checksums), then frames of a 24-byte header and one
/// page. A frame counts only while its salts match the header's and the running checksum agrees;
/// frames after the last commit frame belong to a transaction that never committed.
public struct WALSummary: Sendable, Codable, Equatable {
    /// Bytes in the file.
    public var size: Int64
    /// False when the header is missing or not a WAL header (a zero-length WAL is valid and empty).
    public var headerValid: Bool
    public var pageSize: Int?
    public var checkpointSequence: UInt32?
    /// Frames up to and including the last valid commit frame: what SQLite would see.
    public var committedFrames: Int
    /// Frames past the last commit, or after a bad checksum: ignored by SQLite.
    public var ignoredFrames: Int
    /// Frames not yet copied into the database file, from the `-shm` index when it is intact
    /// (`mxFrame - nBackfill`); without a usable `-shm` every committed frame is un-checkpointed.
    public var uncheckpointedFrames: Int
    /// Whether `uncheckpointedFrames` came from the `-shm` index.
    public var fromSharedMemoryIndex: Bool

    /// Sizes are `bytes` in sxkit's JSON vocabulary.
    enum CodingKeys: String, CodingKey {
        case headerValid, pageSize, checkpointSequence, committedFrames, ignoredFrames, uncheckpointedFrames, fromSharedMemoryIndex
        case size = "bytes"
    }
}

public enum WALFile {
    static let magicLittleEndian: UInt32 = 0x377F_0682
    static let magicBigEndian: UInt32 = 0x377F_0683
    static let headerSize = 32
    static let frameHeaderSize = 24

    /// Reads `walPath` (and `shmPath` when present) without changing either.
    public static func summarize(walPath: String, shmPath: String?) throws -> WALSummary {
        let fd = try openForReading(walPath)
        defer { close(fd) }
        let size = Int64(try POSIXFile.status(walPath).st_size)
        var summary = WALSummary(size: size, headerValid: false, pageSize: nil, checkpointSequence: nil,
                                 committedFrames: 0, ignoredFrames: 0, uncheckpointedFrames: 0, fromSharedMemoryIndex: false)
        var header = [UInt8](repeating: 0, count: headerSize)
        guard size >= Int64(headerSize), try readExactly(fd, &header, at: 0, path: walPath) else { return summary }
        let magic = bigEndian32(header, 0)
        guard magic == magicLittleEndian || magic == magicBigEndian else { return summary }
        let pageSize = Int(bigEndian32(header, 8))
        // Page size is a power of two from 512 to 65536 (65536 is stored as 1).
        let page = pageSize == 1 ? 65536 : pageSize
        guard page >= 512, page <= 65536, page & (page - 1) == 0 else { return summary }
        let nativeChecksumOrder = magic == magicBigEndian
        var (s0, s1) = checksum(header[0..<24], bigEndian: nativeChecksumOrder, seed: (0, 0))
        guard s0 == bigEndian32(header, 24), s1 == bigEndian32(header, 28) else { return summary }
        summary.headerValid = true
        summary.pageSize = page
        summary.checkpointSequence = bigEndian32(header, 12)
        let salt = (bigEndian32(header, 16), bigEndian32(header, 20))

        let frameSize = frameHeaderSize + page
        let totalFrames = Int((size - Int64(headerSize)) / Int64(frameSize))
        var frame = [UInt8](repeating: 0, count: frameSize)
        var lastCommit = 0
        for index in 0..<totalFrames {
            let offset = Int64(headerSize) + Int64(index) * Int64(frameSize)
            guard try readExactly(fd, &frame, at: offset, path: walPath) else { break }
            guard bigEndian32(frame, 8) == salt.0, bigEndian32(frame, 12) == salt.1 else { break }
            (s0, s1) = checksum(frame[0..<8], bigEndian: nativeChecksumOrder, seed: (s0, s1))
            (s0, s1) = checksum(frame[frameHeaderSize...], bigEndian: nativeChecksumOrder, seed: (s0, s1))
            guard s0 == bigEndian32(frame, 16), s1 == bigEndian32(frame, 20) else { break }
            if bigEndian32(frame, 4) != 0 { lastCommit = index + 1 }
        }
        summary.committedFrames = lastCommit
        summary.ignoredFrames = totalFrames - lastCommit
        summary.uncheckpointedFrames = lastCommit
        if let shmPath, let index = try? sharedMemoryIndex(shmPath), index.maxFrame <= lastCommit, index.backfilled <= index.maxFrame {
            summary.uncheckpointedFrames = index.maxFrame - index.backfilled
            summary.fromSharedMemoryIndex = true
        }
        return summary
    }

    /// `mxFrame` and `nBackfill` from the `-shm` wal-index, when its two header copies agree and it
    /// is initialised. Stored in the machine's byte order.
    static func sharedMemoryIndex(_ path: String) throws -> (maxFrame: Int, backfilled: Int)? {
        let fd = try openForReading(path)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 136)
        guard try readExactly(fd, &bytes, at: 0, path: path) else { return nil }
        guard bytes[0..<48] == bytes[48..<96], bytes[12] == 1 else { return nil }
        return (Int(native32(bytes, 16)), Int(native32(bytes, 96)))
    }

    /// SQLite's WAL checksum over 32-bit words of `data` (a multiple of 8 bytes).
    static func checksum(_ data: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var i = data.startIndex
        while i + 8 <= data.endIndex {
            let x0 = word(data, i, bigEndian: bigEndian), x1 = word(data, i + 4, bigEndian: bigEndian)
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            i += 8
        }
        return (s0, s1)
    }

    private static func word(_ d: ArraySlice<UInt8>, _ i: Int, bigEndian: Bool) -> UInt32 {
        let b = (UInt32(d[i]), UInt32(d[i + 1]), UInt32(d[i + 2]), UInt32(d[i + 3]))
        return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }

    static func bigEndian32(_ d: [UInt8], _ i: Int) -> UInt32 { word(d[...], i, bigEndian: true) }

    static func native32(_ d: [UInt8], _ i: Int) -> UInt32 {
        word(d[...], i, bigEndian: UInt32(1).bigEndian == 1)
    }

    /// Opens for reading without updating the access time where the kernel allows it.
    static func openForReading(_ path: String) throws -> Int32 {
        if let fd = try? POSIXFile.open(path, flags: O_RDONLY | ReadOnlySnapshot.noAccessTimeFlag) { return fd }
        return try POSIXFile.open(path, flags: O_RDONLY)
    }

    private static func readExactly(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64, path: String) throws -> Bool {
        let wanted = buffer.count
        var done = 0
        while done < wanted {
            let n = try buffer.withUnsafeMutableBytes {
                try POSIXFile.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]), at: offset + Int64(done), path: path)
            }
            if n == 0 { return false }
            done += n
        }
        return true
    }
}
