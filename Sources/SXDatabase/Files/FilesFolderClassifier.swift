import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// What the chat DB's `files` table references in the files folder (FORMATS §2): one entry per
/// normalised relative path, however many rows name it. The one place that decides which files of
/// the folder are referenced, encrypted, orphaned or missing: `db inspect`, the storage report and
/// clean, and `files encrypt|decrypt` all classify through it. The table is streamed row by row;
/// the dictionary is the only per-file state kept.
public struct FilesTableReferences: Sendable {
    public struct Reference: Sendable, Equatable {
        /// Some row naming the path has a key and a nonce: the file on disk is a CryptoFile.
        public var encrypted: Bool
        /// `files.file_size` of the last row naming the path (the plaintext size the app recorded).
        public var recordedSize: Int64
        /// How many rows name the path, and how many of them with a key (`db inspect` counts rows).
        public var rows: Int32
        public var encryptedRows: Int32
    }

    public var byPath: [String: Reference] = [:]
    /// Rows whose `file_path` is absolute or climbs out with `..`: never followed.
    public var unsafePaths = 0
    public var unsafePathExamples: [String] = []

    public static let exampleLimit = 10

    public init() {}

    /// Reads every row of `db`'s `files` table.
    public static func read(from db: DatabaseConnection) throws -> FilesTableReferences {
        var out = FilesTableReferences()
        // Sized once: growing a 100,000-entry dictionary by doubling would briefly hold two copies.
        if let rows = try db.scalarInt("SELECT count(*) FROM files WHERE file_path IS NOT NULL"), rows > 0 {
            out.byPath.reserveCapacity(Int(min(rows, 10_000_000)))
        }
        try ChatFilesTable.forEach(in: db) { out.add($0) }
        return out
    }

    /// Takes one row into account. Rows without a path are not files yet; unsafe paths are counted
    /// (with a few examples) and never become references.
    public mutating func add(_ record: ChatFileRecord) {
        guard let stored = record.storedPath, !stored.isEmpty else { return }
        guard let relative = record.relativePath else {
            unsafePaths += 1
            if unsafePathExamples.count < Self.exampleLimit { unsafePathExamples.append(stored) }
            return
        }
        var reference = byPath[relative] ?? Reference(encrypted: false, recordedSize: 0, rows: 0, encryptedRows: 0)
        reference.encrypted = reference.encrypted || record.isEncrypted
        reference.recordedSize = record.fileSize ?? 0
        reference.rows += 1
        if record.isEncrypted { reference.encryptedRows += 1 }
        byPath[relative] = reference
    }

    public func isReferenced(_ relativePath: String) -> Bool { byPath[relativePath] != nil }

    /// How one entry met while walking the files folder stands against the table. A symlink is
    /// never a present file, referenced or not: it is not followed.
    public func classify(_ entry: FolderEntry) -> FilesFolderClass {
        switch entry.kind {
        case .directory: return .folder
        case .other: return .other
        case .symlink: return .symlink(referenced: isReferenced(entry.relativePath))
        case .file:
            guard let reference = byPath[entry.relativePath] else { return .orphan }
            return .referenced(encrypted: reference.encrypted)
        }
    }

    /// The referenced paths that are not regular files among `entries` (a walk of the files
    /// folder), sorted: missing, or present only as a symlink or a folder.
    public func missing(from entries: [FolderEntry]) -> [String] {
        // A binary search in the sorted listing rather than a second set of every path.
        let files = entries.lazy.filter { $0.kind == .file }.map(\.relativePath).sorted()
        func present(_ path: String) -> Bool {
            var low = 0, high = files.count
            while low < high {
                let mid = (low + high) / 2
                if files[mid] < path { low = mid + 1 } else { high = mid }
            }
            return low < files.count && files[low] == path
        }
        return byPath.keys.filter { !present($0) }.sorted()
    }
}

/// Where an entry of the files folder stands against the `files` table.
public enum FilesFolderClass: Sendable, Equatable {
    /// A regular file some row names; `encrypted` when a row holds its key (a CryptoFile).
    case referenced(encrypted: Bool)
    /// A regular file no row names.
    case orphan
    /// A symbolic link: never followed, so never a present file.
    case symlink(referenced: Bool)
    case folder
    /// A device, socket or pipe.
    case other
}

/// What one referenced path is in the files folder, looked at without following any symlink on the
/// way (each component by `lstat`).
public enum FilesFolderLookup {
    case file(stat)
    case missing
    /// The path, or a folder on the way (`last` false), is a symlink: not followed.
    case symlink(last: Bool)
    /// A folder, device, socket or pipe where the file should be.
    case notRegular

    public static func look(_ relative: String, in folder: String) -> FilesFolderLookup {
        let parts = relative.split(separator: "/").map(String.init)
        var current = folder
        for (i, part) in parts.enumerated() {
            current = Path.join(current, part)
            guard let st = POSIXFile.linkStatus(current) else { return .missing }
            let type = st.st_mode & S_IFMT
            let last = i == parts.count - 1
            if type == S_IFLNK { return .symlink(last: last) }
            if !last {
                if type != S_IFDIR { return .missing }
            } else {
                return type == S_IFREG ? .file(st) : .notRegular
            }
        }
        return .missing
    }
}
