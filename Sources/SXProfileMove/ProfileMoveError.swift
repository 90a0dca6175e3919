import SXCore

/// Why moving a profile stopped before anything was downloaded or changed.
public enum ProfileMoveError: SXError, Equatable {
    /// The destination data directory already holds a profile and replacing it was not asked for.
    case profileExists(root: String, database: String)
    /// The databases have no passphrase: the SimpleX apps migrate only encrypted databases (they ask
    /// for a passphrase before "Migrate to another device" and for it again when importing).
    case databasesUnencrypted(database: String)

    public var description: String {
        switch self {
        case .profileExists(let root, let database):
            return "'\(root)' already holds a profile ('\(Path.basename(database))'); nothing was downloaded"
        case .databasesUnencrypted(let database):
            return "'\(Path.basename(database))' is not encrypted (plaintext SQLite), and the SimpleX apps only import a migrated profile whose databases have a passphrase; nothing was exported"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .profileExists: .replaceProfile
        case .databasesUnencrypted: .setPassphraseOrAllowUnencrypted
        }
    }
}
