import SXCore

/// A fatal archive problem: nothing was changed (import) or no archive was left behind (export).
/// Each case carries the path or entry and the cause; the sentence is built once, in `description`.
public enum ArchiveFailure: SXError, Equatable {
    /// The file at `path` is no ZIP archive at all.
    case notAZip(path: String, reason: NotAZipReason)
    /// The archive ends before its records do (`detail` says where).
    case truncated(detail: String)
    /// The ZIP structure is inconsistent (`detail` says what was found).
    case damaged(detail: String)
    /// An entry is not a regular file (`kind`: "symbolic link", "device file", "FIFO", "socket", "hard link").
    case entryNotRegular(entry: String, kind: String)
    /// The archive (or one entry) would expand beyond a limit: `detail` says which.
    case zipBomb(detail: String)
    /// libarchive could not open, or go on reading, the archive at `path`.
    case unreadable(path: String, step: ReadStep, cause: String)
    /// libarchive could not write the archive at `path` (`operation`: "write the header of", …).
    case unwritable(path: String, operation: String, cause: String)
    /// The export's output cannot be written as asked.
    case output(path: String, problem: OutputProblem)
    /// A database is open in another program; `settling`: while finishing an interrupted import.
    case databaseInUse(path: String, settling: Bool)
    /// Finishing an interrupted import would overwrite `existing` (one path, or a database and its backup).
    case importBlocked(existing: [String], appMayHaveRun: Bool)
    /// The import journal cannot be read, or names a phase this build does not know.
    case journalUnreadable(path: String, cause: String)
    case journalPhaseUnknown(path: String, phase: String)
    /// The destination already holds a profile (`database` is its chat database's name) and
    /// replacing it was not asked for.
    case profileExists(root: String, database: String)
    /// Every other sentence (the ZIP structure checks, the layout checks): not yet given a case of its own.
    case other(message: String, remedy: Remedy?)

    /// How far libarchive got with an archive it could not read.
    public enum ReadStep: Sendable, Equatable {
        case allocate, open, nextEntry, data
    }

    public enum NotAZipReason: Sendable, Equatable {
        case notARegularFile, empty, noZipSignature
    }

    public enum OutputProblem: Sendable, Equatable {
        case isAFolder, exists, notARegularFile, folderMissing, appearedWhileWriting
    }

    /// A sentence without a case of its own yet.
    public init(_ message: String, remedy: Remedy? = nil) {
        self = .other(message: message, remedy: remedy)
    }

    /// The sentence, as tests and the reader's wrapping quote it.
    public var message: String { description }

    public var description: String {
        switch self {
        case .notAZip(let path, let reason):
            switch reason {
            case .notARegularFile: return "'\(path)' is not a regular file"
            case .empty: return "'\(path)' is empty (0 bytes), not a ZIP archive"
            case .noZipSignature: return "'\(path)' is not a ZIP archive"
            }
        case .truncated(let detail):
            return "the archive is truncated: \(detail)"
        case .damaged(let detail):
            return "\(detail): the archive is damaged"
        case .entryNotRegular(let entry, let kind):
            return "entry '\(entry)' is a \(kind); a chat archive holds only regular files"
        case .zipBomb(let detail):
            return "\(detail); refusing a likely zip bomb"
        case .unreadable(let path, let step, let cause):
            switch step {
            case .allocate: return "libarchive could not allocate a reader"
            case .open: return "cannot read '\(path)' as a ZIP archive: \(cause)"
            case .nextEntry: return "cannot read the next entry of '\(path)': \(cause)"
            case .data: return "cannot read '\(path)': \(cause)"
            }
        case .unwritable(let path, let operation, let cause):
            return "cannot \(operation) '\(path)': \(cause)"
        case .output(let path, let problem):
            switch problem {
            case .isAFolder: return "'\(path)' is a folder; give the archive's file name"
            case .exists: return "'\(path)' already exists; choose another name"
            case .notARegularFile: return "'\(path)' exists and is not a regular file; it will not be replaced"
            case .folderMissing: return "the folder '\(path)' does not exist; create it first"
            case .appearedWhileWriting: return "'\(path)' appeared while the archive was being written; it was left alone and nothing was written"
            }
        case .databaseInUse(let path, let settling):
            return settling
                ? "'\(path)' is open in another program (SimpleX Chat?); close it, then settle the import again"
                : "'\(path)' is open in another program (SimpleX Chat?); close it and run the import again; nothing was changed"
        case .importBlocked(let existing, let appMayHaveRun):
            let found = existing.count == 1
                ? "'\(existing[0])' exists already; move it away"
                : "both " + existing.map { "'\($0)'" }.joined(separator: " and ") + " exist" + (appMayHaveRun ? " (was SimpleX Chat started in between?)" : "") + "; move one away"
            return "cannot finish the import: \(found), then settle the import again"
        case .journalUnreadable(let path, let cause):
            return "the import journal '\(path)' cannot be read (\(cause)); the data directory needs a look by hand"
        case .journalPhaseUnknown(let path, let phase):
            return "the import journal '\(path)' names an unknown phase '\(phase)'"
        case .profileExists(let root, let database):
            return "'\(root)' already holds a profile ('\(database)'); nothing was changed"
        case .other(let message, _):
            return message
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .output(_, .exists): .replaceExisting
        case .databaseInUse(_, true), .importBlocked: .recover(.archiveImport)
        case .profileExists: .replaceProfile
        case .other(_, let remedy): remedy
        default: nil
        }
    }
}
