import SXCore

/// Why work on a data directory's files folder stopped before or between groups. Per-file
/// problems are not errors: they are outcomes in the report.
public enum ChatFilesError: SXError, Equatable {
    /// The app (or another sxkit) has the chat database open.
    case databaseInUse(path: String)
    case filesFolderMissing(path: String)
    case journalUnreadable(path: String, cause: String)
    /// A database write failed; `settled` says what was done about the group in flight.
    case databaseWriteFailed(path: String, cause: String)
    case outputFolderUnusable(path: String, cause: String)

    public var description: String {
        switch self {
        case .databaseInUse(let path):
            return "the chat database '\(path)' is in use by another process (the app?); quit it and run the command again. Nothing was changed"
        case .filesFolderMissing(let path):
            return "the files folder '\(path)' does not exist; nothing was changed"
        case .journalUnreadable(let path, let cause):
            return "the files journal '\(path)' of an interrupted run cannot be read (\(cause)); it holds file keys: keep it, and report this"
        case .databaseWriteFailed(let path, let cause):
            return "could not record file keys in '\(path)': \(cause); the files of the group in flight were left as they were"
        case .outputFolderUnusable(let path, let cause):
            return "cannot write decrypted copies into '\(path)': \(cause)"
        }
    }

    public var remedy: Remedy? {
        if case .filesFolderMissing = self { return .chooseFilesFolder }
        return nil
    }
}
