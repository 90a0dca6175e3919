#if canImport(Glibc)
import Glibc
#endif

/// Folder operations on `String` paths through the byte-exact libc calls (`PathCalls.swift`).
/// Foundation's `FileManager` turns a path into a C string itself, so a folder whose name is not
/// UTF-8 would be created, listed or removed under another name; and its errors read as debug dumps.
public enum Folders {
    /// `mkdir -p`: creates `path` and any missing parent, each with `mode` less the umask. A new final
    /// folder gets exactly `permissions` when given, whatever the umask. An existing folder is fine.
    public static func create(_ path: String, mode: mode_t = 0o777, permissions: mode_t? = nil) throws {
        if isFolder(path) { return }
        let parent = Path.parent(path)
        if parent != path, parent != ".", !isFolder(parent) { try create(parent, mode: mode) }
        guard mkdir(path, mode) == 0 else {
            if errno == EEXIST, isFolder(path) { return }  // made by someone else meanwhile
            throw FileSystemError("create the folder", path: path)
        }
        if let permissions, chmod(path, permissions) != 0 { throw FileSystemError("set the permissions of", path: path) }
    }

    /// The names in the folder (not `.` and `..`), in the order the file system lists them.
    public static func names(in path: String) throws -> [String] {
        guard let folder = opendir(path) else { throw FileSystemError("list the folder", path: path) }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            names.append(FileNameBytes.string(raw))
        }
        return names
    }

    /// `rm -r`: removes `path` and, if it is a folder, everything below it. Symlinks are removed,
    /// never followed. Nothing there is fine.
    public static func remove(_ path: String) throws {
        guard let st = POSIXFile.linkStatus(path) else {
            if errno == ENOENT { return }
            throw FileSystemError("delete", path: path)
        }
        if st.st_mode & S_IFMT == S_IFDIR {
            for name in try names(in: path) { try remove(Path.join(path, name)) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError("delete the folder", path: path) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("delete", path: path) }
        }
    }

    /// Whether `path` is a folder (or a symlink to one).
    public static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The bytes of the regular files below `path`, symlinks not followed.
    public static func totalFileBytes(_ path: String) -> Int64 {
        var total: Int64 = 0
        FolderWalker.walk(path) { entry in if entry.kind == .file { total += entry.size } }
        return total
    }
}
