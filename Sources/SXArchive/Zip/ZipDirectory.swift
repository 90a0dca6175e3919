import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// One entry as the central directory declares it, already cross-checked against its local header.
public struct ZipEntryRecord: Sendable, Equatable {
    public var name: String
    /// 0 stored, 8 deflate; anything else is refused by the archive check.
    public var method: UInt16
    public var flags: UInt16
    public var crc32: UInt32
    public var compressedSize: Int64
    public var uncompressedSize: Int64
    public var localHeaderOffset: Int64
    /// First byte after the entry's data (and its data descriptor): the next entry may not start before it.
    public var endOffset: Int64
    /// The Unix mode from the external attributes, when the archive was made on Unix and set one.
    public var unixMode: UInt32?
    /// Modification time in Unix seconds: the extended timestamp ("UT") when present, else the DOS
    /// date and time read as local time.
    public var modified: Int64 = 0

    /// A name ending in `/` is a directory entry in every ZIP writer.
    public var isDirectory: Bool { name.hasSuffix("/") }
    public var zipMethod: ZipMethod { ZipMethod(code: method) }
    /// Traditional PKWARE encryption (bit 0), strong encryption (bit 6), or WinZip AES (method 99).
    public var isEncrypted: Bool { flags & 0x0041 != 0 || method == 99 }
}

/// Reads a ZIP's central directory with plain `pread`s and checks its structure before any data is
/// inflated: every local header must agree with its central record (name, method, CRC, sizes),
/// entries may not overlap (the overlapping-file zip bomb) and nothing may lie outside the file. The
/// declared sizes this yields are what the zip-bomb caps are checked against; extraction then
/// enforces them on the bytes that actually come out.
public struct ZipDirectory: Sendable {
    public var path: String
    public var fileSize: Int64
    /// In the order of their local headers (the order libarchive's seekable reader delivers them).
    public var entries: [ZipEntryRecord]

    static let endRecordSize = 22
    static let maxCommentSize = 0xFFFF
    /// A central directory larger than this is refused before it is read (it would hold millions of entries).
    static let maxCentralDirectoryBytes: Int64 = 256 << 20

    /// Every entry of the archive at `path` (for `archive list`), checked the same way.
    public static func entries(in path: String) throws -> [ZipEntryRecord] {
        try read(path, maxEntries: ArchiveLimits().maxEntries).entries
    }

    public static func read(_ path: String, maxEntries: Int) throws -> ZipDirectory {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        let st = try POSIXFile.status(path)
        guard st.st_mode & S_IFMT == S_IFREG else { throw ArchiveFailure.notAZip(path: path, reason: .notARegularFile) }
        var reader = ZipBytes(fd: fd, path: path, size: Int64(st.st_size))
        return try reader.directory(maxEntries: maxEntries)
    }
}

