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
    /// Rows read per page: the walk holds one page (and the paths several rows share), never the
    /// whole table, so memory stays flat however many files the DB names.
    static let pageRows = 2000

    /// One item of the walk: a file to look at, or a row (or rows) that stop there.
    enum Item {
        case entry(FilesFolderEntry)
        case problem(ChatFileOutcome)
    }

    /// Walks the `files` rows in `file_id` pages and groups them by path: each path comes once, at
    /// its first row. Rows without a path are not files yet. Unsafe paths and rows that disagree come
    /// back as problems, never as entries. `body` may write to the DB between items (the walk keeps
    /// no statement open across calls; it changes only key columns, which the walk does not use to
    /// page or group).
    static func walk(_ db: DatabaseConnection, pageRows: Int = pageRows, _ body: (Item) throws -> Void) throws {
        let shared = try SharedPaths(db)
        var handledShared: Set<String> = []
        var after = Int64.min
        while true {
            let page = try ChatFilesTable.page(in: db, after: after, limit: pageRows)
            guard let last = page.last else { return }
            after = last.fileId
            for row in page {
                guard let stored = row.storedPath, !stored.isEmpty else { continue }
                guard let relative = row.relativePath else {
                    try body(.problem(ChatFileOutcome(kind: .unsafePath, path: stored, fileIds: [row.fileId],
                                                      message: "file_path is absolute or leaves the files folder; not followed")))
                    continue
                }
                if let stored = shared.storedPaths[relative] {
                    // The first row of a shared path: read all of its rows now, then skip the later ones.
                    guard handledShared.insert(relative).inserted else { continue }
                    let rows = try ChatFilesTable.rows(in: db, withPaths: stored).filter { $0.relativePath == relative }
                    try body(entry(relative, rows))
                } else {
                    try body(entry(relative, [row]))
                }
            }
        }
    }

    /// The entry for the rows naming `relative` (in `file_id` order), or the conflict they make.
    private static func entry(_ relative: String, _ rows: [ChatFileRecord]) -> Item {
        var plain = false, keyed = false, clash = false
        var args: CryptoFileArgs?
        for row in rows {
            let rowArgs = row.isEncrypted ? try? CryptoFileArgs(key: row.cryptoKey!, nonce: row.cryptoNonce!) : nil
            if let a = args, let b = rowArgs, a != b { clash = true }
            if args == nil { args = rowArgs }
            if row.isEncrypted { keyed = true } else { plain = true }
            if row.isEncrypted, rowArgs == nil { clash = true }
        }
        let fileIds = rows.map(\.fileId)
        if clash || (plain && keyed) {
            return .problem(ChatFileOutcome(kind: .conflictingRows, path: relative, fileIds: fileIds,
                                            message: "the rows naming this file disagree about its key (or hold a malformed one); left alone"))
        }
        return .entry(FilesFolderEntry(path: relative, fileIds: fileIds, fileName: rows.first?.fileName, args: args))
    }

    /// The relative paths that more than one row may name, each with the stored spellings to ask
    /// the DB for: paths stored identically in several rows (one SQL pass), and every stored path
    /// that is not already normalised ("./a", "a//b"), which may meet another spelling of itself.
    /// Normally a handful; never a copy of the table.
    struct SharedPaths {
        var storedPaths: [String: [String]] = [:]

        init(_ db: DatabaseConnection) throws {
            var spellings: [String: Set<String>] = [:]
            func add(_ stored: String) {
                guard let relative = ChatFilesTable.safeRelativePath(stored) else { return }
                spellings[relative, default: [relative]].insert(stored)
            }
            for stored in try ChatFilesTable.sharedStoredPaths(in: db) { add(stored) }
            try ChatFilesTable.forEachStoredPath(in: db) { stored in
                guard let stored, !stored.isEmpty, let relative = ChatFilesTable.safeRelativePath(stored), relative != stored else { return }
                add(stored)
            }
            storedPaths = spellings.mapValues { $0.sorted() }
        }
    }

    /// Looks at `relative` inside `folder` through the files-folder classifier's lookup (no symlink
    /// followed on the way). Returns the file's fingerprint, or the outcome that stops work on it.
    static func inspect(_ relative: String, in folder: String) -> Result<FileFingerprint, OutcomeStop> {
        switch FilesFolderLookup.look(relative, in: folder) {
        case .file(let st): .success(FileFingerprint(st))
        case .missing: .failure(OutcomeStop(.missing, "not in the files folder"))
        case .symlink(let last): .failure(OutcomeStop(.symlink, "is a symbolic link (\(last ? "the file" : "a folder on the way")); not followed"))
        case .notRegular: .failure(OutcomeStop(.notRegular, "is not a regular file"))
        }
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
