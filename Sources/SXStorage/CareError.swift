import Foundation
import SXCore

/// Why data-directory care refused or stopped. Each reads as a sentence a user can act on.
public enum CareError: SXError, Equatable {
    /// The folder does not look like a SimpleX data directory: no chat database and no files folder.
    case notADataDirectory(root: String, reason: String)
    /// The chat database is encrypted and no passphrase was given.
    case passphraseNeeded(database: String)
    /// The passphrase does not open the chat database.
    case wrongPassphrase(database: String)
    /// The chat database could not be read for another reason.
    case chatDatabaseUnreadable(database: String, cause: String)
    /// Another process (the app) has a database open.
    case inUse(database: String)
    /// An interrupted passphrase change or archive import still needs its files.
    case interrupted(summary: String, operation: InterruptedOperation)
    /// Orphans are files the chat database does not reference; without it none can be told apart.
    case chatDatabaseMissing(database: String)

    public var description: String {
        switch self {
        case .notADataDirectory(let root, let reason):
            return "'\(root)' does not look like a SimpleX data directory (\(reason)); nothing was touched"
        case .passphraseNeeded(let database):
            return "'\(database)' is encrypted, and its passphrase is needed so that files it references are never removed; nothing was removed"
        case .wrongPassphrase(let database):
            return PassphraseWording.wrong(database) + "; nothing was removed"
        case .chatDatabaseUnreadable(let database, let cause):
            return "cannot read the files table of '\(database)': \(cause); nothing was removed"
        case .inUse(let database):
            return "'\(database)' is open in another program (SimpleX Chat?); quit it and run the command again; nothing was removed"
        case .interrupted(let summary, _):
            return "\(summary); its files are still needed, so it must be settled first; nothing was removed"
        case .chatDatabaseMissing(let database):
            return "'\(database)' does not exist, so orphaned files cannot be told from referenced ones; nothing was removed"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .notADataDirectory: return .chooseDataDirectory
        case .passphraseNeeded: return .givePassphrase
        case .interrupted(_, let operation): return .recover(operation)
        default: return nil
        }
    }
}
