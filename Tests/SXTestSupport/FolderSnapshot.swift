import Foundation

/// Every entry under a folder with its bytes and its metadata (size, mode, inode, mtime and ctime
/// to the nanosecond), for tests that prove a command changed nothing on disk. Access times are not
/// compared: reading a file to snapshot it would itself change them.
public struct FolderSnapshot: Equatable, CustomStringConvertible {
    public struct Entry: Equatable {
        public var kind: UInt32
        public var size: Int64
        public var mode: UInt32
        public var inode: UInt64
        public var mtime: Int64
        public var ctime: Int64
        public var bytes: Data?
    }

    public var entries: [String: Entry]

    public static func take(_ root: String) throws -> FolderSnapshot {
        var entries: [String: Entry] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let absolute = relative.isEmpty ? root : root + "/" + relative
            for name in try FileManager.default.contentsOfDirectory(atPath: absolute) {
                let rel = relative.isEmpty ? name : relative + "/" + name
                var st = stat()
                guard lstat(root + "/" + rel, &st) == 0 else { continue }
                let kind = st.st_mode & S_IFMT
                let bytes = kind == S_IFREG ? FileManager.default.contents(atPath: root + "/" + rel) : nil
                entries[rel] = Entry(kind: kind, size: Int64(st.st_size), mode: st.st_mode, inode: UInt64(st.st_ino),
                                     mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                                     ctime: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec), bytes: bytes)
                if kind == S_IFDIR { pending.append(rel) }
            }
        }
        return FolderSnapshot(entries: entries)
    }

    /// The entries that differ from `other`, for a readable failure.
    public func differences(from other: FolderSnapshot) -> [String] {
        Set(entries.keys).union(other.entries.keys).sorted().filter { entries[$0] != other.entries[$0] }
    }

    public var description: String { entries.keys.sorted().joined(separator: ", ") }
}
