import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so that readers see either the old content or the complete new one, never a mix:
/// a temp file in the destination's folder (same file system, so the final step is a rename),
/// fsync, rename over the destination, fsync the folder.
///
/// One owner at a time; `abort()` (or `deinit` without `commit()`) removes the temp file. The temp
/// file is locked for as long as it exists (see `TempOwnership`), so that a later run can tell one a
/// killed run left (and remove it) from one a live run is writing (and leave it alone), and it is
/// listed in `LiveTemps`, so that a run stopped by a signal removes it.
public final class AtomicFileWriter: @unchecked Sendable {
    /// Temp names start with this, so that a crash leftover is recognisable and never mistaken
    /// for user data.
    public static let tempPrefix = DataDirectoryNames.atomicTempPrefix

    public let destination: String
    public let tempPath: String
    public private(set) var bytesWritten: Int64 = 0
    private var fd: Int32
    private var finished = false
    /// The descriptor kept open after `finishWriting` only for the temp file's lock, until published.
    private var lockFD: Int32 = -1
    private let liveToken: Int
    /// The mode the file gets when it is finished (less the umask); until then it is 0600.
    private let finalMode: mode_t
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
    public convenience init(destination: String, mode: mode_t = 0o644) throws {
        try self.init(destination: destination, mode: mode, beforeLocking: { _ in })
    }

