import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// One entry met while walking a folder. Symlinks are reported as links, never followed.
public struct FolderEntry: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case file, symlink, directory, other
    }

    /// Relative to the folder walked, `/`-separated.
    public var relativePath: String
    public var kind: Kind
    /// Apparent size in bytes (st_size).
    public var size: Int64
    public var device: UInt64
    public var inode: UInt64
    /// Last modification, seconds since the epoch.
    public var modified: Int64

    init(relativePath: String, _ st: stat) {
        self.relativePath = relativePath
        kind = FolderEntry.kind(of: st.st_mode)
        size = Int64(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        modified = Int64(st.st_mtim.tv_sec)
    }

    static func kind(of mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: .file
        case S_IFLNK: .symlink
        case S_IFDIR: .directory
        default: .other
        }
    }
}

/// What walking a folder found at its top.
public enum WalkOutcome: Sendable, Equatable {
    case walked
    case missing
    /// The path exists but is not a folder (a symlink named like the folder is not followed).
    case notAFolder(FolderEntry.Kind)
}

/// Walks a folder tree with `openat`/`fdopendir`/`readdir` and `fstatat(AT_SYMLINK_NOFOLLOW)`: every
/// folder is opened relative to its parent with `O_NOFOLLOW`, so a symlink anywhere below never leads
/// out of the tree (FileManager is several times slower on 100,000 files and resolves paths by name).
enum FolderWalker {
    /// Folders deeper than this are not entered (a data directory has one or two levels).
    static let maximumDepth = 64

    /// Calls `body` for every entry below `folder` (directories before their contents). Folders that
    /// cannot be opened are passed to `unreadable`.
    static func walk(_ folder: String, unreadable: (String) -> Void = { _ in },
                     _ body: (FolderEntry) -> Void) -> WalkOutcome {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return .missing }
            if let st = POSIXFile.linkStatus(folder), (st.st_mode & S_IFMT) != S_IFDIR {
                return .notAFolder(FolderEntry.kind(of: st.st_mode))
            }
            unreadable(folder)
            return .walked
        }
        walkOpen(fd, prefix: "", depth: 0, folder: folder, unreadable: unreadable, body)
        return .walked
    }

    /// Walks the open folder `fd` (and closes it).
    private static func walkOpen(_ fd: Int32, prefix: String, depth: Int, folder: String,
                                 unreadable: (String) -> Void, _ body: (FolderEntry) -> Void) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            unreadable(prefix.isEmpty ? folder : Path.join(folder, prefix))
            return
        }
        defer { closedir(dir) }
        let dirFD = dirfd(dir)
        var subfolders: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            var st = stat()
            guard fstatat(dirFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            body(FolderEntry(relativePath: relative, st))
            if (st.st_mode & S_IFMT) == S_IFDIR { subfolders.append(name) }
        }
        guard depth < maximumDepth else {
            if !subfolders.isEmpty { unreadable(Path.join(folder, prefix)) }
            return
        }
        for name in subfolders {
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            let child = openat(dirFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else {
                unreadable(Path.join(folder, relative))
                continue
            }
            walkOpen(child, prefix: relative, depth: depth + 1, folder: folder, unreadable: unreadable, body)
        }
    }
}
