#if canImport(Glibc)
import Glibc
#endif

/// What is left on a file system.
public enum FreeSpace {
    /// Bytes an unprivileged process may still write on the file system holding `path`.
    public static func availableBytes(at path: String) throws -> Int64 {
        var fs = Glibc.statvfs()
        guard statvfs(path, &fs) == 0 else { throw FileSystemError("read the free space of", path: path) }
        return Int64(clamping: UInt64(fs.f_bavail) &* UInt64(fs.f_frsize))
    }
}
