import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// One entry as the ZIP's central directory describes it.
public struct ZipDirectoryEntry: Sendable, Equatable, Codable {
    public var name: String
    public var uncompressedSize: Int64
    public var compressedSize: Int64
    public var method: ZipMethod
    public var crc32: UInt32
    /// Seconds since 1970: the Unix timestamp extra field when present, else the DOS date read as local time.
    public var modified: Int64
    /// Whether the name ends in `/` (a folder entry, as `zip -r` writes them).
    public var isFolder: Bool { name.hasSuffix("/") }
}

/// Reads the central directory of a ZIP file without extracting or changing anything.
///
/// libarchive's reader does not expose an entry's compressed size, method or CRC-32, so this small
/// parser reads them from the central directory itself (classic and Zip64 records). It reads the
/// directory in fixed-size pieces: memory stays flat however many entries there are.
public enum ZipDirectory {
    /// Calls `body` for each central directory entry, in archive order.
    public static func forEachEntry(in path: String, _ body: (ZipDirectoryEntry) throws -> Void) throws {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        let size = Int64(try fstatSize(fd, path))
        let end = try endRecord(fd, size: size, path: path)
        var reader = BufferedReader(fd: fd, offset: end.directoryOffset, limit: end.directoryOffset + end.directorySize, path: path)
        for index in 0..<end.entryCount {
            let header = try reader.bytes(46)
            guard le32(header, 0) == 0x0201_4B50 else {
                throw notZip(path, "central directory entry \(index + 1) of \(end.entryCount) has no signature")
            }
            let flags = le16(header, 8)
            let nameLength = Int(le16(header, 28)), extraLength = Int(le16(header, 30)), commentLength = Int(le16(header, 32))
            let nameBytes = try reader.bytes(nameLength)
            let extra = try reader.bytes(extraLength)
            try reader.skip(commentLength)
            // Bit 11: UTF-8 names. Without it the name is in an old code page; bytes above 0x7F are
            // shown through the Latin-1 reading so that listing never fails.
            let name = flags & 0x800 != 0 || nameBytes.allSatisfy({ $0 < 0x80 })
                ? String(decoding: nameBytes, as: UTF8.self)
                : String(nameBytes.map { Character(Unicode.Scalar($0)) })
            var entry = ZipDirectoryEntry(
                name: name, uncompressedSize: Int64(le32(header, 24)), compressedSize: Int64(le32(header, 20)),
                method: ZipMethod(code: le16(header, 10)), crc32: le32(header, 16),
                modified: dosTime(date: le16(header, 14), time: le16(header, 12)))
            applyExtra(extra, to: &entry, compressedIsWide: le32(header, 20) == 0xFFFF_FFFF,
                       uncompressedIsWide: le32(header, 24) == 0xFFFF_FFFF)
            try body(entry)
        }
    }

    /// Every entry (for listings, which need all widths before printing).
    public static func entries(in path: String) throws -> [ZipDirectoryEntry] {
        var all: [ZipDirectoryEntry] = []
        try forEachEntry(in: path) { all.append($0) }
        return all
    }

    // MARK: End of central directory

    struct EndRecord {
        var entryCount: Int64
        var directorySize: Int64
        var directoryOffset: Int64
    }

