import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Streams files into a `ZipWriter` through one fixed buffer, choosing stored or deflate per entry,
/// and counts what it did.
struct EntryCopier {
    let zip: ZipWriter
    let buffer: UnsafeMutableRawBufferPointer
    let compress: Bool
    let progress: ProgressTracker?
    private(set) var entries = 0
    private(set) var bytesIn: Int64 = 0
    private(set) var stored = 0
    private(set) var deflated = 0

    init(zip: ZipWriter, buffer: UnsafeMutableRawBufferPointer, compress: Bool, progress: ProgressTracker?) {
        self.zip = zip
        self.buffer = buffer
        self.compress = compress
        self.progress = progress
    }

    /// Archives a planned file. Returns why it could not be read (the archive is still fine); throws
    /// only when the archive itself cannot be written.
    mutating func copy(_ file: ExportPlan.File) throws -> String? {
        let fd: Int32
        do {
            // O_NOFOLLOW: a file swapped for a link since the folder was listed is still not followed.
            // O_NONBLOCK: a file swapped for a pipe cannot hang the export.
            fd = try POSIXFile.open(file.path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch let error as FileSystemError {
            progress?.itemDone()
            return error.code == ELOOP ? "'\(file.path)' became a symbolic link; links are not followed, so it was not archived"
                : "\(ErrorCause.text(of: error)); it was not archived"
        }
        defer { close(fd) }
        let st = try fileStatus(fd, file.path)
        guard st.st_mode & S_IFMT == S_IFREG else {
            progress?.itemDone()
            return "'\(file.path)' is no longer a regular file, so it was not archived"
        }
        POSIXFile.adviseSequential(fd)
        return try copy(fd: fd, size: Int64(st.st_size), status: st, name: file.entry.entryName, path: file.path).problem
    }

    /// Writes one entry of `size` bytes read from `fd`. The size is declared in the entry header (so
    /// that libarchive can pick Zip64 for big entries); a file that shrinks while it is read yields a
    /// shorter entry and a problem sentence, never a wrong CRC.
    mutating func copy(fd: Int32, size: Int64, status st: stat, name: String, path: String) throws -> (method: ZipMethod, problem: String?) {
        let sampleLength = try POSIXFile.pread(fd, into: slice(0, Int(min(Int64(CompressionChoice.sampleSize), size))), at: 0, path: path)
        let method = CompressionChoice.method(size: size, sample: UnsafeRawBufferPointer(slice(0, sampleLength)), compress: compress)
        // The file's own permission bits, always readable and writable by whoever extracts it.
        try zip.beginEntry(name: name, size: size, modified: st.st_mtim, permissions: (st.st_mode & 0o777) | 0o600, method: method)
        var offset: Int64 = 0
        var problem: String?
        while offset < size {
            let n: Int
            do {
                n = try POSIXFile.pread(fd, into: slice(0, Int(min(Int64(buffer.count), size - offset))), at: offset, path: path)
            } catch {
                problem = "\(ErrorCause.text(of: error)) after \(offset) of \(size) bytes; the archived copy is incomplete"
                break
            }
            if n == 0 {
                problem = "'\(path)' shrank from \(size) to \(offset) bytes while it was being archived; the archived copy is incomplete"
                break
            }
            try zip.write(UnsafeRawBufferPointer(slice(0, n)))
            offset += Int64(n)
            progress?.addBytes(Int64(n))
            if offset == Int64(n) { CrashPoint.reach("export.mid-entry") }
        }
        try zip.finishEntry()
        entries += 1
        bytesIn += offset
        if method == .stored { stored += 1 } else { deflated += 1 }
        progress?.itemDone()
        return (method, problem)
    }

    private func slice(_ start: Int, _ end: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end])
    }
}
