import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// What of a file the kernel holds in memory: a check that a write really went around the page cache.
public enum PageCache {
    /// How many of the file's pages are in the page cache (mincore on a read-only mapping).
    public static func residentPages(_ path: String) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("open", path: path) }
        defer { close(fd) }
        var st = stat()
        fstat(fd, &st)
        let size = Int(st.st_size)
        guard size > 0, let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            throw FileSystemError("map", path: path)
        }
        defer { munmap(map, size) }
        let pages = (size + 4095) / 4096
        var residency = [UInt8](repeating: 0, count: pages)
        guard mincore(map, size, &residency) == 0 else { throw FileSystemError("mincore", path: path) }
        return residency.filter { $0 & 1 != 0 }.count
    }
}
