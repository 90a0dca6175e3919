import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// A file being written from an archive entry: created exclusively (never following a link that is
/// already there), flushed to disk before it counts as written.
final class ExtractedFile {
    let path: String
    private var fd: Int32

    init(path: String, mode: mode_t) throws {
        self.path = path
        fd = try POSIXFile.open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try POSIXFile.writeAll(fd, bytes, path: path) }

    /// fsync, close.
    func finish() throws {
        try POSIXFile.fsync(fd, path: path)
        close(fd)
        fd = -1
    }

    /// Closes and deletes a file that will not be kept.
    func discard() {
        if fd >= 0 { close(fd); fd = -1 }
        unlink(path)
    }

    deinit { if fd >= 0 { close(fd) } }
}
