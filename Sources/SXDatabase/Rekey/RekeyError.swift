import SXCore

/// Why a passphrase change or its recovery stopped. Every case says whether anything changed and
/// what to do next.
public enum RekeyError: SXError, Equatable {
    /// Another process (usually the app) holds a lock on the database.
    case databaseInUse(path: String)
    /// The new passphrase equals the current one.
    case samePassphrase
    /// The disk filled up while writing the new copy of, or the backup beside, `path`.
    case noSpace(path: String, cause: String)
    /// The new copy does not read back like its original.
    case verificationFailed(path: String, detail: String)
    /// A `.bak` from an earlier run is in the way; sxkit never overwrites a backup it did not make.
    case backupExists(path: String)
    /// A step before the swap failed; the originals were never replaced.
    case failedBeforeSwap(cause: String)
    /// The swap started but could not be finished here; the journal lets `db recover` finish it.
    case unfinished(cause: String)
    /// The journal of an interrupted run cannot be read.
    case journalUnreadable(path: String, cause: String)
    /// A database that recovery must replace has WAL frames written after the interrupted run.
    case writtenAfterInterruption(path: String)

    public var description: String {
        switch self {
        case .databaseInUse(let path):
            return "'\(path)' is in use by another program (it is locked): close SimpleX Chat and anything else that has the database open, then run the command again; nothing was changed"
        case .samePassphrase:
            return "the new passphrase is the same as the current one; nothing was changed"
        case .noSpace(let path, let cause):
            return "there is not enough free space for the new copy or backup beside '\(path)' (\(cause)): free some space and run the command again; nothing was changed"
        case .verificationFailed(let path, let detail):
            return "the new copy '\(path)' does not read back like its original (\(detail)); nothing was changed"
        case .backupExists(let path):
            return "'\(path)' already exists (a backup from an earlier run?): move it away or delete it, then run the command again; nothing was changed"
        case .failedBeforeSwap(let cause):
            return "\(cause); nothing was changed"
        case .unfinished(let cause):
            return "the passphrase change stopped while the databases were being replaced (\(cause)); its recovery finishes it"
        case .journalUnreadable(let path, let cause):
            return "the journal of an interrupted passphrase change, '\(path)', cannot be read (\(cause)); nothing was changed"
        case .writtenAfterInterruption(let path):
            return "'\(path)-wal' holds changes written after an interrupted passphrase change, so the database cannot be replaced safely; nothing was changed"
        }
    }

    public var remedy: Remedy? {
        if case .unfinished = self { return .recover(.passphraseChange) }
        return nil
    }
}
