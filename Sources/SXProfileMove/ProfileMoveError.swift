import SXCore

/// Why moving a profile stopped before anything in the data directory was changed.
public enum ProfileMoveError: SXError, Equatable {
    /// The destination data directory already holds a profile and replacing it was not asked for.
    case profileExists(root: String, database: String)
    /// The databases have no passphrase: the SimpleX apps migrate only encrypted databases (they ask
    /// for a passphrase before "Migrate to another device" and for it again when importing).
    case databasesUnencrypted(database: String)
    /// The import stopped (`reason`) after the archive was received: the archive stays in the temp
    /// folder, where the same command into the same data directory finds it. Its relays may no
    /// longer hold it (an XFTP server forgets a chunk once its receipt is acknowledged), so without
    /// this copy the profile would have to be sent again.
    case importStoppedArchiveKept(reason: String, remedy: Remedy?, archive: String, root: String)
    /// The archive received was refused for what it holds (`reason`): no rerun imports it. It is
    /// kept, as the one copy of what was sent, for the user to look at or delete.
    case archiveRefusedArchiveKept(reason: String, archive: String)

    public var description: String {
        switch self {
        case .profileExists(let root, let database):
            return "'\(root)' already holds a profile ('\(Path.basename(database))'); nothing was downloaded"
        case .databasesUnencrypted(let database):
            return "'\(Path.basename(database))' is not encrypted (plaintext SQLite), and the SimpleX apps only import a migrated profile whose databases have a passphrase; nothing was exported"
        case .importStoppedArchiveKept(let reason, _, let archive, let root):
            return "\(reason); the archive received is kept as '\(archive)' (its relays may have deleted it once received), "
                + "and the same command into '\(root)' imports it from there without downloading it again"
        case .archiveRefusedArchiveKept(let reason, let archive):
            return "\(reason); the archive received is kept as '\(archive)' (its relays may have deleted it once received), "
                + "but cannot be imported as it is: delete it once you no longer need it"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .profileExists: .replaceProfile
        case .databasesUnencrypted: .setPassphraseOrAllowUnencrypted
        case .importStoppedArchiveKept(_, let remedy, _, _): remedy
        case .archiveRefusedArchiveKept: nil
        }
    }
}
