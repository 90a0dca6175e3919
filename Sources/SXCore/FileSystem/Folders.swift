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
            let raw = entryName(entry)
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            names.append(FileNameBytes.string(raw))
        }
        return names
    }

    /// The name of a `readdir` entry: its bytes up to the NUL. Read in place, never as
    /// `entry.pointee.d_name`, which copies the field's full 256 bytes: glibc allocates each entry
    /// only as long as its name needs, so for the last entries in its buffer that copy read past the
    /// end of the allocation (AddressSanitizer, in the fuzz runs of scripts/fuzz).
    public static func entryName(_ entry: UnsafePointer<dirent>) -> [UInt8] {
        let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
        return Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
    }

    /// glibc's 64-bit layout (`d_ino`, `d_off`, `d_reclen`, `d_type`, then the name) if Swift cannot say.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 19

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
