import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The files an export will archive, found before the archive is started, and what it leaves out.
struct ExportPlan {
    struct File {
        var entry: ChatArchiveEntry
        var path: String
        var size: Int64
        var device: UInt64
        var inode: UInt64
    }

    var files: [File] = []
    var errors: [ArchiveError] = []
    var skipped: [String] = []

    static func make(_ dataDirectory: DataDirectory) -> ExportPlan {
        var plan = ExportPlan()
        if let folder = dataDirectory.filesFolder {
            plan.scan(folder) { .file(name: $0) }
        }
        if let folder = dataDirectory.wallpapersFolder {
            plan.scan(folder) { .wallpaper(name: $0) }
        }
        return plan
    }

    /// Leaves out the file open as `descriptor` (the archive being written, when it is put inside the
    /// files folder: archiving it into itself would never end).
    mutating func exclude(sameFileAs descriptor: Int32) {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return }
        files.removeAll { $0.device == UInt64(st.st_dev) && $0.inode == UInt64(st.st_ino) }
    }

    /// Regular files at the top level of `folder`, by name. Links are never followed (a link could
    /// pull any file of the machine into the archive); subfolders are not part of the layout.
    private mutating func scan(_ folder: String, entry: (String) -> ChatArchiveEntry) {
        guard let dir = opendir(folder) else {
            if errno != ENOENT {
                errors.append(.fileError(file: Path.basename(folder), fileError: FileSystemError("list the folder", path: folder).description))
            }
            return
        }
        defer { closedir(dir) }
        var found: [File] = []
        while let item = readdir(dir) {
            let raw = withUnsafeBytes(of: item.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            let path = folder + "/" + String(decoding: raw, as: UTF8.self)
            guard let name = String(validating: raw, as: UTF8.self) else {
                errors.append(.fileError(file: String(decoding: raw, as: UTF8.self),
                                         fileError: "the name is not valid UTF-8, so it cannot be stored in the archive; rename the file"))
                continue
            }
            // The bare name, as simplex-chat's Archive.hs reports a file (`AEFileError {file}`).
            let entryName = name
            if name.hasPrefix(AtomicFileWriter.tempPrefix) {
                skipped.append("'\(path)' is the leftover of an interrupted sxkit write; it was not archived")
                continue
            }
            guard ArchiveEntryName.isPlainComponent(name) else {
                errors.append(.fileError(file: entryName, fileError: "the name cannot be stored safely (\(ArchiveEntryName.problem(name) ?? "it is not a plain file name")); rename the file"))
                continue
            }
            guard let st = POSIXFile.linkStatus(folder + "/" + name) else {
                errors.append(.fileError(file: entryName, fileError: FileSystemError("read the status of", path: path).description))
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                found.append(File(entry: entry(name), path: path, size: Int64(st.st_size), device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
            case S_IFLNK:
                errors.append(.fileError(file: entryName, fileError: "'\(path)' is a symbolic link; links are not followed, so it was not archived"))
            case S_IFDIR:
                skipped.append("'\(path)' is a folder; only the files directly inside '\(folder)' are archived")
            default:
                errors.append(.fileError(file: entryName, fileError: "'\(path)' is not a regular file (a device, pipe or socket), so it was not archived"))
            }
        }
        files += found.sorted { $0.entry.entryName < $1.entry.entryName }
    }
}

/// Temp files that killed exports left beside their destination (named by `AtomicFileWriter`).
enum ExportLeftovers {
    /// Removes the temp files of earlier exports to `destination` whose writer is gone: a live export
    /// holds an exclusive `flock` on its temp file until it ends, and the kernel drops that lock when
    /// the process dies, however it dies. Returns how many were removed.
    static func remove(for destination: String) -> Int {
        let folder = Path.parent(destination)
        let prefix = AtomicFileWriter.tempPrefix + Path.basename(destination).prefix(64) + "."
        guard let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        var removed = 0
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // mkstemp's six random characters follow the prefix.
            guard name.hasPrefix(prefix), name.utf8.count == prefix.utf8.count + 6 else { continue }
            let path = folder + "/" + name
            guard let fd = try? POSIXFile.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0, unlink(path) == 0 { removed += 1 }
            close(fd)
        }
        return removed
    }
}