/// Little-endian field access over positional reads of the archive file.
struct ZipBytes {
    let fd: Int32
    let path: String
    let size: Int64

    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        // Offsets come from the archive: added with a check, so that a crafted one is refused, not a trap.
        let (end, overflow) = offset.addingReportingOverflow(Int64(count))
        guard offset >= 0, count >= 0, !overflow, end <= size else {
            throw ArchiveFailure.truncated(.endsBeforeRecords(fileSize: size, recordsEnd: overflow ? Int64.max : end))
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = try buffer.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: offset, path: path) }
        guard n == count else { throw ArchiveFailure.truncated(.shortRead(offset: offset)) }
        return buffer
    }

    mutating func directory(maxEntries: Int) throws -> ZipDirectory {
        let end = try endOfCentralDirectory()
        guard end.entries > 0 else { throw ArchiveFailure.structure(.noEntries) }
        guard end.entries <= Int64(maxEntries) else {
            throw ArchiveFailure.zipBomb(.tooManyEntries(count: end.entries, limit: Int64(maxEntries)))
        }
        guard end.directorySize <= ZipDirectory.maxCentralDirectoryBytes else {
            throw ArchiveFailure.structure(.centralDirectoryTooLarge(bytes: end.directorySize, limit: ZipDirectory.maxCentralDirectoryBytes))
        }
        let (directoryEnd, overflow) = end.directoryOffset.addingReportingOverflow(end.directorySize)
        guard !overflow, directoryEnd == end.directoryEnd else {
            throw ArchiveFailure.structure(.centralDirectoryMisplaced(declaredOffset: end.directoryOffset))
        }
        let central = try bytes(at: end.directoryOffset, count: Int(end.directorySize))
        var entries: [ZipEntryRecord] = []
        var at = 0
        for index in 0..<Int(end.entries) {
            let (record, next) = try centralRecord(central, at: at, index: index, directoryOffset: end.directoryOffset)
            entries.append(record)
            at = next
        }
        guard at == central.count else {
            throw ArchiveFailure.structure(.moreEntriesThanDeclared(declared: end.entries))
        }
        entries.sort { $0.localHeaderOffset < $1.localHeaderOffset }
        for (a, b) in zip(entries, entries.dropFirst()) where a.endOffset > b.localHeaderOffset {
            throw ArchiveFailure.structure(.entriesOverlap(a.name, b.name))
        }
        if let last = entries.last, last.endOffset > end.directoryOffset {
            throw ArchiveFailure.damaged(.entryRunsIntoCentralDirectory(entry: last.name))
        }
        return ZipDirectory(path: path, fileSize: size, entries: entries)
    }

    struct EndRecord {
        var entries: Int64
        var directorySize: Int64
        var directoryOffset: Int64
        /// Where the central directory must end: the ZIP64 end record, or the classic one.
        var directoryEnd: Int64
    }

    func endOfCentralDirectory() throws -> EndRecord {
        guard size > 0 else { throw ArchiveFailure.notAZip(path: path, reason: .empty) }
        let tailLength = Int(min(size, Int64(ZipDirectory.endRecordSize + ZipDirectory.maxCommentSize)))
        let tailStart = size - Int64(tailLength)
        let tail = try bytes(at: tailStart, count: tailLength)
        var found: Int?
        var i = tail.count - ZipDirectory.endRecordSize
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 5, tail[i + 3] == 6,
               i + ZipDirectory.endRecordSize + Int(le16(tail, i + 20)) == tail.count {
                found = i
                break
            }
            i -= 1
        }
        guard let e = found else {
            let head = try bytes(at: 0, count: Int(min(size, 4)))
            if head == [0x50, 0x4B, 3, 4] {
                throw ArchiveFailure.truncated(.endMissing)
            }
            throw ArchiveFailure.notAZip(path: path, reason: .noZipSignature)
        }
        guard le16(tail, e + 4) == 0, le16(tail, e + 6) == 0, le16(tail, e + 8) == le16(tail, e + 10) else {
            throw ArchiveFailure.structure(.spansDisks)
        }
        var record = EndRecord(entries: Int64(le16(tail, e + 10)), directorySize: Int64(le32(tail, e + 12)),
                               directoryOffset: Int64(le32(tail, e + 16)), directoryEnd: tailStart + Int64(e))
        let usesZip64 = record.entries == 0xFFFF || record.directorySize == 0xFFFF_FFFF || record.directoryOffset == 0xFFFF_FFFF
        if usesZip64 {
            let locatorOffset = record.directoryEnd - 20
            let locator = try bytes(at: locatorOffset, count: 20)
            guard le32(locator, 0) == 0x0706_4B50 else { throw ArchiveFailure.damaged(.zip64LocatorMissing) }
            guard let recordOffset = Int64(exactly: le64(locator, 8)), recordOffset >= 0, recordOffset <= locatorOffset - 56 else {
                throw ArchiveFailure.damaged(.zip64RecordMisplaced)
            }
            let z = try bytes(at: recordOffset, count: 56)
            guard le32(z, 0) == 0x0606_4B50 else { throw ArchiveFailure.damaged(.zip64RecordMissing) }
            record = EndRecord(entries: Int64(clamping: le64(z, 32)), directorySize: Int64(clamping: le64(z, 40)),
                               directoryOffset: Int64(clamping: le64(z, 48)), directoryEnd: recordOffset)
        }
        return record
    }

    /// Parses central record `index` at `at`, reads and compares its local header; returns the record
    /// and the offset of the next central record.
    func centralRecord(_ c: [UInt8], at: Int, index: Int, directoryOffset: Int64) throws -> (ZipEntryRecord, Int) {
        guard at + 46 <= c.count, le32(c, at) == 0x0201_4B50 else {
            throw ArchiveFailure.structure(.centralRecordDamaged(number: index + 1))
        }
        let nameLength = Int(le16(c, at + 28)), extraLength = Int(le16(c, at + 30)), commentLength = Int(le16(c, at + 32))
        let next = at + 46 + nameLength + extraLength + commentLength
        guard next <= c.count else { throw ArchiveFailure.structure(.centralRecordDamaged(number: index + 1)) }
        let nameBytes = Array(c[(at + 46)..<(at + 46 + nameLength)])
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            throw ArchiveFailure.structure(.nameNotUTF8(number: index + 1))
        }
        var record = ZipEntryRecord(
            name: name, method: le16(c, at + 10), flags: le16(c, at + 8), crc32: le32(c, at + 16),
            compressedSize: Int64(le32(c, at + 20)), uncompressedSize: Int64(le32(c, at + 24)),
            localHeaderOffset: Int64(le32(c, at + 42)), endOffset: 0, unixMode: nil)
        let extra = Array(c[(at + 46 + nameLength)..<(at + 46 + nameLength + extraLength)])
        let usesZip64 = try applyZip64(extra, to: &record, offsetToo: true)
        record.modified = Self.extendedTime(extra) ?? Self.dosTime(date: le16(c, at + 14), time: le16(c, at + 12))
        let madeBy = le16(c, at + 4) >> 8
        let mode = le32(c, at + 38) >> 16
        if madeBy == 3, mode != 0 { record.unixMode = mode }   // 3 = Unix
        guard le16(c, at + 34) == 0 || le16(c, at + 34) == 0xFFFF && usesZip64 else {
            throw ArchiveFailure.damaged(.entryOnAnotherDisk(entry: name))
        }
        guard record.localHeaderOffset < directoryOffset else {
            throw ArchiveFailure.structure(.entryPastData(entry: name))
        }
        try checkLocalHeader(&record, centralNameBytes: nameBytes, zip64: usesZip64)
        return (record, next)
    }

    /// The modification time of an extended-timestamp extra field (0x5455, "UT"), free of the DOS
    /// date's time zone and two-second steps.
    static func extendedTime(_ extra: [UInt8]) -> Int64? {
        var at = 0
        while at + 4 <= extra.count {
            let id = le16(extra, at), length = Int(le16(extra, at + 2))
            guard at + 4 + length <= extra.count else { return nil }
            if id == 0x5455, length >= 5, extra[at + 4] & 1 != 0 {
                return Int64(Int32(bitPattern: le32(extra, at + 5)))
            }
            at += 4 + length
        }
        return nil
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

    /// Fills the sizes (and offset) the classic fields mark as 0xFFFFFFFF from a ZIP64 extra field.
    func applyZip64(_ extra: [UInt8], to record: inout ZipEntryRecord, offsetToo: Bool) throws -> Bool {
        var at = 0
        while at + 4 <= extra.count {
            let id = le16(extra, at), length = Int(le16(extra, at + 2))
            guard at + 4 + length <= extra.count else { break }
            if id == 0x0001 {
                var p = at + 4
                func take() throws -> Int64 {
                    guard p + 8 <= at + 4 + length else { throw ArchiveFailure.structure(.zip64FieldDamaged(entry: record.name)) }
                    defer { p += 8 }
                    return Int64(clamping: le64(extra, p))
                }
                if record.uncompressedSize == 0xFFFF_FFFF { record.uncompressedSize = try take() }
                if record.compressedSize == 0xFFFF_FFFF { record.compressedSize = try take() }
                if offsetToo, record.localHeaderOffset == 0xFFFF_FFFF { record.localHeaderOffset = try take() }
                // 64-bit values from the archive: nothing stored in it can be larger than the archive itself
                // (the uncompressed size is bounded later, by the bomb limits), so later sums cannot overflow.
                guard record.compressedSize <= size else {
                    throw ArchiveFailure.truncated(.entryDataMissing(entry: record.name, bytes: record.compressedSize))
                }
                guard record.localHeaderOffset <= size else {
                    throw ArchiveFailure.damaged(.localHeaderMissing(entry: record.name, offset: record.localHeaderOffset))
                }
                return true
            }
            at += 4 + length
        }
        return false
    }

    /// Compares the local header with the central record: a writer or an attacker that makes them
    /// disagree gets different files from different unzip tools, so sxkit takes neither.
    func checkLocalHeader(_ record: inout ZipEntryRecord, centralNameBytes: [UInt8], zip64: Bool) throws {
        let name = record.name
        let h = try bytes(at: record.localHeaderOffset, count: 30)
        guard le32(h, 0) == 0x0403_4B50 else {
            throw ArchiveFailure.damaged(.localHeaderMissing(entry: name, offset: record.localHeaderOffset))
        }
        let nameLength = Int(le16(h, 26)), extraLength = Int(le16(h, 28))
        let localName = try bytes(at: record.localHeaderOffset + 30, count: nameLength)
        guard localName == centralNameBytes else {
            let shown = String(decoding: localName, as: UTF8.self)
            throw ArchiveFailure.structure(.localNameDiffers(entry: name, localName: shown))
        }
        let localFlags = le16(h, 6)
        guard le16(h, 8) == record.method, localFlags & 0x0041 == record.flags & 0x0041 else {
            throw ArchiveFailure.structure(.localMethodDiffers(entry: name))
        }
        var local = record
        local.crc32 = le32(h, 14)
        local.compressedSize = Int64(le32(h, 18))
        local.uncompressedSize = Int64(le32(h, 22))
        let localExtra = try bytes(at: record.localHeaderOffset + 30 + Int64(nameLength), count: extraLength)
        let localZip64 = try applyZip64(localExtra, to: &local, offsetToo: false)
        let deferred = localFlags & 0x0008 != 0   // sizes and CRC follow the data in a descriptor
        func disagree(_ field: ArchiveFailure.HeaderField, central: Int64, local: Int64) -> ArchiveFailure {
            .structure(.localFieldDiffers(entry: name, field: field, central: central, local: local))
        }
        if !deferred || local.crc32 != 0, local.crc32 != record.crc32 {
            throw disagree(.crc, central: Int64(record.crc32), local: Int64(local.crc32))
        }
        if !deferred || local.compressedSize != 0, local.compressedSize != record.compressedSize {
            throw disagree(.compressedSize, central: record.compressedSize, local: local.compressedSize)
        }
        if !deferred || local.uncompressedSize != 0, local.uncompressedSize != record.uncompressedSize {
            throw disagree(.size, central: record.uncompressedSize, local: local.uncompressedSize)
        }
        let dataStart = record.localHeaderOffset + 30 + Int64(nameLength) + Int64(extraLength)
        var end = dataStart + record.compressedSize
        guard end <= size else {
            throw ArchiveFailure.truncated(.entryDataMissing(entry: name, bytes: record.compressedSize))
        }
        if deferred {
            // Data descriptor: optional signature, CRC, then 4- or 8-byte sizes.
            let head = try bytes(at: end, count: 4)
            let signed = le32(head, 0) == 0x0807_4B50
            let crc = signed ? le32(try bytes(at: end + 4, count: 4), 0) : le32(head, 0)
            guard crc == record.crc32 else { throw disagree(.descriptorCRC, central: Int64(record.crc32), local: Int64(crc)) }
            end += (signed ? 4 : 0) + 4 + (localZip64 || zip64 ? 16 : 8)
        }
        record.endOffset = end
    }
}

@inline(__always) func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
@inline(__always) func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
@inline(__always) func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
