import Foundation
import SXCore

/// A 0700 folder under $TMPDIR for copies of an archive's databases (they hold the user's messages,
/// if only encrypted), removed with everything in it when the work is done.
final class PrivateFolder {
    let path: String

    init(label: String, root: String? = nil) throws {
        let base = root ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(Path.join(base, "sxkit-\(label)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw FileSystemError("create a private folder in", path: base) }
        path = String(cString: made)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

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
