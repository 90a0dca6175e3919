import CArchive
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// How one entry's bytes are kept in a ZIP.
public enum ZipMethod: Sendable, Equatable, Codable, CustomStringConvertible {
    case stored
    case deflate
    /// Any other method number (a reader may meet it in archives sxkit did not write).
    case other(UInt16)

    public init(code: UInt16) {
        switch code {
        case 0: self = .stored
        case 8: self = .deflate
        default: self = .other(code)
        }
    }

    public var description: String {
        switch self {
        case .stored: "stored"
        case .deflate: "deflate"
        case .other(let code): "method \(code)"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "stored": self = .stored
        case "deflate": self = .deflate
        default: self = .other(UInt16(text.split(separator: " ").last ?? "") ?? 0xFFFF)
        }
    }
}

/// A ZIP being written through libarchive to an open file descriptor, one entry at a time.
///
/// The sizes are declared up front, so libarchive's ZIP writer switches an entry to Zip64 by itself
/// when it is over 4 GiB, adds Zip64 offsets for entries that start past 4 GiB, and writes the Zip64
/// end records when there are more than 65,535 entries or the central directory lies past 4 GiB.
/// Memory stays flat in the data size; only the central directory (about 100 bytes an entry) grows
/// with the number of entries, as in every ZIP writer.
///
/// Not Sendable: one thread drives it from start to `close()`.
public final class ZipWriter {
    private let archive: OpaquePointer
    private let path: String
    private var closed = false

    /// Starts a ZIP on `descriptor` (which stays owned by the caller); `path` names it in errors.
    public init(descriptor: Int32, path: String) throws {
        guard let a = archive_write_new() else { throw ArchiveFailure.writerOutOfMemory(path: path, allocating: .writer) }
        archive = a
        self.path = path
        try check(archive_write_set_format_zip(a), "choose the ZIP format for")
        // Names are handed over as UTF-8 and flagged so (bit 11), whatever this process's locale.
        try check(archive_write_set_format_option(a, "zip", "hdrcharset", "UTF-8"), "set UTF-8 names for")
        // Larger blocks mean fewer write calls; a ZIP on a regular file needs no padding of the last one.
        try check(archive_write_set_bytes_per_block(a, 256 * 1024), "set the block size of")
        try check(archive_write_set_bytes_in_last_block(a, 1), "set the last block of")
        try check(archive_write_open_fd(a, descriptor), "open")
    }

    deinit {
        if !closed { archive_write_fail(archive) }
        archive_write_free(archive)
    }

    /// Writes the header of a regular file entry; its bytes follow through `write`, then `finishEntry`.
    public func beginEntry(name: String, size: Int64, modified: timespec, permissions: mode_t, method: ZipMethod) throws {
        switch method {
        case .stored: try check(archive_write_zip_set_compression_store(archive), "choose stored for an entry of")
        case .deflate: try check(archive_write_zip_set_compression_deflate(archive), "choose deflate for an entry of")
        case .other(let code): throw ArchiveFailure.methodNotWritable(method: code, path: path)
        }
        guard let entry = archive_entry_new() else { throw ArchiveFailure.writerOutOfMemory(path: path, allocating: .entry) }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG))
        archive_entry_set_perm(entry, permissions & 0o7777)
        archive_entry_set_size(entry, la_int64_t(size))
        archive_entry_set_mtime(entry, time_t(modified.tv_sec), Int(modified.tv_nsec))
        let rc = archive_write_header(archive, entry)
        guard rc == ARCHIVE_OK else { throw failure(rc, "write the entry header of '\(name)' into") }
    }

    /// Appends bytes to the current entry.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let n = archive_write_data(archive, bytes.baseAddress, bytes.count)
        guard n == bytes.count else { throw failure(ARCHIVE_FATAL, "write") }
    }

    /// Ends the current entry (the deflate tail and the data descriptor with its CRC-32 are written here).
    public func finishEntry() throws {
        try check(archive_write_finish_entry(archive), "finish an entry of")
    }

    /// Writes the central directory and flushes libarchive's last block to the descriptor.
    public func close() throws {
        closed = true
        try check(archive_write_close(archive), "finish")
    }

    /// Bytes handed to the descriptor so far.
    public var bytesWritten: Int64 { Int64(archive_filter_bytes(archive, -1)) }

    private func check(_ rc: Int32, _ operation: String) throws {
        guard rc != ARCHIVE_OK else { return }
        throw failure(rc, operation)
    }

    /// A failed write with an errno that means "the disk" (full, over quota, failing) becomes a
    /// `FileSystemError` so that callers can tell it apart; libarchive's own complaints become an
    /// `ArchiveFailure`.
    private func failure(_ rc: Int32, _ operation: String) -> any SXError {
        let code = archive_errno(archive)
        if [ENOSPC, EDQUOT, EFBIG, EIO].contains(code) { return FileSystemError("write", path: path, code: code) }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error \(rc)"
        return ArchiveFailure.unwritable(path: path, operation: operation, cause: message)
    }
}