    /// `beforeLocking` runs between creating the temp file and locking it, the instant in which
    /// another run's sweep can take it for stale (tests use it to be that sweep).
    init(destination: String, mode: mode_t, beforeLocking: (String) -> Void) throws {
        self.destination = destination
        let folder = Path.parent(destination)
        var attempt = 0
        while true {
            var template = FileNameBytes.template(folder + "/" + Self.tempPrefix + Path.basename(destination).prefix(64) + ".XXXXXX")
            // Created 0600 by mkstemp: partial content is never readable by others, not even for an instant.
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw FileSystemError("create a file in", path: folder) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let made = FileNameBytes.string(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
            attempt += 1
            beforeLocking(made)
            // A sweeper removed it between mkstemp and the lock (it looked stale): make another.
            // Never write on in one that is gone: its publish could only fail, after all the work.
            guard TempOwnership.claim(fd, path: made) else {
                close(fd)
                guard attempt < 8 else { throw FileSystemError("create a file in", path: folder, code: EAGAIN) }
                continue
            }
            tempPath = made
            self.fd = fd
            break
        }
        liveToken = LiveTemps.add(tempPath)
        finalMode = mode & ~Self.processUmask
    }

    /// Takes over a temp file an earlier run of a writer left behind (a received file's partial
    /// plaintext, as after a kill), keeping its first `length` bytes (which the caller verified) and
    /// writing on from there. `descriptor` is open for reading and writing on `path` and holds its
    /// lock (`openStale`); the writer owns it from here, also when this throws.
    public init(adopting path: String, descriptor fd: Int32, destination: String, length: Int64, mode: mode_t = 0o644) throws {
        self.destination = destination
        // Never longer: the kept bytes must all be there.
        var st = stat()
        guard length >= 0, fstat(fd, &st) == 0, Int64(st.st_size) >= length else {
            TempOwnership.release(fd)
            throw FileSystemError("take over", path: path, code: EINVAL)
        }
        // What was written past the kept part (unverified) goes; the rest stays 0600.
        guard ftruncate(fd, off_t(length)) == 0, fchmod(fd, 0o600) == 0 else {
            let code = errno
            TempOwnership.release(fd)
            throw FileSystemError("truncate", path: path, code: code)
        }
        tempPath = path
        self.fd = fd
        bytesWritten = length
        advisedUpTo = length
        adoptedLength = length
        liveToken = LiveTemps.add(tempPath)
        finalMode = mode & ~Self.processUmask
    }

    /// Opens a temp file that a run left behind (`abandon`) for reading and writing and takes its lock:
    /// nil when it is gone, not a regular file, or held by a live run.
    public static func openStale(_ path: String) -> Int32? {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, case .claimed = TempOwnership.tryClaim(fd, path: path) else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The bytes a taken-over file kept (see `init(adopting:)`); its writes go on after them.
    private var adoptedLength: Int64 = 0

    /// Keeps the temp file, unpublished, for a later run to take over (`init(adopting:)`): what was
    /// written so far is flushed (best effort: the taker verifies what it keeps) and the lock is let
    /// go. The file keeps the 0600 it was written with.
    public func abandon() {
        guard !finished else { return }
        if fd >= 0, let staging, staging.count > 0 {
            try? POSIXFile.writeAllDirect(fd, staging.bytes, path: destination)
        }
        releaseStaging()
        finished = true
        LiveTemps.remove(liveToken)
        if fd >= 0 {
            TempOwnership.release(fd)
            fd = -1
        }
        releaseLock()
    }

    /// A process stopped by a signal leaves this temp file for a later run to take over, as a kill
    /// would, instead of removing it (see `LiveTemps`); `abort` still removes it.
    public func keepIfInterrupted() {
        LiveTemps.remove(liveToken)
    }

    deinit { if !finished { abort() } }

    public var descriptor: Int32 { fd }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if !directDecided {
            directDecided = true
            try positionAfterAdoptedBytes()
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

    /// Decides O_DIRECT at the first write. A taken-over file's writes go on at its kept length; with
    /// O_DIRECT they must start on an aligned offset, so the kept bytes past the last aligned one are
    /// read back into the staging block and written again with the next block.
    private func positionAfterAdoptedBytes() throws {
        let aligned = adoptedLength - adoptedLength % Int64(POSIXFile.directAlignment)
        var tail: AlignedBuffer?
        if bypassPageCache && aligned < adoptedLength {
            // Read before O_DIRECT goes on: this read is neither aligned nor a whole block.
            let block = Self.takeStaging()
            let want = Int(adoptedLength - aligned)
            var code: Int32 = EIO
            let read = block.withUnusedCapacity { space -> Int in
                let n = pread(fd, space.baseAddress!, want, off_t(aligned))
                if n < 0 { code = errno }
                return max(0, n)
            }
            guard read == want else {
                Self.giveBack(block)
                throw FileSystemError("read", path: tempPath, code: code)
            }
            tail = block
        }
        if bypassPageCache && POSIXFile.setDirect(fd, true) {
            staging = tail ?? Self.takeStaging()
            guard lseek(fd, off_t(aligned), SEEK_SET) == off_t(aligned) else { throw FileSystemError("seek in", path: tempPath) }
        } else {
            if let tail { Self.giveBack(tail) }
            guard lseek(fd, off_t(adoptedLength), SEEK_SET) == off_t(adoptedLength) else { throw FileSystemError("seek in", path: tempPath) }
        }
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
        adoptedLength = 0
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
            // Widened only now, when asked and less the umask: while it is written (and if the
            // process is killed meanwhile) the temp file is 0600 whatever the umask.
            if finalMode != 0o600, fchmod(fd, finalMode) != 0 {
                throw FileSystemError("set permissions on", path: tempPath, code: errno)
            }
            if flush {
                try POSIXFile.fsync(fd, path: destination)
                // On disk now: the rest of its pages go too, for the next writes to reuse.
                if bypassPageCache { POSIXFile.adviseNotNeeded(fd) }
            }
        } catch {
            abort()
            throw error
        }
        // The descriptor stays open, holding the lock, until the file is published: a batch publishes
        // its whole group at once. Only so many are kept, well within the open-file limit; past that
        // the temp file waits unlocked (listed in LiveTemps still).
        if Self.heldLocks.add(1, ordering: .relaxed).newValue <= Self.maxHeldLocks {
            lockFD = fd
        } else {
            Self.heldLocks.subtract(1, ordering: .relaxed)
            close(fd)
        }
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
        LiveTemps.remove(liveToken)
        releaseLock()
        if flushFolder { try POSIXFile.fsyncDirectory(Path.parent(destination)) }
    }

    /// Discards the temp file; the destination is untouched.
    public func abort() {
        releaseStaging()
        guard !finished else { return }
        finished = true
        if fd >= 0 { close(fd); fd = -1 }
        unlink(tempPath)
        LiveTemps.remove(liveToken)
        releaseLock()
    }

    private func releaseLock() {
        guard lockFD >= 0 else { return }
        close(lockFD)
        lockFD = -1
        Self.heldLocks.subtract(1, ordering: .relaxed)
    }

    /// Finished temp files whose descriptor is kept open for their lock, process-wide.
    private static let heldLocks = Atomic<Int>(0)
    /// A quarter of the open-file limit, so that a batch's staged group never exhausts it.
    private static let maxHeldLocks: Int = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 128 }
        return Int(min(limit.rlim_cur, 1 << 20) / 4)
    }()

