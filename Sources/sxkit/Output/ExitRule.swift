import ArgumentParser
import SXCore

/// The one rule for the exit status of every command (README, "Exit status"; man pages, EXIT STATUS):
///
/// - 0: everything asked for was done.
/// - 1: not done. The command failed, found nothing it could work on, was refused by what it found
///   on disk (a missing or unreadable input, a file that is not a regular file, a wrong
///   passphrase, a data directory that is not one), or was not confirmed at a prompt.
/// - 2: the command line itself is wrong: an unknown option or command, a missing or contradicting
///   option, an option value that cannot be parsed. Nothing on disk was looked at.
/// - 3: done, but some items failed, each named. Only when at least one item was done: when none
///   was, the status is 1.
enum ExitRule {
    /// The status of a command that works on several items, from how many were done and how many
    /// failed (items skipped as already in the state asked for count as neither).
    static func items(done: Int, failed: Int) -> ExitStatus {
        if failed == 0 { return .ok }
        return done > 0 ? .partial : .failed
    }

    /// The status of a command that did its one piece of work (an archive written, a profile sent)
    /// but reported some non-fatal errors: 3 when there are any.
    static func done(withErrors errors: Int) -> ExitStatus {
        errors > 0 ? .partial : .ok
    }

    /// The status an error ends a command with. Errors from below the command line are never 2:
    /// the libraries know nothing of the command line, so what they refuse is "not done".
    static func status(for error: any Error) -> ExitStatus {
        switch error {
        case let failure as CommandFailure: failure.status
        case is CommandLineError: .usage
        case let error as any SXError: error.exitStatus
        default: .failed
        }
    }
}

/// The command line, as given, cannot be carried out: an option is missing, or the options
/// contradict each other (exit 2). What is found on disk is never this: it is exit 1.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A prompt was answered "no" (or not answered): nothing was done, exit 1.
struct NotConfirmed: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
