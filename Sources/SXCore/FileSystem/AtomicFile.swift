import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so that readers see either the old content or the complete new one, never a mix:
/// a temp file in the destination's folder (same file system, so the final step is a rename),
/// fsync, rename over the destination, fsync the folder.
///
/// One owner at a time; `abort()` (or `deinit` without `commit()`) removes the temp file.
public final class AtomicFileWriter: @unchecked Sendable {
    /// Temp names start with this, so that a crash leftover is recognisable and never mistaken
    /// for user data.
    public static let tempPrefix = DataDirectoryNames.atomicTempPrefix

    public let destination: String
    public let tempPath: String
    public private(set) var bytesWritten: Int64 = 0
    private var fd: Int32
    private var finished = false
    /// For a big file written once and not read back soon (a received file, a relay's chunk): written
    /// around the page cache (O_DIRECT, see `POSIXFile.writeAllDirect`) in `directBlock`-sized writes,
    /// so it takes no page-cache pages at all (1 GiB: 0.06 s of system time instead of 1.4–1.8 s on a VM
    /// that hands idle memory back to its host) and the closing fsync has nothing left to write.
    /// Where the file system refuses O_DIRECT the file is flushed behind instead: every
    /// `flushBehindWindow` bytes the kernel is told the older pages are not needed
    /// (`POSIXFile.adviseNotNeeded`), which starts writing the newest window and drops the one before.
    public var bypassPageCache = false
    public static let directBlock = 1 << 20
    public static let flushBehindWindow: Int64 = 8 << 20
    private var advisedUpTo: Int64 = 0
    /// Bytes waiting for a whole aligned block (O_DIRECT on); nil until the first write decides.
    private var staging: AlignedBuffer?
    private var directDecided = false

    /// - Parameter mode: permission bits of the new file (0600 for anything holding secrets).
    public init(destination: String, mode: mode_t = 0o644) throws {
        self.destination = destination
        let folder = Path.parent(destination)
        var template = Array((folder + "/" + Self.tempPrefix + Path.basename(destination).prefix(64) + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileSystemError("create a file in", path: folder) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // Held until the file is closed, so that cleaners tell a live writer's temp file from a dead
        // one's (`staleTempFiles(of:)`).
        _ = flock(fd, LOCK_EX | LOCK_NB)
        tempPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        self.fd = fd
        // mkostemp creates 0600; widen only when asked, never through the umask-less path.
        if mode != 0o600, fchmod(fd, mode & ~Self.processUmask) != 0 {
            let code = errno
            close(fd)
            unlink(tempPath)
            throw FileSystemError("set permissions on", path: tempPath, code: code)
        }
    }

    deinit { if !finished { abort() } }

    public var descriptor: Int32 { fd }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bypassPageCache && !directDecided {
            directDecided = true
            if POSIXFile.setDirect(fd, true) { staging = AlignedBuffer(capacity: Self.directBlock) }
        }
        if let staging {
            try staging.append(bytes) { try POSIXFile.writeAllDirect(fd, $0, path: destination) }
        } else {
            try POSIXFile.writeAll(fd, bytes, path: destination)
            if bypassPageCache && bytesWritten + Int64(bytes.count) - advisedUpTo >= Self.flushBehindWindow {
                // The window before the last one is written back by now: it is dropped; the last one starts.
                let from = max(0, advisedUpTo - Self.flushBehindWindow)
                POSIXFile.adviseNotNeeded(fd, from: from, length: bytesWritten + Int64(bytes.count) - from)
                advisedUpTo = bytesWritten + Int64(bytes.count)
            }
        }
        bytesWritten += Int64(bytes.count)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Empties the temp file to write it again from the start (a decryption that found the file was
    /// made with another key schedule); whatever was written is wiped from the staging block too.
    public func rewind() throws {
        precondition(!finished && fd >= 0, "rewind after finishWriting")
        staging?.wipe()
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw FileSystemError("empty", path: tempPath, code: errno)
        }
        bytesWritten = 0
        advisedUpTo = 0
    }

    /// Makes the new content durable and visible under `destination`.
    public func commit() throws {
        try finishWriting(flush: true)
        try publish(flushFolder: true)
    }

    /// Closes the temp file, flushing it to disk first when `flush` (batch callers flush many
    /// files at once with `POSIXFile.syncFileSystem` before publishing them).
    public func finishWriting(flush: Bool) throws {
        precondition(!finished && fd >= 0, "finishWriting twice")
        do {
            // The last, partial block (its unaligned tail through the page cache).
            if let staging, staging.count > 0 {
                try POSIXFile.writeAllDirect(fd, staging.bytes, path: destination)
            }
            releaseStaging()
            if flush {
                try POSIXFile.fsync(fd, path: destination)
                // On disk now: the rest of its pages go too, for the next writes to reuse.
                if bypassPageCache { POSIXFile.adviseNotNeeded(fd) }
            }
        } catch {
            abort()
            throw error
        }
        close(fd)
        fd = -1
    }

    /// Renames the finished temp file over `destination`.
    public func publish(flushFolder: Bool) throws {
        precondition(!finished && fd < 0, "publish before finishWriting")
        guard rename(tempPath, destination) == 0 else {
            let code = errno
            abort()
            throw FileSystemError("replace", path: destination, code: code)
        }
        finished = true
        if flushFolder { try POSIXFile.fsyncDirectory(Path.parent(destination)) }
    }

    /// Discards the temp file; the destination is untouched.
    public func abort() {
        releaseStaging()
        guard !finished else { return }
        finished = true
        if fd >= 0 { close(fd); fd = -1 }
        unlink(tempPath)
    }

    /// The staging block held the file's content (a received file's plaintext): cleared, then let go.
    private func releaseStaging() {
        staging?.wipe()
        staging = nil
    }

    /// The process umask, read without changing it (umask(2) can only be read by setting it,
    /// which would race with other threads creating files).
    private static let processUmask: mode_t = currentUmask()

    private static func currentUmask() -> mode_t {
        if let status = try? FileBytes.read("/proc/self/status", limit: 1 << 16),
           let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) {
            return value
        }
        return 0o022
    }
}

extension AtomicFileWriter {
    /// Writes `bytes` to `path` atomically and durably.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let writer = try AtomicFileWriter(destination: path, mode: mode)
        try writer.write(bytes)
        try writer.commit()
    }
}
