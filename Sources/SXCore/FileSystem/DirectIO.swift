#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing around the page cache (O_DIRECT) for big files that are written once and read
/// once: transfer chunks, a received file, a relay's store.
///
/// Why: every page-cache page a write takes is a fresh page, and on a VM that hands idle memory back
/// to its host (virtio free-page reporting) each fresh page costs a host fault. Measured here, 1 GiB
/// written through the page cache: 1.4–1.8 s of system time (2.7 s with its fsync); with O_DIRECT:
/// 0.06 s, 0.43 s of wall time, the disk's own speed. Reading back with O_DIRECT costs the disk's read
/// speed (about 1.3 GB/s here) and no CPU, which a pipeline overlaps with the cipher and the digests.
///
/// O_DIRECT wants the buffer address, the file offset and the length to be multiples of the block
/// size; `AlignedBuffer` gives page-aligned memory, and every call here falls back to an ordinary
/// read or write for what is not aligned (a file's tail) or where the file system refuses O_DIRECT.
extension POSIXFile {
    /// The alignment used for every O_DIRECT transfer: a page, which covers any logical block size.
    public static let directAlignment = 4096

    #if arch(x86_64) || arch(i386)
    static let oDirect: Int32 = 0o40000
    #else
    static let oDirect: Int32 = 0o200000  // aarch64, arm, riscv64
    #endif

    /// Turns O_DIRECT on or off for an open file; false when the file system does not allow it.
    @discardableResult
    public static func setDirect(_ fd: Int32, _ on: Bool) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return false }
        let wanted = on ? flags | oDirect : flags & ~oDirect
        return wanted == flags || fcntl(fd, F_SETFL, wanted) == 0
    }

    /// Whether O_DIRECT is on for `fd`.
    public static func isDirect(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        return flags >= 0 && flags & oDirect != 0
    }

    static func isAligned(_ pointer: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard let pointer else { return count == 0 }
        return Int(bitPattern: pointer) % directAlignment == 0 && count % directAlignment == 0
    }

    /// Writes all of `bytes` at the file's current offset, which must be a multiple of
    /// `directAlignment` while O_DIRECT is on. On a file with O_DIRECT on, aligned pieces go around the
    /// page cache; before a piece that is not aligned (a file's tail), or when the file system refuses
    /// the transfer, O_DIRECT is turned off, and from then on the file is written through the page cache.
    public static func writeAllDirect(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var direct = isDirect(fd)
        var done = 0
        while done < bytes.count {
            var piece = UnsafeRawBufferPointer(rebasing: bytes[done...])
            if direct {
                let aligned = isAligned(piece.baseAddress, 0) ? piece.count - piece.count % directAlignment : 0
                if aligned == 0 {
                    setDirect(fd, false)
                    direct = false
                } else {
                    piece = UnsafeRawBufferPointer(rebasing: piece[0..<aligned])
                }
            }
            let n = transfer(fd, direct: &direct) { Glibc.write(fd, piece.baseAddress!, piece.count) }
            guard n >= 0 else { throw FileSystemError("write", path: path) }
            done += n
        }
    }

    /// Reads until `buffer` is full or end of file, like `read(_:into:path:)`, on a file that may have
    /// O_DIRECT on (read from an aligned offset): a piece that is not aligned (a file's tail, an odd
    /// buffer), or a transfer the file system refuses, turns O_DIRECT off first.
    public static func readDirect(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        var direct = isDirect(fd)
        var done = 0
        while done < buffer.count {
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
            if direct && !isAligned(UnsafeRawPointer(piece.baseAddress), piece.count) {
                setDirect(fd, false)
                direct = false
            }
            let n = transfer(fd, direct: &direct) { Glibc.read(fd, piece.baseAddress!, piece.count) }
            guard n >= 0 else { throw FileSystemError("read", path: path) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// One read(2) or write(2) under O_DIRECT's rules: EINTR is retried; EINVAL while O_DIRECT is on
    /// (the file system took the flag but not this transfer, which moved no byte) turns it off and
    /// retries through the page cache. Returns the byte count, or -1 with errno set.
    private static func transfer(_ fd: Int32, direct: inout Bool, _ call: () -> Int) -> Int {
        while true {
            let n = call()
            if n >= 0 { return n }
            if errno == EINTR { continue }
            guard errno == EINVAL && direct else { return -1 }
            setDirect(fd, false)
            direct = false
        }
    }

    /// Creates (or truncates) `path` and writes `bytes` into it, around the page cache where the file
    /// system allows it and `bytes` starts on a page (an `AlignedBuffer`); anything else is written
    /// through the page cache. Not flushed: the caller fsyncs when the file must survive a crash.
    public static func writeFileDirect(_ path: String, _ bytes: UnsafeRawBufferPointer, mode: mode_t = 0o600) throws {
        let fd = try open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        defer { close(fd) }
        setDirect(fd, true)
        try writeAllDirect(fd, bytes, path: path)
    }

    /// Reads the whole of `path` into `buffer` (replacing what it held) around the page cache where the
    /// file system allows it. Throws (EOVERFLOW) when the file is bigger than the buffer's capacity.
    public static func readFileDirect(_ path: String, into buffer: AlignedBuffer) throws {
        let fd = try open(path, flags: O_RDONLY)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileSystemError("read the status of", path: path) }
        guard Int64(st.st_size) <= Int64(buffer.capacity) else {
            throw FileSystemError("read \(buffer.capacity) bytes at most from", path: path, code: EOVERFLOW)
        }
        setDirect(fd, true)
        buffer.removeAll()
        // Asks for a whole number of pages: O_DIRECT reads stop at the end of the file.
        let want = min(buffer.capacity, (Int(st.st_size) + directAlignment - 1) / directAlignment * directAlignment)
        _ = try buffer.withUnusedCapacity { space in
            try readDirect(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<want]), path: path)
        }
    }
}

