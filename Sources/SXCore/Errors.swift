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
public protocol SXError: Error, CustomStringConvertible, Sendable {
    /// The exit status a command ends with when this error stops it.
    var exitStatus: ExitStatus { get }
}

extension SXError {
    public var exitStatus: ExitStatus { .failed }
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
