#if canImport(Glibc)
import Glibc
#endif

/// How a command ended, as the process exit status (DESIGN: Conventions).
public enum ExitStatus: Int32, Sendable {
    /// Everything asked for was done.
    case ok = 0
    /// The command failed; nothing it reports as done was left half-done.
    case failed = 1
    /// The command line was wrong (decided by the command line alone, never by a library).
    case usage = 2
    /// Done, but some items failed (each is named in the output).
    case partial = 3
}

/// An error that reads as a sentence a user can act on. Every module's error type conforms.
/// The sentence (`description`) says what happened and what was left as it was; what the user can
/// do about it is a `Remedy`, which the CLI words with its own flags and commands, so that renaming a
/// flag can never leave a library error naming the old one.
public protocol SXError: Error, CustomStringConvertible, Sendable {
    /// The exit status a command ends with when this error stops it.
    var exitStatus: ExitStatus { get }
    /// What the user can do next, if there is one thing to say.
    var remedy: Remedy? { get }
}

extension SXError {
    public var exitStatus: ExitStatus { .failed }
    public var remedy: Remedy? { nil }
}

/// What a user can do about an error, in the domain's terms.
public enum Remedy: Sendable, Equatable {
    /// Replace the existing output (the user must say so).
    case replaceExisting
    /// Name the right data directory.
    case chooseDataDirectory
    /// Name the data directory, or the files folder of a layout that has none of its own.
    case chooseFilesFolder
    /// Give the current passphrase.
    case givePassphrase
    /// Give the passphrase to set.
    case giveNewPassphrase
    /// Finish or roll back an interrupted operation with its recovery.
    case recover(InterruptedOperation)
    /// Run the same command again (it settles what an earlier run left).
    case runAgain
    /// Allow a relay transfer above the soft size limit, up to the hard one.
    case allowAboveSoftSizeLimit
    /// Raise the limit on decoded image pixels.
    case raisePixelLimit
    /// Listen on another address or port.
    case chooseListenAddress
    /// Import over the profile already there (its databases kept as .bak).
    case replaceProfile
    /// Decrypt one file at a time with explicit key and nonce.
    case decryptOneFile
    /// Set a passphrase on the databases, or send them without one knowingly.
    case setPassphraseOrAllowUnencrypted
}

/// The operations that leave a journal behind when interrupted, each with its own recovery.
public enum InterruptedOperation: String, Sendable, Codable, Equatable {
    case passphraseChange
    case archiveImport

    /// What the operation is called in a sentence.
    public var noun: String {
        switch self {
        case .passphraseChange: "passphrase change"
        case .archiveImport: "archive import"
        }
    }
}

/// A failed system call on a path, carrying the errno so callers can tell "no space left" from
/// "permission denied".
public struct FileSystemError: SXError, Equatable {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var isNoSpace: Bool { code == ENOSPC || code == EDQUOT || code == EFBIG }

    public var description: String {
        let reason = String(cString: strerror(code))
        if isNoSpace {
            return "cannot \(operation) '\(path)': \(reason) — free some space and run the command again; nothing was replaced"
        }
        return "cannot \(operation) '\(path)': \(reason)"
    }
}

/// A request the user made that cannot be carried out as given (a folder that is not empty, a
/// file that is not a regular file). Like every library error it ends a command with 1 ("not
/// done"): only the command line's own parsing decides that the command line is wrong (2).
public struct UsageError: SXError {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