/// Page-aligned memory of a fixed capacity, filled front to back: what O_DIRECT transfers need, and
/// a buffer that a pipeline hands from one thread to the next (one owner at a time, hence unchecked).
public final class AlignedBuffer: @unchecked Sendable {
    public let capacity: Int
    public private(set) var count = 0
    private let base: UnsafeMutableRawPointer

    /// `capacity` is rounded up to a whole number of pages.
    public init(capacity: Int) {
        let a = POSIXFile.directAlignment
        self.capacity = max(a, (capacity + a - 1) / a * a)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: a)
    }

    deinit { base.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    public var isFull: Bool { count == capacity }

    /// Appends `bytes`; false (nothing appended) when they do not fit.
    @discardableResult
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        if let source = bytes.baseAddress { (base + count).copyMemory(from: source, byteCount: bytes.count) }
        count += bytes.count
        return true
    }

    /// Appends all of `bytes`, handing the content to `flush` and emptying the buffer each time it fills:
    /// how a stream of odd-sized pieces becomes whole aligned blocks for O_DIRECT.
    public func append(_ bytes: UnsafeRawBufferPointer, flushingWhenFull flush: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var rest = bytes
        while rest.count > 0 {
            let n = min(rest.count, capacity - count)
            append(UnsafeRawBufferPointer(rebasing: rest[0..<n]))
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            if isFull {
                try flush(self.bytes)
                removeAll()
            }
        }
    }

    /// Lends the unused capacity to `fill`, which returns how many bytes it wrote at its start.
    public func withUnusedCapacity<T: BinaryInteger>(_ fill: (UnsafeMutableRawBufferPointer) throws -> T) rethrows -> T {
        let written = try fill(UnsafeMutableRawBufferPointer(start: base + count, count: capacity - count))
        precondition(written >= 0 && Int(written) <= capacity - count, "wrote past the buffer")
        count += Int(written)
        return written
    }

    /// Mutable access to the filled part (e.g. to decrypt it in place).
    public func withMutableBytes<T>(_ body: (UnsafeMutableRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    public func removeAll() { count = 0 }

    /// Clears all of its memory (it held plaintext) and empties it.
    public func wipe() {
        Wipe.bytes(UnsafeMutableRawBufferPointer(start: base, count: capacity))
        count = 0
    }
}
