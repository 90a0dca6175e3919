#if canImport(Glibc)
import Glibc
#endif

extension AtomicFileWriter {
    /// Temp files that writers of `destination` left when they were killed before `commit()` or
    /// `abort()`: named after it, in its folder, and not locked. Every writer holds an exclusive
    /// `flock` on its temp file while it lives and the kernel drops it when the process dies, however
    /// it dies, so a concurrent run's live temp file is never counted.
    public static func staleTempFiles(of destination: String) -> [String] {
        let folder = Path.parent(destination)
        let prefix = tempPrefix + Path.basename(destination).prefix(64) + "."
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var stale: [String] = []
        while let item = readdir(dir) {
            let name = FileNameBytes.string(Folders.entryName(item))
            // mkstemp's six random characters follow the prefix; a writer's helpers may add a suffix
            // to its temp name (`.replaced`), and belong to it: stale when the temp file is.
            guard name.hasPrefix(prefix), name.utf8.count >= prefix.utf8.count + 6 else { continue }
            let base = String(decoding: name.utf8.prefix(prefix.utf8.count + 6), as: UTF8.self)
            guard base == name || name.dropFirst(base.count).hasPrefix(".") else { continue }
            let path = Path.join(folder, name)
            if !isLockedByLiveWriter(Path.join(folder, base)) { stale.append(path) }
        }
        return stale.sorted()
    }

    /// Removes `staleTempFiles(of:)`; returns how many went.
    @discardableResult
    public static func removeStaleTempFiles(of destination: String) -> Int {
        staleTempFiles(of: destination).reduce(0) { $0 + (unlink($1) == 0 ? 1 : 0) }
    }

    /// Whether a live run holds `path` (a temp file of ours): see `TempOwnership`.
    public static func isLockedByLiveWriter(_ path: String) -> Bool {
        POSIXFile.linkStatus(path) != nil && !TempOwnership.isStale(path)
    }
}
