import Foundation
import SXCore
import SXCrypto
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// One file of the files folder as the chat DB sees it: every row that names the same path.
struct FilesFolderEntry: Sendable {
    var path: String
    var fileIds: [Int64]
    /// The first row's `file_name` (decrypted copies are named after it).
    var fileName: String?
    /// The rows' key and nonce when they all hold the same ones.
    var args: CryptoFileArgs?
}

/// Identity of a file's content as far as the file system tells: a file whose size, inode or
/// modification time moved was changed (or replaced) by someone else.
struct FileFingerprint: Sendable, Equatable {
    var size: Int64
    var inode: UInt64
    var device: UInt64
    var mtimeSeconds: Int
    var mtimeNanoseconds: Int
    var mode: mode_t

    init(_ st: stat) {
        size = Int64(st.st_size)
        inode = UInt64(st.st_ino)
        device = UInt64(st.st_dev)
        mtimeSeconds = Int(st.st_mtim.tv_sec)
        mtimeNanoseconds = Int(st.st_mtim.tv_nsec)
        mode = st.st_mode
    }

    static func of(_ path: String) -> FileFingerprint? { POSIXFile.linkStatus(path).map(FileFingerprint.init) }
}

enum FilesFolderEntries {
    /// Reads the `files` rows and groups them by path. Rows without a path are not files yet.
    /// Unsafe paths and rows that disagree come back as outcomes, never as entries.
    static func read(_ db: DatabaseConnection) throws -> (entries: [FilesFolderEntry], problems: [ChatFileOutcome]) {
        var byPath: [String: Int] = [:]
        var entries: [FilesFolderEntry] = []
        // Per entry: some row has no key, some row has a key, two rows hold different (or malformed) keys.
        var plain: [Bool] = [], keyed: [Bool] = [], clash: [Bool] = []
        var problems: [ChatFileOutcome] = []
        try ChatFilesTable.forEach(in: db) { row in
            guard let stored = row.storedPath, !stored.isEmpty else { return }
            guard let relative = row.relativePath else {
                problems.append(ChatFileOutcome(kind: .unsafePath, path: stored, fileIds: [row.fileId],
                                                message: "file_path is absolute or leaves the files folder; not followed"))
                return
            }
            let args = row.isEncrypted ? try? CryptoFileArgs(key: row.cryptoKey!, nonce: row.cryptoNonce!) : nil
            let i: Int
            if let known = byPath[relative] {
                i = known
                entries[i].fileIds.append(row.fileId)
                if let a = entries[i].args, let b = args, a != b { clash[i] = true }
                if entries[i].args == nil { entries[i].args = args }
            } else {
                i = entries.count
                byPath[relative] = i
                entries.append(FilesFolderEntry(path: relative, fileIds: [row.fileId], fileName: row.fileName, args: args))
                plain.append(false); keyed.append(false); clash.append(false)
            }
            if row.isEncrypted { keyed[i] = true } else { plain[i] = true }
            if row.isEncrypted, args == nil { clash[i] = true }
        }
        var kept: [FilesFolderEntry] = []
        for (i, entry) in entries.enumerated() {
            if clash[i] || (plain[i] && keyed[i]) {
                problems.append(ChatFileOutcome(kind: .conflictingRows, path: entry.path, fileIds: entry.fileIds,
                                                message: "the rows naming this file disagree about its key (or hold a malformed one); left alone"))
            } else {
                kept.append(entry)
            }
        }
        return (kept, problems)
    }

    /// Looks at `relative` inside `folder` without following any symlink on the way. Returns the
    /// file's fingerprint, or the outcome that stops work on it.
    static func inspect(_ relative: String, in folder: String, entry: FilesFolderEntry) -> Result<FileFingerprint, OutcomeStop> {
        let parts = relative.split(separator: "/").map(String.init)
        var current = folder
        for (i, part) in parts.enumerated() {
            current = Path.join(current, part)
            guard let st = POSIXFile.linkStatus(current) else {
                return .failure(OutcomeStop(.missing, "not in the files folder"))
            }
            let type = st.st_mode & S_IFMT
            if type == S_IFLNK { return .failure(OutcomeStop(.symlink, "is a symbolic link (\(i == parts.count - 1 ? "the file" : "a folder on the way")); not followed")) }
            if i < parts.count - 1 {
                if type != S_IFDIR { return .failure(OutcomeStop(.missing, "not in the files folder")) }
            } else {
                if type != S_IFREG { return .failure(OutcomeStop(.notRegular, "is not a regular file")) }
                return .success(FileFingerprint(st))
            }
        }
        return .failure(OutcomeStop(.missing, "not in the files folder"))
    }

    struct OutcomeStop: Error {
        var kind: ChatFileOutcome.Kind
        var message: String
        init(_ kind: ChatFileOutcome.Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }
    }
}
