#if canImport(Glibc)
import Glibc
#endif

/// Small-file reads and whole-buffer writes over POSIX descriptors, with errors that name the path.
/// Large data is never read through here: it is streamed by the modules that own it.
public enum FileBytes {
    /// Reads a whole small file, refusing anything larger than `limit`.
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        return try readAll(descriptor: fd, limit: limit, path: path)
    }

    /// Reads an open descriptor to its end (stdin, a pipe), refusing more than `limit` bytes.
    public static func readAll(descriptor fd: Int32, limit: Int, path: String) throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = try POSIXFile.read(fd, into: &buffer, path: path)
            if n == 0 { break }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit {
                throw UsageError("'\(path)' is larger than \(limit) bytes; it is not the small file expected here")
            }
        }
        return result
    }
}

/// Thin wrappers that retry on EINTR and turn failures into `FileSystemError`.
public enum POSIXFile {
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        while true {
            let fd = SXCore.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw FileSystemError(flags & (O_WRONLY | O_RDWR) != 0 ? "open for writing" : "open", path: path)
        }
    }

    public static func read(_ fd: Int32, into buffer: inout [UInt8], path: String) throws -> Int {
        try buffer.withUnsafeMutableBytes { try read(fd, into: $0, path: path) }
    }

    /// Reads until `buffer` is full or end of file; returns the byte count.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        try fill(buffer, path: path) { destination, count, _ in Glibc.read(fd, destination, count) }
    }

    /// Positional read until `buffer` is full or end of file.
    public static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws -> Int {
        try fill(buffer, path: path) { Glibc.pread(fd, $0, $1, off_t(offset) + off_t($2)) }
    }

    /// Calls `readAt(destination, count, bytesSoFar)` until `buffer` is full or it returns 0 (end of
    /// file), retrying EINTR.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, path: String,
                             _ readAt: (UnsafeMutableRawPointer, Int, Int) -> Int) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = readAt(buffer.baseAddress! + done, buffer.count - done, done)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("read", path: path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("write", path: path)
            }
            done += n
        }
    }

    /// Copies everything `input` has left to `output`, 1 MiB at a time (paths name errors).
    public static func copyAll(from input: Int32, path source: String, to output: Int32, path destination: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try read(input, into: &buffer, path: source)
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<n]), path: destination) }
        }
    }

    public static func fsync(_ fd: Int32, path: String) throws {
        while Glibc.fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw FileSystemError("flush to disk", path: path)
        }
    }

    /// Flushes a folder so that a rename or unlink inside it survives a power loss.
    public static func fsyncDirectory(_ path: String) throws {
        let fd = try open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    /// `stat(2)`, following symlinks.
    public static func status(_ path: String) throws -> stat {
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileSystemError("read the status of", path: path) }
        return st
    }

    /// Whether anything is at `path` (a symlink counts by its target, as `test -e` does).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// `lstat(2)`: the link itself; nil when nothing is there.
    public static func linkStatus(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }
}
