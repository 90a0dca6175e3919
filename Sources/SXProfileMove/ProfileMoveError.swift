import SXCore

/// Why moving a profile stopped before anything was downloaded or changed.
public enum ProfileMoveError: SXError, Equatable {
    /// The destination data directory already holds a profile and replacing it was not asked for.
    case profileExists(root: String, database: String)

    public var description: String {
        switch self {
        case .profileExists(let root, let database):
            return "'\(root)' already holds a profile ('\(Path.basename(database))'); nothing was downloaded"
        }
    }

    public var remedy: Remedy? { .replaceProfile }
}
