import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Removes one planned entry after checking it is still what was planned. The path is resolved one
/// component at a time with `O_NOFOLLOW` from its base folder, so a folder swapped for a symlink
/// since the plan cannot lead the removal out of the data directory; the entry itself is compared
/// (kind, device, inode, size) with `fstatat(AT_SYMLINK_NOFOLLOW)` just before `unlinkat`.
enum SafeRemoval {
    enum Outcome: Equatable {
        case removed
        /// Not removed: it is no longer what was planned.
        case changed(String)
        case failed(FileSystemError)
    }

    static func remove(_ item: CleanItem) -> Outcome {
        var components = item.relativePath.split(separator: "/").map(String.init)
        guard let name = components.popLast(), !components.contains("..") else { return .changed("its path is not inside its folder") }
        var fd = open(item.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return folderChanged(item.base, errno) }
        defer { close(fd) }
        for component in components {
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return folderChanged(component, errno) }
            close(fd)
            fd = next
        }
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            return errno == ENOENT ? .changed("it no longer exists") : .failed(FileSystemError("examine", path: item.path))
        }
        let kind = FolderEntry.kind(of: st.st_mode)
        guard kind == item.kind else { return .changed("it is now a \(kind.rawValue), not a \(item.kind.rawValue)") }
        if kind == .symlink, item.category != .temp { return .changed("symlinks are removed only inside a temp folder") }
        guard UInt64(st.st_dev) == item.device, UInt64(st.st_ino) == item.inode else { return .changed("it was replaced by another file") }
        if kind == .file, Int64(st.st_size) != item.size { return .changed("its size changed since it was planned") }
        guard unlinkat(fd, name, kind == .directory ? AT_REMOVEDIR : 0) == 0 else {
            return .failed(FileSystemError(kind == .directory ? "remove the folder" : "delete", path: item.path))
        }
        return .removed
    }

    private static func folderChanged(_ what: String, _ code: Int32) -> Outcome {
        switch code {
        case ENOENT: .changed("its folder no longer exists")
        case ELOOP, ENOTDIR: .changed("its folder '\(what)' is now a symlink or a file; not followed")
        default: .failed(FileSystemError("open the folder", path: what, code: code))
        }
    }
}
