import Foundation
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
    /// Permission and type bits (st_mode).
    public var mode: mode_t
    /// False when the name's bytes are not UTF-8 (`relativePath` then carries them as
    /// `FileNameBytes` does: shown escaped, found again by every path call of `PathCalls.swift`).
    public var nameIsValidUTF8 = true

    public init(relativePath: String, _ st: stat) {
        self.relativePath = relativePath
        kind = FolderEntry.kind(of: st.st_mode)
        size = Int64(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        modified = Int64(st.st_mtim.tv_sec)
        mode = st.st_mode
    }

    public static func kind(of mode: mode_t) -> Kind {
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
/// The one walker of the project: storage, clean, archive export, input expansion and the files-table
/// check all see a folder through it.
public enum FolderWalker {
    /// Folders deeper than this are not entered (a data directory has one or two levels).
    public static let maximumDepth = 64

    /// Calls `body` for every entry below `folder` (directories before their contents), down to
    /// `maxDepth` levels of subfolders (0: the top level only). Folders that cannot be opened are
    /// passed to `unreadable`.
    @discardableResult
    public static func walk(_ folder: String, maxDepth: Int = maximumDepth, unreadable: (String) -> Void = { _ in },
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
        walkOpen(fd, prefix: "", depth: 0, maxDepth: min(maxDepth, maximumDepth), folder: folder, unreadable: unreadable, body)
        return .walked
    }

    /// Walks the open folder `fd` (and closes it).
    private static func walkOpen(_ fd: Int32, prefix: String, depth: Int, maxDepth: Int, folder: String,
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
            let raw = Folders.entryName(entry)
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            var st = stat()
            // By the raw bytes, so that a name that is not UTF-8 is still looked at.
            let status = (raw + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { fstatat(dirFD, $0.baseAddress!, &st, AT_SYMLINK_NOFOLLOW) }
            }
            guard status == 0 else { continue }
            let (name, isUTF8) = FileNameBytes.decode(raw)
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            var found = FolderEntry(relativePath: relative, st)
            found.nameIsValidUTF8 = isUTF8
            body(found)
            if (st.st_mode & S_IFMT) == S_IFDIR { subfolders.append(name) }
        }
        guard depth < maxDepth else {
            if !subfolders.isEmpty, maxDepth == maximumDepth { unreadable(Path.join(folder, prefix)) }
            return
        }
        for name in subfolders {
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            let child = openat(dirFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else {
                unreadable(Path.join(folder, relative))
                continue
            }
            walkOpen(child, prefix: relative, depth: depth + 1, maxDepth: maxDepth, folder: folder, unreadable: unreadable, body)
        }
    }
}
