import CArchive
import SXCore

/// A thin wrapper over libarchive's ZIP reader (seekable: it follows the central directory and
/// visits the entries in local-header order). Used for what libarchive does well — inflating and
/// checking each entry's CRC — while `ZipDirectory` owns the structural checks. One thread at a time.
final class ZipStreamReader {
    struct Header {
        /// Nil when libarchive cannot convert the name to the process locale (non-ASCII in a C locale);
        /// the caller then relies on the order, which `ZipDirectory` already checked.
        var name: String?
        var size: Int64?
        var fileType: UInt32
        var isHardLink: Bool
        var isEncrypted: Bool
    }

    enum Chunk {
        case bytes(Int)
        case end
        /// The data is damaged (bad CRC, wrong size); the reader can go on with the next entry.
        case damaged(String)
    }

    let path: String
    private let handle: OpaquePointer

    init(path: String) throws {
        guard let handle = archive_read_new() else { throw ArchiveFailure.unreadable(path: path, step: .allocate, cause: "") }
        self.path = path
        self.handle = handle
        archive_read_support_format_zip_seekable(handle)
        guard FileNameBytes.withPath(path, { archive_read_open_filename(handle, $0, 1 << 16) }) == ARCHIVE_OK else {
            throw ArchiveFailure.unreadable(path: path, step: .open, cause: errorString)
        }
    }

    deinit { archive_read_free(handle) }

    var errorString: String { archive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error" }

    /// The next entry's header, or nil after the last.
    func next() throws -> Header? {
        var entry: OpaquePointer?
        let status = archive_read_next_header(handle, &entry)
        if status == ARCHIVE_EOF { return nil }
        // A warning here is a name libarchive could not convert; anything worse ends the reading.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
            throw ArchiveFailure.unreadable(path: path, step: .nextEntry, cause: errorString)
        }
        return Header(name: archive_entry_pathname_utf8(entry).map { String(cString: $0) },
                      size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil,
                      fileType: UInt32(archive_entry_filetype(entry)),
                      isHardLink: archive_entry_hardlink(entry) != nil,
                      isEncrypted: archive_entry_is_encrypted(entry) != 0)
    }

    /// Inflates the next piece of the current entry into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Chunk {
        let n = archive_read_data(handle, buffer.baseAddress, buffer.count)
        if n > 0 { return .bytes(n) }
        if n == 0 { return .end }
        if n == ARCHIVE_WARN || n == ARCHIVE_RETRY { return .damaged(errorString) }
        throw ArchiveFailure.unreadable(path: path, step: .data, cause: errorString)
    }
}