    /// Finds the end-of-central-directory record in the last 64 KiB + 22 bytes (its comment can be up
    /// to 65,535 bytes), then the Zip64 record it points to when any field is saturated.
    static func endRecord(_ fd: Int32, size: Int64, path: String) throws -> EndRecord {
        let tailLength = Int(min(size, 65_535 + 22))
        guard tailLength >= 22 else { throw notZip(path, "it is too short") }
        var tail = [UInt8](repeating: 0, count: tailLength)
        let got = try tail.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: size - Int64(tailLength), path: path) }
        guard got == tailLength else { throw notZip(path, "it could not be read to the end") }
        var at = tailLength - 22
        while at >= 0, le32(tail, at) != 0x0605_4B50 { at -= 1 }
        guard at >= 0 else { throw notZip(path, "it has no end-of-central-directory record") }
        var record = EndRecord(entryCount: Int64(le16(tail, at + 10)), directorySize: Int64(le32(tail, at + 12)),
                               directoryOffset: Int64(le32(tail, at + 16)))
        let saturated = record.entryCount == 0xFFFF || record.directorySize == 0xFFFF_FFFF || record.directoryOffset == 0xFFFF_FFFF
        let locatorAt = at - 20
        if locatorAt >= 0, le32(tail, locatorAt) == 0x0706_4B50 {
            let zip64At = Int64(le64(tail, locatorAt + 8))
            var z = [UInt8](repeating: 0, count: 56)
            let n = try z.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: zip64At, path: path) }
            guard n == 56, le32(z, 0) == 0x0606_4B50 else { throw notZip(path, "its Zip64 end record is missing or damaged") }
            record = EndRecord(entryCount: Int64(le64(z, 32)), directorySize: Int64(le64(z, 40)), directoryOffset: Int64(le64(z, 48)))
        } else if saturated {
            throw notZip(path, "its end record is saturated but there is no Zip64 end record")
        }
        guard record.directoryOffset >= 0, record.directorySize >= 0, record.directoryOffset + record.directorySize <= size else {
            throw notZip(path, "its central directory lies outside the file")
        }
        return record
    }

    // MARK: Extra fields

    /// Zip64 (0x0001) widens the saturated sizes; the extended timestamp (0x5455, "UT") gives the
    /// modification time in Unix seconds, free of the DOS date's time zone and two-second steps.
    static func applyExtra(_ extra: [UInt8], to entry: inout ZipDirectoryEntry, compressedIsWide: Bool, uncompressedIsWide: Bool) {
        var at = 0
        while at + 4 <= extra.count {
            let id = le16(extra, at), length = Int(le16(extra, at + 2))
            let body = at + 4
            guard body + length <= extra.count else { return }
            if id == 0x0001 {
                var field = body
                if uncompressedIsWide, field + 8 <= body + length { entry.uncompressedSize = Int64(le64(extra, field)); field += 8 }
                if compressedIsWide, field + 8 <= body + length { entry.compressedSize = Int64(le64(extra, field)) }
            } else if id == 0x5455, length >= 5, extra[body] & 1 != 0 {
                entry.modified = Int64(Int32(bitPattern: le32(extra, body + 1)))
            }
            at = body + length
        }
    }

    static func dosTime(date: UInt16, time: UInt16) -> Int64 {
        var t = tm()
        t.tm_year = Int32(date >> 9) + 80
        t.tm_mon = Int32((date >> 5) & 0x0F) - 1
        t.tm_mday = Int32(date & 0x1F)
        t.tm_hour = Int32(time >> 11)
        t.tm_min = Int32((time >> 5) & 0x3F)
        t.tm_sec = Int32(time & 0x1F) * 2
        t.tm_isdst = -1
        return Int64(mktime(&t))
    }

    // MARK: Bytes

    static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
    static func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }

    static func notZip(_ path: String, _ reason: String) -> ArchiveFailure {
        ArchiveFailure("'\(path)' is not a readable ZIP archive: \(reason)")
    }

    static func fstatSize(_ fd: Int32, _ path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileSystemError("read the status of", path: path) }
        return Int(st.st_size)
    }

    /// Sequential reads of the central directory through one 64 KiB buffer.
    struct BufferedReader {
        let fd: Int32
        var offset: Int64
        let limit: Int64
        let path: String
        var buffer: [UInt8] = []
        var position = 0

        init(fd: Int32, offset: Int64, limit: Int64, path: String) {
            self.fd = fd
            self.offset = offset
            self.limit = limit
            self.path = path
        }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(count)
            while out.count < count {
                if position == buffer.count { try refill() }
                let take = min(count - out.count, buffer.count - position)
                out.append(contentsOf: buffer[position..<position + take])
                position += take
            }
            return out
        }

        mutating func skip(_ count: Int) throws { _ = try bytes(count) }

        private mutating func refill() throws {
            let want = Int(min(64 * 1024, limit - offset))
            guard want > 0 else { throw ZipDirectory.notZip(path, "its central directory ends in the middle of an entry") }
            buffer = [UInt8](repeating: 0, count: want)
            let n = try buffer.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: offset, path: path) }
            guard n == want else { throw ZipDirectory.notZip(path, "it ends inside its central directory") }
            offset += Int64(n)
            position = 0
        }
    }
}