    /// The staging block held the file's content (a received file's plaintext): cleared, then let go.
    private func releaseStaging() {
        guard let staging else { return }
        self.staging = nil
        Self.giveBack(staging)
    }

    /// A staging block no writer uses any more: wiped, and a whole one kept for the next writer when
    /// there is room.
    private static func giveBack(_ block: AlignedBuffer) {
        block.wipe()
        stagingPool.withLock { $0.giveBack(block) }
    }

    private static let stagingPool = Mutex(StagingPool(wholeBlock: directBlock, smallBlock: smallStagingBlock, maxWhole: maxWholeBlocks))

    /// Writers holding a whole block at once. Past them a writer stages in `smallStagingBlock`s: a
    /// relay taking 50 uploads at once held a 1 MiB block for each (27-31 MB at its peak, an
    /// allocation count by call site), where a few writers already keep the disk busy and the others'
    /// bytes only wait in memory. With this, 8 MB.
    public static let maxWholeBlocks = 8
    public static let smallStagingBlock = 128 << 10

    /// The block a new writer stages in.
    private static func takeStaging() -> AlignedBuffer {
        stagingPool.withLock { $0.take() }
    }

    /// The capacity of the block this writer stages in (nil before its first write, or without O_DIRECT).
    public var stagingCapacity: Int? { staging?.capacity }

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

    /// A durable copy (temp file, fsync, rename) of the regular file `source`; a symlink is refused.
    public static func copy(_ source: String, to destination: String, mode: mode_t = 0o644) throws {
        let input = try POSIXFile.open(source, flags: O_RDONLY | O_NOFOLLOW)
        defer { close(input) }
        let writer = try AtomicFileWriter(destination: destination, mode: mode)
        try POSIXFile.copyAll(from: input, path: source, to: writer.descriptor, path: writer.tempPath)
        try writer.commit()
    }
}

/// The staging blocks of O_DIRECT writers: whole ones for at most `maxWhole` writers at once (a
/// spare one when a finished writer left it, else a new one), small ones past them. Finished writers'
/// whole blocks are kept for the next: a fresh 1 MiB of page-aligned memory is mapped anew by glibc
/// each time, so a relay storing 4 MiB chunks took a page fault for every 4 KiB it wrote, a third of
/// its page faults during a send (measured, `perf record -e page-faults`).
struct StagingPool {
    let wholeBlock: Int
    let smallBlock: Int
    let maxWhole: Int
    /// Whole blocks writers hold now.
    private(set) var inUse = 0
    private(set) var spares: [AlignedBuffer] = []

    init(wholeBlock: Int, smallBlock: Int, maxWhole: Int) {
        self.wholeBlock = wholeBlock
        self.smallBlock = smallBlock
        self.maxWhole = maxWhole
    }

    mutating func take() -> AlignedBuffer {
        guard inUse < maxWhole else { return AlignedBuffer(capacity: smallBlock) }
        inUse += 1
        return spares.popLast() ?? AlignedBuffer(capacity: wholeBlock)
    }

    /// A block a writer no longer uses (wiped by the caller): a whole one becomes a spare.
    mutating func giveBack(_ block: AlignedBuffer) {
        guard block.capacity == wholeBlock else { return }
        inUse -= 1
        if spares.count < maxWhole { spares.append(block) }
    }
}
